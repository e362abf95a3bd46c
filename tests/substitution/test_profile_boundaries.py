"""The boundaries of the `safe-harbor` and `random` profiles (issue 31, item 4): the age of 90,
a birth date exactly 90 years before the note, and the `random` shift's minimum of one day. The
mutation bench (`bench/mutants.py`) moves each boundary by one; these tests must catch it. The
behaviour lives in `deid/substitution/temporal.py`; the values here are our own."""

from __future__ import annotations

import random
from datetime import date

import pytest

from deid.labels import Label
from deid.spans import Span
from deid.substitution.profiles import deidentify_text


def _one(text: str, mention: str, label: Label, profile: str, seed: int = 0,
         day: date = date(2024, 5, 2), patient: str = "p") -> str:
    i = text.index(mention)
    out = deidentify_text(text, [Span(i, i + len(mention), label)], "en", day, profile=profile,
                          rng=random.Random(seed), locale="en-US", patient_id=patient)
    [s] = out.spans
    return out.text[s.start:s.end]


@pytest.mark.parametrize("profile", ["safe-harbor", "random"])
def test_an_age_of_90_is_aggregated_and_89_is_kept(profile: str) -> None:
    assert _one("She is 90 years old.", "90 years old", Label.AGE, profile) == "90+ years old"
    assert _one("She is 89 years old.", "89 years old", Label.AGE, profile) == "89 years old"


def test_a_birth_date_exactly_90_years_before_the_note_gives_no_year() -> None:
    """Born 1 March 1934, note of 2 May 2024: 90 full years, so the year would say "over 89"."""
    at_90 = _one("DOB: 03/01/1934.", "03/01/1934", Label.BIRTH_DATE, "safe-harbor")
    assert "1934" not in at_90 and at_90.startswith("[")
    at_89 = _one("DOB: 05/03/1934.", "05/03/1934", Label.BIRTH_DATE, "safe-harbor")  # 89 until 3 May
    assert at_89 == "1934"


def test_the_random_shift_never_leaves_a_date_where_it_was() -> None:
    """One secret shift per patient, never 0: over 3,000 fresh patients no date is rendered as
    itself. A shift that could be 0 leaves at least one in place with probability > 98 % even if
    0 is one value in 731 (days either way; 1 in 53 for whole weeks): 1 - (730/731)^3000."""
    rng = random.Random(17)
    text = "Seen on 06/14/2022."
    for n in range(3000):
        out = deidentify_text(text, [Span(8, 18, Label.DATE)], "en", date(2024, 5, 2), profile="random",
                              rng=rng, locale="en-US", patient_id=f"p{n}")
        assert "06/14/2022" not in out.text, out.text
