"""Helpers shared by the substitution tests: a note's text and the spans of its marked mentions,
written either as parts in reading order (``build``) or as marks found in a finished text
(``spans_of``)."""

from __future__ import annotations

from collections.abc import Sequence

from deid.labels import Label
from deid.spans import Span

SECRET = b"0123456789abcdef-test-secret"

Part = str | tuple[str, Label]


def build(parts: list[Part]) -> tuple[str, list[Span]]:
    """The text of ``parts`` and a span over each ``(surface, label)`` part."""
    text, spans = "", []
    for p in parts:
        if isinstance(p, tuple):
            spans.append(Span(len(text), len(text) + len(p[0]), p[1]))
            text += p[0]
        else:
            text += p
    return text, spans


def spans_of(text: str, marks: Sequence[tuple[str, Label]]) -> list[Span]:
    """Spans of the marked substrings, each at its first occurrence not overlapping earlier ones."""
    out: list[Span] = []
    for sub, label in marks:
        i = text.index(sub)
        while any(i < s.end and s.start < i + len(sub) for s in out):
            i = text.index(sub, i + 1)
        out.append(Span(i, i + len(sub), label))
    return out
