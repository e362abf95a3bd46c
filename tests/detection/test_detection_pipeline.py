"""One home for detection (``deid.detection``): the ordered pipeline of named steps, recall first.

No step but ``measurements`` drops a span that the model or a rule found (that one drops a date
its context proves a score or a measurement): each step is fed a span it doubts and must hand it on
(downgraded to the generic PHI label where it doubts it), every alphanumeric
character still covered; and a doubtful span comes out of the whole detector replaced.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from deid.detection import PIPELINE, STEP_NAMES, HybridDetector, combine, run_pipeline, without
from deid.detection.pipeline import Spans
from deid.labels import Label
from deid.rules import RuleDetector
from deid.spans import Span


def at(text: str, words: str, label: Label, source: str = "ner") -> Span:
    start = text.index(words)
    return Span(start, start + len(words), label, source, 0.9)


def covered(spans: list[Span] | tuple[Span, ...], text: str) -> set[int]:
    return {i for s in spans for i in range(s.start, s.end) if text[i].isalnum()}


# Spans each step doubts: (text, the model's span, the rules' spans).
DOUBTED_BY_CONFORM = [
    ("Vu par Mme ce matin", ("Mme", Label.PERSON)),  # a title alone
    ("Date : le", ("le", Label.DATE)),  # an article alone
]
DOUBTED_BY_PLAUSIBLE = [
    ("Apgar 9/10/10 à la naissance", ("9/10/10", Label.DATE)),  # a score written like a date
    ("Le père L'enfant est scolarisé", ("L'", Label.PERSON)),  # an elided article alone
    ("colis fourni par le CCAS hier", ("CCAS", Label.ORG)),  # a generic public service
]
# Spans whose own words prove them no PHI: dropped, not doubted (deid.detection.own_words).
PROVEN_BY_OWN_WORDS = [
    ("adressé par son médecin de famille", ("famille", Label.RELATIVE), "fr"),  # a family doctor
    ("husband at bedside, son called", ("husband", Label.RELATIVE), "en"),
    ("Transferred to General Surgery", ("General Surgery", Label.HOSPITAL), "en"),
    ("Spanish-speaking, interpreter used", ("Spanish", Label.COUNTRY), "en"),
    ("Pt called 0430 by night RN", ("0430", Label.PHONE), "en"),
    ("Stable overnight. Will follow daily.", ("Will", Label.STAFF), "en"),
    ("admitted to Beech Ward overnight", ("Beech Ward", Label.LOCATION), "en"),  # a named ward
    ("plan d/c home tomorrow", ("d/c", Label.DATE), "en"),  # no digit, no word of a date
]
# The same words where they do name someone or something: kept.
NOT_PROVEN_BY_OWN_WORDS = [
    ("Son Nguyen called", ("Son", Label.RELATIVE), "en"),  # "Son" is also a given name
    ("Will reports pain 4/10", ("Will", Label.PATIENT), "en"),  # the name, with a verb in -s
    ("depuis mi-mars, douleurs", ("mi-mars", Label.DATE), "fr"),  # a month inside a word
    ("AVC de mi-octobre", ("mi", Label.DATE), "fr"),  # the model cut a word: its part proves nothing
    ("N° : E24-0412 le 09/04", ("0412", Label.PHONE), "fr"),  # a part of an identifier
    ("depuis la Promenade des Anglais", ("Anglais", Label.LOCATION), "fr"),  # part of a name
    ("1086 Teaneck Rd, Suite 3B", ("Suite 3B", Label.STREET), "en"),  # a unit of an address
    ("207 Camellia Blvd, Unit 12, Lafayette", ("Unit 12", Label.LOCATION), "en"),  # a flat, not a ward
    ("1400 Kaliste Saloom Rd", ("1400", Label.POSTCODE), "en"),  # a house number the model mislabelled
    ("cholecystectomy (Lima, 1988)", ("Lima", Label.DATE), "en"),  # a town the model called a date
    ("Greater Manchester Mental Health NHS Trust", ("Health", Label.HOSPITAL), "en"),  # cut from a name
    ("seen at St Luke's Hospital", ("St Luke's Hospital", Label.HOSPITAL), "en"),
    ("married in 1930 in Leeds", ("1930", Label.DATE), "en"),  # a year
]


def test_the_pipeline_is_ordered_and_named() -> None:
    assert STEP_NAMES == ("conform", "measurements", "own_words", "plausible", "merge", "extents",
                          "us_addresses", "name_echoes", "hospital_towns", "birth_dates", "lines")
    assert all(step.what for step in PIPELINE)
    assert [s.name for s in without("conform", "plausible")] == [
        "measurements", "own_words", "merge", "extents", "us_addresses", "name_echoes", "hospital_towns",
        "birth_dates", "lines"]
    with pytest.raises(ValueError):
        without("merge")


@pytest.mark.parametrize(("text", "model"), DOUBTED_BY_CONFORM + DOUBTED_BY_PLAUSIBLE)
def test_each_step_hands_on_a_span_it_doubts(text: str, model: tuple[str, Label]) -> None:
    span = at(text, *model)
    state = Spans(text, "fr", (), (span,))
    for step in PIPELINE:
        before = covered(state.merged if state.merged is not None else state.model, text)
        state = step.run(state)
        after = covered(state.merged if state.merged is not None else state.model, text)
        assert before <= after, (step.name, text)
    out = state.output()
    assert covered(out, text) >= covered([span], text)
    assert out, text


@pytest.mark.parametrize(("text", "model"), DOUBTED_BY_CONFORM + DOUBTED_BY_PLAUSIBLE)
def test_a_doubtful_span_is_downgraded_to_generic_phi(text: str, model: tuple[str, Label]) -> None:
    out = combine([], [at(text, *model)], text, "fr")
    assert [s.label for s in out] == [Label.PHI], text


@pytest.mark.parametrize(("text", "model", "lang"), PROVEN_BY_OWN_WORDS)
def test_a_span_its_own_words_prove_no_phi_is_dropped(text: str, model: tuple[str, Label], lang: str) -> None:
    assert combine([], [at(text, *model)], text, lang) == []


@pytest.mark.parametrize(("text", "model", "lang"), NOT_PROVEN_BY_OWN_WORDS)
def test_the_same_words_naming_someone_are_kept(text: str, model: tuple[str, Label], lang: str) -> None:
    span = at(text, *model)
    assert covered(combine([], [span], text, lang), text) >= covered([span], text)


def test_a_span_of_punctuation_alone_is_no_mention_and_covers_nothing_to_lose() -> None:
    """The one span a step may leave out: no letter or digit in it (the model's lone "(" before
    an age, seen in `deid redact`: it came out as "[OTHER]")."""
    text = "DOB: 03/14/1942 (81 y/o M)"
    paren = Span(text.index("("), text.index("(") + 1, Label.PHI, "ner", 0.2)
    age = at(text, "81 y/o", Label.AGE)
    out = combine([], [paren, age], text, "en")
    assert [(text[s.start:s.end], s.label) for s in out] == [("81 y/o", Label.AGE)]


def test_the_relabelling_steps_change_labels_never_extents() -> None:
    text = "Mme PALSKY, 28/10/1990. CLINIQUE DE SAINT CLOUD, MESNARD-LA-BAROTIERE"
    model = [at(text, "PALSKY", Label.PATIENT), at(text, "28/10/1990", Label.DATE),
             at(text, "CLINIQUE DE SAINT CLOUD", Label.HOSPITAL),
             at(text, "MESNARD-LA-BAROTIERE", Label.HOSPITAL)]
    out = run_pipeline([], model, text, "fr")
    assert [(text[s.start:s.end], s.label) for s in out] == [
        ("PALSKY", Label.PATIENT), ("28/10/1990", Label.BIRTH_DATE),
        ("CLINIQUE DE SAINT CLOUD", Label.HOSPITAL), ("MESNARD-LA-BAROTIERE", Label.CITY)]


def test_the_merge_keeps_every_character_the_rules_or_the_model_flagged() -> None:
    text = "Denis GERARD Gilb85@aphm.fr, tél 01 23 45 67 89"
    model = [at(text, "Denis GERARD Gilb85@aphm.fr", Label.PERSON)]
    rules = RuleDetector().find(text, "fr")
    out = combine(rules, model, text, "fr")
    assert covered(out, text) >= covered([*model, *rules], text)


def _replaced(text: str, spans: list[Span]) -> str:
    """The text after substitution with placeholders."""
    from deid.substitution import deidentify_text

    return deidentify_text(text, spans, "fr", profile="placeholder").text


class _Model:
    model_name = "fake"
    model_version = "0"

    def __init__(self, spans: list[Span]) -> None:
        self.spans = spans

    def detect(self, texts: list[str], languages: list[str]) -> list[list[Span]]:
        return [self.spans for _ in texts]


def test_a_doubted_birth_date_after_the_first_name_eva_is_still_replaced() -> None:
    """The issue's leak: "Patiente DUPONT EVA 01/03/10" lost its date to the EVA score check."""
    text = "Patiente DUPONT EVA 01/03/10, vue ce jour."
    det = HybridDetector(RuleDetector(), _Model([at(text, "DUPONT EVA", Label.PATIENT),
                                                 at(text, "01/03/10", Label.DATE)]))
    (spans,) = det.detect([text], ["fr"])
    assert covered(spans, text) >= covered([at(text, "01/03/10", Label.DATE)], text)
    out = _replaced(text, spans)
    assert "01/03/10" not in out and "DUPONT" not in out


