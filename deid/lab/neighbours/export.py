"""Pseudonymise an annotated document for sharing as training data (Friedrich et al. 2019): each
gold PHI span's words move to embedding neighbours and its digits to random digits of the same
shape; the label is kept and every offset is recomputed for the new text."""

from __future__ import annotations

import random

from deid.neighbours.replace import DEFAULT_N, replace_tokens
from deid.neighbours.table import NeighbourTable, load_table
from deid.spans import Document, Span, resolve


def _disjoint(spans: tuple[Span, ...]) -> list[Span]:
    """Overlapping gold spans become one (the longer's label): a partial move would leak the rest."""
    return resolve(spans)


def pseudonymise_document(
    doc: Document, rng: random.Random, n: int = DEFAULT_N, table: NeighbourTable | None = None
) -> Document:
    """``doc`` with its PHI moved; a word repeated in the document moves to the same neighbour."""
    table = table or load_table()
    memo: dict[str, str] = {}
    parts: list[str] = []
    spans: list[Span] = []
    pos = 0
    length = 0
    for s in _disjoint(doc.spans):
        before = doc.text[pos : s.start]
        new = replace_tokens(doc.text[s.start : s.end], rng, n, table=table, memo=memo)
        parts += [before, new]
        length += len(before)
        spans.append(Span(length, length + len(new), s.label, s.source, s.score))
        length += len(new)
        pos = s.end
    parts.append(doc.text[pos:])
    return Document(doc.doc_id, "".join(parts), doc.language, tuple(spans))


def to_eds_record(doc: Document) -> dict[str, object]:
    return {
        "note_id": doc.doc_id,
        "note_text": doc.text,
        "entities": [{"start": s.start, "end": s.end, "label": s.label.value} for s in doc.spans],
    }
