"""Projecting predictions onto a corpus's annotation scheme (``deid eval --scheme``)."""

from __future__ import annotations

import pytest

from deid.lab.eval.scheme import scheme_for, scheme_for_format
from deid.labels import Label
from deid.spans import Span

TEXT = "x" * 80


def _labels(spans: list[Span]) -> list[str]:
    return [s.label.value for s in spans]


def test_eds_pseudo_scheme_collapses_person_roles_and_drops_ages() -> None:
    scheme = scheme_for("eds-pseudo")
    pred = [Span(0, 4, Label.PATIENT, "ner"), Span(5, 9, Label.STAFF, "ner"),
            Span(10, 16, Label.AGE, "ner"), Span(26, 30, Label.ORG, "ner"), Span(31, 35, Label.CITY, "ner"),
            Span(36, 40, Label.LOCATION, "ner"), Span(41, 45, Label.URL, "rules.url")]
    out = scheme.project(pred, TEXT, "fr")
    # LOCATION has no listed coarser name in eds-pseudo and an URL is not an e-mail: both stay, scored
    assert _labels(out) == ["PERSON", "PERSON", "HOSPITAL", "CITY", "LOCATION", "URL"]
    assert [(s.start, s.end) for s in out] == [(0, 4), (5, 9), (26, 30), (31, 35), (36, 40), (41, 45)]


@pytest.mark.parametrize("source", ["rules.relative_date", "ner"])
def test_relative_dates_are_dropped_whoever_found_them_where_the_guideline_omits_them(source: str) -> None:
    text = "Operado hace 3 meses, revisado el 12/03/2020."
    rel = text.index("hace")
    date = text.index("12/03")
    pred = [Span(rel, rel + len("hace 3 meses"), Label.DATE, source),
            Span(date, date + 10, Label.DATE, "rules.date")]
    assert [text[s.start:s.end] for s in scheme_for("meddocan").project(pred, text, "es")] == ["12/03/2020"]
    assert len(scheme_for("echr").project(pred, text, "es")) == 2  # ECHR keeps them


def test_meddocan_scheme_keeps_its_own_labels_and_folds_birth_dates_into_dates() -> None:
    scheme = scheme_for_format("brat")
    pred = [Span(0, 4, Label.PATIENT, "ner"), Span(5, 9, Label.BIRTH_DATE, "ner"),
            Span(10, 14, Label.DATE, "rules.date"), Span(21, 25, Label.HOSPITAL, "ner"),
            Span(26, 30, Label.PERSON, "ner")]
    # MEDDOCAN has roles, so a role-less PERSON is a wrong label, not renamed
    assert _labels(scheme.project(pred, TEXT, "es")) == ["PATIENT", "DATE", "DATE", "HOSPITAL", "PERSON"]


def test_echr_scheme_maps_places_to_location_and_hospitals_to_org() -> None:
    scheme = scheme_for_format("echr-tsv")
    pred = [Span(0, 4, Label.CITY, "ner"), Span(5, 9, Label.HOSPITAL, "ner")]
    assert _labels(scheme.project(pred, TEXT, "fr")) == ["LOCATION", "ORG"]


def test_unknown_corpus_or_format_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        scheme_for("i2b2")
    with pytest.raises(KeyError):
        scheme_for_format("conll")


@pytest.mark.parametrize("corpus", ["eds-pseudo", "echr"])
def test_a_relative_named_by_kinship_alone_is_dropped_where_the_corpus_annotates_names(corpus: str) -> None:
    text = "sur son fils et sa mère Jeanne Roux"
    fils, roux = text.index("fils"), text.index("Jeanne")
    pred = [Span(fils, fils + 4, Label.RELATIVE, "ner"), Span(roux, len(text), Label.RELATIVE, "ner")]
    out = scheme_for(corpus).project(pred, text, "fr")
    assert [(text[s.start : s.end], s.label) for s in out] == [("Jeanne Roux", Label.PERSON)]


def test_meddocan_keeps_kinship_relatives() -> None:
    text = "su madre"
    (out,) = scheme_for("meddocan").project([Span(3, 8, Label.RELATIVE, "ner")], text, "es")
    assert out.label is Label.RELATIVE


def test_the_realistic_scheme_drops_the_kept_sex_label_and_scores_everything_else() -> None:
    text = "72 y/o F seen in 3 months by Dr Okafor, a retired teacher"
    f, rel, name = text.index("F "), text.index("in 3"), text.index("Okafor")
    job = text.index("retired teacher")
    pred = [Span(f, f + 1, Label.SEX, "rules.sex"), Span(rel, rel + 11, Label.DATE, "rules.relative_date"),
            Span(name, name + 6, Label.STAFF, "ner"), Span(job, len(text), Label.PROFESSION, "ner")]
    out = scheme_for_format("realistic").project(pred, text, "en")
    # the guideline marks no sex (a kept label changes nothing in the output) and no duration
    assert _labels(out) == ["STAFF", "PROFESSION"]
    (sex,) = scheme_for_format("brat").project(pred[:1], text, "es")  # MEDDOCAN annotates it
    assert sex.label is Label.SEX


def test_the_realistic_scheme_scores_weekdays_and_dates_but_not_durations() -> None:
    def kept(text: str, language: str, *dates: str) -> list[str]:
        spans = [Span(text.index(w), text.index(w) + len(w), Label.DATE, "rules.date") for w in dates]
        return [text[s.start : s.end] for s in scheme_for_format("realistic").project(spans, text, language)]

    assert kept("seen last Monday, 12/03/2024; review in 6 weeks", "en",
                "last Monday", "12/03/2024", "in 6 weeks") == ["last Monday", "12/03/2024"]
    assert kept("opéré il y a 2 ans, le 3 mars 2022", "fr", "il y a 2 ans", "3 mars 2022") == ["3 mars 2022"]
