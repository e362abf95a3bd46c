"""A de-identification head trained from vector sequences alone, and its word-level evaluation.

The same ``Tagger`` serves both sides of the comparison the issue asks for: trained on shared
representation files (``deid train --from-repr``) or on the raw frozen embeddings of the same
notes (the baseline; that one needs the text).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from deid.lab.share.model import Tagger
from deid.lab.share.pairs import make_batch
from deid.lab.share.units import Segment
from deid.labels import BIO_TAGS
from deid.ner.encode import IGNORE
from deid.ner.text import TAG2ID


@dataclass(frozen=True)
class HeadConfig:
    hidden: int = 64
    epochs: int = 5
    batch_size: int = 32
    lr: float = 2e-3
    seed: int = 13


def _pad(
    seqs: Sequence[np.ndarray], labels: Sequence[np.ndarray] | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(s.shape[0] for s in seqs)
    x = torch.zeros((len(seqs), width, seqs[0].shape[1]))
    y = torch.full((len(seqs), width), IGNORE, dtype=torch.long)
    for r, s in enumerate(seqs):
        x[r, : s.shape[0]] = torch.from_numpy(np.asarray(s, dtype=np.float32))
        if labels is not None:
            y[r, : s.shape[0]] = torch.from_numpy(labels[r])
    return x, y


def train_head(
    vectors: Sequence[np.ndarray],
    labels: Sequence[np.ndarray],
    cfg: HeadConfig,
    log: Callable[[str], None] = lambda _: None,
) -> Tagger:

    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    head = Tagger(int(vectors[0].shape[1]), cfg.hidden, len(BIO_TAGS))
    opt = torch.optim.Adam(head.parameters(), lr=cfg.lr)
    by_len = np.argsort([v.shape[0] for v in vectors], kind="stable")
    chunks = [by_len[k : k + cfg.batch_size] for k in range(0, len(by_len), cfg.batch_size)]
    for epoch in range(cfg.epochs):
        t0, losses = time.monotonic(), []
        for j in rng.permutation(len(chunks)):
            x, y = _pad([vectors[i] for i in chunks[j]], [labels[i] for i in chunks[j]])
            logits = head(x)
            loss = nn.functional.cross_entropy(
                logits.reshape(-1, logits.shape[-1]), y.reshape(-1), ignore_index=IGNORE
            )
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        log(f"head epoch={epoch} loss={np.mean(losses):.4f} seconds={time.monotonic() - t0:.1f}")
    head.eval()
    return head


@torch.no_grad()
def represent_segments(
    represent: nn.Module, segments: Sequence[Segment], generator: torch.Generator | None, batch_size: int = 64
) -> list[np.ndarray]:
    """The shared vectors of each segment (noise drawn from ``generator``)."""
    out: list[np.ndarray] = []
    for lo in range(0, len(segments), batch_size):
        chunk = segments[lo : lo + batch_size]
        b = make_batch(chunk)
        r = represent(b.ids, generator)
        out.extend(r[k, : len(s)].numpy().copy() for k, s in enumerate(chunk))
    return out


@dataclass(frozen=True)
class BinaryScore:
    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def line(self) -> str:
        counts = f"tp={self.tp} fp={self.fp} fn={self.fn}"
        return f"P={self.precision:.4f} R={self.recall:.4f} F1={self.f1:.4f} ({counts})"


@torch.no_grad()
def score_words(
    head: nn.Module, vectors: Sequence[np.ndarray], segments: Sequence[Segment], batch_size: int = 64
) -> BinaryScore:
    """Token-level binary PHI scores over words (a word counts at its first unit)."""
    o = TAG2ID["O"]
    tp = fp = fn = 0
    for lo in range(0, len(segments), batch_size):
        x, _ = _pad(vectors[lo : lo + batch_size])
        pred = head(x).argmax(-1).numpy()
        for k, s in enumerate(segments[lo : lo + batch_size]):
            p = pred[k, : len(s)][s.first] != o
            g = s.tags[s.first] != o
            tp += int((p & g).sum())
            fp += int((p & ~g).sum())
            fn += int((~p & g).sum())
    return BinaryScore(tp, fp, fn)


def raw_vectors(embeddings: np.ndarray, segments: Sequence[Segment]) -> list[np.ndarray]:
    """The baseline's input: each segment's frozen embedding rows, as they are."""
    return [embeddings[s.ids] for s in segments]
