"""Under ``placeholder``, a relative duration the detector took for a date is kept as written
(no element of a date; "review in 6 weeks" is the note's clinical plan), and listed in
``kept_labels``; anything pinned to a day, weekday, month or year stays ``[DATE]``."""

from __future__ import annotations

import random
from datetime import date

import pytest

from deid.labels import Label
from deid.spans import Span
from deid.substitution import deidentify_text


def _one(text: str, phrase: str, lang: str) -> tuple[str, list[str]]:
    start = text.index(phrase)
    out = deidentify_text(text, [Span(start, start + len(phrase), Label.DATE)], lang, date(2024, 5, 2),
                          profile="placeholder", rng=random.Random(0))
    return out.text, sorted(out.kept_labels)


@pytest.mark.parametrize("text, phrase, lang", [
    ("Review in clinic in 3 months.", "in 3 months", "en"),
    ("Chest pain started 2 weeks ago.", "2 weeks ago", "en"),
    ("Revoir dans 2 mois.", "dans 2 mois", "fr"),
    ("Diagnostiqué il y a 3 ans.", "il y a 3 ans", "fr"),
    ("Intervenida hace 2 años.", "hace 2 años", "es"),
])
def test_a_relative_duration_is_kept_as_written(text: str, phrase: str, lang: str) -> None:
    got, kept = _one(text, phrase, lang)
    assert got == text and kept == ["DATE"]


@pytest.mark.parametrize("text, phrase, lang", [
    ("Seen last Monday.", "last Monday", "en"),
    ("Seen on 12 March 2024.", "12 March 2024", "en"),
    ("Suivi depuis mars 2019.", "mars 2019", "fr"),
    ("Patiente de quatre-vingt-treize ans.", "quatre-vingt-treize ans", "fr"),  # an age, maybe
    ("Né il y a 93 ans.", "il y a 93 ans", "fr"),  # would tell an age over 89
    ("Boy, 2 years.", "2 years", "en"),  # no direction: an age as well as a duration
])
def test_a_date_stays_a_placeholder(text: str, phrase: str, lang: str) -> None:
    got, _ = _one(text, phrase, lang)
    assert "[DATE]" in got and phrase not in got


def test_a_duration_is_an_amount_of_a_unit_and_no_pinned_day() -> None:
    from deid.substitution import simple

    assert simple.is_duration("in 3 months", "en") and not simple.is_duration("last Monday", "en")


def test_safe_harbor_keeps_no_duration_that_would_tell_an_age_over_89() -> None:
    text = "Patiente de quatre-vingt-treize ans, revue dans 2 mois."
    spans = [Span(text.index("quatre"), text.index(","), Label.DATE),
             Span(text.index("dans"), text.index("."), Label.DATE)]
    out = deidentify_text(text, spans, "fr", date(2024, 5, 2), profile="safe-harbor", rng=random.Random(0))
    assert "quatre-vingt-treize" not in out.text and "dans 2 mois" in out.text


def test_random_keeps_no_duration_that_would_tell_an_age_over_89() -> None:
    text = "Patiente de quatre-vingt-treize ans, revue dans 2 mois."
    spans = [Span(text.index("quatre"), text.index(","), Label.DATE),
             Span(text.index("dans"), text.index("."), Label.DATE)]
    out = deidentify_text(text, spans, "fr", date(2024, 5, 2), profile="random", rng=random.Random(0))
    assert "quatre-vingt-treize" not in out.text and "dans 2 mois" in out.text, out.text
