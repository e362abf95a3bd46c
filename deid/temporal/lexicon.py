"""Month names, weekday names, unit words and written numbers of FR / ES / EN."""

from __future__ import annotations

import unicodedata
from functools import cache

from deid.temporal import numbers

MONTHS: dict[str, tuple[str, ...]] = {
    "fr": ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre",
           "octobre", "novembre", "décembre"),
    "es": ("enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre",
           "octubre", "noviembre", "diciembre"),
    "en": ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December"),
}

# Abbreviated month names, per month: the first is the one written back ("13 janv. 2024" of a
# surrogate February reads "13 févr. 2024"); a short name that is its own abbreviation ("mars",
# "mai", "May") is written without a period. French "sept" is also the number seven: a written
# number is read as an amount before a month is tried ("sept jours").
MONTH_ABBREVIATIONS: dict[str, tuple[tuple[str, ...], ...]] = {
    "fr": (("janv", "jan"), ("févr", "fév"), ("mars",), ("avr",), ("mai",), ("juin",), ("juil",),
           ("août",), ("sept", "sep"), ("oct",), ("nov",), ("déc",)),
    "es": (("ene",), ("feb",), ("mar",), ("abr",), ("may",), ("jun",), ("jul",), ("ago",),
           ("sept", "sep", "set"), ("oct",), ("nov",), ("dic",)),
    "en": (("Jan",), ("Feb",), ("Mar",), ("Apr",), ("May",), ("Jun",), ("Jul",), ("Aug",), ("Sep", "Sept"),
           ("Oct",), ("Nov",), ("Dec",)),
}

WEEKDAYS: dict[str, tuple[str, ...]] = {  # Monday first, as date.weekday() counts
    "fr": ("lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"),
    "es": ("lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"),
    "en": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
}
# Abbreviated weekdays, per weekday, the first written back ("Jeu, 17 avr. 2025"). Read only
# beside a date: alone, "mar" and "sun" are other words.
WEEKDAY_ABBREVIATIONS: dict[str, tuple[tuple[str, ...], ...]] = {
    "fr": (("lun",), ("mar",), ("mer",), ("jeu",), ("ven",), ("sam",), ("dim",)),
    "es": (("lun",), ("mar",), ("mié", "mie"), ("jue",), ("vie",), ("sáb", "sab"), ("dom",)),
    "en": (("Mon",), ("Tue", "Tues"), ("Wed", "Weds"), ("Thu", "Thur", "Thurs"), ("Fri",), ("Sat",),
           ("Sun",)),
}
# Words that put a weekday or a month after the note's date ("next Tuesday"); the default is before.
FUTURE_WORDS = {"prochain", "prochaine", "proximo", "proxima", "next", "que viene", "qui vient"}

# unit -> list of (singular, plural) word families, per language
UNIT_WORDS: dict[str, dict[str, tuple[tuple[str, str], ...]]] = {
    "fr": {
        "day": (("jour", "jours"),),
        "week": (("semaine", "semaines"),),
        "month": (("mois", "mois"),),
        "year": (("an", "ans"), ("année", "années")),
    },
    "es": {
        "day": (("día", "días"),),
        "week": (("semana", "semanas"),),
        "month": (("mes", "meses"),),
        "year": (("año", "años"),),
    },
    "en": {
        "day": (("day", "days"),),
        "week": (("week", "weeks"),),
        "month": (("month", "months"),),
        "year": (("year", "years"),),
    },
}

# Written numbers 1..20 (index = value); "one" has a feminine form in FR/ES chosen by the unit word.
NUMBERS: dict[str, tuple[str, ...]] = {
    "fr": ("zéro", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf", "dix", "onze",
           "douze", "treize", "quatorze", "quinze", "seize", "dix-sept", "dix-huit", "dix-neuf", "vingt"),
    "es": ("cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez", "once",
           "doce", "trece", "catorce", "quince", "dieciséis", "diecisiete", "dieciocho", "diecinueve",
           "veinte"),
    "en": ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
           "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
           "twenty"),
}
ONE_FEMININE = {"fr": "une", "es": "una"}
FEMININE_UNITS = {"semaine", "année", "semana"}
ONE_APOCOPE_ES = "un"  # "un año", "un mes"


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()


