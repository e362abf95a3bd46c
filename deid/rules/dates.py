"""Dates (numeric and written, FR/ES/EN) and relative temporal expressions ("il y a 10 ans").

Span conventions follow MEDDOCAN and eds-pseudo: the date itself, without the article or the
preposition ("le 3 mars" -> "3 mars", "en 2003" -> "2003"), but Spanish "año 2004" and "enero del
año 2003" keep "año" (MEDDOCAN annotates it). Bare years are flagged only after a temporal word.
"""

from __future__ import annotations

import re
from typing import ClassVar

from deid.labels import Label
from deid.rules.base import ANY, Patterns, RegexRecognizer
from deid.rules.lexicon import MONTHS, alternation, month_regex, number_phrase
from deid.rules.names import fold
from deid.rules.registry import register
from deid.temporal.lexicon import WEEKDAY_ABBREVIATIONS, WEEKDAYS

_I = re.IGNORECASE
_NOT_BEFORE = r"(?<![\w/.\-])"
_NOT_AFTER = r"(?![\w/]|[.\-]\d)"
_YEAR4 = r"(?:1[89]|20)\d{2}(?!\d)"
_MONTH = {lang: month_regex(lang) for lang in MONTHS}
_GLUED_MONTH = {lang: alternation(names) for lang, names in MONTHS.items()}  # no \b, no dot
# An optional weekday before a written date is part of it ("MAR 8 JUILLET 2025", "Jeu, 17 Avr 2098").
_WEEKDAY = {
    "fr": r"(?:(?:lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche|lun|mar|mer|jeu|ven|sam|dim)\.?,?\s+)?",
    "es": r"(?:(?:lunes|martes|miércoles|miercoles|jueves|viernes|sábado|sabado|domingo),?\s+)?",
    "en": r"(?:(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|tues|wed|thu|thur|thurs|"
          r"fri|"
          r"sat|sun)\.?,?\s+)?",
}
_FULL_MONTH = {lang: month_regex(lang, full_only=True) for lang in MONTHS}


# A weekday, written whole or abbreviated, then the day of the month (and its month): an entry's date
# in a nursing log or a visit's ("jue 11 —", "lun 22/1", "mer 03/07 7h50", "Thurs 4/18 @ 10:15",
# "viernes 19"). In small letters or capitalised only ("MAR" is an anaesthetist, "MON" monocytes);
# never before a percentage, a clock, a range, a unit or a count ("Sat 94%", "Fri 9 AM", "Sat 10-2",
# "lun 8h30", "Sun 2 hours", "MAR 2 fois", "Mar 3 años").
_DAY = r"(?:3[01]|[12]\d|0?[1-9])"


_LISTED_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?!\d)"


def _listed_days(day: str, conjunction: str, month: str) -> re.Pattern[str]:
    """Each day of a list that ends with the month they share ("13, 20 et 27 février"): the month
    dates them all; the last day is the ordinary "27 février". On one line, a blank after each
    comma ("INR 2,5 et 3 mars" is a decimal), up to seven days a list, so that a run of numbers is
    read in linear time."""
    return re.compile(rf"(?<![\w/.,])(?P<phi>{day})(?=(?:[ \t]*,[ \t]+(?:{day})){{0,6}},?[ \t]+"
                      rf"(?:{conjunction})[ \t]+(?:{day})[ \t]+(?:{month})(?![\w]))", _I)


def _range_first_day(day: str, connector: str, month: str) -> re.Pattern[str]:
    """The first day of a range whose second day carries the month ("13-31 May 2024", "3–7 mars",
    "del 13 al 31 de mayo"): the month dates both; the second day is the ordinary "31 May"."""
    return re.compile(rf"(?<![\w/.,:\-])(?P<phi>{day})(?=[ \t]*+(?:{connector})[ \t]*+(?:{day})[ \t]+"
                      rf"(?:{month})(?![\w]))", _I)


