"""Each PHI unit's N nearest rows of the frozen embedding table (cosine), for fake pairs.

The shipped word table (``deid/data/neighbours``) keeps 10 neighbours a word; the invariance the
adversaries enforce needs N >= 100 (Friedrich et al. test 5..1000). Only the ids that occur inside
PHI need a row, and the candidates are the whole table, so the cost is (PHI ids) x (table rows)
dot products in chunks: for MEDDOCAN train's PHI pieces against 250,037 rows, seconds to a
minute on two cores (docs/BENCHMARKS.md).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


class NeighbourIndex:
    """id -> its N nearest other ids (best first)."""

    def __init__(self, ids: np.ndarray, neighbours: np.ndarray) -> None:
        if neighbours.ndim != 2 or neighbours.shape[0] != ids.shape[0]:
            raise ValueError("one row of neighbours per id")
        self.n = int(neighbours.shape[1])
        self.row = {int(i): r for r, i in enumerate(ids.tolist())}
        self.neighbours = neighbours

    def __contains__(self, unit_id: int) -> bool:
        return unit_id in self.row

    def draw(self, unit_id: int, rng: np.random.Generator) -> int:
        return int(self.neighbours[self.row[unit_id], int(rng.integers(self.n))])


def nearest_rows(
    embeddings: np.ndarray, ids: Iterable[int], n: int, excluded: Iterable[int] = (), chunk: int = 256
) -> NeighbourIndex:
    """The ``n`` rows of highest cosine to each of ``ids`` (itself and ``excluded`` left out)."""
    wanted = np.asarray(sorted(set(int(i) for i in ids)), dtype=np.int64)
    if n >= embeddings.shape[0] - 1:
        raise ValueError(f"{n} neighbours asked of a table of {embeddings.shape[0]} rows")
    unit = embeddings / (np.linalg.norm(embeddings, axis=1, keepdims=True) + 1e-12)
    unit = unit.astype(np.float32, copy=False)
    banned = np.asarray(sorted(set(int(i) for i in excluded)), dtype=np.int64)
    out = np.zeros((wanted.shape[0], n), dtype=np.int64)
    for lo in range(0, wanted.shape[0], chunk):
        rows = wanted[lo : lo + chunk]
        sim = unit[rows] @ unit.T
        sim[np.arange(rows.shape[0]), rows] = -np.inf
        if banned.size:
            sim[:, banned] = -np.inf
        top = np.argpartition(-sim, n, axis=1)[:, :n]
        order = np.argsort(-np.take_along_axis(sim, top, axis=1), axis=1, kind="stable")
        out[lo : lo + rows.shape[0]] = np.take_along_axis(top, order, axis=1)
    return NeighbourIndex(wanted, out)