# Other spellings of a full month name, written back as the name of ``MONTHS`` ("setiembre").
MONTH_VARIANTS: dict[str, dict[str, int]] = {"fr": {}, "es": {"setiembre": 9}, "en": {}}


@cache
def _short_forms(lang: str) -> dict[str, int]:
    """Folded abbreviation or variant spelling -> month (1..12)."""
    out = {fold(f): i for i, forms in enumerate(MONTH_ABBREVIATIONS[lang], start=1) for f in forms}
    return {**out, **{fold(w): i for w, i in MONTH_VARIANTS[lang].items()}}


def month_index(lang: str, word: str) -> int | None:
    """1..12 for a full or abbreviated (>= 3 letters) month name of ``lang``."""
    w = fold(word).rstrip(".")
    found = _short_forms(lang).get(w)  # before prefixes: Spanish "set" is no prefix of "septiembre"
    if found is not None:
        return found
    for i, name in enumerate(MONTHS[lang], start=1):
        f = fold(name)
        if w == f or (len(w) >= 3 and f.startswith(w) and w != "ma"):
            return i
    return None


def is_abbreviation(lang: str, word: str) -> bool:
    """Whether ``word`` is a month written shorter than its full name ("janv", "Sept", not "mai",
    not the variant spelling "setiembre")."""
    i = month_index(lang, word)
    w = fold(word).rstrip(".")
    return i is not None and w != fold(MONTHS[lang][i - 1]) and w not in MONTH_VARIANTS[lang]


def month_abbreviation(lang: str, month: int) -> tuple[str, bool]:
    """The abbreviation written back for ``month`` (1..12) and whether it is shorter than the name."""
    abbr = MONTH_ABBREVIATIONS[lang][month - 1][0]
    return abbr, fold(abbr) != fold(MONTHS[lang][month - 1])


def number_value(lang: str, word: str) -> int | None:
    """A number in digits or written out whole ("soixante-huit", "setenta y cinco"; an article
    "une", "a" is 1), or None."""
    w = fold(word)
    if w.isdigit():
        return int(w)
    if w in {"une", "una", "un", "a", "an"} or (lang == "en" and w == "one"):
        return 1
    return numbers.read(lang, w)


def weekday_of(lang: str, word: str) -> int | None:
    """0 (Monday) .. 6 for a weekday name or its abbreviation (with or without a period)."""
    w = fold(word).rstrip(".")
    for i, name in enumerate(WEEKDAYS[lang]):
        if w == fold(name) or w in {fold(a) for a in WEEKDAY_ABBREVIATIONS[lang][i]}:
            return i
    return None


@cache
def date_words(lang: str) -> frozenset[str]:
    """Folded words that say something of a date or a number: month and weekday names and their
    abbreviations, written-out numbers. None may be copied out of a mention unread."""
    months = {fold(m) for m in MONTHS[lang]} | {fold(a) for forms in MONTH_ABBREVIATIONS[lang] for a in forms}
    months |= {fold(v) for v in MONTH_VARIANTS[lang]}
    days = {fold(d) for d in WEEKDAYS[lang]}
    days |= {fold(a) for forms in WEEKDAY_ABBREVIATIONS[lang] for a in forms}
    return frozenset(months | days | (numbers.words(lang) - {"un", "une", "una", "a", "an"}))


def unit_of(lang: str, word: str) -> tuple[str, tuple[str, str]] | None:
    w = fold(word)
    for unit, families in UNIT_WORDS[lang].items():
        for sg, pl in families:
            if w in (fold(sg), fold(pl)):
                return unit, (sg, pl)
    return None
