"""Places: the feature distance uses every feature (PRIVACY.md: the reference code computed it from
the last feature only), and the exponential mechanism follows its formula and stays eps·d-private
over every pair of origins. Expectations computed here with numpy."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest
from scipy import stats

from deid.surrogates import places


def test_feature_distance_changes_with_every_feature():
    table = places.bfc_table()
    a = table.places[0]
    n = len(a.features)
    assert n >= 2
    for j in range(n):
        f = list(a.features)
        f[j] = f[j] + 0.3 if f[j] < 0.5 else f[j] - 0.3
        b = replace(a, features=tuple(f))
        assert places.feature_distance(a, b) > 0.05, j  # moving feature j alone moves the distance


def test_feature_distance_is_the_euclidean_distance_up_to_one_constant_and_stays_in_0_1():
    """Over 300 random pairs of the 2023 paper's table: d(a, b) / ||f_a - f_b||_2 is one constant
    (relative spread < 1e-9), d is symmetric, 0 on the same place and within [0, 1] (ΔU = 1)."""
    table = places.bfc_table()
    rng = random.Random(8)
    ratios = []
    for _ in range(300):
        a, b = rng.sample(table.places, 2)
        d = places.feature_distance(a, b)
        assert d == pytest.approx(places.feature_distance(b, a))
        assert 0.0 <= d <= 1.0
        euclid = float(np.linalg.norm(np.array(a.features) - np.array(b.features)))
        if euclid > 1e-6:
            ratios.append(d / euclid)
        assert places.feature_distance(a, a) == 0.0
    assert len(ratios) > 250
    assert (max(ratios) - min(ratios)) <= 1e-9 * max(ratios)


# ------------------------------------------ the exponential mechanism over a small fixed table


def _small_table() -> places.PlaceTable:
    rng = random.Random(21)
    pts = [places.Place(f"Lieu-{i}", 47.0 + i / 10, 5.0 + i / 10,
                        tuple(round(rng.random(), 3) for _ in range(3))) for i in range(12)]
    return places.PlaceTable(pts)


def _expected(table: places.PlaceTable, j: int, eps: float) -> np.ndarray:
    """P(i | origin j) ∝ exp(eps * (1 - d(j, i)) / 2) over the whole table, d = Euclidean distance
    of the normalised features / sqrt(n) (the module's documented distance), computed here."""
    f = np.array([p.features for p in table.places])
    d = np.linalg.norm(f - f[j], axis=1) / np.sqrt(f.shape[1])
    w = np.exp(eps * (1 - d) / 2)
    return w / w.sum()


def test_place_exponential_mechanism_samples_follow_the_formula():
    """Chi-square of 12,000 draws from two origins of a 12-place table against the formula above
    (eps 4: the candidates' probabilities differ enough to see a wrong distance); p > 0.001."""
    table = _small_table()
    rng = random.Random(22)
    for j in (0, 7):
        origin = table.places[j]
        counts = np.zeros(len(table.places))
        index = {p.name: i for i, p in enumerate(table.places)}
        for _ in range(12_000):
            counts[index[table.exponential(rng, origin, 4.0, 100.0, 10).name]] += 1
        expected = _expected(table, j, 4.0) * counts.sum()
        assert stats.chisquare(counts, expected).pvalue > 0.001, j


def test_place_exponential_mechanism_loss_over_every_pair_of_origins_stays_within_eps_d():
    """For every pair of origins (j, j') of the table: max_i |ln P(i|j) - ln P(i|j')| <= eps * d(j, j')
    (eps·d-privacy with ΔU = 1), from the formula the sampling test checks; eps 0.25, 1 and 4."""
    table = _small_table()
    f = np.array([p.features for p in table.places])
    n = len(table.places)
    for eps in (0.25, 1.0, 4.0):
        logs = [np.log(_expected(table, j, eps)) for j in range(n)]
        for j in range(n):
            for k in range(j + 1, n):
                d = float(np.linalg.norm(f[j] - f[k]) / np.sqrt(f.shape[1]))
                assert float(np.max(np.abs(logs[j] - logs[k]))) <= eps * d + 1e-12
