"""Statistical checks of the timeline's mechanisms (issue 15), against expectations computed here.

Every expectation is computed independently of the code under test: the Laplace CDF is
``scipy.stats.laplace``; the truncated Laplace on [lo, hi] is written from it by hand
(F(x) - F(lo)) / (F(hi) - F(lo)); the bounded-Laplace scale is re-solved here from the privacy loss
itself (``_holohan_scale``, scipy's brentq), never from ``BoundedLaplace._delta_c``/``_cdf``; the
unit sensitivities are the documented ones (1, 7, 30.4375, 365.25 days) written out again.

Each sampling test has a fixed seed and states its tolerance. The privacy-loss tests are exact
computations (no sampling): for every neighbouring pair of true days in a domain, the loss
max_k |ln P(k|t) - ln P(k|t')| over the *rounded* outputs k must stay within eps (+1e-9 for float).
Why a window of k is enough: beyond both centres every bin's probability is c * exp(-|k - mu| / b)
for both inputs, so the log ratio is constant there and equal to its value at the window's edge.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import math
import random
import re
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import date

import numpy as np
import pytest
from scipy import optimize, stats

from deid.events import DeidNote, ModelInfo, RawNote
from deid.labels import Label
from deid.privacy.mechanisms import BoundedLaplace
from deid.settings import PrivacySettings, Settings
from deid.spans import Span
from deid.store.keys import KeyHasher
from deid.store.memory import InMemoryStore
from deid.substitution.engine import Substituter
from deid.substitution.profiles import deidentify_text
from deid.temporal.timeline import OPEN_SIDE_DAYS, Point, Timeline

SECRET = b"timeline-privacy-test-secret-0123456789"
MODEL = ModelInfo(name="test", version="0")
# The documented sensitivities (docs: one unit of the expression, in days), written out again.
UNIT_DAYS = {"day": 1.0, "week": 7.0, "month": 30.4375, "year": 365.25}
FLOAT_TOL = 1e-9  # the only slack of the exact loss checks: floating-point rounding
P_MIN = 0.001  # goodness-of-fit tests reject only below this p-value


# ------------------------------------------------------------------------------ independent maths


def _lap(mu: float, scale: float) -> stats.rv_continuous:
    return stats.laplace(loc=mu, scale=scale)


def _mass(a: np.ndarray, b: np.ndarray, mu: float, scale: float) -> np.ndarray:
    """P(a <= X <= b) for X ~ Laplace(mu, scale), accurate in both tails (differences of small
    numbers: the CDF on the left, the survival function on the right)."""
    lap = _lap(mu, scale)
    left = lap.cdf(b) - lap.cdf(a)
    right = lap.sf(a) - lap.sf(b)
    mid = 1.0 - lap.cdf(a) - lap.sf(b)
    return np.where(b <= mu, left, np.where(a >= mu, right, mid))


def _z(mu: float, lo: float, hi: float, scale: float) -> float:
    """The truncated Laplace's normalising mass on [lo, hi]."""
    return float(_mass(np.array([lo]), np.array([hi]), mu, scale)[0])


def _holohan_scale(eps: float, lo: float, hi: float, sensitivity: float) -> float:
    """The smallest scale b at which the bounded Laplace on [lo, hi] is eps-DP for inputs at most
    ``sensitivity`` apart, solved from the loss itself: the worst pair is (lo, lo + Δ) at the
    domain edge, with loss Δ/b + ln(Z(lo + Δ) / Z(lo)) (Holohan et al. 2018, Thm 3 and Lemma 5)."""
    dq = min(sensitivity, hi - lo)

    def loss_minus_eps(b: float) -> float:
        return dq / b + math.log(_z(lo + dq, lo, hi, b) / _z(lo, lo, hi, b)) - eps

    start = sensitivity / eps
    if loss_minus_eps(start) <= 0:
        return start
    top = start * 2
    while loss_minus_eps(top) > 0:
        top *= 2
    return float(optimize.brentq(loss_minus_eps, start, top, xtol=1e-12, rtol=1e-12))


