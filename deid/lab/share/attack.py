"""The privacy test: freeze the representation, train fresh attackers on it, score them.

T1 and T2 (``deid.lab.share.pairs``) are trained anew for ``epochs`` epochs on the attacker's
sentences and scored on held-out ones, one real and one fake pair each: accuracy 1/2 is chance.
The third attacker reads tokens back: a BiLSTM maps the representation sequence into the
embedding space and the nearest rows of the *whole* input table are its guesses; the score is
top-k accuracy on PHI units (chance k / table rows). Every accuracy comes with a Wilson 95 %
interval.

Two more figures put the recovery score in scale (``attack_recovery_scores``): the same attacker
scored once per distinct PHI unit (its first occurrence), and a no-information attacker that
ignores the representation and always guesses the k most frequent PHI units of its own training
corpus. On MEDDOCAN that prior alone reaches 0.23 top-10 over PHI occurrences (the blank piece,
'/', ',', 'años', ...): a bar below the prior cannot be met by any representation, so the
occurrence score is read against the prior, and the per-unit score is the one that measures names.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from deid.lab.share.model import PairAdversary, Recovery
from deid.lab.share.neighbours import NeighbourIndex
from deid.lab.share.pairs import batches, fake_ids, make_batch, pair_logits, with_phi
from deid.lab.share.units import Segment


def wilson(correct: int, total: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (95 % by default)."""
    if total == 0:
        return 0.0, 1.0
    p = correct / total
    denom = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denom
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class AttackScore:
    name: str
    correct: int
    total: int
    chance: float

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.correct, self.total)

    def line(self) -> str:
        lo, hi = self.interval
        return (
            f"{self.name}: {self.accuracy:.4f} [{lo:.4f}, {hi:.4f}] ({self.correct}/{self.total}; "
            f"chance {self.chance:.4g})"
        )


@dataclass(frozen=True)
class AttackConfig:
    epochs: int = 50
    hidden: int = 64
    batch_size: int = 32
    lr: float = 1e-3
    top_k: int = 10
    seed: int = 29


def attack_pairs(
    represent: nn.Module,
    embedding: nn.Embedding,
    train: Sequence[Segment],
    held_out: Sequence[Segment],
    index: NeighbourIndex,
    cfg: AttackConfig,
    log: Callable[[str], None] = lambda _: None,
) -> tuple[AttackScore, AttackScore]:
    """Fresh T1 and T2 on the frozen ``represent``; their accuracy on ``held_out`` pairs."""
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    gen = torch.Generator().manual_seed(cfg.seed)
    probe = represent(make_batch(held_out[:1]).ids, gen)
    dim = int(probe.shape[-1])
    t1 = PairAdversary(dim, embedding.embedding_dim, cfg.hidden)
    t2 = PairAdversary(dim, dim, cfg.hidden)
    opt = torch.optim.Adam([*t1.parameters(), *t2.parameters()], lr=cfg.lr)
    bce = nn.functional.binary_cross_entropy_with_logits
    train_phi = with_phi(train, index)
    for epoch in range(cfg.epochs):
        t0, accs = time.monotonic(), []
        for chunk in batches(train_phi, cfg.batch_size, rng):
            b = make_batch(chunk)
            fake, _ = fake_ids(chunk, b, index, rng)
            out = pair_logits(represent, embedding, t1, t2, b, fake, gen, train_representation=False)
            loss = bce(out.t1, out.truth) + bce(out.t2, out.truth)
            opt.zero_grad()
            loss.backward()
            opt.step()
            accs.append(
                (
                    float(((out.t1 > 0).float() == out.truth).float().mean()),
                    float(((out.t2 > 0).float() == out.truth).float().mean()),
                )
            )
        a = np.asarray(accs)
        log(
            f"attack epoch={epoch} train_t1={a[:, 0].mean():.3f} train_t2={a[:, 1].mean():.3f} "
            f"seconds={time.monotonic() - t0:.1f}"
        )
    c1 = c2 = n = 0
    with torch.no_grad():
        test_phi = with_phi(held_out, index)
        for lo in range(0, len(test_phi), cfg.batch_size):
            chunk = test_phi[lo : lo + cfg.batch_size]
            b = make_batch(chunk)
            fake, _ = fake_ids(chunk, b, index, rng)
            out = pair_logits(represent, embedding, t1, t2, b, fake, gen, train_representation=False)
            c1 += int(((out.t1 > 0).float() == out.truth).sum())
            c2 += int(((out.t2 > 0).float() == out.truth).sum())
            n += int(out.truth.shape[0])
    return AttackScore("T1 (representation vs embeddings)", c1, n, 0.5), AttackScore(
        "T2 (two representations)", c2, n, 0.5
    )


