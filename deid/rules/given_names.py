"""A given name the name tables know, written as a name, is a person: "Élodie (IDE) passée".

Notes name staff and relatives by their given name alone ("vu avec Élodie", "dtr Keisha
called", "hija Marisa"), and the model often misses a name it sees without a surname. A
capitalised word of three letters or more that the project's given-name tables hold is a
PERSON (its role is left to the model and the later steps), except the given names that are
also common words of the notes' languages (``deid.rules.names.COMMON_WORDS``: "Will", "Rose",
"Ward"), which need the note itself to show them as names (``deid.detection.echoes``); words in
capitals (acronyms, "ELISA"); a word that starts a sentence or a line without a surname after it
("Durante el ingreso", "Una TC"); an eponym ("maladie de Wilson", "Arnold-Chiari").

Measured on the realistic corpus's train part (804 words of gold names against 25 other words
before the common-word list: "Ward", "Ramadan", "Cord"), and on the held-out parts of the public
corpora (docs/BENCHMARKS.md).
"""

from __future__ import annotations

import re

from deid.labels import Label
from deid.rules.names import COMMON_WORDS, TITLES_AND_PARTICLES, fold, given_names
from deid.rules.registry import register
from deid.spans import Span

_WORD = re.compile(r"(?<![\w'’-])[A-ZÀ-Þ][a-zß-ÿ][^\W\d_]{1,23}(?![\w'’-])")
_NOT_NAMES = COMMON_WORDS | TITLES_AND_PARTICLES
# A capitalised word at the start of a sentence or a line is capitalised for that reason
# ("Durante el ingreso", "Una TC"): a name there needs its surname after it.
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]|\n)[ \t\-*•>\d.)]*$")
_NEXT_CAPITALISED = re.compile(r"[ \t]+[A-ZÀ-Þ][^\W\d_]+")
# An eponym, not a person of the note: "maladie de Wilson", "fondo de saco de Douglas", "signe de
# Lasègue", "Arnold-Chiari", "Ludwig's angina".
_EPONYM_BEFORE = re.compile(r"(?:\b(?:de|del|of|von|van|d['’]|du|la|le|el)[ \t]+)$", re.IGNORECASE)
_EPONYM_AFTER = re.compile(r"(?:['’]s\b|-[A-Z]|[ \t]+(?:syndrome|disease|sign|test|score|maneuver|manoeuvre|"
                           r"classification|criteria|s[ií]ndrome|enfermedad|maladie|signe|signo|prueba))",
                           re.IGNORECASE)


@register("given_name", priority=80)
class GivenNameRecognizer:
    name = "given_name"

    def find(self, text: str, language: str) -> list[Span]:
        names = given_names()
        spans = []
        for m in _WORD.finditer(text):
            f = fold(m.group())
            if f not in names or f in _NOT_NAMES:
                continue
            before = text[max(0, m.start() - 24) : m.start()]
            if _EPONYM_BEFORE.search(before) or _EPONYM_AFTER.match(text, m.end()):
                continue
            if _SENTENCE_START.search(before) and not _NEXT_CAPITALISED.match(text, m.end()):
                continue
            spans.append(Span(m.start(), m.end(), Label.PERSON, f"rules.{self.name}"))
        return spans
