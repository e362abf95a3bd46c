"""Noise mechanisms, written on an injected ``random.Random``-compatible generator.

Production passes ``random.SystemRandom()`` (os.urandom): every draw is fresh, never reseeded
(the reference code reseeded inside each draw, so every interval got the same noise). Tests pass
a seeded ``random.Random``. Floating-point Laplace sampling has known low-order-bit leaks
(Mironov 2012); outputs here are rounded to a calendar unit or snapped to a table entry, which
removes the low-order bits the attack reads.

Tails (issue 31): ``-log(U)`` of one uniform double cannot exceed ~36.7 (U >= 2^-53), so a
Laplace draw built on it never lands beyond ~36.7 scales from its centre: an output there is
reachable from one neighbouring input and not from the other, an unbounded privacy loss. Every
sampler here draws its whole part by Bernoulli trials of one block at a time (a geometric number
of blocks, no upper limit) and only the position inside the last block by inversion, so the
support is the mechanism's whole support. ``discrete_laplace`` is the exact integer mechanism
(two-sided geometric) for releases in integer units.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence


def exponential_tail(rng: random.Random, limit: float = math.inf) -> float:
    """One draw of Exp(1) conditioned on [0, ``limit``): whole units one Bernoulli trial at a time
    (continue with probability P[X >= w + 1 | X >= w], no upper limit on their number), the
    fraction of the last unit by inversion of its truncated CDF."""
    if limit <= 0:
        raise ValueError("limit must be positive")
    whole = 0.0
    while True:
        remaining = limit - whole
        size = min(1.0, remaining)
        tail = math.exp(-remaining) if remaining != math.inf else 0.0
        if size < remaining and rng.random() < (math.exp(-size) - tail) / (1.0 - tail):
            whole += size
            continue
        u = rng.random()
        return whole + min(-math.log1p(u * math.expm1(-size)), math.nextafter(size, 0.0))


def laplace(rng: random.Random, scale: float) -> float:
    """One draw of Lap(0, scale): a fair sign times an Exp(1) draw of unbounded support, times
    ``scale`` (the difference of two ``expovariate`` draws stops at ~36.7 scales)."""
    if scale <= 0:
        raise ValueError("scale must be positive")
    sign = -1.0 if rng.random() < 0.5 else 1.0
    return sign * scale * exponential_tail(rng)


def geometric(rng: random.Random, q: float, limit: float = math.inf) -> int:
    """n in {0, 1, ...} (below ``limit``) with P[n] ∝ q^n, 0 < q < 1: blocks of about one scale
    (1 / -ln q) crossed by Bernoulli trials, the position inside the last block by inversion."""
    if not 0.0 < q < 1.0:
        raise ValueError("q must lie in (0, 1)")
    if limit < 1:
        raise ValueError("limit must be at least 1")
    log_q = math.log(q)
    block = max(1, math.ceil(-1.0 / log_q))
    offset = 0
    while True:
        remaining = limit - offset
        size = int(min(block, remaining))
        tail = math.exp(remaining * log_q) if remaining != math.inf else 0.0
        if size < remaining and rng.random() < (math.exp(size * log_q) - tail) / (1.0 - tail):
            offset += size
            continue
        u = rng.random()  # P[j] ∝ q^j on [0, size): j = floor(log(1 - u (1 - q^size)) / log q)
        j = math.floor(math.log1p(u * math.expm1(size * log_q)) / log_q)
        return offset + min(max(j, 0), size - 1)


def discrete_laplace(rng: random.Random, scale: float) -> int:
    """One draw of the discrete Laplace (two-sided geometric) distribution on the integers:
    P[k] = (1 - q) / (1 + q) · q^|k|, q = exp(-1 / scale). An integer value v released as
    v + discrete_laplace(rng, 1/eps) is eps-d-private per integer unit, exactly: no rounding and
    no truncated tail. A sign and a geometric magnitude, "-0" redrawn (probability < 1/2 a try)."""
    if scale <= 0:
        raise ValueError("scale must be positive")
    q = math.exp(-1.0 / scale)
    if q <= 0.0:
        return 0  # scale below ~1/745: every other integer has probability under 1e-300
    while True:
        negative = rng.random() < 0.5
        n = geometric(rng, q)
        if negative and n == 0:
            continue
        return -n if negative else n


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

    def release(self, rng: random.Random, value: float) -> float:
        """A side of ``mu`` by its mass, then the distance on that side as Exp(1) conditioned on
        the room to the bound (``exponential_tail``): every point of [lower, upper] is in the
        support, however far in scales (inverting the CDF of one uniform double stopped at ~36
        scales above the centre)."""
        mu = min(max(value, self.lower), self.upper)
        b = self.scale
        below, above = (mu - self.lower) / b, (self.upper - mu) / b
        mass_below, mass_above = -math.expm1(-below), -math.expm1(-above)  # each times 1/2
        if mass_below + mass_above <= 0.0:
            return mu
        if rng.random() * (mass_below + mass_above) < mass_below:
            x = mu - b * exponential_tail(rng, below)
        else:
            x = mu + b * exponential_tail(rng, above)
        return min(max(x, self.lower), self.upper)


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