def _continuous_worst_loss(eps: float, lo: float, hi: float, sensitivity: float, scale: float) -> float:
    """sup over mu, mu' in [lo, hi] with |mu - mu'| <= Δ and over outputs x of the log density ratio:
    d/b + |ln Z(mu')/Z(mu)| (the first term is reached at x = lo or x = hi), on a fine grid of mu."""
    dq = min(sensitivity, hi - lo)
    worst = 0.0
    for mu in np.linspace(lo, hi - dq, 121):
        worst = max(worst, dq / scale + abs(math.log(_z(mu + dq, lo, hi, scale) / _z(mu, lo, hi, scale))))
    return worst


def _truncated_pmf(t: float, lo: int, hi: int, scale: float, ks: np.ndarray) -> np.ndarray:
    """P(round(X) = k) for X the truncated Laplace on [lo, hi] centred on clamp(t) (outputs clamped
    to [lo, hi], as the timeline does)."""
    mu = min(max(t, lo), hi)
    a = np.maximum(ks - 0.5, lo).astype(float)
    b = np.minimum(ks + 0.5, hi).astype(float)
    return _mass(a, b, mu, scale) / _z(mu, lo, hi, scale)


def _rounded_laplace_pmf(t: float, scale: float, ks: np.ndarray) -> np.ndarray:
    """P(round(t + L) = k) for L ~ Laplace(0, scale)."""
    return _mass(ks - 0.5, ks + 0.5, t, scale)


def _loss(p: np.ndarray, q: np.ndarray) -> float:
    keep = (p > 0) & (q > 0)
    assert keep.sum() >= min(len(p), 3), "the window lost its mass: widen it"
    return float(np.max(np.abs(np.log(p[keep]) - np.log(q[keep]))))


def _window(mu1: float, mu2: float, lo: int, hi: int, scale: float) -> np.ndarray:
    pad = max(3, int(min(30 * scale, 400)))
    return np.arange(max(lo, int(min(mu1, mu2)) - pad), min(hi, int(max(mu1, mu2)) + pad) + 1)


def _chi2_pvalue(samples: Sequence[int], ks: np.ndarray, pmf: np.ndarray, min_expected: float = 5.0) -> float:
    """Chi-square goodness of fit of integer samples to ``pmf`` over ``ks``; bins with fewer than
    ``min_expected`` expected draws are pooled from the outside in (the tails), and the mass
    outside ``ks`` goes to the outer pooled bins."""
    n = len(samples)
    counts = {int(k): 0 for k in ks}
    below = above = 0
    for s in samples:
        if s < ks[0]:
            below += 1
        elif s > ks[-1]:
            above += 1
        else:
            counts[int(s)] += 1
    exp = list(pmf * n)
    obs = [counts[int(k)] for k in ks]
    exp[0] += n * max(0.0, 1.0 - float(pmf.sum())) / 2
    exp[-1] += n * max(0.0, 1.0 - float(pmf.sum())) / 2
    obs[0] += below
    obs[-1] += above
    bins_o: list[float] = []
    bins_e: list[float] = []
    acc_o = acc_e = 0.0
    for o, e in zip(obs, exp, strict=True):
        acc_o += o
        acc_e += e
        if acc_e >= min_expected:
            bins_o.append(acc_o)
            bins_e.append(acc_e)
            acc_o = acc_e = 0.0
    bins_o[-1] += acc_o
    bins_e[-1] += acc_e
    e_arr = np.array(bins_e) * (n / sum(bins_e))
    return float(stats.chisquare(bins_o, e_arr).pvalue)


# ------------------------------------------------------------------- (a) samples follow the law

BOUNDED_CASES = [  # (eps, lo, hi, sensitivity): short room, tight budget, birth-date scale, open side
    (0.1, 0, 61, 1.0),
    (0.5, 0, 61, 1.0),
    (2.0, 0, 10, 1.0),
    (0.2, 0, 6000, 365.25),
    (0.5, 0, OPEN_SIDE_DAYS, 1.0),
]


@pytest.mark.parametrize(("eps", "lo", "hi", "delta"), BOUNDED_CASES)
def test_bounded_laplace_scale_is_the_smallest_that_keeps_the_continuous_loss_at_eps(eps, lo, hi, delta):
    """The mechanism's scale equals the one re-solved here (rel. 1e-6), and at that scale the worst
    continuous loss over pairs Δ apart is eps: not above (private), not far below (not wasteful,
    tolerance 0.5 %)."""
    mech = BoundedLaplace(eps, lo, hi, delta)
    assert mech.scale == pytest.approx(_holohan_scale(eps, lo, hi, delta), rel=1e-6)
    worst = _continuous_worst_loss(eps, lo, hi, delta, mech.scale)
    assert worst <= eps * (1 + 1e-6)
    assert worst >= eps * 0.995


