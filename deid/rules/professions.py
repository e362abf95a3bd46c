"""A job told by its cue: "ancienne couturière", "retraité (soudeur)", "Retired rice farmer",
"works as a delivery driver", "trabaja como administrativa", "jubilado de la construcción".

A job is a quasi-identifier (MEDDOCAN's PROFESION, the guideline of the realistic corpus): with a
town and an age it narrows a patient down. The words that announce one are few in each
language; the job is the one to four words after them, up to a preposition that starts the
employer or the place ("chez", "at", "en", "for") or a punctuation mark. Habits that follow the
same cues ("ancien fumeur", "former smoker") are not jobs.
"""

from __future__ import annotations

import re
from typing import ClassVar

from deid.labels import Label
from deid.rules.base import Patterns, RegexRecognizer
from deid.rules.registry import register

_I = re.IGNORECASE
_STOP = (r"(?:chez|at|in|en|for|pour|au|aux|à|a|from|since|depuis|desde|hasta|until|jusqu|con|avec|with|"
         r"and|et|y|who|qui|que|dans|for|por|para|del|de\s+la|de\s+l|on|sur|until|à\s+la)")
_WORD = r"(?!" + _STOP + r"\b)[^\W\d_][\w'’\-]*"
_JOB = rf"(?P<phi>{_WORD}(?:[ \t]+(?:de[ \t]+|d['’]|du[ \t]+|of[ \t]+|&[ \t]+)?{_WORD}){{0,3}})"
_HABITS = re.compile(r"(?:fumeu[rs]e?|tabagique|smoker|drinker|user|[ée]thylique|alcoolique|fumador[a]?|"
                     r"bebedor[a]?|"
                     r"patient|paciente|combattant|militaire|sportif|sportive|athlete|atleta|heavy|toxicómano|"
                     r"iv|consumidor[a]?)\b", _I)


@register("profession", priority=85)
class ProfessionRecognizer(RegexRecognizer):
    name = "profession"
    label = Label.PROFESSION
    patterns: ClassVar[Patterns] = {
        "fr": (
            re.compile(rf"\b(?:ancien(?:ne)?|ex-|retrait[ée]e?[ \t]*\(|retrait[ée]e?[ \t]+de[ \t]+l[ae']?|"
                       rf"profession[ \t]*:|m[ée]tier[ \t]*:|travaille[ \t]+comme|travaillait[ \t]+comme|"
                       rf"exerce[ \t]+comme|en[ \t]+tant[ \t]+que)[ \t]*{_JOB}", _I),
        ),
        "es": (
            re.compile(rf"\b(?:trabaja(?:ba)?[ \t]+(?:como|de)|"
                       rf"trabaj[óo][ \t]+(?:toda[ \t]+la[ \t]+vida[ \t]+)?de|"
                       rf"jubilad[oa][ \t]+de|ex-|profesi[óo]n[ \t]*:|ocupaci[óo]n[ \t]*:|"
                       rf"de[ \t]+profesi[óo]n)"
                       rf"[ \t]*{_JOB}", _I),
        ),
        "en": (
            re.compile(rf"\b(?:retired|former|works?[ \t]+as[ \t]+an?|worked[ \t]+as[ \t]+an?|"
                       rf"working[ \t]+as[ \t]+an?|"
                       rf"occupation[ \t]*:|employed[ \t]+as[ \t]+an?|job[ \t]*:)[ \t]*{_JOB}", _I),
        ),
    }

    def label_for(self, text: str, match: re.Match[str], language: str) -> Label | None:
        return None if _HABITS.match(match.group("phi")) else self.label
