"""The recognizer registry and the RuleDetector contract."""

from __future__ import annotations

import itertools
import re

import pytest

from deid.labels import Label
from deid.rules import RuleDetector, build_recognizers, register, registered
from deid.rules.registry import _REGISTRY
from deid.spans import Span

EXPECTED = {"date", "relative_date", "age", "phone", "email", "url", "ip", "nir", "nir_unkeyed", "dni",
            "iban",
            "labelled_id", "postcode"}


def test_every_recognizer_is_registered_by_name() -> None:
    assert set(registered()) >= EXPECTED


def test_build_recognizers_by_name_keeps_the_order_asked() -> None:
    recs = build_recognizers(["email", "date"])
    assert [r.name for r in recs] == ["email", "date"]


def test_unknown_recognizer_name_is_an_error() -> None:
    with pytest.raises(KeyError, match="nope"):
        build_recognizers(["nope"])


def test_registering_a_name_twice_is_an_error() -> None:
    with pytest.raises(ValueError):
        register("date")(lambda: build_recognizers(["date"])[0])


def test_a_custom_recognizer_plugs_in_by_registration() -> None:
    class Ward:
        name = "test_ward"

        def find(self, text: str, language: str) -> list[Span]:
            return [Span(m.start(), m.end(), Label.LOCATION, "rules.test_ward")
                    for m in re.finditer(r"Ward \d+", text)]

    register("test_ward")(Ward)
    try:
        det = RuleDetector(["test_ward", "date"])
        out = det.find("Ward 7 le 12/02/2020", "fr")
        assert [(s.label, s.source) for s in out] == [(Label.LOCATION, "rules.test_ward"),
                                                     (Label.DATE, "rules.date")]
    finally:
        del _REGISTRY["test_ward"]


def test_every_span_names_its_recognizer(detector: RuleDetector) -> None:
    text = "IPP : 8012939402, né le 03/04/1950, tél 01 23 45 67 89, x@y.fr, homme de 40 ans."
    spans = detector.find(text, "fr")
    assert {s.source for s in spans} == {"rules.labelled_id", "rules.date", "rules.phone", "rules.email",
                                        "rules.age", "rules.sex"}


def test_rule_detector_output_never_overlaps(detector: RuleDetector) -> None:
    text = "NHC: 913 908 121. Tfno: 913 908 121. Fecha: 12/02/2020 y en 2020."
    spans = detector.find(text, "es")
    for a, b in itertools.pairwise(spans):
        assert a.end <= b.start


def test_a_labelled_identifier_beats_a_phone_on_the_same_characters(detector: RuleDetector) -> None:
    text = "NHC: 913908121."
    assert [(text[s.start:s.end], s.label) for s in detector.find(text, "es")] == [
        ("913908121", Label.ID_PATIENT)]


def test_detector_contract(detector: RuleDetector) -> None:
    assert detector.model_name == "rules"
    assert detector.model_version
    out = detector.detect(["12/02/2020", "rien"], ["fr", "fr"])
    assert len(out) == 2 and out[1] == []


def test_unknown_language_runs_only_language_independent_patterns(detector: RuleDetector) -> None:
    assert [s.label for s in detector.find("x@y.fr le 12/02/2020, 40 ans", "de")] == [Label.EMAIL, Label.DATE]