@pytest.mark.parametrize(("eps", "lo", "hi", "delta"), BOUNDED_CASES[:4])
def test_bounded_laplace_samples_follow_the_truncated_laplace(eps, lo, hi, delta):
    """KS test of 3,000 draws per centre (edge, near edge, middle, outside the bounds) against the
    truncated Laplace with the independently solved scale; reject at p < 0.001."""
    mech = BoundedLaplace(eps, lo, hi, delta)
    scale = _holohan_scale(eps, lo, hi, delta)
    rng = random.Random(11)
    for value in (lo, lo + 3 * delta, (lo + hi) / 2, hi + 5 * delta):
        mu = min(max(value, lo), hi)
        z_lo, z = _lap(mu, scale).cdf(lo), _z(mu, lo, hi, scale)

        def cdf(x: np.ndarray, mu: float = mu, z_lo: float = z_lo, z: float = z) -> np.ndarray:
            return np.clip((_lap(mu, scale).cdf(np.clip(x, lo, hi)) - z_lo) / z, 0.0, 1.0)

        xs = [mech.release(rng, value) for _ in range(3_000)]
        assert all(lo <= x <= hi for x in xs)
        assert stats.kstest(xs, cdf).pvalue > P_MIN, (eps, lo, hi, value)


def test_timeline_release_between_neighbours_follows_the_rounded_truncated_laplace():
    """Chi-square of 5,000 rounded draws per case against the law written here; the room is the
    open interval between the neighbours' surrogates (computed by hand, not by ``room``)."""
    rng = random.Random(12)
    cases = [  # (points, true day, eps, unit, room by hand)
        ([Point(1000, 1000), Point(1062, 1062)], 1001, 0.5, "day", (1001, 1061)),
        ([Point(1000, 1000), Point(1062, 1062)], 1031, 0.1, "day", (1001, 1061)),
        ([Point(1000, 980), Point(1062, 1010)], 1050, 0.5, "day", (981, 1009)),  # centre clamped
        ([Point(1000, 1000)], 1003, 0.5, "day", (1001, 1001 + OPEN_SIDE_DAYS)),  # open side
        ([Point(5000, 5100)], 4990, 0.5, "week", (5099 - OPEN_SIDE_DAYS, 5099)),
    ]
    for points, true, eps, unit, (lo, hi) in cases:
        tl = Timeline(points)
        assert tl.room(true) == (lo if len(points) > 1 or points[0].true < true else None,
                                 hi if len(points) > 1 or points[0].true > true else None)
        scale = _holohan_scale(eps, lo, hi, UNIT_DAYS[unit])
        draws = [tl.release(rng, true, eps, unit) for _ in range(5_000)]
        assert all(lo <= d <= hi for d in draws)
        mu = min(max(true, lo), hi)
        ks = _window(mu, mu, lo, hi, scale)
        pmf = _truncated_pmf(true, lo, hi, scale, ks)
        assert _chi2_pvalue(draws, ks, pmf) > P_MIN, (points, true, eps, unit)


def test_no_neighbour_is_the_plain_laplace_of_the_unit():
    """A first point has no neighbour: round(t + Lap(Δ_unit / eps)). Chi-square for days (6,000
    draws), KS for a year-unit point (4,000 draws; rounding to days moves the CDF by < 1/(2b))."""
    rng = random.Random(13)
    t, eps = 738_000, 0.5
    draws = [Timeline().release(rng, t, eps, "day") for _ in range(6_000)]
    ks = np.arange(t - 60, t + 61)
    assert _chi2_pvalue(draws, ks, _rounded_laplace_pmf(t, 1 / eps, ks)) > P_MIN
    eps_y = 0.2
    years = [Timeline().release(rng, t, eps_y, "year") for _ in range(4_000)]
    assert stats.kstest(years, _lap(t, 365.25 / eps_y).cdf).pvalue > P_MIN
    # the same day twice is the same surrogate: a known point is reused, nothing is drawn
    tl = Timeline([Point(t, t + 17)])
    assert tl.release(rng, t, eps, "day") == t + 17


# ------------------------------------------------- (b) every neighbouring pair within the claim