def _weekday_day(language: str) -> re.Pattern[str]:
    names = {n.lower() for n in WEEKDAYS[language]}
    short = {a for forms in WEEKDAY_ABBREVIATIONS[language] for a in forms}
    if language != "en":  # English abbreviations as the lexicon writes them only ("Sat in chair")
        names |= {a.lower() for a in short}
        short = set()
    names |= {fold(n) for n in names}  # "miercoles", "sabado" written without their accents
    longest_first = sorted(names, key=len, reverse=True)
    words = "|".join([*(f"[{n[0]}{n[0].upper()}]{re.escape(n[1:])}" for n in longest_first),
                      *sorted(short, key=len, reverse=True)])
    return re.compile(r"\b(?:" + words + r")\.?,?[ \t]++" + _DAY + r"(?:/" + _DAY + r"(?:/\d{2,4})?)?"
                      r"(?![\d/:%]|[.,]\d|[-–]\d|h\d|[ \t]*+(?i:%|mg|ml|am\b|pm\b|a\.m|p\.m|h\b|hours?\b|"
                      r"hrs?\b|horas?\b|heures?\b|min|to\b|fois\b|veces\b|times\b|a[ñn]os\b|ans\b|a\.|meses\b|"
                      r"mois\b|years?\b|yrs?\b))")


def _numeric_ok(a: int, b: int) -> bool:
    """Day/month or month/day (US order, or a slip in a European note) within range."""
    return (1 <= a <= 31 and 1 <= b <= 12) or (1 <= a <= 12 and 1 <= b <= 31)


_PROPER_NAME_BEFORE = re.compile(r"\b(?:hospital(?:\s+universitario)?|h\.\s*u\.|calle|c/|avenida|avda\.?|"
                                 r"plaza|rue|avenue|boulevard|place|street|clínica|centro)\s*$", _I)


# Scores written like dates: "Apgar 9/10/10", "EVA 7/10", "score de Glasgow 15/15".
# Only a match without a four-digit year can be a score ("Score 12/03/2020" is a date); "EVA" is
# the pain scale in capitals, "Eva" a first name.
SCORE_BEFORE = re.compile(
    r"(?:\b(?i:apgar|score(?:\s+de\s+\w+)?|glasgow|cot[ée]e?\s+à|évaluée?\s+à)|\b(?P<eva>EVA))\s*:?\s*$"
)
# What a score itself looks like: a mark out of a scale's maximum ("7/10", "15/15", "18/20") or
# a score's parts ("Apgar 9/10/10", "Glasgow 15/10/12"). After "EVA", which is also a first name
# in capitals ("DUPONT EVA 12/03/15", a birth date), only marks out of 10 are ("7/10", "7/10/10");
# a date whose day, month and year are all 10 or less ("EVA 01/03/10") is read as a score there.
_SCORE_SHAPE = re.compile(r"(?P<a>\d{1,3})\s?/\s?(?P<b>\d{1,3})(?:\s?/\s?(?P<c>\d{1,2}))?")
_SCALE_MAXIMA = (10, 15, 20, 30, 100)


