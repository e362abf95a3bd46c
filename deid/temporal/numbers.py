"""Written-out whole numbers of FR / ES / EN, 0 to 999: read ("soixante-huit", "quatre-vingt-dix-sept",
"setenta y cinco", "one hundred and one") and written back in the same language.

Ages and day numbers are written in words in clinical notes; a parser that knows only 0-20 reads
"soixante-huit" as "huit" and copies "soixante-" out unchanged. Every spelling is generated from
the languages' rules (with the Belgian and Swiss "septante", "huitante", "octante", "nonante",
the 1990 French hyphens "vingt-et-un", and English with or without "and"), so a number is read
whole or not at all. Reading folds accents and case, treats hyphens as spaces and ignores the
joining words ("et", "y", "and").
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

_EN_ONES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
            "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_EN_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_FR_ONES = ("zéro", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf", "dix", "onze",
            "douze", "treize", "quatorze", "quinze", "seize", "dix-sept", "dix-huit", "dix-neuf")
_FR_TENS = ("", "", "vingt", "trente", "quarante", "cinquante", "soixante")
_ES_ONES = ("cero", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez", "once",
            "doce", "trece", "catorce", "quince", "dieciséis", "diecisiete", "dieciocho", "diecinueve",
            "veinte", "veintiuno", "veintidós", "veintitrés", "veinticuatro", "veinticinco", "veintiséis",
            "veintisiete", "veintiocho", "veintinueve")
_ES_TENS = ("", "", "", "treinta", "cuarenta", "cincuenta", "sesenta", "setenta", "ochenta", "noventa")
_ES_HUNDREDS = ("", "ciento", "doscientos", "trescientos", "cuatrocientos", "quinientos", "seiscientos",
                "setecientos", "ochocientos", "novecientos")
_JOINERS = frozenset({"et", "y", "and"})
LIMIT = 1000  # numbers are read and written below this


def _en(n: int) -> list[str]:
    if n < 20:
        return [_EN_ONES[n]]
    if n < 100:
        tens, unit = divmod(n, 10)
        return [_EN_TENS[tens] + (f"-{_EN_ONES[unit]}" if unit else "")]
    hundreds, rest = divmod(n, 100)
    head = f"{_EN_ONES[hundreds]} hundred"
    if not rest:
        return [head, *(["a hundred"] if hundreds == 1 else [])]
    return [f"{head} and {r}" for r in _en(rest)] + [f"{head} {r}" for r in _en(rest)]


def _fr_below_100(n: int) -> list[str]:
    """The standard spelling first, then regional ones (septante, huitante, octante, nonante)."""
    if n < 20:
        return [_FR_ONES[n]]
    tens, unit = divmod(n, 10)
    if n < 70:
        joined = " et un" if unit == 1 else (f"-{_FR_ONES[unit]}" if unit else "")
        return [_FR_TENS[tens] + joined]
    regional = {7: "septante", 8: "huitante", 9: "nonante"}[tens]
    alt = [regional + (" et un" if unit == 1 else (f"-{_FR_ONES[unit]}" if unit else ""))]
    if tens == 8:
        alt.append("octante" + (" et un" if unit == 1 else (f"-{_FR_ONES[unit]}" if unit else "")))
    if tens == 7:
        std = "soixante et onze" if unit == 1 else f"soixante-{_FR_ONES[10 + unit]}"
    elif tens == 8:
        std = "quatre-vingts" if unit == 0 else f"quatre-vingt-{_FR_ONES[unit]}"
    else:
        std = f"quatre-vingt-{_FR_ONES[10 + unit]}"
    return [std, *alt]


def _fr(n: int) -> list[str]:
    if n < 100:
        return _fr_below_100(n)
    hundreds, rest = divmod(n, 100)
    head = "cent" if hundreds == 1 else f"{_FR_ONES[hundreds]} cent"
    if not rest:
        return [head + ("s" if hundreds > 1 else "")]
    return [f"{head} {r}" for r in _fr_below_100(rest)]


def _es_below_100(n: int) -> list[str]:
    if n < 30:
        return [_ES_ONES[n]]
    tens, unit = divmod(n, 10)
    return [_ES_TENS[tens] + (f" y {_ES_ONES[unit]}" if unit else "")]


def _es(n: int) -> list[str]:
    if n < 100:
        return _es_below_100(n)
    hundreds, rest = divmod(n, 100)
    if not rest:
        return ["cien" if hundreds == 1 else _ES_HUNDREDS[hundreds]]
    return [f"{_ES_HUNDREDS[hundreds]} {r}" for r in _es_below_100(rest)]


_SPELL = {"en": _en, "fr": _fr, "es": _es}


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()


def _normal(lang: str, text: str) -> str:
    """One form per number: folded, hyphens as spaces, joining words dropped, plural and gender
    marks of "vingts", "cents", "une", "una", "veintiún" undone."""
    words = [w for w in re.split(r"[\s\-]+", _fold(text).strip()) if w and w not in _JOINERS]
    out: list[str] = []
    for i, w in enumerate(words):
        if lang == "fr":
            w = {"vingts": "vingt", "une": "un"}.get(w, w)
            if w.endswith("cents"):
                w = w[:-1]
        elif lang == "es":
            w = {"un": "uno", "una": "uno", "veintiun": "veintiuno", "veintiuna": "veintiuno"}.get(w, w)
        elif lang == "en" and w in ("a", "an") and i + 1 < len(words) and words[i + 1] == "hundred":
            w = "one"
        out.append(w)
    return " ".join(out)


@cache
def _table(lang: str) -> dict[str, int]:
    return {_normal(lang, form): n for n in range(LIMIT) for form in _SPELL[lang](n)}


def read(lang: str, text: str) -> int | None:
    """The value of a written-out number (or of digits), or None when it is not one whole number."""
    s = text.strip()
    if s.isdigit():
        return int(s)
    if lang not in _SPELL:
        return None
    return _table(lang).get(_normal(lang, s))


def spell(lang: str, n: int) -> str:
    """``n`` written out in ``lang`` (the standard spelling), or in digits beyond ``LIMIT``."""
    if lang not in _SPELL or not 0 <= n < LIMIT:
        return str(n)
    return _SPELL[lang](n)[0]


@cache
def words(lang: str) -> frozenset[str]:
    """Every folded word that is part of a written-out number of ``lang`` (joining words excluded)."""
    out: set[str] = set()
    for n in range(LIMIT):
        for form in _SPELL[lang](n):
            out.update(w for w in re.split(r"[\s\-]+", _fold(form)) if w and w not in _JOINERS)
    extra = {"fr": {"une", "vingts"}, "es": {"un", "una", "veintiun", "veintiuna"}, "en": set()}[lang]
    return frozenset(out | extra)


def pattern(lang: str) -> str:
    """A regular expression for one written-out number of ``lang`` (read it with ``read``)."""
    forms = {w for n in range(LIMIT) for form in _SPELL[lang](n) for w in re.split(r"[\s\-]+", form)}
    atoms = (forms | words(lang)) - _JOINERS - {"", "a"}  # English "a" alone is an article
    alt = "|".join(re.escape(w) for w in sorted(atoms, key=len, reverse=True))
    joiner = {"fr": r"(?:et[\s\-]+)?", "es": r"(?:y\s+)?", "en": r"(?:and\s+)?"}[lang]
    return rf"(?:{alt})(?:[\s\-]+{joiner}(?:{alt}))*"


_EN_ORDINAL_ONES = ("", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
                    "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
                    "seventeenth", "eighteenth", "nineteenth")
_DAY_ONE = {"fr": "premier", "es": "primero"}


def spell_day(lang: str, day: int) -> str:
    """A day of the month written out as the language writes it: "premier", "primero", "trois",
    "tres"; English in ordinals ("third", "twenty-first")."""
    if lang == "en":
        if day < 20:
            return _EN_ORDINAL_ONES[day]
        tens, unit = divmod(day, 10)
        if not unit:
            return _EN_TENS[tens][:-1] + "ieth"
        return f"{_EN_TENS[tens]}-{_EN_ORDINAL_ONES[unit]}"
    return _DAY_ONE[lang] if day == 1 and lang in _DAY_ONE else spell(lang, day)


@cache
def day_words(lang: str) -> dict[str, int]:
    """Folded written day numbers (1..31) of ``lang`` -> their value."""
    return {_normal(lang, spell_day(lang, d)): d for d in range(1, 32)} | (
        {} if lang == "en" else {_normal(lang, spell(lang, 1)): 1})


def read_day(lang: str, text: str) -> int | None:
    s = text.strip()
    if s.isdigit():
        return int(s)
    return day_words(lang).get(_normal(lang, s))


def day_pattern(lang: str) -> str:
    """A regular expression for a written day number of ``lang`` (read it with ``read_day``)."""
    forms = {spell_day(lang, d) for d in range(1, 32)} | {_fold(spell_day(lang, d)) for d in range(1, 32)}
    forms |= {"un"} if lang == "fr" else ({"uno"} if lang == "es" else set())
    return "|".join(re.escape(f).replace(r"\-", r"[\s\-]+").replace(r"\ ", r"[\s\-]+")
                    for f in sorted(forms, key=len, reverse=True))