def _pair_losses(tl: Timeline, eps: float, unit: str, trues: Sequence[int], step: int,
                 lo: int, hi: int) -> list[float]:
    """The rounded-output loss of the timeline's mechanism for each pair (t, t + step) whose both
    days fall in one gap of ``tl`` (same neighbours), with the mechanism's own scale."""
    assert tl.room(trues[0]) == tl.room(trues[-1] + step)  # one gap: the same bounds for the whole domain
    scale = BoundedLaplace(eps, lo, hi, UNIT_DAYS[unit]).scale
    out = []
    for t in trues:
        t2 = t + step
        mu1, mu2 = min(max(t, lo), hi), min(max(t2, lo), hi)
        ks = _window(mu1, mu2, lo, hi, scale)
        out.append(_loss(_truncated_pmf(t, lo, hi, scale, ks), _truncated_pmf(t2, lo, hi, scale, ks)))
    return out


@pytest.mark.parametrize("eps", [0.1, 0.5, 2.0])
def test_every_neighbouring_pair_between_two_neighbours_stays_within_eps(eps):
    """Days between two released neighbours (surrogates at +0 and -30 from their true days, so the
    centre is clamped for part of the domain): every pair (t, t+1) in the gap, loss <= eps."""
    for points, lo, hi in (([Point(1000, 1000), Point(1062, 1062)], 1001, 1061),
                           ([Point(1000, 1000), Point(1062, 1032)], 1001, 1031)):
        tl = Timeline(points)
        assert tl.room(1001) == (lo, hi)
        losses = _pair_losses(tl, eps, "day", range(1001, 1061), 1, lo, hi)
        assert max(losses) <= eps + FLOAT_TOL, (points, eps, max(losses))
        assert max(losses) >= 0.5 * eps  # the check can see a loss at all (non-degenerate domain)


@pytest.mark.parametrize(("unit", "step", "gap"), [("week", 7, 400), ("month", 30, 2_000),
                                                   ("year", 365, 20_000)])
