"""Safe Harbor addresses that a reader can believe: a US ZIP code is cut to its first three digits
("604**"), and the surrogate town is one of the public table's towns of those three digits, never
the true one; an area with fewer than ``MIN_ZIP3_TOWNS`` towns gets a town of its state. The
choice reads the released digits only (docs/PRIVACY.md, Safe Harbor item B)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from datetime import date

import pytest
from scipy.stats import chisquare

from deid.events import ModelInfo, RawNote
from deid.labels import Label
from deid.settings import Settings
from deid.spans import Span
from deid.store.keys import KeyHasher
from deid.store.memory import InMemoryStore
from deid.substitution import Substituter, profile_settings
from deid.substitution.places import MIN_ZIP3_TOWNS, _zip3_town
from deid.surrogates import gazetteer as gz

SECRET = b"0123456789abcdef-test-secret"
US = gz.gazetteer("US")


async def address(town: str, state: str, zip_code: str, seed: int) -> tuple[str, str, str]:
    """(town, state, ZIP) as a Safe Harbor note renders "lives at 12 Birch Road, TOWN, ST ZIP"."""
    parts: list[str | tuple[str, Label]] = [
        "Lives at ",
        ("12 Birch Road", Label.STREET),
        ", ",
        (town, Label.CITY),
        ", ",
        (state, Label.LOCATION),
        " ",
        (zip_code, Label.POSTCODE),
        ". Daughter also in ",
        (town, Label.CITY),
        ".",
    ]
    text, spans = "", []
    for p in parts:
        if isinstance(p, tuple):
            spans.append(Span(len(text), len(text) + len(p[0]), p[1]))
            p = p[0]
        text += p
    cfg = profile_settings(Settings(), "safe-harbor")
    sub = Substituter(InMemoryStore(), KeyHasher(SECRET), cfg, random.Random(seed))
    raw = RawNote(
        event_id=f"z{seed}",
        patient_id="p1",
        language="en",
        document_date=date(2024, 3, 5),
        text=text,
        locale="en-US",
    )
    [out] = await sub.substitute([raw], [spans], ModelInfo(name="gold", version="0"))
    got = [out.text[s.start : s.end] for s in out.spans]
    assert got[1] == got[4], got  # one town in both places
    return got[1], got[2], got[3]


def zip3_towns(area: str) -> set[str]:
    return {US.towns[i].name for i in US.by_zip3()[area]}


@pytest.mark.parametrize("seed", range(10))
async def test_the_town_is_one_of_the_three_digit_areas_towns_and_never_the_true_one(seed: int) -> None:
    town, state, zip_code = await address("Joliet", "IL", "60435", seed)
    assert zip_code == "604**"
    assert town in zip3_towns("604") - {"Joliet"} and state == "IL", (town, state)


@pytest.mark.parametrize("seed", range(10))
async def test_an_area_with_few_towns_keeps_its_state(seed: int) -> None:
    # 871 has two towns in the table: one of them is the truth, the other would name it by elimination
    assert len(US.by_zip3()["871"]) < MIN_ZIP3_TOWNS
    town, state, zip_code = await address("Albuquerque", "NM", "87102", seed)
    row = US.towns[US.find_in(town, "NM") or 0]
    assert zip_code == "871**" and town != "Albuquerque" and state == "NM" and row.admin1_code == "NM", town


def _broken_whole_table(
    rng: random.Random, g: gz.Gazetteer, area: str, state: str, exclude: str
) -> int | None:
    return g.uniform(rng, exclude)


def _broken_keeps_truth(
    rng: random.Random, g: gz.Gazetteer, area: str, state: str, exclude: str
) -> int | None:
    return rng.choice(g.by_zip3()[area])


def _uniform_over_the_area_but_the_truth(draw: Callable[..., int | None], area: str, true: str) -> bool:
    """20,000 draws: support exactly the area's towns but the true one, and uniform on it
    (chi-square p >= 0.001)."""
    rng = random.Random(7)
    pool = [i for i in US.by_zip3()[area] if US.towns[i].name != true]
    counts = Counter(draw(rng, US, area, "", true) for _ in range(20_000))
    if set(counts) != set(pool):
        return False
    return bool(chisquare([counts[i] for i in pool]).pvalue >= 0.001)


def test_the_draw_is_uniform_over_the_areas_other_towns_and_broken_draws_fail_the_check() -> None:
    assert _uniform_over_the_area_but_the_truth(_zip3_town, "604", "Joliet")
    assert not _uniform_over_the_area_but_the_truth(_broken_whole_table, "604", "Joliet")
    assert not _uniform_over_the_area_but_the_truth(_broken_keeps_truth, "604", "Joliet")


def test_a_restricted_area_or_one_without_towns_is_no_constraint() -> None:
    rng = random.Random(1)
    assert _zip3_town(rng, US, "000", "NH", "Berlin") is None  # "000" names no place
    assert _zip3_town(rng, US, "001", "", "Nowhere") is None  # no town of the table there, no state said
