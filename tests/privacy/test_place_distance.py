"""The place feature distance of the exponential mechanism uses every feature (PRIVACY.md: the
reference code computed it from the last feature only). Expectations computed here with numpy."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

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
