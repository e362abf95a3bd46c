"""Concept extraction beside de-identification (issue 20): drug, chemical and protein mentions.

A second token-classification head on the de-identification model's encoder (``deid.concepts.model``)
tags concept mentions in the original text, inside the trust zone; the worker moves their offsets
onto the de-identified text and never publishes one that touches a PHI span. Trained on Spanish
PharmaCoNER only: on French and English notes it tags only what it learned.

Importing this package loads neither torch nor the model.
"""

from __future__ import annotations

from dataclasses import dataclass

CONCEPT_TYPES = ("NORMALIZABLES", "NOTNORMALIZABLES", "PROTEINAS")


@dataclass(frozen=True, slots=True)
class Concept:
    """A concept mention: ``[start, end)`` character offsets into the text it was found in."""

    start: int
    end: int
    type: str
    score: float = 1.0


__all__ = ["CONCEPT_TYPES", "Concept"]
