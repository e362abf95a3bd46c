"""A regex-driven recognizer: patterns per language, an optional ``phi`` group, a per-match check.

Patterns under the key ``"*"`` apply to every language. When a pattern has a named group ``phi``,
only that group is the mention (the label word "IPP :" or "le" is context, not PHI).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import ClassVar

from deid.labels import Label
from deid.spans import Span

ANY = "*"

Patterns = Mapping[str, Sequence[re.Pattern[str]]]


class RegexRecognizer:
    name: str = ""
    label: Label = Label.OTHER
    patterns: ClassVar[Patterns] = {}

    def label_for(self, text: str, match: re.Match[str], language: str) -> Label | None:
        """The label of one match, or None to reject it (checksum, context...)."""
        return self.label

    def _patterns(self, language: str) -> list[re.Pattern[str]]:
        return [*self.patterns.get(ANY, ()), *self.patterns.get(language, ())]

    def find(self, text: str, language: str) -> list[Span]:
        found: dict[tuple[int, int], Span] = {}
        for pattern in self._patterns(language):
            for m in pattern.finditer(text):
                group = "phi" if "phi" in pattern.groupindex and m.group("phi") is not None else 0
                start, end = m.span(group)
                if start >= end or (start, end) in found:
                    continue
                label = self.label_for(text, m, language)
                if label is not None:
                    found[(start, end)] = Span(start, end, label, f"rules.{self.name}")
        return drop_nested(found.values())


def drop_nested(spans: Iterable[Span]) -> list[Span]:
    """Within one recognizer, a match inside a longer match is the same mention: keep the longer."""
    ordered = sorted(spans, key=lambda s: (s.start, -s.end))
    out: list[Span] = []
    for s in ordered:
        if out and s.end <= out[-1].end:
            continue
        out.append(s)
    return out


def compile_all(*patterns: str, flags: int = 0) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, flags) for p in patterns)
