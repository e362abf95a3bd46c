"""A detected PHI mention: offsets into the note, a label and which component found it; and how
overlapping mentions resolve into one (``clusters``, ``resolve``), which the rules, the detection
merge, the concept offsets and the substitution engine share.

A Span deliberately holds no text: it is safe to log, put in an exception or a metric.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from deid.labels import Label


@dataclass(frozen=True, slots=True, order=True)
class Span:
    start: int  # character offset, inclusive
    end: int  # character offset, exclusive
    label: Label
    source: str = "gold"  # recognizer or model name, e.g. "rules.date", "ner", "gold"
    score: float = 1.0

    def __post_init__(self) -> None:
        if not 0 <= self.start < self.end:
            raise ValueError(f"invalid span offsets [{self.start}, {self.end})")

    @property
    def length(self) -> int:
        return self.end - self.start

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end


@dataclass(frozen=True, slots=True)
class Document:
    """An annotated text from a corpus (gold spans) or a note to process (no spans)."""

    doc_id: str
    text: str
    language: str
    spans: tuple[Span, ...] = field(default=())


Chooser = Callable[[Sequence[Span]], Span]


def clusters(spans: Iterable[Span]) -> list[list[Span]]:
    """Group spans into maximal chains of overlapping spans, in text order."""
    groups: list[list[Span]] = []
    end = -1
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if groups and span.start < end:
            groups[-1].append(span)
            end = max(end, span.end)
        else:
            groups.append([span])
            end = span.end
    return groups


def longest(spans: Sequence[Span]) -> Span:
    """The representative of one side: the longest span, then the highest score, then the first."""
    return min(spans, key=lambda s: (-s.length, -s.score, s.start))


def resolve(spans: Iterable[Span], choose: Chooser = longest) -> list[Span]:
    """Non-overlapping spans covering every flagged character; ``choose`` picks each cluster's label."""
    out: list[Span] = []
    for group in clusters(spans):
        if len(group) == 1:
            out.append(group[0])
            continue
        winner = choose(group)
        start = min(s.start for s in group)
        end = max(s.end for s in group)
        score = max(s.score for s in group)
        out.append(Span(start, end, winner.label, winner.source, score))
    return out