def is_score(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is written like a score and follows a score's name."""
    m = _SCORE_SHAPE.fullmatch(text, start, end)
    before = SCORE_BEFORE.search(text, max(0, start - 30), start) if m is not None else None
    if m is None or before is None:
        return False
    a, b = int(m["a"]), int(m["b"])
    if before["eva"]:  # marks out of 10 only
        return max(a, b, int(m["c"] or 0)) <= 10 and (m["c"] is not None or b == 10)
    if m["c"] is not None:
        return max(a, b, int(m["c"])) <= 20
    return b in _SCALE_MAXIMA and a <= b


# A date its own field or verb calls a birth date, in every language: substitution protects a
# birth date at the scale of years and derives ages from it, so a birth date read as a plain date
# would come out moved by a few days. MEDDOCAN's gold calls it FECHAS like any date; the official
# export writes BIRTH_DATE as FECHAS too (``deid.lab.corpora.mapping``), so its scores do not move.
_BIRTH_BEFORE = re.compile(
    r"(?:\bn[ée]e?\s+le|\bdate\s+de\s+naissance|\bDDN|\bdate\s+of\s+birth|\bbirth\s*date|\bDOB|\bD\.O\.B\."
    r"|\bborn(?:\s+on)?|\bnaissance|\bfecha\s+(?:de\s+)?nacimiento|\bf\.\s*(?:de\s+)?nac(?:imiento|\.)?"
    r"|\bnacid[oa]\s+el|\bnacimiento)\s*:?\s*(?:le\s+|el\s+)?$", _I)


def birth_cue_before(text: str, start: int) -> bool:
    """The words just before ``start``, on its line, name a birth date ("Fecha de nacimiento:",
    "née le", "DOB:")."""
    line = text.rfind("\n", max(0, start - 40), start) + 1 or max(0, start - 40)
    return _BIRTH_BEFORE.search(text, line, start) is not None


@register("date", priority=50)
class DateRecognizer(RegexRecognizer):
    name = "date"
    label = Label.DATE
    patterns: ClassVar[Patterns] = {
        ANY: (
            # 12/02/2020, 12.02.20, 12-02-2020, 5/4/2017
            re.compile(_NOT_BEFORE + r"(?P<d>\d{1,2})(?P<s>[/.\-])(?P<m>\d{1,2})(?P=s)\s?(?P<y>\d{4}|\d{2})"
                       + _NOT_AFTER),
            # 2020-02-26, 2020/02/26
            re.compile(_NOT_BEFORE + r"(?P<y>" + _YEAR4 + r")(?P<s>[/\-.])(?P<m>\d{1,2})(?P=s)(?P<d>\d{1,2})"
                       + _NOT_AFTER),
            # 02/2020
            re.compile(_NOT_BEFORE + r"(?P<m>0?[1-9]|1[0-2])[/\-](?P<y>" + _YEAR4 + r")" + _NOT_AFTER),
            # a labelled date field keeps even a mistyped value: "Fecha de ingreso: 20/11//2014"
            re.compile(r"\b(?:fecha(?:\s+de(?:l)?\s+[\wáéíóú]+)?|date(?:\s+(?:de|d'|du|of)\s*[\wéè]+)?|"
                       r"n[ée]e?\s+le|DOB|D\.O\.B\.)\s*:\s*(?P<phi>\d[\d/.\- ]{2,12}\d)(?![\w/:])", _I),
            # (1938), et al. 1993, Lindstrom & Martelin 1980 (a cited year is a date in MEDDOCAN)
            re.compile(r"\((?P<phi>" + _YEAR4 + r")\)"),
            re.compile(r"\bet\s+al\.?,?\s*\(?(?P<phi>" + _YEAR4 + r")"),
            re.compile(r"\b[A-Z][a-z]+\s+(?:&|and|y|et)\s+[A-Z][a-z]+,?\s+\(?(?P<phi>" + _YEAR4 + r")"),
            # the second year of "1980 a 1983", "2000 y 2004", "2010-2012"
            re.compile(r"(?<!\d)" + _YEAR4 + r"\s*(?:a|y|al|et|and|to|-|–|/)\s*(?P<phi>" + _YEAR4 + r")"),
        ),
        "fr": (
            # 26 février 2020, 1er janvier 2019, (le) 3 mars, lundi 3 mars 2020
            re.compile(r"\b" + _WEEKDAY["fr"] + r"(?:1er|[0-3]?\d)(?:\s+|-)(?:" + _MONTH["fr"]
                       + r")(?:(?:\s+|-)(?:"
                       + _YEAR4 + r"|'?\d{2}\b(?![\s,]*\w)))?", _I),
            re.compile(r"\b" + _WEEKDAY["fr"] + r"(?:1er|[0-3]?\d)(?:\s+|-)(?:" + _MONTH["fr"] + r")(?:\s+|-)"
                       + _YEAR4
                       + r"\b", _I),
            # février 2020, fév. 2020, décembre 93
            re.compile(r"\b(?:" + _MONTH["fr"] + r")(?:\s+|-|/)(?:" + _YEAR4 + r")", _I),
            re.compile(r"\b(?:" + _FULL_MONTH["fr"] + r")\s+'?\d{2}\b(?![,.]?\d|\s*(?:%|mg|ml|ans|jours|mois|"
                       r"semaines|heures|h\b|patients|cas))", _I),
            # 21 novembre, 2012
            re.compile(r"\b(?:1er|[0-3]?\d)\s+(?:" + _MONTH["fr"] + r"),\s*" + _YEAR4, _I),
            # glued forms of typed notes: 05nov, 23avr, 01sep2018, dec1993
            re.compile(r"\b[0-3]?\d(?:" + _GLUED_MONTH["fr"] + r")(?:" + _YEAR4 + r"|(?![\w]))", _I),
            re.compile(r"\b(?:" + _GLUED_MONTH["fr"] + r")" + _YEAR4, _I),
            # digit-by-digit "1 2 0 6 2 0 8 1" and compact "23022018" (ddmmyyyy, checked)
            re.compile(r"(?<!\d )(?<![\w])(?P<d>\d ?\d)(?P<s> - | |/| / )(?P<m>\d ?\d)(?:(?P=s)| ?)"
                       r"(?P<y>(?:1 ?9|2 ?0) ?\d ?\d)(?! ?\d)"),
            re.compile(r"(?<!\d )(?<![\w])(?P<d>\d \d) (?P<m>\d \d) (?P<y>\d \d)(?! ?\w)"),
            re.compile(r"\b(?:le|du|au|depuis\s+le|jusqu'au)\s+(?P<phi>(?P<d>\d{2})(?P<m>\d{2})(?P<y>(?:19|20)\d{2}))\b",
                       _I),
            # 16/09, 28.09 after "le", "du", "au" (a day without its year)
            re.compile(r"\b(?:le|du|au|depuis\s+le|jusqu'au|C\d{1,2}|J\d{1,2})\s+(?P<phi>(?P<d>[0-3]?\d)\s?[/.]\s?"
                       r"(?P<m>[01]?\d))(?![/.]?\d)", _I),
            # the first day of a range whose second day carries the month: "du 3 au 14 mars 2024",
            # "Nuit 15/16 déc. 2019"
            re.compile(r"\bdu\s+(?P<phi>1er|[0-3]?\d)\s+au\s+(?:1er|[0-3]?\d)\s+(?:" + _MONTH["fr"]
                       + r")(?![\w])", _I),
            re.compile(r"(?<![\w/.,])(?P<phi>[0-3]?\d)/[0-3]?\d\s+(?:" + _MONTH["fr"] + r")(?![\w])", _I),
            # en 2003, depuis 2003 -> 2003
            re.compile(r"\b(?:en|depuis|année|l'année|dès|jusqu'en|avant|après|vers|fin|début|mi-|courant|"
                       r"été|hiver|printemps|automne|né(?:e)? en)\s+(?P<phi>" + _YEAR4 + r")(?![,.]\d|\s*%)",
                       _I),
            # en mars, début juin -> the month
            re.compile(r"\b(?:en|depuis|début|fin|mi-|courant|mois d[e'])\s*(?P<phi>" + _FULL_MONTH["fr"]
                       + r")(?!\s+\d)", _I),
            _weekday_day("fr"),
            # days listed before the month they share: "les 13 et 27 février", "les 2, 9 et 16 mars"
            _listed_days(rf"1er|{_LISTED_DAY}", r"et", _MONTH["fr"]),
            _range_first_day(rf"1er|{_LISTED_DAY}", r"-|–|au|à", _MONTH["fr"]),
        ),
        "es": (
            # 3 de abril de 2018, 13-noviembre-2017, 3 abril 2018, 24 de mayo
            re.compile(r"\b" + _WEEKDAY["es"] + r"[0-3]?\d(?:º)?(?:\s+de\s+|\s+|-)(?:" + _MONTH["es"]
                       + r")(?:(?:\s+del?\s+"
                       r"(?:año\s+)?|\s+|-|,\s*)(?:" + _YEAR4 + r"))?(?![\w])", _I),
            # octubre de 2016, noviembre del 2001, enero del año 2003, Junio 99
            re.compile(r"\b(?:" + _MONTH["es"] + r")(?:\s+del?\s+(?:año\s+)?|\s+|-|/|,\s*)(?:"
                       + _YEAR4 + r")", _I),
            re.compile(r"\b(?:" + _FULL_MONTH["es"] + r")\s+(?:'|')?\d{2}\b(?![,.]?\d|\s*(?:%|mg|ml|años|"
                       r"días|meses|semanas|horas))", _I),
            # a day/month after the article or preposition that dates it ("el 07/03", "a partir del
            # 28/01", "revisión del 17/05") or after a shift's name in capitals ("TARDE 12/01"); a
            # fraction there ("el 1/3 distal", "del 2/3 medio") is a part, not a date
            re.compile(r"(?:\b(?i:el|del|desde\s+el|hasta\s+el|a\s+partir\s+del|d[íi]a)\s+|\b(?:MAÑANA|TARDE|NOCHE)\s+)"
                       r"(?P<phi>(?P<d>[0-3]?\d)/(?P<m>[01]?\d))(?![/.]?\d)(?!\s+(?i:de\s|del\s|medio|inferior|"
                       r"superior|distal|proximal|partes?\b))"),
            # the first day of a range whose second day carries the month: "del 10 al 11/01/24",
            # "NOCHE 10 AL 11/01/24", "del 3 al 14 de marzo"
            re.compile(r"(?<![\w/.,])(?P<phi>[0-3]?\d)\s+(?i:al)\s+[0-3]?\d(?:/[01]?\d/\d{2,4}|\s+de\s+(?:"
                       + _FULL_MONTH["es"] + r"))\b", _I),
            # año 2004 (MEDDOCAN keeps "año")
            re.compile(r"\baño\s+" + _YEAR4 + r"\b", _I),
            # en 2003, desde 2003 -> 2003
            re.compile(r"\b(?:en|desde|hasta|del|de|antes\s+de|después\s+de|hacia|verano|invierno|"
                       r"primavera|otoño|principios\s+de|finales\s+de|mediados\s+de)\s+(?P<phi>" + _YEAR4
                       + r")(?![,.]\d|\s*%|\s*(?:mg|ml|g|kg|UI|U)\b)", _I),
            # en el mes de marzo, en marzo -> the month
            re.compile(r"\b(?:en|desde|hasta|mes\s+de|principios\s+de|finales\s+de|mediados\s+de)\s+"
                       r"(?P<phi>" + _FULL_MONTH["es"] + r")(?!\s+\d)", _I),
            _weekday_day("es"),
            # days listed before the month they share: "los días 3 y 5 de marzo", "el 2, 9 y 16 de mayo"
            _listed_days(_LISTED_DAY, r"y|e", r"de[ \t]+(?:" + _FULL_MONTH["es"] + r")"),
            _range_first_day(_LISTED_DAY, r"-|–|al|a", r"(?:de[ \t]+)?(?:" + _FULL_MONTH["es"] + r")"),
            # a month's abbreviation and a two-digit year ("dic-23 a feb-24", "ITB 0,95 (nov/23)")
            re.compile(r"\b(?:ene|feb|mar|abr|may|jun|jul|ago|sept?|oct|nov|dic)[-/]\d{2}(?![\w/-])", _I),
        ),
        "en": (
            # February 26, 2020; Feb 3rd 2020; March 5
            re.compile(r"\b" + _WEEKDAY["en"] + r"(?:" + _MONTH["en"]
                       + r")\s+(?:the\s+)?[0-3]?\d(?:st|nd|rd|th)?\b(?:,?\s+"
                       + _YEAR4 + r"\b)?(?!\s*(?:%|mg|ml|years?|days?|weeks?|months?))", _I),
            # 3 Feb 2020, 26th of February 2020, 3 March
            re.compile(r"\b" + _WEEKDAY["en"] + r"[0-3]?\d(?:st|nd|rd|th)?(?:\s+of)?\s+(?:" + _MONTH["en"]
                       + r")(?:,?\s+"
                       + _YEAR4 + r"\b)?", _I),
            # February 2020
            re.compile(r"\b(?:" + _MONTH["en"] + r"),?\s+" + _YEAR4 + r"\b", _I),
            # the second day of a range whose first day carries the month: "from September 6 to 10"
            re.compile(r"\b(?:" + _MONTH["en"] + r")\s+[0-3]?\d(?:st|nd|rd|th)?\s*(?:to|through|thru|-|–)\s*"
                       r"(?P<phi>[0-3]?\d)(?:st|nd|rd|th)?\b(?![/:.]\d|\s*(?:%|mg|ml|years?|days?|weeks?|months?|"
                       r"hours?|hrs?|am|pm)\b)", _I),
            # a month/day right after the event it dates: "resumed 3/5", "intubated 10/9", "IABP
            # placed 1/15", "ends 12/11", "telephone encounter 3/13" (a setting or a ratio follows
            # a device or a measure, never one of these verbs)
            re.compile(r"\b(?i:resumed|restarted|intubated|extubated|ends|ended|expires|expired|encounter|placed|"
                       r"removed|inserted|changed)\s+(?P<phi>(?P<m>[01]?\d)/(?P<d>[0-3]?\d))(?![/.]?\d)"
                       r"(?!\s*(?i:mg|mmHg|%|cm))"),
            # in 2003, since 2003 -> 2003
            re.compile(r"\b(?:in|since|year|until|before|after|during|early|late|mid-|summer|winter|spring|"
                       r"autumn|fall|born\s+in)\s+(?P<phi>" + _YEAR4 + r")(?![,.]\d|\s*%)", _I),
            # in March -> the month
            re.compile(r"\b(?:in|since|until|early|late|mid-|month\s+of)\s+(?P<phi>(?=(?-i:[A-Z]))"
                       + _FULL_MONTH["en"]
                       + r")(?!\s+\d)", _I),
            _weekday_day("en"),
            # days listed before the month they share ("3rd and 5th March"), and the last of a list
            # after it ("March 3 and 5", "Feb 2, 9 and 16")
            # (the month capitalised: "grades 2 and 3 may be present")
            _listed_days(rf"{_LISTED_DAY}(?:st|nd|rd|th)?", r"and|&",
                         r"(?:of[ \t]+)?(?=(?-i:[A-Z]))(?:" + _MONTH["en"] + r")"),
            _range_first_day(rf"{_LISTED_DAY}(?:st|nd|rd|th)?", r"-|–|to|through|thru|until|till",
                             r"(?:of[ \t]+)?(?=(?-i:[A-Z]))(?:" + _MONTH["en"] + r")"),
            re.compile(r"\b(?=(?-i:[A-Z]))(?:" + _MONTH["en"] + r")[ \t]+[0-3]?\d(?:st|nd|rd|th)?"
                       r"(?:[ \t]*,[ \t]+[0-3]?\d(?:st|nd|rd|th)?){0,6},?[ \t]+(?:and|&)[ \t]+"
                       rf"(?P<phi>{_LISTED_DAY}(?:st|nd|rd|th)?)\b(?![/:.,]\d|[ \t]*(?:%|mg|ml|years?|days?|"
                       r"weeks?|months?|hours?|hrs?|am|pm|times|doses?|patients?|units?|tabs?|tablets?|puffs?|"
                       r"drops?|cycles?|sessions?|visits?)\b)", _I),
        ),
    }

    def label_for(self, text: str, match: re.Match[str], language: str) -> Label | None:
        if "\n" in match.group() and not re.search(_YEAR4, match.group()):
            return None  # "IOP 16 17\nOCT ...": a day and a month never sit on two lines
        if _PROPER_NAME_BEFORE.search(text, max(0, match.start() - 40), match.start()):
            return None  # "Hospital Universitario 12 de Octubre" is a hospital, not a date
        groups = match.groupdict()
        if is_score(text, match.start(), match.end()):
            return None
        if groups.get("d") and groups.get("m"):
            day, month = int(groups["d"].replace(" ", "")), int(groups["m"].replace(" ", ""))
            if not _numeric_ok(day, month):
                return None
        elif groups.get("m") and not 1 <= int(groups["m"]) <= 12:
            return None
        if birth_cue_before(text, match.start()):
            return Label.BIRTH_DATE
        return self.label


_UNIT = {
    "fr": r"(?:ans?|années?|mois|semaines?|jours?|heures?|h)",
    "es": r"(?:años?|meses|mes|semanas?|días?|horas?)",
    "en": r"(?:years?|months?|weeks?|days?|hours?)",
}


@register("relative_date", priority=55)
class RelativeDateRecognizer(RegexRecognizer):
    """Durations anchored to the note's date: "il y a 10 ans", "hace 3 meses", "2 weeks ago".

    Tagged DATE: substitution shifts them in their own unit (PRIVACY.md)."""

    name = "relative_date"
    label = Label.DATE
    patterns: ClassVar[Patterns] = {
        "fr": (
            re.compile(r"\b(?:il\s+y\s+a|depuis|dans|(?:d')?ici|voici|voilà)\s+(?:environ\s+|plus\s+de\s+|"
                       r"moins\s+de\s+)?" + number_phrase("fr") + r"\s+" + _UNIT["fr"] + r"\b", _I),
        ),
        "es": (
            re.compile(r"\b(?:hace|hacía|desde\s+hace|dentro\s+de|en\s+los\s+últimos|en\s+las\s+últimas)\s+"
                       r"(?:unos\s+|unas\s+|más\s+de\s+|menos\s+de\s+|aproximadamente\s+)?"
                       + number_phrase("es")
                       + r"\s+" + _UNIT["es"] + r"\b", _I),
        ),
        "en": (
            re.compile(r"\b" + number_phrase("en") + r"\s+" + _UNIT["en"] + r"\s+ago\b", _I),
            re.compile(r"\b(?:in|(?:for|over|during)\s+the\s+(?:last|past|next))\s+" + number_phrase("en")
                       + r"\s+" + _UNIT["en"] + r"\b", _I),
        ),
    }