@dataclass(frozen=True)
class RecoveryScores:
    occurrences: AttackScore  # PHI occurrences (at most ``max_eval``, drawn at random)
    units: AttackScore  # each distinct PHI unit once, at its first occurrence
    prior: AttackScore  # the no-information attacker on the same occurrences
    prior_units: AttackScore  # ... and on the same distinct units

    def all(self) -> tuple[AttackScore, ...]:
        return self.occurrences, self.units, self.prior, self.prior_units


def attack_recovery(
    represent: nn.Module,
    embeddings: np.ndarray,
    train: Sequence[Segment],
    held_out: Sequence[Segment],
    cfg: AttackConfig,
    *,
    max_eval: int = 5000,
    log: Callable[[str], None] = lambda _: None,
) -> AttackScore:
    """Top-k accuracy of reading a PHI unit back from its representation, over the whole table."""
    return attack_recovery_scores(
        represent, embeddings, train, held_out, cfg, max_eval=max_eval, log=log
    ).occurrences


def attack_recovery_scores(
    represent: nn.Module,
    embeddings: np.ndarray,
    train: Sequence[Segment],
    held_out: Sequence[Segment],
    cfg: AttackConfig,
    *,
    max_eval: int = 5000,
    log: Callable[[str], None] = lambda _: None,
) -> RecoveryScores:
    """The recovery attacker's top-k accuracy over PHI occurrences and over distinct PHI units,
    with the no-information prior of both."""
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    gen = torch.Generator().manual_seed(cfg.seed)
    table = torch.from_numpy(np.ascontiguousarray(embeddings, dtype=np.float32))
    unit_table = nn.functional.normalize(table, dim=1)
    probe = represent(make_batch(held_out[:1]).ids, gen)
    model = Recovery(int(probe.shape[-1]), cfg.hidden, table.shape[1])
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    for epoch in range(cfg.epochs):
        t0, losses = time.monotonic(), []
        for batch_segments in batches(train, cfg.batch_size, rng):
            b = make_batch(batch_segments)
            with torch.no_grad():
                r = represent(b.ids, gen)
            target = unit_table[b.ids]
            cos = (nn.functional.normalize(model(r), dim=-1) * target).sum(-1)
            loss = (1 - cos)[b.mask].mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        log(f"recovery epoch={epoch} loss={np.mean(losses):.4f} seconds={time.monotonic() - t0:.1f}")
    guesses: list[torch.Tensor] = []
    truths: list[torch.Tensor] = []
    with torch.no_grad():
        for lo in range(0, len(held_out), cfg.batch_size):
            chunk = held_out[lo : lo + cfg.batch_size]
            b = make_batch(chunk)
            pred = model(represent(b.ids, gen))
            phi = torch.zeros_like(b.mask)
            for k, s in enumerate(chunk):
                phi[k, : len(s)] = torch.from_numpy(s.phi)
            guesses.append(pred[phi])
            truths.append(b.ids[phi])
    all_guess = nn.functional.normalize(torch.cat(guesses), dim=-1)
    all_truth = torch.cat(truths)
    guess, truth = all_guess, all_truth
    if guess.shape[0] > max_eval:
        keep = torch.from_numpy(rng.choice(guess.shape[0], max_eval, replace=False))
        guess, truth = guess[keep], truth[keep]
    _, first = np.unique(all_truth.numpy(), return_index=True)
    first_t = torch.from_numpy(np.sort(first))
    frequent = [u for u, _ in Counter(int(i) for s in train for i in s.ids[s.phi]).most_common(cfg.top_k)]
    prior = torch.tensor(frequent, dtype=torch.long)

    def hits(g: torch.Tensor, t: torch.Tensor) -> int:
        correct = 0
        with torch.no_grad():
            for lo in range(0, g.shape[0], 256):
                top = (g[lo : lo + 256] @ unit_table.T).topk(cfg.top_k, dim=1).indices
                correct += int((top == t[lo : lo + 256, None]).any(dim=1).sum())
        return correct

    def prior_hits(t: torch.Tensor) -> int:
        return int(torch.isin(t, prior).sum())

    chance = cfg.top_k / table.shape[0]
    k, u_truth = cfg.top_k, all_truth[first_t]
    return RecoveryScores(
        AttackScore(f"token recovery (top-{k}, PHI units)", hits(guess, truth), int(truth.shape[0]), chance),
        AttackScore(
            f"token recovery (top-{k}, distinct PHI units)",
            hits(all_guess[first_t], u_truth),
            int(u_truth.shape[0]),
            chance,
        ),
        AttackScore(
            f"prior, no representation (top-{k}, PHI units)", prior_hits(truth), int(truth.shape[0]), chance
        ),
        AttackScore(
            f"prior, no representation (top-{k}, distinct PHI units)",
            prior_hits(u_truth),
            int(u_truth.shape[0]),
            chance,
        ),
    )