def test_every_neighbouring_pair_of_coarse_units_stays_within_eps(unit, step, gap):
    """A point in weeks, months or years (a birth date is in years): pairs one unit apart (rounded
    down to whole days) over a grid of the gap's days (about 60 of them) with both ends, loss <= eps."""
    eps = 0.3
    tl = Timeline([Point(100_000, 100_000), Point(100_000 + gap, 100_000 + gap)])
    lo, hi = 100_001, 100_000 + gap - 1
    last = hi - step
    trues = sorted({*range(lo, last + 1, max(1, (last - lo) // 60)), last})
    losses = _pair_losses(tl, eps, unit, trues, step, lo, hi)
    assert max(losses) <= eps + FLOAT_TOL, (unit, max(losses))


def test_every_neighbouring_pair_on_an_open_side_stays_within_eps():
    """One neighbour only: the open side is bounded OPEN_SIDE_DAYS away; pairs next to the
    neighbour (where truncation bites) and beyond, on both sides, loss <= eps."""
    eps = 0.5
    right = Timeline([Point(50_000, 50_000)])  # new points after the neighbour
    lo, hi = 50_001, 50_001 + OPEN_SIDE_DAYS
    losses = _pair_losses(right, eps, "day", range(50_001, 50_120), 1, lo, hi)
    left = Timeline([Point(50_000, 50_010)])  # new points before it
    lo2, hi2 = 50_009 - OPEN_SIDE_DAYS, 50_009
    losses += _pair_losses(left, eps, "day", range(49_880, 49_999), 1, lo2, hi2)
    assert max(losses) <= eps + FLOAT_TOL


# ------------------------------------------------------ (c) plain Laplace and the age mechanism


def test_every_neighbouring_pair_of_the_plain_laplace_stays_within_eps():
    """No neighbour: the rounded Laplace with scale Δ/eps (the scale checked by the sampling test
    above); pairs (t, t+Δ) for each unit, loss <= eps."""
    for unit, step in (("day", 1), ("week", 7), ("year", 365)):
        for eps in (0.1, 1.0):
            scale = UNIT_DAYS[unit] / eps
            t = 700_000
            ks = np.arange(t - int(30 * scale) - step, t + int(30 * scale) + step + 1)
            loss = _loss(_rounded_laplace_pmf(t, scale, ks), _rounded_laplace_pmf(t + step, scale, ks))
            assert loss <= eps + FLOAT_TOL, (unit, eps, loss)


def _engine(eps_per_note: float, seed: int, **privacy: float) -> Substituter:
    settings = Settings(privacy=PrivacySettings(epsilon_per_note=eps_per_note, patient_cap=1e6, **privacy))
    return Substituter(InMemoryStore(), KeyHasher(SECRET), settings, random.Random(seed))


def _run_patients(sub: Substituter, text: str, spans: list[Span], n: int, lang: str = "fr",
                  day: date | None = date(2021, 3, 5)) -> list[DeidNote]:
    """One note per patient for ``n`` patients (each has a fresh timeline), in one batch."""
    notes = [RawNote(event_id=f"e{i}", patient_id=f"patient-{i}", language=lang, document_date=day,
                     text=text) for i in range(n)]
    return asyncio.run(sub.substitute(notes, [spans] * n, MODEL))


def _span(text: str, sub: str, label: Label) -> Span:
    i = text.index(sub)
    return Span(i, i + len(sub), label)


def _eps_charged(outs: Sequence[DeidNote], values_per_note: int) -> float:
    spent = {round(o.privacy.epsilon_spent, 6) for o in outs}
    assert len(spent) == 1, spent  # every run charged the same
    return spent.pop() / values_per_note


def test_own_unit_age_mechanism_matches_the_epsilon_charged_and_every_pair_stays_within_it():
    """An age with no birth date to derive it from is noised alone in years: 3,000 patients, the
    noise (surrogate - true age) against round(Lap(1 / eps_charged)) by chi-square, then the loss
    of that law over every pair of ages (a, a+1), 1..110, <= eps_charged."""
    text = "Patient de 60 ans."
    spans = [_span(text, "60 ans", Label.AGE)]
    outs = _run_patients(_engine(0.5, 21), text, spans, 3_000, day=None)
    eps = _eps_charged(outs, 1)
    assert eps == pytest.approx(0.5, abs=1e-5)
    noise = [int(re.fullmatch(r"Patient de (\d+) ans?\.", o.text)[1]) - 60 for o in outs]  # type: ignore[index]
    ks = np.arange(-30, 31)
    assert _chi2_pvalue(noise, ks, _rounded_laplace_pmf(0, 1 / eps, ks)) > P_MIN
    worst = 0.0
    for a in range(1, 110):
        ks = np.arange(a - 60, a + 62)
        pair = _rounded_laplace_pmf(a, 1 / eps, ks), _rounded_laplace_pmf(a + 1, 1 / eps, ks)
        worst = max(worst, _loss(*pair))
    assert worst <= eps + FLOAT_TOL


# ----------------------------------------------------- (d) engine: the scale of the eps charged


DAY_RE = re.compile(r"(\d\d)/(\d\d)/(\d{4})")


def _day_of(text: str) -> date:
    m = DAY_RE.search(text)
    assert m, text
    return date(int(m[3]), int(m[2]), int(m[1]))


def test_engine_noise_of_a_date_matches_the_epsilon_charged():
    """A note with one date (first point of each patient: no neighbour): 4,000 patients; the eps
    read from the published account; surrogate - true day against round(Lap(1 / eps)) by chi-square
    (p > 0.001) and the mean absolute noise within 5 % of the law's."""
    text = "Vu le 03/03/2021."
    outs = _run_patients(_engine(0.25, 31), text, [_span(text, "03/03/2021", Label.DATE)], 4_000)
    eps = _eps_charged(outs, 1)
    noise = [(_day_of(o.text) - date(2021, 3, 3)).days for o in outs]
    ks = np.arange(-80, 81)
    pmf = _rounded_laplace_pmf(0, 1 / eps, ks)
    assert _chi2_pvalue(noise, ks, pmf) > P_MIN
    expected_mad = float(np.sum(np.abs(ks) * pmf))
    assert abs(float(np.mean(np.abs(noise))) / expected_mad - 1) < 0.05


def test_engine_noise_of_a_birth_date_is_at_the_scale_of_years_for_the_epsilon_charged():
    """A birth date alone (no age, so no note-date point): 3,000 patients; surrogate - true day
    against Lap(365.25 / eps) (KS, p > 0.001): a year of sensitivity, not a day."""
    text = "Née le 14/02/1956."
    outs = _run_patients(_engine(1.0, 32), text, [_span(text, "14/02/1956", Label.BIRTH_DATE)], 3_000)
    eps = _eps_charged(outs, 1)
    noise = [(_day_of(o.text) - date(1956, 2, 14)).days for o in outs]
    assert stats.kstest(noise, _lap(0, 365.25 / eps).cdf).pvalue > P_MIN
    assert sum(n == 0 for n in noise) <= 0.01 * len(noise)  # released unchanged about 1 in 700


def test_a_birth_date_also_mentioned_as_a_date_keeps_the_scale_of_years():
    """The birth day mentioned twice, once labelled BIRTH_DATE and once DATE (one memo key): the
    point is noised at the birth date's scale whatever the order of the mentions (the first build
    took the last mention's unit, days: the birth date came out unchanged in about 4 runs of 10).
    800 patients per order; KS against Lap(365.25 / eps), p > 0.001."""
    for first, second in ((Label.BIRTH_DATE, Label.DATE), (Label.DATE, Label.BIRTH_DATE)):
        text = "Née le 14/02/1956. Vue pour son anniversaire le 14/02/1956."
        i = text.index("14/02/1956")
        j = text.index("14/02/1956", i + 1)
        spans = [Span(i, i + 10, first), Span(j, j + 10, second)]
        outs = _run_patients(_engine(1.0, 34), text, spans, 800)
        eps = _eps_charged(outs, 1)
        noise = [(_day_of(o.text) - date(1956, 2, 14)).days for o in outs]
        assert stats.kstest(noise, _lap(0, 365.25 / eps).cdf).pvalue > P_MIN, first


def test_engine_splits_the_note_budget_and_each_date_gets_the_scale_of_its_share():
    """Two dates years apart in one note: each is charged eps/2 and the first-drawn (earlier) date
    has no neighbour, so its noise follows round(Lap(2 / eps)) (chi-square, 3,000 patients)."""
    text = "Vu le 03/03/2011 et le 03/03/2021."
    spans = [_span(text, "03/03/2011", Label.DATE), _span(text, "03/03/2021", Label.DATE)]
    outs = _run_patients(_engine(0.5, 33), text, spans, 3_000)
    eps_each = _eps_charged(outs, 2)
    assert eps_each == pytest.approx(0.25, abs=1e-5)
    first = [(_day_of(o.text) - date(2011, 3, 3)).days for o in outs]
    ks = np.arange(-80, 81)
    assert _chi2_pvalue(first, ks, _rounded_laplace_pmf(0, 1 / eps_each, ks)) > P_MIN


# ------------------------------------------------------------ (e) three ages, independent draws


def test_three_ages_of_one_note_get_independent_draws():
    """Three ages, no birth date: 2,000 patients; the three noises are pairwise uncorrelated
    (|r| < 0.1, about 4.5 standard errors), not equal to each other more often than chance, and each
    has the spread of round(Lap(1 / eps_each)) (mean absolute noise within 8 %)."""
    text = "Patiente de 50 ans, son fils de 25 ans et sa mère de 78 ans."
    spans = [_span(text, s, Label.AGE) for s in ("50 ans", "25 ans", "78 ans")]
    outs = _run_patients(_engine(1.5, 41), text, spans, 2_000, day=None)
    eps_each = _eps_charged(outs, 3)
    rows = []
    for o in outs:
        got = [int(x) for x in re.findall(r"(\d+) ans?", o.text)]
        assert len(got) == 3, o.text
        rows.append([got[0] - 50, got[1] - 25, got[2] - 78])
    noise = np.array(rows, dtype=float)
    corr = np.corrcoef(noise.T)
    for i, j in ((0, 1), (0, 2), (1, 2)):
        assert abs(corr[i, j]) < 0.1, corr
    ks = np.arange(-40, 41)
    pmf = _rounded_laplace_pmf(0, 1 / eps_each, ks)
    p_same = float(np.sum(pmf**2))  # two independent draws equal
    same = float(np.mean(noise[:, 0] == noise[:, 1]))
    assert same < p_same + 0.05
    mad = float(np.sum(np.abs(ks) * pmf))
    for col in range(3):
        assert abs(float(np.mean(np.abs(noise[:, col]))) / mad - 1) < 0.08


# ------------------------------------------------------------------- (f) no mechanism reads the clock


class _FrozenDate(dt.date):
    today_value = dt.date(2000, 1, 1)

    @classmethod
    def today(cls) -> _FrozenDate:
        d = cls.today_value
        return cls(d.year, d.month, d.day)


class _FrozenDateTime(dt.datetime):
    now_value = dt.datetime(2000, 1, 1, 12, 0)

    @classmethod
    def now(cls, tz: dt.tzinfo | None = None) -> _FrozenDateTime:  # type: ignore[override]
        v = cls.now_value if tz is None else cls.now_value.replace(tzinfo=tz)
        return cls(v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond, v.tzinfo)

    @classmethod
    def today(cls) -> _FrozenDateTime:
        return cls.now()

    @classmethod
    def utcnow(cls) -> _FrozenDateTime:
        return cls.now()


@contextmanager
def _frozen_clock(monkeypatch: pytest.MonkeyPatch, today: dt.date) -> Iterator[None]:
    """The wall clock says ``today``: ``date.today``/``datetime.now`` in every loaded ``deid``
    module that imported the classes, in the ``datetime`` module itself, and ``time.time``."""
    _FrozenDate.today_value = today
    _FrozenDateTime.now_value = dt.datetime(today.year, today.month, today.day, 12, 0)
    stamp = _FrozenDateTime.now_value.timestamp()
    with monkeypatch.context() as m:
        m.setattr(dt, "date", _FrozenDate)
        m.setattr(dt, "datetime", _FrozenDateTime)
        m.setattr(time, "time", lambda: stamp)
        m.setattr(time, "time_ns", lambda: int(stamp * 1e9))
        for name, mod in list(sys.modules.items()):
            if not (name == "deid" or name.startswith("deid.")) or mod is None:
                continue
            for attr, value in list(vars(mod).items()):
                if value is date or value is _real_date:
                    m.setattr(mod, attr, _FrozenDate)
                elif value is _real_datetime:
                    m.setattr(mod, attr, _FrozenDateTime)
        yield


_real_date, _real_datetime = dt.date, dt.datetime

CLOCK_TEXT = ("Née le 14/02/1956, 68 ans. Hospitalisée du 02/03/2024 au 05/03/2024, opérée il y a 3 ans, "
              "vue en mai, contrôle dans 2 semaines.")
CLOCK_MARKS = [("14/02/1956", Label.BIRTH_DATE), ("68 ans", Label.AGE), ("02/03/2024", Label.DATE),
               ("05/03/2024", Label.DATE), ("il y a 3 ans", Label.DATE), ("en mai", Label.DATE),
               ("dans 2 semaines", Label.DATE)]


def _clock_run(day: date | None, strategy: str, seed: int) -> str:
    spans = [_span(CLOCK_TEXT, s, label) for s, label in CLOCK_MARKS]
    out = deidentify_text(CLOCK_TEXT, spans, "fr", day, profile=strategy, rng=random.Random(seed))
    return out.text


@pytest.mark.parametrize("strategy", ["dp", "random", "safe-harbor"])
def test_no_mechanism_reads_the_clock(monkeypatch: pytest.MonkeyPatch, strategy: str):
    """Two different "todays" (1999 and 2042), same note, same document date, same seed: the same
    output, with the document date and without (where relative dates cannot be placed)."""
    for day in (date(2024, 3, 6), None):
        outs = []
        for today in (dt.date(1999, 7, 1), dt.date(2042, 11, 30)):
            with _frozen_clock(monkeypatch, today):
                assert dt.date.today() == today  # the freeze holds
                outs.append(_clock_run(day, strategy, seed=7))
        assert outs[0] == outs[1], (strategy, day, outs)
        assert outs[0] != CLOCK_TEXT


def test_the_frozen_clock_would_see_a_mechanism_that_read_it(monkeypatch: pytest.MonkeyPatch):
    """The freeze reaches the modules under test: a date read from ``date.today()`` inside
    ``deid.substitution.temporal`` differs between the two frozen todays."""
    import deid.substitution.temporal as temporal_mod

    seen: list[date] = []
    for today in (dt.date(1999, 7, 1), dt.date(2042, 11, 30)):
        with _frozen_clock(monkeypatch, today):
            seen.append(temporal_mod.date.today())
    assert seen == [dt.date(1999, 7, 1), dt.date(2042, 11, 30)]
