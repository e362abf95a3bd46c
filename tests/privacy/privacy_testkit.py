"""Helpers shared by the substitution tests."""

from __future__ import annotations

from collections.abc import Sequence

from deid.labels import Label
from deid.spans import Span


def spans_of(text: str, marks: Sequence[tuple[str, Label]]) -> list[Span]:
    """Spans of the marked substrings, each at its first occurrence not overlapping earlier ones."""
    out: list[Span] = []
    for sub, label in marks:
        i = text.index(sub)
        while any(i < s.end and s.start < i + len(sub) for s in out):
            i = text.index(sub, i + 1)
        out.append(Span(i, i + len(sub), label))
    return out
