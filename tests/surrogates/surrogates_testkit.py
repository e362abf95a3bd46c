"""Shared helpers of the surrogate tests: a note written as text and marked mentions."""

from __future__ import annotations

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
