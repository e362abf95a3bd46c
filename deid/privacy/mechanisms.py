"""Noise mechanisms, written on an injected ``random.Random``-compatible generator.

Production passes ``random.SystemRandom()`` (os.urandom): every draw is fresh, never reseeded
(the reference code reseeded inside each draw, so every interval got the same noise). Tests pass
a seeded ``random.Random``. Floating-point Laplace sampling has known low-order-bit leaks
(Mironov 2012); outputs here are rounded to a calendar unit or snapped to a table entry, which
removes the low-order bits the attack reads.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence


def laplace(rng: random.Random, scale: float) -> float:
    """One draw of Lap(0, scale): the difference of two Exp(1) draws, times ``scale``."""
    if scale <= 0:
        raise ValueError("scale must be positive")
    return scale * (rng.expovariate(1.0) - rng.expovariate(1.0))


def laplace_metric(rng: random.Random, value: float, epsilon: float) -> float:
    """eps·d-private release of ``value`` for d = |v1 - v2| (in the value's unit): v + Lap(1/eps)."""
    if epsilon <= 0:
        raise ValueError("epsilon must be positive")
    return value + laplace(rng, 1.0 / epsilon)


class BoundedLaplace:
    """Bounded Laplace mechanism of Holohan et al. (2018), pure eps-DP (delta = 0).

    The output is Laplace noise around ``value`` conditioned on [lower, upper] (sampled by
    inverse CDF of the truncated distribution: no rejection loop, no negative draws thrown
    away and redrawn from a different distribution). Conditioning changes the normalising
    mass between neighbouring inputs, so the scale b must solve b = Δ / (eps - ln ΔC(b)) with
    ΔC(b) the worst ratio of normalising masses; it is found by bisection.
    """

    def __init__(self, epsilon: float, lower: float, upper: float, sensitivity: float) -> None:
        if epsilon <= 0 or sensitivity <= 0 or upper <= lower:
            raise ValueError("need epsilon > 0, sensitivity > 0 and lower < upper")
        self.epsilon, self.lower, self.upper, self.sensitivity = epsilon, lower, upper, sensitivity
        self.scale = self._find_scale()

    def _delta_c(self, b: float) -> float:
        diam, dq = self.upper - self.lower, min(self.sensitivity, self.upper - self.lower)
        num = 2.0 - math.exp(-dq / b) - math.exp(-(diam - dq) / b)
        den = 1.0 - math.exp(-diam / b)
        return num / den

    def _f(self, b: float) -> float:
        gap = self.epsilon - math.log(self._delta_c(b))
        return math.inf if gap <= 0 else self.sensitivity / gap

    def _find_scale(self) -> float:
        left = self.sensitivity / self.epsilon  # the unbounded scale: a lower bound
        right = left
        while self._f(right) > right:  # f(b) -> Δ/eps as b grows, so some b has f(b) <= b
            right *= 2.0
        for _ in range(200):
            mid = (left + right) / 2.0
            if self._f(mid) > mid:
                left = mid
            else:
                right = mid
            if right - left <= 1e-9 * right:
                break
        return right

    def _cdf(self, x: float, mu: float) -> float:
        b = self.scale
        return 0.5 * math.exp((x - mu) / b) if x < mu else 1.0 - 0.5 * math.exp(-(x - mu) / b)

    def _inv_cdf(self, p: float, mu: float) -> float:
        b = self.scale
        return mu + b * math.log(2.0 * p) if p < 0.5 else mu - b * math.log(2.0 * (1.0 - p))

    def release(self, rng: random.Random, value: float) -> float:
        mu = min(max(value, self.lower), self.upper)
        lo, hi = self._cdf(self.lower, mu), self._cdf(self.upper, mu)
        u = lo + (hi - lo) * rng.random()
        u = min(max(u, 1e-300), 1.0 - 1e-16)
        return min(max(self._inv_cdf(u, mu), self.lower), self.upper)


def exponential_mechanism(
    rng: random.Random, utilities: Sequence[float], epsilon: float, sensitivity: float = 1.0
) -> int:
    """Index i drawn with probability ∝ exp(eps · U_i / (2 ΔU)) (the textbook factor, which the
    reference code omitted)."""
    if not utilities:
        raise ValueError("no candidates")
    if epsilon <= 0 or sensitivity <= 0:
        raise ValueError("epsilon and sensitivity must be positive")
    weights = exponential_weights(utilities, epsilon, sensitivity)
    return rng.choices(range(len(utilities)), weights=weights, k=1)[0]


def exponential_weights(utilities: Sequence[float], epsilon: float, sensitivity: float = 1.0) -> list[float]:
    """Normalised selection probabilities of the exponential mechanism."""
    top = max(utilities)
    w = [math.exp(epsilon * (u - top) / (2.0 * sensitivity)) for u in utilities]  # shifted: no overflow
    s = sum(w)
    return [x / s for x in w]


def planar_laplace(rng: random.Random, epsilon: float) -> tuple[float, float]:
    """Geo-indistinguishability noise (Andrés et al. 2013): (dx, dy) with angle uniform on
    [0, 2π) and radius ~ Gamma(2, 1/eps), the sum of two Exp(eps) draws. Units are those of
    1/eps (km when eps is per km)."""
    if epsilon <= 0:
        raise ValueError("epsilon must be positive")
    theta = rng.uniform(0.0, 2.0 * math.pi)
    r = (rng.expovariate(1.0) + rng.expovariate(1.0)) / epsilon
    return r * math.cos(theta), r * math.sin(theta)
