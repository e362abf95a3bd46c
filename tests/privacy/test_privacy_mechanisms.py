"""Statistical checks of the mechanisms, each with a fixed seed and a stated tolerance."""

import math
import random
from collections import Counter

import pytest
from scipy import stats

from deid.privacy import (
    BoundedLaplace,
    exponential_mechanism,
    exponential_weights,
    laplace,
    laplace_metric,
    planar_laplace,
    split_micro,
)
from deid.store.base import MICRO

N = 100_000


def _histogram(draw, n=N):
    return Counter(draw() for _ in range(n))


def test_laplace_release_respects_the_metric_privacy_bound():
    """P[A(v1)=y] <= exp(eps·d(v1,v2)) P[A(v2)=y] on rounded outputs, for every bin holding at
    least 2,000 draws (relative sampling error < ~3% there); tolerance 10% on the ratio."""
    eps, v1, v2 = 0.5, 0, 2
    rng = random.Random(1)
    h1 = _histogram(lambda: round(laplace_metric(rng, v1, eps)))
    h2 = _histogram(lambda: round(laplace_metric(rng, v2, eps)))
    bound = math.exp(eps * abs(v1 - v2))
    checked = 0
    for y in set(h1) & set(h2):
        if min(h1[y], h2[y]) < 2_000:
            continue
        checked += 1
        assert h1[y] / h2[y] <= bound * 1.10
        assert h2[y] / h1[y] <= bound * 1.10
    assert checked >= 8
    # the bound is tight far from both inputs: the mechanism is not adding more noise than needed
    tail = [h1[y] / h2[y] for y in range(-6, -2)]
    assert all(abs(r / bound - 1) < 0.10 for r in tail)


def test_laplace_has_mean_zero_and_the_stated_scale():
    rng = random.Random(2)
    xs = [laplace(rng, 3.0) for _ in range(N)]
    assert abs(sum(xs) / N) < 0.05  # sd of the mean: 3*sqrt(2)/sqrt(N) ~ 0.013
    assert abs(sum(abs(x) for x in xs) / N - 3.0) < 0.05  # E|X| = scale


def test_bounded_laplace_stays_in_its_bounds():
    rng = random.Random(3)
    for lo, hi in ((0, 61), (0, 660), (0, 36_000)):
        mech = BoundedLaplace(0.1, lo, hi, 1)
        for v in (lo, (lo + hi) / 2, hi, hi + 50, lo - 50):
            assert all(lo <= mech.release(rng, v) <= hi for _ in range(2_000))


def test_bounded_laplace_scale_is_at_least_the_unbounded_one_and_solves_the_fixed_point():
    for eps in (0.05, 0.25, 1.0, 4.0):
        mech = BoundedLaplace(eps, 0, 61, 1)
        assert mech.scale >= 1 / eps
        assert mech.scale == pytest.approx(1 / (eps - math.log(mech._delta_c(mech.scale))), rel=1e-6)


def test_bounded_laplace_respects_the_privacy_bound_near_a_bound():
    """Neighbouring inputs next to the lower bound, where truncation changes the normalising mass:
    the bin ratio stays within exp(eps) (tolerance 10%, bins with >= 2,000 draws)."""
    eps = 0.5
    mech = BoundedLaplace(eps, 0, 61, 1)
    rng = random.Random(4)
    h1 = _histogram(lambda: math.floor(mech.release(rng, 0)))
    h2 = _histogram(lambda: math.floor(mech.release(rng, 1)))
    for y in set(h1) & set(h2):
        if min(h1[y], h2[y]) >= 2_000:
            assert max(h1[y] / h2[y], h2[y] / h1[y]) <= math.exp(eps) * 1.10


def test_exponential_mechanism_frequencies_match_the_formula():
    """Chi-square goodness of fit against exp(eps·U/(2ΔU)) / Σ; reject only at p < 0.001."""
    utilities = [1.0, 0.8, 0.5, 0.1, 0.0]
    eps = 3.0
    rng = random.Random(5)
    n = 40_000
    counts = Counter(exponential_mechanism(rng, utilities, eps) for _ in range(n))
    probs = exponential_weights(utilities, eps)
    expected = [math.exp(eps * u / 2) for u in utilities]
    assert probs == pytest.approx([e / sum(expected) for e in expected])
    observed = [counts[i] for i in range(len(utilities))]
    assert stats.chisquare(observed, [p * n for p in probs]).pvalue > 0.001


def test_exponential_mechanism_does_not_overflow_on_large_epsilon():
    assert exponential_weights([1.0, 0.0], 5_000.0)[0] == pytest.approx(1.0)


def test_planar_laplace_radius_follows_gamma_and_angle_is_uniform():
    """KS tests against Gamma(2, 1/eps) for the radius and U[0, 2π) for the angle (p > 0.001)."""
    eps = 0.2
    rng = random.Random(6)
    pts = [planar_laplace(rng, eps) for _ in range(20_000)]
    radii = [math.hypot(x, y) for x, y in pts]
    angles = [math.atan2(y, x) % (2 * math.pi) for x, y in pts]
    assert stats.kstest(radii, stats.gamma(a=2, scale=1 / eps).cdf).pvalue > 0.001
    assert stats.kstest(angles, stats.uniform(0, 2 * math.pi).cdf).pvalue > 0.001


def test_budget_split_is_uniform_weighted_and_never_exceeds_the_note_budget():
    assert split_micro(1.0, ["DATE"] * 4) == [MICRO // 4] * 4
    w = split_micro(1.0, ["DATE", "LOC", "LOC"], {"DATE": 2})
    assert w == [MICRO // 2, MICRO // 4, MICRO // 4]
    assert sum(split_micro(1.0, ["AGE"] * 7)) <= MICRO
    assert split_micro(1.0, []) == []


def test_mechanisms_reject_non_positive_parameters():
    rng = random.Random(0)
    with pytest.raises(ValueError):
        laplace(rng, 0)
    with pytest.raises(ValueError):
        laplace_metric(rng, 1, 0)
    with pytest.raises(ValueError):
        BoundedLaplace(1, 5, 5, 1)
    with pytest.raises(ValueError):
        exponential_mechanism(rng, [], 1)
    with pytest.raises(ValueError):
        planar_laplace(rng, -1)
