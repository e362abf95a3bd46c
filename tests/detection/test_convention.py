"""The span convention trims titles, articles and separators, and never drops an identifying word."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deid.detection.convention import conform
from deid.labels import Label
from deid.spans import Span


def _conformed(text: str, label: Label, *, split: bool = False) -> list[tuple[str, str]]:
    spans = conform([Span(0, len(text), label, "ner")], text, split_addresses=split)
    return [(text[s.start:s.end], s.label.value) for s in spans]


@pytest.mark.parametrize(("text", "label", "expected"), [
    ("Mme maret", Label.PERSON, "maret"),
    ("la hermana", Label.RELATIVE, "hermana"),
    ("su madre", Label.RELATIVE, "madre"),
    ("La Fontaine", Label.PERSON, "La Fontaine"),
    ("M. et Mme Robins", Label.PERSON, "Robins"),
    ("M . R . Ryssdal", Label.PERSON, "R . Ryssdal"),
    ("M . M . Eliasson", Label.PERSON, "M . Eliasson"),
    ("Dra. M.a José", Label.STAFF, "M.a José"),
    ("Marc Dupont", Label.PATIENT, "Marc Dupont"),
    ("le 12 juillet 1993", Label.DATE, "12 juillet 1993"),
    ("el 3 de mayo", Label.DATE, "3 de mayo"),
    ("on 4 May 2020", Label.DATE, "4 May 2020"),
    ("Hermanos Falcó, s/n -", Label.STREET, "Hermanos Falcó, s/n"),
    ("Ciudad Real.", Label.LOCATION, "Ciudad Real"),
    ("jacanovas@hotmail.com.", Label.EMAIL, "jacanovas@hotmail.com"),
    ("DIAVERUM. CERER, S.A.", Label.ORG, "DIAVERUM. CERER, S.A."),
    ("Juan C.", Label.STAFF, "Juan C."),
    ("Dr M. Martin", Label.STAFF, "M. Martin"),  # past the first word, "M." is an initial
    ("Mr Y", Label.PERSON, "Y"),
    ("Mr and Mrs M.", Label.PERSON, "M."),
    ("Sr. y Sra. García", Label.PERSON, "García"),
    ("Don Smith", Label.PERSON, "Don Smith"),
    ("Mme Le", Label.PERSON, "Le"),  # a surname that is also an article stays
    ("M.", Label.PERSON, "M."),
    ("2001:db8::", Label.IP, "2001:db8::"),
    ("  Paris ,", Label.CITY, "Paris"),
])
def test_edges_follow_the_convention(text: str, label: Label, expected: str) -> None:
    assert _conformed(text, label) == [(expected, label.value)]


@pytest.mark.parametrize("text", ["Mme", ".", " - ", "Dr."])
def test_a_span_of_a_title_or_punctuation_alone_goes(text: str) -> None:
    assert _conformed(text, Label.PERSON) == []


def test_a_whole_french_address_splits_into_street_postcode_and_city() -> None:
    assert _conformed("6, Avenue Marcel Chauveau, 60379 Saint Richardboeuf", Label.STREET, split=True) == [
        ("6, Avenue Marcel Chauveau", "STREET"), ("60379", "POSTCODE"), ("Saint Richardboeuf", "CITY")]
    assert _conformed("3 rue X, 2B 065 Bastia", Label.STREET, split=True) == [
        ("3 rue X", "STREET"), ("2B 065", "POSTCODE"), ("Bastia", "CITY")]
    # a street alone, or a split not asked for, stays one span
    street = "12 Rue du Docteur Gachet"
    assert _conformed(street, Label.STREET, split=True) == [(street, "STREET")]
    assert _conformed("1 rue A, 17420 Saujon", Label.STREET) == [("1 rue A, 17420 Saujon", "STREET")]


_WORDS = st.lists(
    st.sampled_from(["Mme", "Dr.", "le", "Jean", "Dupont", "12", "mars", ",", ".", "-", "rue", "S.A.", "et"]),
    min_size=1, max_size=6,
)


@given(words=_WORDS, label=st.sampled_from([Label.PERSON, Label.DATE, Label.STREET, Label.ORG]))
def test_conformed_spans_stay_inside_the_original_and_keep_every_name_and_number(
    words: list[str], label: Label
) -> None:
    text = " ".join(words)
    out = conform([Span(0, len(text), label)], text, split_addresses=True)
    covered = {i for s in out for i in range(s.start, s.end)}
    assert all(0 <= s.start < s.end <= len(text) for s in out)
    assert all(any(c.isalnum() for c in text[s.start:s.end]) for s in out)
    pos = 0
    for word in words:
        start = text.index(word, pos)
        pos = start + len(word)
        if word in {"Jean", "Dupont", "12", "mars", "rue"}:
            assert set(range(start, pos)) <= covered, (text, word)


@pytest.mark.parametrize(("text", "label"), [("le", Label.DATE), ("Le", Label.DATE), ("del", Label.STREET)])
def test_an_article_alone_is_no_span(text: str, label: Label) -> None:
    assert _conformed(text, label) == []


@pytest.mark.parametrize(("text", "start", "end"), [
    ("Les requérants, M . et Mme Robins, sont nés", 16, 17),
    ("Reçus M. et Mme Martin ce jour", 6, 8),
])
def test_a_lone_m_before_et_mme_is_the_couples_title_not_a_name(text: str, start: int, end: int) -> None:
    assert conform([Span(start, end, Label.PERSON, "ner")], text) == []


def test_a_lone_m_elsewhere_stays_a_name() -> None:
    text = "vu par M. ce matin"
    assert conform([Span(7, 9, Label.PERSON, "ner")], text) == [Span(7, 9, Label.PERSON, "ner")]


@pytest.mark.parametrize("word", ["aujourd", "hui", "aujourd’hui", "hier", "hoy", "yesterday"])
def test_a_date_that_is_only_today_or_yesterday_is_no_date(word: str) -> None:
    assert _conformed(word, Label.DATE) == []


def test_a_lone_m_right_after_a_title_is_an_initial() -> None:
    text = "M . M . Eliasson , juriste"
    start = text.index("M . Eliasson")
    (span,) = conform([Span(start, text.index(" ,"), Label.PERSON, "ner")], text)
    assert text[span.start : span.end] == "M . Eliasson"
    alone = "Vu M . Eliasson ce jour"  # a title where nothing else is: skipped
    start = alone.index("M .")
    (span,) = conform([Span(start, alone.index(" ce"), Label.PERSON, "ner")], alone)
    assert alone[span.start : span.end] == "Eliasson"
