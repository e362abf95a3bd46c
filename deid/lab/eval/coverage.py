"""Residual PHI per document: is every gold PHI character covered by some prediction?

A document is "fully de-identified" when no gold PHI character escapes every prediction,
whatever labels either side gives. Whitespace inside a gold span carries no information (a name
found as two words leaves the space between them), so only non-space characters count.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Coverage:
    n_docs: int = 0
    n_docs_with_phi: int = 0  # documents with at least one gold PHI character
    n_fully_covered: int = 0  # of those, documents with every gold PHI character predicted
    phi_chars: int = 0  # gold PHI characters (non-space)
    missed_chars: int = 0  # of those, characters no prediction covers

    @property
    def share(self) -> float | None:
        """Share of all documents fully de-identified (a document without PHI trivially is)."""
        if not self.n_docs:
            return None
        return (self.n_docs - self.n_docs_with_phi + self.n_fully_covered) / self.n_docs

    @property
    def share_with_phi(self) -> float | None:
        """The same share among documents that hold PHI: the stricter figure."""
        return self.n_fully_covered / self.n_docs_with_phi if self.n_docs_with_phi else None

    def __add__(self, other: Coverage) -> Coverage:
        return Coverage(
            self.n_docs + other.n_docs,
            self.n_docs_with_phi + other.n_docs_with_phi,
            self.n_fully_covered + other.n_fully_covered,
            self.phi_chars + other.phi_chars,
            self.missed_chars + other.missed_chars,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_docs": self.n_docs,
            "n_docs_with_phi": self.n_docs_with_phi,
            "n_fully_covered": self.n_fully_covered,
            "phi_chars": self.phi_chars,
            "missed_chars": self.missed_chars,
            "share": self.share,
            "share_with_phi": self.share_with_phi,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Coverage:
        return cls(
            *(
                int(data[k])
                for k in ("n_docs", "n_docs_with_phi", "n_fully_covered", "phi_chars", "missed_chars")
            )
        )


def document_coverage(text: str, gold_mask: bytearray, pred_mask: bytearray) -> Coverage:
    """Coverage of one document from its character masks (``matching.char_mask``)."""
    phi = missed = 0
    start = gold_mask.find(1)
    while start != -1:
        end = gold_mask.find(0, start)
        end = len(gold_mask) if end == -1 else end
        for i in range(start, end):
            if not text[i].isspace():
                phi += 1
                missed += not pred_mask[i]
        start = gold_mask.find(1, end)
    has_phi = phi > 0
    return Coverage(1, int(has_phi), int(has_phi and missed == 0), phi, missed)
