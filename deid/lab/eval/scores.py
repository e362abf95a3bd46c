"""Precision, recall and F1 from counts, with the two sides of a match counted apart.

Under relaxed (overlap) matching one prediction can cover two gold spans and two predictions one
gold span, so "gold spans found" and "predictions that are correct" are different numbers;
under strict matching they are equal. A ratio over nothing is undefined (``None``), not 0 or 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Score:
    n_gold: int = 0  # gold units (spans or tokens)
    n_pred: int = 0  # predicted units
    found: int = 0  # gold units matched by some prediction (recall numerator)
    correct: int = 0  # predicted units matching some gold unit (precision numerator)

    def __post_init__(self) -> None:
        if not (0 <= self.found <= self.n_gold and 0 <= self.correct <= self.n_pred):
            raise ValueError("inconsistent counts")

    @property
    def precision(self) -> float | None:
        return self.correct / self.n_pred if self.n_pred else None

    @property
    def recall(self) -> float | None:
        return self.found / self.n_gold if self.n_gold else None

    @property
    def f1(self) -> float | None:
        p, r = self.precision, self.recall
        if p is None or r is None:
            # One side is empty: F1 is 0 if the other side is 0 (all predictions wrong, or all
            # gold missed), undefined otherwise (relaxed rows can find gold with no prediction of
            # their own label).
            known = r if p is None else p
            return 0.0 if known == 0.0 else None
        return 2 * p * r / (p + r) if p + r else 0.0

    def __add__(self, other: Score) -> Score:
        return Score(
            self.n_gold + other.n_gold,
            self.n_pred + other.n_pred,
            self.found + other.found,
            self.correct + other.correct,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_gold": self.n_gold,
            "n_pred": self.n_pred,
            "found": self.found,
            "correct": self.correct,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Score:
        return cls(int(data["n_gold"]), int(data["n_pred"]), int(data["found"]), int(data["correct"]))


def total(scores: dict[str, Score]) -> Score:
    """Micro average: pool the counts of every row."""
    out = Score()
    for score in scores.values():
        out = out + score
    return out
