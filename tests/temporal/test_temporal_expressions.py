from dataclasses import replace
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deid.temporal import parse, render
from deid.temporal.expressions import Temporal, from_canonical, point_day, render_point, shifted

REF = date(2020, 3, 1)


@pytest.mark.parametrize(
    ("text", "lang", "kind", "unit"),
    [
        ("26 février 2020", "fr", "date", "day"),
        ("1er mars 2020", "fr", "date", "day"),
        ("12/02/2020", "fr", "date", "day"),
        ("12.02.20", "fr", "date", "day"),
        ("2020-02-12", "en", "date", "day"),
        ("février 2020", "fr", "date", "month"),
        ("02/2020", "fr", "date", "month"),
        ("en 2019", "fr", "date", "year"),
        ("il y a 10 ans", "fr", "relative", "year"),
        ("depuis 3 semaines", "fr", "relative", "week"),
        ("dans deux mois", "fr", "relative", "month"),
        ("26 de febrero de 2020", "es", "date", "day"),
        ("hace tres semanas", "es", "relative", "week"),
        ("febrero de 2020", "es", "date", "month"),
        ("February 26, 2020", "en", "date", "day"),
        ("26th February 2020", "en", "date", "day"),
        ("10 years ago", "en", "relative", "year"),
        ("March 2019", "en", "date", "month"),
        ("20200212", "fr", "date", "day"),
        ("202002120000", "en", "date", "day"),
    ],
)
def test_date_mentions_parse_with_their_unit_and_render_back_identically(text, lang, kind, unit):
    t = parse(text, lang, ref=REF)
    assert t is not None
    assert (t.kind, t.unit) == (kind, unit)
    assert render(t) == text


def test_a_compact_timestamps_time_of_day_is_written_back_as_zeros():
    """The time of a compact timestamp is not on the timeline; it was copied out as written (issue 31:
    no part of a mention is copied out unread)."""
    t = parse("202002121530", "en", ref=REF)
    assert t is not None and t.when == date(2020, 2, 12)
    assert render(t) == "202002120000"


@pytest.mark.parametrize(
    ("text", "lang", "amount", "unit"),
    [("40 ans", "fr", 40, "year"), ("18 mois", "fr", 18, "month"), ("40 years old", "en", 40, "year"),
     ("40-year-old", "en", 40, "year"), ("40 años", "es", 40, "year"), ("40", "fr", 40, "year"),
     ("dix ans", "fr", 10, "year")],
)
def test_ages_parse_to_an_amount_in_their_unit(text, lang, amount, unit):
    t = parse(text, lang, age=True)
    assert t is not None and t.kind == "age"
    assert (t.amount, t.unit) == (amount, unit)
    assert render(t) == text


def test_a_noisy_french_written_date_stays_a_french_written_date():
    t = parse("26 février 2020", "fr", ref=REF)
    assert t is not None
    assert render(replace(t, when=date(2020, 3, 7))) == "7 mars 2020"
    assert render(replace(t, when=date(2020, 3, 1))) == "1er mars 2020"


def test_relative_expression_stays_relative_and_agrees_in_number():
    t = parse("il y a 10 ans", "fr")
    assert t is not None
    assert render(replace(t, amount=1)) == "il y a 1 an"
    e = parse("one year ago", "en")
    assert e is not None and render(replace(e, amount=3)) == "three years ago"
    s = parse("hace una semana", "es")
    assert s is not None and render(replace(s, amount=2)) == "hace dos semanas"


def test_numeric_dates_keep_their_separator_padding_and_year_width():
    t = parse("12/02/20", "fr", ref=REF)
    assert t is not None and t.when == date(2020, 2, 12)
    assert render(replace(t, when=date(2020, 1, 23))) == "23/01/20"


def test_the_other_order_only_when_the_feeds_order_is_impossible():
    t = parse("02/26/2020", "fr", ref=REF)  # a day-first feed: 26 is no month
    assert t is not None and t.when == date(2020, 2, 26)
    assert render(replace(t, when=date(2020, 2, 27))) == "02/27/2020"


