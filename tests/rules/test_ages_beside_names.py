"""Ages a note writes beside a name or at an event of a life (issue 29)."""

from __future__ import annotations

import pytest

from deid.rules.ages import AgeRecognizer


def ages(text: str, language: str = "en") -> list[str]:
    return [text[s.start : s.end] for s in AgeRecognizer().find(text, language)]


@pytest.mark.parametrize(("text", "expected"), [
    ("will look after the children Inaya (4) and Hamza (2) if admitted", ["4", "2"]),
    ("siblings Journee (6) and Jaylen (3) at home", ["6", "3"]),  # names no table holds, after kin
    ("Baby sister Luna (8 mo) also has a cold.", ["8 mo"]),
    ("Father also drank, died of cirrhosis at 57.", ["57"]),
    ("She states DP dx bipolar I at 19, last hospitalized 2018", ["19"]),
    ('father had "shaky hands" in his 70s.', ["70s"]),
    ("Family shared that Gigi would have turned 93 in April", ["93"]),
])  # fmt: skip
def test_an_age_beside_a_name_or_an_event_is_found(text: str, expected: list[str]) -> None:
    assert ages(text) == expected


@pytest.mark.parametrize("text", [
    "GCS: Glasgow (15), Grade (2) sprain",  # no given name, no kinship word
    "Hope (5) is what we aim for",  # a common word that is also a name, no kinship word before it
    "sats in the 80s on RA",  # a range of values, not someone's decade
    "died at 0400; dx at 3 am; turned 30 degrees",
])  # fmt: skip
def test_numbers_that_are_no_age_are_left(text: str) -> None:
    assert ages(text) == []


def test_a_french_age_after_a_field_dash_is_an_age_a_range_is_not() -> None:
    assert ages("SCHMITT YVONNE - ch 105 - 87 ans\n", "fr") == ["87 ans"]
    assert ages("douleurs 2-3 ans", "fr") == []
