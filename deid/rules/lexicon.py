"""Words the recognizers share: month names, number words, unit words, per language."""

from __future__ import annotations

MONTHS: dict[str, tuple[str, ...]] = {
    "fr": (
        "janvier", "février", "fevrier", "mars", "avril", "mai", "juin", "juillet", "août", "aout",
        "septembre", "octobre", "novembre", "décembre", "decembre",
        "janv", "févr", "fév", "fevr", "fev", "avr", "juil", "sept", "sep", "oct", "nov", "déc", "dec",
    ),
    "es": (
        "enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre",
        "setiembre", "octubre", "noviembre", "diciembre",
        "ene", "feb", "mar", "abr", "jun", "jul", "ago", "sep", "sept", "oct", "nov", "dic",
    ),
    "en": (
        "january", "february", "march", "april", "may", "june", "july", "august", "september",
        "october", "november", "december",
        "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    ),
}

# Full month names only: safe to flag alone in a date context ("en marzo", "in March").
FULL_MONTHS: dict[str, tuple[str, ...]] = {
    lang: tuple(m for m in names if len(m) > 4 or m in {"mars", "mai", "juin", "aout", "août", "mayo",
                                                         "may", "june", "july", "enero", "abril",
                                                         "junio", "julio", "marzo"})
    for lang, names in MONTHS.items()
}

NUMBER_WORDS: dict[str, tuple[str, ...]] = {
    "fr": (
        "un", "une", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf", "dix", "onze",
        "douze", "treize", "quatorze", "quinze", "seize", "dix-sept", "dix-huit", "dix-neuf", "vingt",
        "trente", "quarante", "cinquante", "soixante", "soixante-dix", "quatre-vingt", "quatre-vingts",
        "quatre-vingt-dix", "cent", "quelques", "plusieurs",
    ),
    "es": (
        "un", "una", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez",
        "once", "doce", "trece", "catorce", "quince", "dieciséis", "dieciseis", "diecisiete",
        "dieciocho", "diecinueve", "veinte", "veintiuno", "veintidós", "veintidos", "veintitrés",
        "veintitres", "veinticuatro", "veinticinco", "veintiséis", "veintiseis", "veintisiete",
        "veintiocho", "veintinueve", "treinta", "cuarenta", "cincuenta", "sesenta", "setenta",
        "ochenta", "noventa", "cien", "unos", "unas", "varios", "varias",
    ),
    "en": (
        "a", "an", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
        "nineteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
        "hundred", "several", "few", "a few",
    ),
}


def alternation(words: tuple[str, ...] | list[str]) -> str:
    """A regex alternation, longest first so that "septembre" is tried before "sept"."""
    import re

    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


def month_regex(language: str, full_only: bool = False) -> str:
    """Month names of ``language``; an abbreviation may take a dot ("févr.", "Feb.")."""
    full = [m for m in MONTHS[language] if m in FULL_MONTHS[language] or len(m) > 4]
    abbr = [m for m in MONTHS[language] if m not in full]
    if full_only:
        return rf"(?:(?:{alternation(FULL_MONTHS[language])})\b)"
    return rf"(?:(?:{alternation(full)})\b|(?:{alternation(abbr)})\b\.?)"


def number_phrase(language: str) -> str:
    """A cardinal in digits or words, including compounds like "treinta y dos", "vingt-deux"."""
    word = alternation(NUMBER_WORDS[language])
    joiner = {"fr": r"(?:[- ]et[- ]|-| )", "es": r" y ", "en": r"(?:-| )"}[language]
    return rf"(?:\d{{1,3}}(?:[.,]\d)?|(?:{word})(?:{joiner}(?:{word}))?)"
