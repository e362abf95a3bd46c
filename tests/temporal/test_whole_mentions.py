"""A mention is read whole or not at all (issue 31): written-out numbers in every form, ranges as two
ends, and nothing the parser did not read left in a template (it would be copied out as written)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest

from deid.temporal import numbers, parse, render
from deid.temporal.expressions import parse_range, render_point

REF = date(2025, 6, 10)


@pytest.mark.parametrize(
    ("lang", "text", "value"),
    [
        ("fr", "soixante-huit", 68),
        ("fr", "quatre-vingt-dix-sept", 97),
        ("fr", "quatre-vingts", 80),
        ("fr", "soixante et onze", 71),
        ("fr", "vingt-et-un", 21),
        ("fr", "nonante-trois", 93),
        ("fr", "septante-quatre", 74),
        ("fr", "cent trois", 103),
        ("fr", "Quatre-Vingt-Douze", 92),
        ("es", "setenta y cinco", 75),
        ("es", "veintidós", 22),
        ("es", "noventa y nueve", 99),
        ("es", "ciento uno", 101),
        ("es", "cien", 100),
        ("en", "ninety-two", 92),
        ("en", "one hundred and one", 101),
        ("en", "forty seven", 47),
        ("en", "Eighty-Three", 83),
    ],
)
def test_written_out_numbers_are_read_whole(lang, text, value):
    assert numbers.read(lang, text) == value


def test_every_number_below_1000_is_written_and_read_back_in_each_language():
    for lang in ("fr", "es", "en"):
        assert all(numbers.read(lang, numbers.spell(lang, n)) == n for n in range(1000))


@pytest.mark.parametrize(
    ("lang", "text", "amount", "as_43"),
    [
        ("fr", "soixante-huit ans", 68, "quarante-trois ans"),
        ("fr", "quatre-vingt-dix-sept ans", 97, "quarante-trois ans"),
        ("en", "ninety-two years", 92, "forty-three years"),
        ("en", "one hundred and one years old", 101, "forty-three years old"),
        ("es", "setenta y cinco años", 75, "cuarenta y tres años"),
        ("en", "aged seventy-six", 76, "aged forty-three"),
    ],
)
def test_written_out_ages_are_read_whole_and_written_back_whole(lang, text, amount, as_43):
    """ "soixante-huit ans" was read as "huit" and printed "soixante-dix ans" for a surrogate 10."""
    t = parse(text, lang, age=True)
    assert t is not None and t.amount == amount
    assert render(replace(t, amount=43)) == as_43


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("68 ans et 3 mois", "fr"),
        ("ninety-two years and 2 months", "en"),
        ("12/03/2024 14h30", "fr"),
        ("du 12/03/2024 au 15/03/2024", "fr"),
    ],
)
def test_text_with_an_unread_digit_or_date_word_is_not_read_as_one_value(text, lang):
    assert parse(text, lang, age=text[0].isdigit() and "/" not in text, ref=REF) is None


@pytest.mark.parametrize(
    ("text", "lang", "order", "days", "renders"),
    [
        (
            "du 12/03/2024 au 15/03/2024",
            "fr",
            "dmy",
            (date(2024, 3, 12), date(2024, 3, 15)),
            ((date(2023, 1, 2), date(2023, 1, 9)), "du 02/01/2023 au 09/01/2023"),
        ),
        (
            "12-15 March 2024",
            "en",
            "mdy",
            (date(2024, 3, 12), date(2024, 3, 15)),
            ((date(2023, 1, 2), date(2023, 1, 9)), "2-9 January 2023"),
        ),
        (
            "March 12-15, 2024",
            "en",
            "mdy",
            (date(2024, 3, 12), date(2024, 3, 15)),
            ((date(2023, 1, 2), date(2023, 1, 9)), "January 2-9, 2023"),
        ),
        (
            "3/12-3/15",
            "en",
            "mdy",
            (date(2000, 3, 12), date(2000, 3, 15)),
            ((date(2023, 1, 2), date(2023, 1, 9)), "1/02-1/09"),
        ),
        (
            "from 3/2 to 3/9",
            "en",
            "mdy",
            (date(2000, 3, 2), date(2000, 3, 9)),
            ((date(2023, 1, 2), date(2023, 1, 9)), "from 1/2 to 1/9"),
        ),
        (
            "del 3 al 7 de marzo",
            "es",
            "dmy",
            (date(2000, 3, 3), date(2000, 3, 7)),
            ((date(2023, 1, 2), date(2023, 1, 9)), "del 2 al 9 de enero"),
        ),
        (
            "entre le 3 et le 7 mars",
            "fr",
            "dmy",
            (date(2000, 3, 3), date(2000, 3, 7)),
            ((date(2023, 1, 2), date(2023, 1, 9)), "entre le 2 et le 9 janvier"),
        ),
        (
            "du trois au sept mars 2024",
            "fr",
            "dmy",
            (date(2024, 3, 3), date(2024, 3, 7)),
            ((date(2023, 1, 2), date(2023, 1, 9)), "du deux au neuf janvier 2023"),
        ),
    ],
)
def test_a_range_is_two_ends_each_rendered_from_its_own_day_in_the_spans_format(
    text, lang, order, days, renders
):
    """Before, one end was read and the other copied out as written ("du 12/03/2024 au 15/03/2024"
    gave the second true date away; "March 12-15, 2024" kept "12-15")."""
    ends = parse_range(text, lang, ref=REF, order=order)
    assert ends is not None
    assert tuple(t.when for _, _, t in ends) == days
    fakes, expected = renders
    out, pos = [], 0
    for (s, e, t), fake in zip(ends, fakes, strict=True):
        out += [text[pos:s], render_point(t, fake, None)]
        pos = e
    assert "".join(out) + text[pos:] == expected


def test_an_end_that_borrows_its_month_is_written_in_full_when_its_surrogate_leaves_it():
    ends = parse_range("12-15 March 2024", "en", ref=REF, order="mdy")
    assert ends is not None
    left = ends[0][2]
    assert left.full == "{D} {Mon} {YYYY}"
    assert render_point(replace(left, template=left.full), date(2024, 2, 28), None) == "28 February 2024"
