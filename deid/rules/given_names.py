"""A given name the name tables know, written as a name, is a person: "Élodie (IDE) passée".

Notes name staff and relatives by their given name alone ("vu avec Élodie", "dtr Keisha
called", "hija Marisa"), and the model often misses a name it sees without a surname. A
capitalised word of three letters or more that the project's given-name tables hold is a
PERSON (its role is left to the model and the later steps), except the given names that are
also common words of the notes' languages (``deid.rules.names.COMMON_WORDS``: "Will", "Rose",
"Ward"), which need the note itself to show them as names (``deid.detection.echoes``), and
capitals of four letters or fewer, which are more often acronyms.

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

_WORD = re.compile(r"(?<![\w'’-])[A-ZÀ-Þ][^\W\d_]{2,24}(?![\w'’])")
_NOT_NAMES = COMMON_WORDS | TITLES_AND_PARTICLES


@register("given_name", priority=80)
class GivenNameRecognizer:
    name = "given_name"

    def find(self, text: str, language: str) -> list[Span]:
        names = given_names()
        spans = []
        for m in _WORD.finditer(text):
            word = m.group()
            if word.isupper() and len(word) <= 4:
                continue
            f = fold(word)
            if f in names and f not in _NOT_NAMES:
                spans.append(Span(m.start(), m.end(), Label.PERSON, f"rules.{self.name}"))
        return spans