def test_a_doubtful_score_span_is_replaced_by_substitution() -> None:
    text = "Apgar 9/10/10 à la naissance"
    det = HybridDetector(RuleDetector(), _Model([at(text, "9/10/10", Label.DATE)]))
    (spans,) = det.detect([text], ["fr"])
    assert [s.label for s in spans] == [Label.PHI]
    assert "9/10/10" not in _replaced(text, spans)


def test_a_date_its_context_proves_a_score_is_dropped_and_the_value_kept() -> None:
    text = "Douleur évaluée à 7/10 ce jour, TA 13/8, MMSE 23/30"
    model = [at(text, w, Label.DATE) for w in ("7/10", "13/8", "23/30")]
    det = HybridDetector(RuleDetector(), _Model(model))
    (spans,) = det.detect([text], ["fr"])
    assert spans == []
    assert _replaced(text, spans) == text


@pytest.mark.parametrize("first", ["deid.rules", "deid.spans", "deid.detection", "deid.detection.merge",
                                   "deid.detection.convention", "deid.detection.plausibility",
                                   "deid.protocols", "deid.concepts.offsets", "deid.substitution",
                                   "deid.pipeline"])
def test_the_detection_modules_import_in_any_order(first: str) -> None:
    code = (f"import {first}; from deid.detection.merge import merge; "
            "from deid.spans import clusters, resolve; "
            "from deid.protocols import Detector, Recognizer; "
            "from deid.detection.convention import conform, conform_span; "
            "from deid.detection.plausibility import plausible; "
            "from deid.detection import HybridDetector, combine")
    subprocess.run([sys.executable, "-c", code], check=True)
