"""The place mechanism against probabilities computed by hand, independently of the code.

Claim (docs/PRIVACY.md, "Places"): for two true towns j, j' of one first-level unit B (a fixed
partition of the public table) and any output i, P[i | j] <= exp(eps * d(j, j')) * P[i | j'],
with d the Euclidean distance of (lat, lon, log population) normalised to [0, 1] by the table's
bounds and divided by sqrt(3). The expectation below is written from those formulas with numpy
(not the code's distance nor its weights); every ordered pair of a small table is checked, and
three deliberately broken mechanisms must fail the same check.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable

import numpy as np
import pytest
from scipy import stats

from deid.surrogates import gazetteer as gz

# a small table: two units, made-up towns (lat, lon, population)
ROWS = [
    ("Alpha", 47.30, 5.04, 160_000, "A"),
    ("Bravo", 47.24, 6.02, 115_000, "A"),
    ("Charlie", 47.80, 3.57, 35_000, "A"),
    ("Delta", 46.78, 4.85, 45_000, "A"),
    ("Echo", 47.63, 6.86, 2_500, "A"),
    ("Foxtrot", 48.11, -1.68, 220_000, "B"),
    ("Golf", 47.75, -3.37, 57_000, "B"),
    ("Hotel", 48.51, -2.76, 44_000, "B"),
]


def table() -> gz.Gazetteer:
    return gz.Gazetteer(
        "FR",
        [
            gz.Town(n, (f"{i:05d}",), "", "", u, u, lat, lon, pop, "")
            for i, (n, lat, lon, pop, u) in enumerate(ROWS)
        ],
        min_towns=1,  # two small units kept apart: the claim is per unit (merging: test_small_units.py)
    )


def hand_vectors() -> np.ndarray:
    a = np.array([[lat, lon, math.log(1 + pop)] for _, lat, lon, pop, _ in ROWS])
    return (a - a.min(axis=0)) / (a.max(axis=0) - a.min(axis=0))


def hand_distance(i: int, j: int) -> float:
    v = hand_vectors()
    return float(np.sqrt(((v[i] - v[j]) ** 2).sum() / 3.0))


def hand_distribution(j: int, eps: float) -> dict[int, float]:
    """exp(eps * (1 - d(j, i)) / 2) over the towns of j's unit, normalised."""
    block = [i for i, r in enumerate(ROWS) if r[4] == ROWS[j][4]]
    w = np.array([math.exp(eps * (1.0 - hand_distance(j, i)) / 2.0) for i in block])
    return dict(zip(block, (w / w.sum()).tolist(), strict=True))


Mechanism = Callable[[int, float], dict[int, float]]


def code_mechanism(g: gz.Gazetteer) -> Mechanism:
    def run(j: int, eps: float) -> dict[int, float]:
        cands, probs = g.exponential_distribution(j, eps)
        return dict(zip(cands, probs, strict=True))

    return run


def check(mech: Mechanism, eps: float) -> list[str]:
    """Every failure of ``mech`` against the hand formulas and the claimed bound."""
    bad: list[str] = []
    n = len(ROWS)
    for j in range(n):
        got, want = mech(j, eps), hand_distribution(j, eps)
        if set(got) != set(want) or any(abs(got[i] - want[i]) > 1e-9 for i in want):
            bad.append(f"distribution of {ROWS[j][0]}")
    for j in range(n):
        for k in range(n):
            if j == k or ROWS[j][4] != ROWS[k][4]:
                continue
            pj, pk = mech(j, eps), mech(k, eps)
            bound = math.exp(eps * hand_distance(j, k))
            for i in set(pj) | set(pk):
                a, b = pj.get(i, 0.0), pk.get(i, 0.0)
                if a > bound * b * (1 + 1e-9):
                    bad.append(f"bound {ROWS[j][0]}->{ROWS[k][0]} at {ROWS[i][0]}")
    return bad


@pytest.mark.parametrize("eps", [0.1, 1.0, 5.0])
def test_the_mechanism_is_the_hand_computed_one_and_every_neighbouring_pair_keeps_the_bound(
    eps: float,
) -> None:
    assert check(code_mechanism(table()), eps) == []


def test_sampled_outputs_follow_the_hand_computed_distribution() -> None:
    g, rng, n, eps = table(), random.Random(5), 20_000, 2.0
    for j in (0, 6):
        want = hand_distribution(j, eps)
        counts = Counter(g.exponential(rng, j, eps) for _ in range(n))
        assert set(counts) <= set(want)
        assert stats.chisquare([counts[i] for i in want], [p * n for p in want.values()]).pvalue > 1e-3


def _broken_candidates_near_origin(g: gz.Gazetteer) -> Mechanism:
    def run(j: int, eps: float) -> dict[int, float]:
        block = [i for i in range(len(ROWS)) if ROWS[i][4] == ROWS[j][4]]
        near = sorted(block, key=lambda i: g.distance(j, i))[:3]  # candidates picked around the secret
        w = [math.exp(eps * (1 - g.distance(j, i)) / 2) for i in near]
        return {i: x / sum(w) for i, x in zip(near, w, strict=True)}

    return run


def _broken_no_half(g: gz.Gazetteer) -> Mechanism:
    def run(j: int, eps: float) -> dict[int, float]:
        block = [i for i in range(len(ROWS)) if ROWS[i][4] == ROWS[j][4]]
        w = [math.exp(eps * (1 - g.distance(j, i))) for i in block]  # 1/(2 ΔU) left out
        return {i: x / sum(w) for i, x in zip(block, w, strict=True)}

    return run


def _broken_last_feature(g: gz.Gazetteer) -> Mechanism:
    def run(j: int, eps: float) -> dict[int, float]:
        block = [i for i in range(len(ROWS)) if ROWS[i][4] == ROWS[j][4]]
        d = [abs(g.vectors[j][-1] - g.vectors[i][-1]) for i in block]  # the last feature only
        w = [math.exp(eps * (1 - x) / 2) for x in d]
        return {i: x / sum(w) for i, x in zip(block, w, strict=True)}

    return run


@pytest.mark.parametrize("broken", [_broken_candidates_near_origin, _broken_no_half, _broken_last_feature])
def test_a_broken_mechanism_fails_the_check(broken: Callable[[gz.Gazetteer], Mechanism]) -> None:
    assert check(broken(table()), 1.0) != []


def test_candidates_do_not_depend_on_the_true_town_within_its_unit() -> None:
    g = gz.gazetteer("FR")
    dijon, besancon = g.find("Dijon"), g.find("Besançon")
    assert dijon is not None and besancon is not None
    assert g.candidates(dijon) == g.candidates(besancon)  # one region: one candidate set
    assert g.towns[dijon].admin1_name == "Bourgogne-Franche-Comté"
    cands, probs = g.exponential_distribution(dijon, 0.25)
    assert besancon in cands and abs(sum(probs) - 1) < 1e-9
