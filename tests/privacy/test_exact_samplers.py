"""The samplers' whole support (issue 31, item 6): a Laplace draw built on one uniform double
stopped at ~36.7 scales, so an output there was reachable from one neighbouring input only.
The discrete Laplace sampler matches its pmf, computed here independently with numpy."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable

import numpy as np
import pytest
from scipy import stats

from deid.privacy import BoundedLaplace, discrete_laplace, exponential_tail, geometric, laplace

N = 200_000


def _pmf(scale: float, ks: np.ndarray) -> np.ndarray:
    """P[k] = (1 - q) / (1 + q) q^|k|, q = e^(-1/scale): the two-sided geometric distribution."""
    q = np.exp(-1.0 / scale)
    return (1 - q) / (1 + q) * q ** np.abs(ks)


def _chi_square(draw: Callable[[], int], scale: float, seed_note: str) -> tuple[float, float, float]:
    """(chi-square p-value, total variation, tail mass) of N draws against the pmf of ``scale``,
    bins -K..K with both tails pooled (expected count of every bin >= 5)."""
    counts = Counter(draw() for _ in range(N))
    k_max = int(scale * 5)
    ks = np.arange(-k_max, k_max + 1)
    p = _pmf(scale, ks)
    tail = (1 - p.sum()) / 2
    observed = np.array([sum(c for k, c in counts.items() if k < -k_max)]
                        + [counts.get(int(k), 0) for k in ks]
                        + [sum(c for k, c in counts.items() if k > k_max)], dtype=float)
    expected = np.concatenate([[tail], p, [tail]]) * N
    assert expected.min() >= 5, seed_note
    chi2 = float(((observed - expected) ** 2 / expected).sum())
    pvalue = float(stats.chi2.sf(chi2, len(expected) - 1))
    tv = float(0.5 * np.abs(observed / N - expected / N).sum())
    return pvalue, tv, tail


@pytest.mark.parametrize("scale", [0.7, 3.0, 12.5])
def test_discrete_laplace_matches_the_two_sided_geometric_pmf(scale: float) -> None:
    """Fixed seed; tolerance: chi-square p-value >= 0.001 and total variation <= 0.01 (the TV of
    200,000 exact draws over ~60 bins is about 0.005)."""
    rng = random.Random(31)
    pvalue, tv, _ = _chi_square(lambda: discrete_laplace(rng, scale), scale, f"scale {scale}")
    assert pvalue >= 1e-3 and tv <= 0.01, (pvalue, tv)


@pytest.mark.parametrize("broken", ["wrong scale", "rounded float laplace at half scale", "one-sided"])
def test_a_broken_discrete_sampler_fails_the_same_check(broken: str) -> None:
    scale = 3.0
    rng = random.Random(31)
    draw: Callable[[], int] = {
        "wrong scale": lambda: discrete_laplace(rng, scale * 1.1),
        "rounded float laplace at half scale": lambda: round(laplace(rng, scale / 2)),
        "one-sided": lambda: abs(discrete_laplace(rng, scale)),
    }[broken]
    pvalue, tv, _ = _chi_square(draw, scale, broken)
    assert pvalue < 1e-3, (broken, pvalue, tv)


class _Scripted(random.Random):
    """A generator whose first ``n`` calls to ``random()`` answer ``value``, then a fixed seed's."""

    def __init__(self, value: float, n: int) -> None:
        super().__init__(0)
        self._value, self._left = value, n

    def random(self) -> float:
        if self._left > 0:
            self._left -= 1
            return self._value
        return super().random()


def test_the_samplers_reach_beyond_37_scales() -> None:
    """An output 40+ scales from the centre has a positive probability (e^-40 per unit): the
    block trials reach it; ``expovariate`` cannot (-log of a double is at most ~36.7)."""
    # every Bernoulli trial answers "continue" (a uniform below e^-1) for 45 blocks
    assert exponential_tail(_Scripted(0.01, 45)) > 40
    assert abs(laplace(_Scripted(0.01, 46), 2.0)) > 80
    assert geometric(_Scripted(0.01, 45), math.exp(-1 / 3.0)) > 40 * 3
    mech = BoundedLaplace(1.0, 0, 36_525, 1.0)  # a point at the lower bound, a century above it
    assert mech.release(_Scripted(0.01, 60), 0) > 40 * mech.scale
    # the room below a point is a hard bound: the trials stop there
    assert 0 <= mech.release(_Scripted(0.01, 200), 3.0 * mech.scale) <= 3.0 * mech.scale
    assert max(-math.log(1.0 - (1.0 - 2.0 ** -53)), 0) < 37  # why: the old sampler's limit


def test_truncated_geometric_and_exponential_stay_below_their_limit_and_match_their_law() -> None:
    """Conditioned draws: P[n] ∝ q^n on [0, 5), checked against the formula (chi-square p >= 0.001)."""
    rng = random.Random(7)
    q = math.exp(-1 / 4.0)
    counts = Counter(geometric(rng, q, 5) for _ in range(50_000))
    assert set(counts) <= set(range(5))
    p = np.array([q ** n for n in range(5)])
    p /= p.sum()
    chi2 = sum((counts[n] - 50_000 * p[n]) ** 2 / (50_000 * p[n]) for n in range(5))
    assert stats.chi2.sf(chi2, 4) >= 1e-3
    xs = [exponential_tail(rng, 2.5) for _ in range(20_000)]
    assert all(0 <= x < 2.5 for x in xs)
    # mean of Exp(1) conditioned on [0, L): 1 - L e^-L / (1 - e^-L); sd of the mean ~ 0.005
    want = 1 - 2.5 * math.exp(-2.5) / (1 - math.exp(-2.5))
    assert abs(sum(xs) / len(xs) - want) < 0.02