def test_month_and_year_dates_are_timeline_points_at_the_middle_of_their_period():
    from deid.temporal.expressions import point_day, render_point

    m = parse("février 2020", "fr", ref=REF)
    assert m is not None and m.unit == "month" and point_day(m, REF) == date(2020, 2, 15)
    assert render_point(m, date(2019, 2, 20), None) == "février 2019"
    y = parse("2019", "fr", ref=REF)
    assert y is not None and y.unit == "year" and point_day(y, REF) == date(2019, 7, 2)


def test_unreadable_mentions_are_refused():
    assert parse("Noël", "fr") is None
    assert parse("{12/02/2020}", "fr") is None
    assert parse("âge inconnu", "fr", age=True) is None


def test_canonical_form_is_spelling_independent_and_restores_values():
    a = parse("26 février 2020", "fr", ref=REF)
    b = parse("26/02/2020", "fr", ref=REF)
    assert a is not None and b is not None
    assert a.canonical() == b.canonical()
    moved = replace(a, when=date(2020, 3, 6))
    assert render(from_canonical(b, moved.canonical())) == "06/03/2020"


def test_shift_leaves_durations():
    r = parse("il y a 3 ans", "fr")
    assert r is not None and shifted(r, 100) == r


_TEMPLATES = {
    "fr": ["{DD}/{MM}/{YYYY}", "{D1} {mon} {YYYY}", "le {D1} {Mon} {YYYY}", "{YYYY}-{MM}-{DD}",
           "{D}.{M}.{YYYY}", "{D1} {mon_ap} {YYYY}", "le {D1} {mon_a} {YYYY}"],
    "es": ["{DD}/{MM}/{YYYY}", "{D} de {mon} de {YYYY}", "{DD}-{MM}-{YYYY}", "el {D} de {Mon} de {YYYY}",
           "{D} {mon_a} {YYYY}", "{D} de {mon_ap} de {YYYY}"],
    "en": ["{Mon} {D}, {YYYY}", "{D} {Mon} {YYYY}", "{Mon} {Dth}, {YYYY}", "{DD}/{MM}/{YYYY}",
           "{YYYY}-{MM}-{DD}", "{Mon_a} {D}, {YYYY}", "{D} {Mon_ap} {YYYY}"],
}


@settings(max_examples=200, deadline=None)
@given(
    lang=st.sampled_from(["fr", "es", "en"]),
    idx=st.integers(min_value=0, max_value=6),
    day=st.dates(min_value=date(1900, 1, 1), max_value=date(2099, 12, 31)),
)
def test_rendered_dates_parse_back_to_the_same_day(lang, idx, day):
    template = _TEMPLATES[lang][idx % len(_TEMPLATES[lang])]
    t = Temporal("date", "day", lang, template, when=day)
    back = parse(render(t), lang, ref=REF)
    assert back is not None
    assert (back.when, back.unit, back.kind) == (day, "day", "date")
    assert render(back) == render(t)


_AMOUNTS = {
    "fr": ["il y a {N} {U}", "depuis {W} {U}", "{N} {U}"],
    "es": ["hace {N} {U}", "desde hace {W} {U}", "{N} {U}"],
    "en": ["{N} {U} ago", "{W} {U} ago", "for {N} {U}"],
}
_UNIT_FAMILY = {
    "fr": {"day": ("jour", "jours"), "week": ("semaine", "semaines"), "month": ("mois", "mois"),
           "year": ("an", "ans")},
    "es": {"day": ("día", "días"), "week": ("semana", "semanas"), "month": ("mes", "meses"),
           "year": ("año", "años")},
    "en": {"day": ("day", "days"), "week": ("week", "weeks"), "month": ("month", "months"),
           "year": ("year", "years")},
}


@settings(max_examples=150, deadline=None)
@given(
    lang=st.sampled_from(["fr", "es", "en"]),
    idx=st.integers(min_value=0, max_value=2),
    unit=st.sampled_from(["day", "week", "month", "year"]),
    amount=st.integers(min_value=1, max_value=120),
)
def test_rendered_durations_parse_back_to_the_same_amount_and_unit(lang, idx, unit, amount):
    t = Temporal("relative", unit, lang, _AMOUNTS[lang][idx], amount=amount,
                 unit_word=_UNIT_FAMILY[lang][unit])
    back = parse(render(t), lang)
    assert back is not None
    assert (back.amount, back.unit) == (amount, unit)
    age = parse(render(t), lang, age=True)
    assert age is not None and (age.amount, age.unit) == (amount, unit)


