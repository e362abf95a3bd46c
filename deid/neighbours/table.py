"""The precomputed neighbour table: a case-folded word vocabulary and each word's K nearest
neighbours (cosine, multilingual-e5-small input embeddings), loaded once from ``deid/data``."""

from __future__ import annotations

import functools
import gzip
import io
import random
import unicodedata
from pathlib import Path

import numpy as np

DATA_DIR = Path(__file__).resolve().parents[1] / "data" / "neighbours"


def fold(word: str) -> str:
    """Lower case without accents: two words equal under ``fold`` read as the same word."""
    decomposed = unicodedata.normalize("NFD", word.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def related(a: str, b: str) -> bool:
    """Whether ``b`` would let a reader recover ``a`` (folded forms: one inside the other, the
    same first four letters, or one edit apart): such a word is never a neighbour."""
    fa, fb = fold(a), fold(b)
    if fa in fb or fb in fa or (len(fa) >= 4 and fa[:4] == fb[:4]):
        return True
    if abs(len(fa) - len(fb)) > 1:
        return False
    if len(fa) == len(fb):
        return sum(x != y for x, y in zip(fa, fb, strict=True)) <= 1
    short, long_ = (fa, fb) if len(fa) < len(fb) else (fb, fa)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


class NeighbourTable:
    def __init__(self, words: list[str], neighbours: np.ndarray, scores: np.ndarray) -> None:
        if neighbours.shape[0] != len(words) or scores.shape != neighbours.shape:
            raise ValueError("neighbour table shapes do not match the vocabulary")
        self.words = words
        self.k = int(neighbours.shape[1])
        self.index = {w: i for i, w in enumerate(words)}
        # plain lists: a lookup on the hot path is then two list indexings, no numpy scalar boxing
        self._nb: list[list[int]] = neighbours.tolist()
        self.scores = scores
        by_len: dict[int, list[str]] = {}
        for w in words:
            by_len.setdefault(len(w), []).append(w)
        self.by_length = by_len

    def __len__(self) -> int:
        return len(self.words)

    def neighbours(self, word: str, n: int) -> list[str] | None:
        """The ``n`` nearest neighbours of ``word`` (case-insensitive), best first; None if unknown."""
        i = self.index.get(word.lower())
        if i is None:
            return None
        return [self.words[j] for j in self._nb[i][:n]]

    def draw(self, word: str, n: int, rng: random.Random) -> str | None:
        """One of the ``n`` nearest neighbours of ``word``, uniformly; None if unknown."""
        i = self.index.get(word.lower())
        return None if i is None else self.words[self._nb[i][rng.randrange(n)]]

    def neighbour_ids(self, i: int) -> list[int]:
        return self._nb[i]


def read_table(directory: Path = DATA_DIR) -> NeighbourTable:
    with gzip.open(directory / "vocab.txt.gz", "rt", encoding="utf-8") as fh:
        words = fh.read().split("\n")
    if words and words[-1] == "":
        words.pop()
    with gzip.open(directory / "neighbours.npz.gz", "rb") as fb:
        arrays = np.load(io.BytesIO(fb.read()))
        return NeighbourTable(words, arrays["neighbours"], arrays["scores"])


@functools.lru_cache(maxsize=1)
def load_table() -> NeighbourTable:
    """The shipped table (read once per process)."""
    return read_table()
