"""A weekday that pins a day: "last Monday", "lundi dernier", "el pasado martes", "since Sat".

Beside the note's date, a weekday tells the day it names ("started last Monday" in a note of
Thursday 14 March is 11 March): a date element tied to the patient. Habits are not dates ("le
lundi", "los lunes", "on Mondays", "every Friday") and are left alone; Spanish says one day in the
singular ("el sábado", where French "le samedi" is a habit). A weekday written beside
a day number is part of that date, which the date rules read.

A weekday counts when a word of the languages' own usage pins it: before it ("last", "next",
"this", "on", "since", "until", "dernier", "ce", "depuis", "jusqu'à", "el", "desde el", "el
pasado", "el próximo"), or after it ("dernier", "prochain", "soir", "matin", "night", "morning",
"pasado", "por la"), or an event booked for it ("consult Mon", "MDT Weds", "Own GP Mon", "f/u
Mon", "venue mardi", "visite dimanche", and before it "Missed Fri run"); English abbreviations
("Mon", "Fri") only capitalised and so pinned ("Sat O2 96%" is a saturation: no cue).
"""

from __future__ import annotations

import re
from typing import ClassVar

from deid.labels import Label
from deid.rules.base import Patterns, RegexRecognizer
from deid.rules.registry import register

_I = re.IGNORECASE
_EN = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_EN_ABBR = r"(?:Mon|Tue|Tues|Wed|Weds|Thu|Thur|Thurs|Fri|Sat|Sun)"
# An event booked for or held on a day: "consult Mon", "MDT Weds", "Re-visit Fri", "review on";
# the noun in the singular ("visits Sat" is a habit).
_EN_EVENT = (r"(?:consult|visit|review|MDT|appointment|appt|clinic|meeting|rang|called|phoned|"
             # a follow-up or a check booked for the day ("Own GP Mon", "f/u Mon", "recheck INR Fri")
             r"GP|f/u|follow-up|r/v|reassess|recheck|bloods|INR|dressing)")
# ... or written before it: "Missed Fri run", "Tue appt" (not "Mon clinic", a clinic's weekly day)
_EN_EVENT_AFTER = r"(?:run|session|appt|appointment)"
_FR_EVENT = (r"(?:visite|venue?s?|pass[ée]e?s?|revue?s?|vue?s?|appel[ée]e?|t[ée]l[ée]phon[ée]e?|rdv|"
             r"rendez-vous|pr[ée]vue?s?)")
_FR = r"(?:lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)"
_ES = r"(?:lunes|martes|mi[ée]rcoles|jueves|viernes|s[áa]bado|domingo)"
# a date then. Possessive blanks: two runs of them side by side split a long run of spaces in
# every way (quadratic, issue 33); "the" still wants a blank before it.
_NO_DAY_AFTER = r"(?![ \t]*+(?:\d|,[ \t]*+\d|(?<=[ \t])the[ \t]++\d|\d{1,2}(?:st|nd|rd|th)))"


# a weekday in brackets right after the date it names: "13/12/2020 (Sun) 10:42", "12/03 (mar.)",
# "2020-12-13 (Sun)"; capitalised or in small letters ("(MAR)" is an anaesthetist, "(SAT)" a
# saturation); a decimal is no date ("Hb 12.5 (Sat)")
def _bracketed_after_date(weekdays: str) -> re.Pattern[str]:
    day = r"\d{1,2}/\d{1,2}(?:/\d{2,4})?|\d{1,2}([.-])\d{1,2}\1\d{2,4}|\d{4}-\d{2}-\d{2}"
    return re.compile(rf"(?<![\w/.-])(?:{day})[ \t]?\((?=\w(?-i:[a-zé]))(?P<phi>{weekdays})\.?\)", _I)


_FR_ABBR = r"(?:lun|mar|mer|jeu|ven|sam|dim)"
_ES_ABBR = r"(?:lun|mar|mi[ée]|jue|vie|s[áa]b|dom)"


@register("weekday", priority=56)
class WeekdayRecognizer(RegexRecognizer):
    name = "weekday"
    label = Label.DATE
    patterns: ClassVar[Patterns] = {
        "en": (
            re.compile(rf"\b(?:last|next|this|on|since|until|till|from|by|past)[ \t]+(?P<phi>{_EN})"
                       rf"{_NO_DAY_AFTER}"
                       r"(?!s\b)", _I),
            re.compile(rf"\b(?P<phi>{_EN})(?=[ \t]+(?:night|morning|evening|afternoon|am|pm|overnight))"
                       rf"{_NO_DAY_AFTER}", _I),
            re.compile(rf"(?<![\w/])(?:(?i:last|next|this|on|since|until|till|from|by|past)[ \t]+)"
                       rf"(?P<phi>{_EN_ABBR})(?![\w/]){_NO_DAY_AFTER}"),
            re.compile(rf"(?<![\w/])(?P<phi>{_EN_ABBR})"
                       r"(?=[ \t]+(?i:night|morning|evening|afternoon|overnight)\b)"),
            re.compile(rf"(?<![\w/])(?i:{_EN_EVENT})[ \t]+(?P<phi>{_EN_ABBR}|(?i:{_EN}))(?![\w/])"
                       rf"{_NO_DAY_AFTER}"),
            re.compile(rf"(?<![\w/])(?P<phi>{_EN_ABBR}|(?i:{_EN}))(?=[ \t]+(?i:{_EN_EVENT_AFTER})\b)"),
            _bracketed_after_date(rf"{_EN}|{_EN_ABBR}"),
        ),
        "fr": (
            re.compile(rf"\b(?P<phi>{_FR}[ \t]+(?:dernier|prochain|pass[ée]))\b", _I),
            re.compile(rf"\b(?:ce|depuis|jusqu'(?:à|au)|d[èe]s)[ \t]+(?P<phi>{_FR}){_NO_DAY_AFTER}\b", _I),
            re.compile(rf"\b{_FR_EVENT}[ \t]+(?P<phi>{_FR})\b{_NO_DAY_AFTER}", _I),
            re.compile(rf"\b(?P<phi>{_FR})(?=[ \t]+(?:soir|matin|midi|apr[èe]s-midi|dans\s+la\s+nuit))"
                       rf"{_NO_DAY_AFTER}", _I),
            _bracketed_after_date(rf"{_FR}|{_FR_ABBR}"),
        ),
        "es": (
            re.compile(rf"\b(?:el|desde\s+el|hasta\s+el|del)[ \t]+(?:pasado|pr[óo]ximo)[ \t]+"
                       rf"(?P<phi>{_ES})\b", _I),
            re.compile(rf"\b(?P<phi>{_ES}[ \t]+(?:pasado|pr[óo]ximo))\b", _I),
            re.compile(rf"\b(?:desde|hasta)[ \t]+el[ \t]+(?P<phi>{_ES}){_NO_DAY_AFTER}\b",
                       _I),
            # "el sábado" names one day (a habit is plural: "los sábados"): "consumo el sabado"
            re.compile(rf"\bel[ \t]+(?P<phi>{_ES})\b{_NO_DAY_AFTER}"
                       r"(?![^.;\n]{0,40}?\bcada\b)", _I),  # "el lunes y el jueves de cada semana"
            _bracketed_after_date(rf"{_ES}|{_ES_ABBR}"),
        ),
    }
