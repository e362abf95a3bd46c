"""Projecting predictions onto a corpus's annotation scheme (``deid eval --scheme``)."""

from __future__ import annotations

import pytest

from deid.eval.scheme import scheme_for, scheme_for_format
from deid.labels import Label
from deid.spans import Span


def _labels(spans: list[Span]) -> list[str]:
    return [s.label.value for s in spans]


def test_eds_pseudo_scheme_collapses_person_roles_drops_ages_and_relative_dates() -> None:
    scheme = scheme_for("eds-pseudo")
    pred = [Span(0, 4, Label.PATIENT, "ner"), Span(5, 9, Label.STAFF, "ner"), Span(10, 16, Label.AGE, "ner"),
            Span(17, 25, Label.DATE, "rules.relative_date"), Span(26, 30, Label.ORG, "ner"),
            Span(31, 35, Label.CITY, "ner"), Span(36, 40, Label.LOCATION, "ner")]
    out = scheme.project(pred)
    # LOCATION stays: eds-pseudo splits places three ways, so no single label to put it in
    assert _labels(out) == ["PERSON", "PERSON", "HOSPITAL", "CITY", "LOCATION"]
    assert [(s.start, s.end) for s in out] == [(0, 4), (5, 9), (26, 30), (31, 35), (36, 40)]


def test_meddocan_scheme_keeps_its_own_labels_and_folds_birth_dates_into_dates() -> None:
    scheme = scheme_for_format("brat")
    pred = [Span(0, 4, Label.PATIENT, "ner"), Span(5, 9, Label.BIRTH_DATE, "ner"),
            Span(10, 14, Label.DATE, "rules.date"), Span(15, 20, Label.DATE, "rules.relative_date"),
            Span(21, 25, Label.HOSPITAL, "ner")]
    assert _labels(scheme.project(pred)) == ["PATIENT", "DATE", "DATE", "HOSPITAL"]


def test_echr_scheme_keeps_relative_dates_and_maps_places_to_location() -> None:
    scheme = scheme_for_format("echr-tsv")
    pred = [Span(0, 4, Label.CITY, "ner"), Span(5, 9, Label.DATE, "rules.relative_date")]
    assert _labels(scheme.project(pred)) == ["LOCATION", "DATE"]


def test_unknown_corpus_or_format_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        scheme_for("i2b2")
    with pytest.raises(KeyError):
        scheme_for_format("conll")