def test_a_day_and_month_without_a_year_is_a_partial_date_placed_nearest_to_the_note():
    from deid.temporal.expressions import parse, point_day, render_point

    ref = date(2024, 3, 10)
    t = parse("le 12 mars", "fr", ref=ref)
    assert t is not None and t.kind == "partial" and point_day(t, ref) == date(2024, 3, 12)
    assert render_point(t, date(2023, 11, 4), None) == "le 4 novembre"
    us = parse("3/9", "en", ref=ref, order="mdy")  # March 9, written month first again
    assert us is not None and point_day(us, ref) == date(2024, 3, 9)
    assert render_point(us, date(2024, 11, 4), None) == "11/4"
    late = parse("20/12", "fr", ref=ref)  # 20 December is nearer last year
    assert late is not None and point_day(late, ref) == date(2023, 12, 20)


def test_a_weekday_beside_a_day_and_month_is_rendered_from_the_surrogate_day():
    from deid.temporal.expressions import parse, point_day, render_point

    ref = date(2024, 11, 8)
    t = parse("Fri 11/15", "en", ref=ref, order="mdy")  # before: unread ("Fri" a date word) -> [DATE]
    assert t is not None and t.kind == "partial" and point_day(t, ref) == date(2024, 11, 15)
    assert render_point(t, date(2024, 11, 19), None) == "Tue 11/19"  # never the true "Fri"
    fr = parse("jeudi 12/03", "fr", ref=date(2024, 3, 10))
    assert fr is not None and render_point(fr, date(2024, 3, 15), None) == "vendredi 15/03"


@pytest.mark.parametrize(("text", "lang", "when", "moved"), [
    ("Mar 2, 2024", "en", date(2024, 3, 2), "Sep 11, 2021"),
    ("Jan 13, 1956", "en", date(1956, 1, 13), "Sep 11, 2021"),
    ("JAN 05, 1956", "en", date(1956, 1, 5), "SEP 11, 2021"),
    ("2 Sept 2023", "en", date(2023, 9, 2), "11 Sep 2021"),
    ("Dec. 3, 2020", "en", date(2020, 12, 3), "Sep. 11, 2021"),
    ("13 janv. 2024", "fr", date(2024, 1, 13), "11 sept. 2021"),
    ("le 1er févr. 2024", "fr", date(2024, 2, 1), "le 11 sept. 2021"),
    ("13 sept 2024", "fr", date(2024, 9, 13), "11 sept 2021"),
    ("13 déc. 2024", "fr", date(2024, 12, 13), "11 sept. 2021"),
    ("13 ene 1956", "es", date(1956, 1, 13), "11 sept 2021"),
    ("3 de dic. de 2020", "es", date(2020, 12, 3), "11 de sept. de 2021"),
])
def test_abbreviated_month_dates_are_day_points_written_back_abbreviated(text, lang, when, moved):
    """An abbreviated month was read as a year only, so the true day and month were printed beside
    a noisy year; now the date is a day and its surrogate is written with an abbreviation too."""
    t = parse(text, lang, ref=REF)
    assert t is not None and (t.kind, t.unit, t.when) == ("date", "day", when)
    assert render(t) == text.replace("Sept", "Sep")  # one abbreviation written back per month
    assert render(replace(t, when=date(2021, 9, 11))) == moved


def test_an_abbreviation_loses_its_period_for_a_month_that_has_none():
    """"janv." of a surrogate March reads "mars", not "mars."; "Jan" of a surrogate May "May"."""
    fr = parse("13 janv. 2024", "fr")
    en = parse("Jan. 13, 2024", "en")
    assert fr is not None and en is not None
    assert render(replace(fr, when=date(2024, 3, 1))) == "1er mars 2024"
    assert render(replace(en, when=date(2024, 5, 4))) == "May 4, 2024"


@pytest.mark.parametrize(("text", "lang", "shown"), [
    ("le 2 févr.", "fr", "le 11 sept."), ("en sept.", "fr", "en sept."), ("14 dic.", "es", "11 sept."),
    ("Feb 2", "en", "Sep 11"),
])
def test_abbreviated_partial_dates_are_read_and_written_back_abbreviated(text, lang, shown):
    t = parse(text, lang, ref=REF)
    assert t is not None and t.kind == "partial"
    assert render_point(t, date(2021, 9, 11), None) == shown


