"""Batches of segments, and the real and fake pairs the adversaries see.

A fake sentence is the real one with one PHI unit replaced by one of its N embedding neighbours
(Friedrich et al. 2019). T1 sees (representation, embeddings): real (R(x), E(x)), fake
(R(x'), E(x)); T2 sees two representations: real (R(x), R(x)) under two noise draws, fake
(R(x), R(x')). A representation that cannot tell a PHI unit from its neighbours leaves both at
chance; one that encodes the unit lets both win.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from deid.lab.share.neighbours import NeighbourIndex
from deid.lab.share.units import Segment
from deid.ner.encode import IGNORE


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
    segments: Sequence[Segment], batch: Batch, index: NeighbourIndex, rng: np.random.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """``batch.ids`` with one PHI unit per row moved to a neighbour; and the moved positions."""
    fake = batch.ids.clone()
    where = torch.zeros(len(segments), dtype=torch.long)
    for r, s in enumerate(segments):
        pos = replaceable(s, index)
        k = int(pos[int(rng.integers(pos.size))])
        fake[r, k] = index.draw(int(s.ids[k]), rng)
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
    segments: Sequence[Segment], batch: Batch, index: NeighbourIndex, rng: np.random.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """Every PHI unit with neighbours in ``batch`` (a (B, T) mask) and, for each, one of its N
    neighbours drawn afresh (the ids, in mask order): the recovery adversary's decoy targets."""
    where = torch.zeros_like(batch.mask)
    drawn: list[int] = []
    for r, s in enumerate(segments):
        for k in replaceable(s, index).tolist():
            where[r, k] = True
            drawn.append(index.draw(int(s.ids[k]), rng))
    return where, torch.tensor(drawn, dtype=torch.long)
