"""A detected PHI mention: offsets into the note, a label and which component found it.

A Span deliberately holds no text: it is safe to log, put in an exception or a metric.
"""

from __future__ import annotations

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
