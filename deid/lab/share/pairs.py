"""Batches of segments, and the real and fake pairs the adversaries see.

A fake sentence is the real one with one PHI unit replaced by one of its N embedding neighbours
(Friedrich et al. 2019). T1 sees (representation, embeddings): real (R(x), E(x)), fake
(R(x'), E(x)); T2 sees two representations: real (R(x), R(x)) under two noise draws, fake
(R(x), R(x')). A representation that cannot tell a PHI unit from its neighbours leaves both at
chance; one that encodes the unit lets both win.

``Decoys`` widens where the replacement comes from (``--decoys``): ``neighbours`` (the paper's),
``label`` (any PHI unit seen under the same label, so the neighbourhood itself is no longer what
the fakes share with the real unit) or ``mixed`` (each draw a fair coin between the two).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import torch
from torch import nn

from deid.lab.share.neighbours import NeighbourIndex
from deid.lab.share.units import Segment
from deid.labels import BIO_TAGS
from deid.ner.encode import IGNORE

DecoyMode = Literal["neighbours", "label", "mixed"]
DECOY_MODES: tuple[DecoyMode, ...] = ("neighbours", "label", "mixed")


def tag_label(tag_id: int) -> str:
    """The label of a BIO tag id ("B-X" and "I-X" -> "X"; "O" -> "O")."""
    tag = BIO_TAGS[tag_id]
    return tag[2:] if tag[:2] in ("B-", "I-") else tag


class Decoys:
    """Draws the replacement of a PHI unit: one of its N neighbours, a PHI unit of the same label
    (from ``segments``: the training corpus's own PHI units), or either at even odds."""

    def __init__(
        self, index: NeighbourIndex, segments: Sequence[Segment], mode: DecoyMode = "neighbours"
    ) -> None:
        if mode not in DECOY_MODES:
            raise ValueError(f"decoy mode {mode!r}: one of {', '.join(DECOY_MODES)}")
        self.index = index
        self.mode = mode
        pools: dict[str, set[int]] = {}
        for s in segments:
            for k in np.flatnonzero(s.phi).tolist():
                pools.setdefault(tag_label(int(s.tags[k])), set()).add(int(s.ids[k]))
        # sorted: the draws depend on the seed only, not on set order
        self.pools = {lab: np.asarray(sorted(ids), dtype=np.int64) for lab, ids in pools.items()}

    def draw(self, unit_id: int, tag_id: int, rng: np.random.Generator) -> int:
        use_label = self.mode == "label" or (self.mode == "mixed" and rng.random() < 0.5)
        pool = self.pools.get(tag_label(tag_id)) if use_label else None
        if pool is None or pool.size < 2:
            # no other unit of the label to hide among: the neighbours are the only decoys
            return self.index.draw(unit_id, rng)
        while True:  # the unit itself is no decoy; at least one other id is in the pool
            pick = int(pool[int(rng.integers(pool.size))])
            if pick != unit_id:
                return pick


@dataclass(frozen=True)
class Batch:
    ids: torch.Tensor  # (B, T) int64, 0-padded
    tags: torch.Tensor  # (B, T) int64, IGNORE-padded
    mask: torch.Tensor  # (B, T) bool
    first: torch.Tensor  # (B, T) bool, word starts


def make_batch(segments: Sequence[Segment], pad_id: int = 0) -> Batch:
    width = max(len(s) for s in segments)
    ids = torch.full((len(segments), width), pad_id, dtype=torch.long)
    tags = torch.full((len(segments), width), IGNORE, dtype=torch.long)
    mask = torch.zeros((len(segments), width), dtype=torch.bool)
    first = torch.zeros((len(segments), width), dtype=torch.bool)
    for r, s in enumerate(segments):
        n = len(s)
        ids[r, :n] = torch.from_numpy(s.ids)
        tags[r, :n] = torch.from_numpy(s.tags)
        mask[r, :n] = True
        first[r, :n] = torch.from_numpy(s.first)
    return Batch(ids, tags, mask, first)


def batches(items: Sequence[Segment], size: int, rng: np.random.Generator) -> Iterator[list[Segment]]:
    """Shuffled batches of about equal lengths (sorted within blocks of 20 batches, less padding)."""
    order = rng.permutation(len(items))
    block = size * 20
    chunks: list[list[Segment]] = []
    for lo in range(0, len(order), block):
        part = sorted((items[i] for i in order[lo : lo + block]), key=len)
        chunks.extend(part[k : k + size] for k in range(0, len(part), size))
    for j in rng.permutation(len(chunks)):
        yield chunks[j]


def replaceable(segment: Segment, index: NeighbourIndex) -> np.ndarray:
    """Positions of PHI units that have neighbours."""
    return np.asarray(
        [k for k in np.flatnonzero(segment.phi) if int(segment.ids[k]) in index], dtype=np.int64
    )


def with_phi(segments: Sequence[Segment], index: NeighbourIndex) -> list[Segment]:
    return [s for s in segments if replaceable(s, index).size]


def fake_ids(
    segments: Sequence[Segment],
    batch: Batch,
    index: NeighbourIndex,
    rng: np.random.Generator,
    decoys: Decoys | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``batch.ids`` with one PHI unit per row moved to a neighbour (or a ``decoys`` draw); and the
    moved positions."""
    fake = batch.ids.clone()
    where = torch.zeros(len(segments), dtype=torch.long)
    for r, s in enumerate(segments):
        pos = replaceable(s, index)
        k = int(pos[int(rng.integers(pos.size))])
        unit = int(s.ids[k])
        fake[r, k] = decoys.draw(unit, int(s.tags[k]), rng) if decoys else index.draw(unit, rng)
        where[r] = k
    return fake, where


@dataclass(frozen=True)
class PairLogits:
    t1: torch.Tensor  # (2B,) real first, then fake
    t2: torch.Tensor
    truth: torch.Tensor  # (2B,) 1.0 real, 0.0 fake
    real: torch.Tensor  # (B, T, dim) the real sentences' representation (reused by the recovery step)


def pair_logits(
    represent: nn.Module,
    embedding: nn.Embedding,
    t1: nn.Module,
    t2: nn.Module,
    batch: Batch,
    fake: torch.Tensor,
    generator: torch.Generator | None,
    *,
    train_representation: bool = True,
) -> PairLogits:
    """Adversary logits over a batch's real and fake pairs. ``train_representation=False``: the
    representation is computed without gradient (an adversary step, or the frozen privacy test)."""
    with torch.set_grad_enabled(train_representation and torch.is_grad_enabled()):
        r_real = represent(batch.ids, generator)
        r_again = represent(batch.ids, generator)  # a second noise draw of the same sentence
        r_fake = represent(fake, generator)
    e_real = embedding(batch.ids)
    mask = torch.cat([batch.mask, batch.mask])
    l1 = t1(torch.cat([r_real, r_fake]), torch.cat([e_real, e_real]), mask)
    l2 = t2(torch.cat([r_real, r_real]), torch.cat([r_again, r_fake]), mask)
    n = batch.ids.shape[0]
    truth = torch.cat([torch.ones(n), torch.zeros(n)])
    return PairLogits(l1, l2, truth, r_real)


def neighbour_targets(
    segments: Sequence[Segment],
    batch: Batch,
    index: NeighbourIndex,
    rng: np.random.Generator,
    decoys: Decoys | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Every PHI unit with neighbours in ``batch`` (a (B, T) mask) and, for each, one of its N
    neighbours (or a ``decoys`` draw) drawn afresh (the ids, in mask order): the recovery
    adversary's decoy targets."""
    where = torch.zeros_like(batch.mask)
    drawn: list[int] = []
    for r, s in enumerate(segments):
        for k in replaceable(s, index).tolist():
            where[r, k] = True
            unit = int(s.ids[k])
            drawn.append(decoys.draw(unit, int(s.tags[k]), rng) if decoys else index.draw(unit, rng))
    return where, torch.tensor(drawn, dtype=torch.long)
