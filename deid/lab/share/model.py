"""The networks: the representation, the de-identification head and the three adversaries."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import torch
from torch import nn


@dataclass(frozen=True)
class ReprDims:
    dim: int = 50  # the shared vector (Friedrich et al.: d = 50)
    hidden: int = 128  # BiLSTM units per direction
    in_noise: float = 0.1  # initial deviations of the input and output noise
    out_noise: float = 0.1
    # the deviations never shrink below this (0: no floor). Without it the tagging loss learns
    # the noise away (0.10 -> 0.055 on MEDDOCAN in 14 epochs): noise that the training may remove
    # protects nothing. Old model configs lack the key and load with no floor.
    noise_floor: float = 0.0

    def to_dict(self) -> dict[str, float | int]:
        return asdict(self)


class GaussianNoise(nn.Module):
    """x + sigma * N(0, 1) with one trainable deviation per dimension (kept positive by exp).

    Always on, at training and at sharing time: it is what makes a known-plaintext lookup of a
    vector in a table of precomputed representations miss. ``enabled=False`` builds the broken,
    noiseless variant the privacy test must catch. ``floor``: no deviation below it, held twice:
    the trainer projects the parameter back after each step (``hold_floor``), and the forward pass
    clamps, so that weights loaded from elsewhere cannot go under it either.
    """

    def __init__(self, dim: int, init: float, enabled: bool = True, floor: float = 0.0) -> None:
        super().__init__()
        self.floor = float(floor)
        self.log_sigma = nn.Parameter(torch.full((dim,), math.log(max(init, floor, 1e-6))))
        self.enabled = enabled

    def sigma(self) -> torch.Tensor:
        s = self.log_sigma.exp()
        return s.clamp(min=self.floor) if self.floor > 0 else s

    @torch.no_grad()
    def hold_floor(self) -> None:
        if self.floor > 0:
            self.log_sigma.clamp_(min=math.log(self.floor))

    def forward(self, x: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
        if not self.enabled:
            return x
        eps = torch.randn(x.shape, generator=generator, device=x.device, dtype=x.dtype)
        return x + self.sigma() * eps


def frozen_embedding(table: np.ndarray) -> nn.Embedding:
    emb = nn.Embedding.from_pretrained(
        torch.from_numpy(np.ascontiguousarray(table, dtype=np.float32)), freeze=True
    )
    return emb


class Representation(nn.Module):
    """Frozen embeddings -> input noise -> BiLSTM -> linear (dim) -> output noise."""

    def __init__(self, embedding: nn.Embedding, dims: ReprDims, noise: bool = True) -> None:
        super().__init__()
        self.embedding = embedding
        self.dims = dims
        width = embedding.embedding_dim
        self.in_noise = GaussianNoise(width, dims.in_noise, noise, dims.noise_floor)
        self.lstm = nn.LSTM(width, dims.hidden, batch_first=True, bidirectional=True)
        self.proj = nn.Linear(2 * dims.hidden, dims.dim)
        self.out_noise = GaussianNoise(dims.dim, dims.out_noise, noise, dims.noise_floor)

    def hold_noise_floor(self) -> None:
        """Project both deviations back onto the floor (after each optimiser step)."""
        self.in_noise.hold_floor()
        self.out_noise.hold_floor()

    def trainable_state(self) -> dict[str, torch.Tensor]:
        """Everything but the frozen table (which the units rebuild)."""
        return {k: v for k, v in self.state_dict().items() if not k.startswith("embedding.")}

    def forward(self, ids: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
        x = self.in_noise(self.embedding(ids), generator)
        h, _ = self.lstm(x)
        return self.out_noise(self.proj(h), generator)


class IdentityRepresentation(nn.Module):
    """The broken mechanism of the tests: the embedding sequence itself, noiseless."""

    def __init__(self, embedding: nn.Embedding) -> None:
        super().__init__()
        self.embedding = embedding

    def forward(self, ids: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
        return self.embedding(ids)


class Tagger(nn.Module):
    """BiLSTM + linear over a vector sequence -> tag logits (the de-identification head)."""

    def __init__(self, width: int, hidden: int, n_tags: int) -> None:
        super().__init__()
        self.lstm = nn.LSTM(width, hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, n_tags)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h, _ = self.lstm(x)
        return self.out(h)


class PairAdversary(nn.Module):
    """Do these two aligned sequences come from the same sentence? (T1: representation and
    embeddings; T2: two representations.) Both sides are projected to a common width and compared
    position by position (difference and product) before a BiLSTM and a max-pool: a fake differs
    at one position, and this attacker looks there directly, a stronger one than two separate
    sentence encoders."""

    def __init__(self, width_a: int, width_b: int, hidden: int) -> None:
        super().__init__()
        self.pa = nn.Linear(width_a, hidden)
        self.pb = nn.Linear(width_b, hidden)
        self.lstm = nn.LSTM(4 * hidden, hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, 1)

    def forward(self, a: torch.Tensor, b: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        xa, xb = self.pa(a), self.pb(b)
        h, _ = self.lstm(torch.cat([xa, xb, (xa - xb).abs(), xa * xb], dim=-1))
        h = h.masked_fill(~mask.unsqueeze(-1), -1e4)
        return self.out(h.max(dim=1).values).squeeze(-1)


class Recovery(nn.Module):
    """Representation sequence -> a vector in the embedding space at each position (the token
    is then read back by nearest neighbour over the whole table). The fresh attacker of the
    privacy test, and the third adversary of the training's phases 2 and 3."""

    def __init__(self, width: int, hidden: int, out_width: int) -> None:
        super().__init__()
        self.lstm = nn.LSTM(width, hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, out_width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h, _ = self.lstm(x)
        return self.out(h)
