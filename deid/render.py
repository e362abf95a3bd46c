"""Apply replacements to a text and report where each one sits in the output."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from deid.labels import Label


@dataclass(frozen=True, slots=True)
class Replacement:
    start: int  # in the input text
    end: int
    label: Label
    surrogate: str
    strategy: str  # e.g. "placeholder", "random", "dp-laplace", "exponential"


@dataclass(frozen=True, slots=True)
class PlacedSpan:
    start: int  # in the output text
    end: int
    label: Label
    strategy: str


def render(text: str, replacements: Sequence[Replacement]) -> tuple[str, list[PlacedSpan]]:
    """Replace non-overlapping ``replacements`` in ``text``; raises ValueError on overlap."""
    out: list[str] = []
    placed: list[PlacedSpan] = []
    pos = 0
    length = 0
    for r in sorted(replacements, key=lambda r: (r.start, r.end)):
        if r.start < pos:
            raise ValueError("replacements overlap")
        if not 0 <= r.start < r.end <= len(text):
            raise ValueError("replacement outside the text")
        out.append(text[pos : r.start])
        length += r.start - pos
        out.append(r.surrogate)
        placed.append(PlacedSpan(length, length + len(r.surrogate), r.label, r.strategy))
        length += len(r.surrogate)
        pos = r.end
    out.append(text[pos:])
    return "".join(out), placed
