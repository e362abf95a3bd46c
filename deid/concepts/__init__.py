"""Concept extraction beside de-identification (issue 20): drug, chemical and protein mentions.

A second token-classification head on the de-identification model's encoder (``deid.concepts.model``)
tags concept mentions in the original text, inside the trust zone; the worker moves their offsets
onto the de-identified text and never publishes one that touches a PHI span. Trained on Spanish
PharmaCoNER only: on French and English notes it tags only what it learned.

Importing this package loads neither torch nor the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

CONCEPT_TYPES = ("NORMALIZABLES", "NOTNORMALIZABLES", "PROTEINAS")


@dataclass(frozen=True, slots=True)
class Concept:
    """A concept mention: ``[start, end)`` character offsets into the text it was found in."""

    start: int
    end: int
    type: str
    score: float = 1.0


class ConceptTagger(Protocol):
    """Concept extraction over a batch: texts in, concept mentions out, with offsets into each
    text (``deid.concepts.tagger.ConceptTagger`` on the model's concept head)."""

    @property
    def model_version(self) -> str: ...

    def tag(self, texts: Sequence[str]) -> list[list[Concept]]: ...

    def tag_sentences(self, texts: Sequence[str]) -> list[list[Concept]]:
        """Each text read whole, as one sentence (a corpus that gives its own sentences)."""
        ...


__all__ = ["CONCEPT_TYPES", "Concept", "ConceptTagger"]