def test_french_sept_followed_by_a_unit_is_still_the_number_seven():
    t = parse("depuis sept jours", "fr")
    assert t is not None and (t.kind, t.amount, t.unit) == ("relative", 7, "day")


@pytest.mark.parametrize(("text", "ref", "point"), [
    ("en 2024", date(2024, 4, 20), date(2024, 4, 20)),  # was 2 July: after the note
    ("en avril 2024", date(2024, 4, 5), date(2024, 4, 5)),  # was 15 April
    ("en avril", date(2024, 4, 5), date(2024, 4, 5)),
    ("en 2024", date(2024, 9, 20), date(2024, 7, 2)),  # the middle is already before the note
    ("en 2023", date(2024, 4, 20), date(2023, 7, 2)),
    ("en 2025", date(2024, 4, 20), date(2025, 4, 20)),  # later periods move back by as much
    ("dans 2 ans", date(2024, 4, 20), date(2026, 4, 20)),
])
def test_a_period_that_contains_the_note_date_stands_at_or_before_it(text, ref, point):
    t = parse(text, "fr", ref=ref)
    assert t is not None and point_day(t, ref) == point


@settings(max_examples=200, deadline=None)
@given(ref=st.dates(min_value=date(1950, 1, 1), max_value=date(2090, 12, 31)),
       offset=st.integers(min_value=-30, max_value=30), unit=st.sampled_from(["month", "year"]))
def test_period_points_keep_their_order_and_move_one_unit_per_unit(ref, offset, unit):
    """The privacy claim holds for a point read near the note's date: consecutive periods stay in
    order, inside their period, and at most 366 days (a year) or 31 days (a month) apart, as the
    middles of two periods are; so a change of one unit moves the point by at most one unit."""
    def point(k: int) -> date:
        if unit == "year":
            t = Temporal("date", "year", "fr", "{YYYY}", when=date(ref.year + k, 1, 1))
        else:
            m = ref.year * 12 + ref.month - 1 + k
            t = Temporal("date", "month", "fr", "{mon} {YYYY}", when=date(m // 12, m % 12 + 1, 1))
        got = point_day(t, ref)
        assert got is not None and t.when is not None
        assert (got.year, got.month if unit == "month" else 1) == (t.when.year, t.when.month)
        return got

    a, b = point(offset), point(offset + 1)
    assert 0 < (b - a).days <= (366 if unit == "year" else 31)
    if offset == 0:
        assert a <= ref


@pytest.mark.parametrize("lang", ["fr", "es", "en"])
def test_every_month_word_the_date_rule_flags_is_read_by_the_parser_to_the_day(lang: str) -> None:
    """Detection (``deid.rules.lexicon``) and substitution (``deid.temporal``) keep their own month
    tables: a word the rule flags that the parser cannot read leaves the true day and month in
    clear (the year pattern takes over), as "Mar 2, 2024" and "setiembre" did."""
    from deid.rules.lexicon import MONTHS as RULE_MONTHS
    from deid.temporal.lexicon import month_index

    unread = []
    for word in RULE_MONTHS[lang]:
        text = f"{word.capitalize()} 15, 2020" if lang == "en" else f"15 {word} 2020"
        t = parse(text, lang, ref=date(2021, 1, 1))
        if t is None or t.kind != "date" or t.unit != "day" or t.when is None \
                or t.when.month != month_index(lang, word):
            unread.append(word)
    assert unread == []


@pytest.mark.parametrize("text", ["80s", "80's", "80’s"])
def test_an_age_s_decade_is_rendered_as_a_decade(text: str) -> None:
    t = parse(text, "en", age=True)
    assert t is not None and t.amount == 80
    assert render(replace(t, amount=79)) == text.replace("80", "70")
    assert render(replace(t, amount=91)) == text.replace("80", "90")
    assert render(replace(t, amount=4)) == text.replace("80", "10")  # never "0s"
    plain = parse("83", "en", age=True)
    assert plain is not None and render(replace(plain, amount=79)) == "79"  # a plain age stays exact
