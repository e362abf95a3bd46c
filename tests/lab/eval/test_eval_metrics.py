"""Span, token and coverage metrics on hand-made cases whose numbers are worked out by hand."""

from __future__ import annotations

import pytest

from deid.lab.eval import Coverage, EvalReport, Score, evaluate, tokenize
from deid.labels import Label
from deid.spans import Document, Span

TEXT = "Juan Garcia nacio el 12/02/2020 en Madrid, tel 912345678."


def at(text: str, surface: str, label: Label, source: str = "gold") -> Span:
    start = text.index(surface)
    return Span(start, start + len(surface), label, source)


def doc(spans: list[Span], text: str = TEXT, doc_id: str = "d1") -> Document:
    return Document(doc_id, text, "es", tuple(spans))


GOLD = [
    at(TEXT, "Juan Garcia", Label.PATIENT),
    at(TEXT, "12/02/2020", Label.DATE),
    at(TEXT, "Madrid", Label.CITY),
    at(TEXT, "912345678", Label.PHONE),
]
# Right, wrong label (same category), wrong label (same category), right, and a false alarm.
PRED = [
    at(TEXT, "Juan Garcia", Label.PATIENT, "rules"),
    at(TEXT, "12/02/2020", Label.BIRTH_DATE, "rules"),
    at(TEXT, "Madrid", Label.LOCATION, "rules"),
    at(TEXT, "912345678", Label.PHONE, "rules"),
    at(TEXT, "tel", Label.EMAIL, "rules"),
]


@pytest.fixture
def report() -> EvalReport:
    return evaluate([doc(GOLD)], [PRED])


def test_strict_rows_count_exact_span_and_exact_label_only(report: EvalReport) -> None:
    assert report.strict[Label.PATIENT] == Score(1, 1, 1, 1)
    assert report.strict[Label.DATE] == Score(n_gold=1, n_pred=0)
    assert report.strict[Label.BIRTH_DATE] == Score(n_gold=0, n_pred=1)
    assert report.strict[Label.CITY] == Score(n_gold=1, n_pred=0)
    assert report.strict[Label.LOCATION] == Score(n_gold=0, n_pred=1)
    assert report.strict[Label.PHONE] == Score(1, 1, 1, 1)
    assert report.strict[Label.EMAIL] == Score(n_gold=0, n_pred=1)


def test_strict_micro_pools_counts_of_all_labels(report: EvalReport) -> None:
    micro = report.strict_micro
    assert (micro.n_gold, micro.n_pred, micro.found) == (4, 5, 2)
    assert micro.precision == pytest.approx(0.4)
    assert micro.recall == pytest.approx(0.5)
    assert micro.f1 == pytest.approx(2 * 0.4 * 0.5 / 0.9)


def test_category_strict_forgives_a_fine_label_within_the_same_category(report: EvalReport) -> None:
    assert report.category["DATE"] == Score(1, 1, 1, 1)
    assert report.category["LOC"] == Score(1, 1, 1, 1)
    assert report.category["REF"] == Score(0, 1, 0, 0)
    micro = report.category_micro
    assert micro.precision == pytest.approx(0.8)
    assert micro.recall == pytest.approx(1.0)
    assert micro.f1 == pytest.approx(2 * 0.8 / 1.8)


def test_relaxed_ignores_labels_and_counts_overlaps(report: EvalReport) -> None:
    assert report.relaxed[Label.DATE] == Score(n_gold=1, n_pred=0, found=1, correct=0)
    assert report.relaxed[Label.BIRTH_DATE] == Score(n_gold=0, n_pred=1, found=0, correct=1)
    assert report.relaxed[Label.EMAIL] == Score(n_gold=0, n_pred=1, found=0, correct=0)
    micro = report.relaxed_micro
    assert micro == Score(n_gold=4, n_pred=5, found=4, correct=4)
    assert micro.precision == pytest.approx(0.8)
    assert micro.recall == pytest.approx(1.0)


def test_relaxed_partial_overlap_finds_the_gold_span_and_both_pieces_are_correct() -> None:
    gold = [at(TEXT, "Juan Garcia", Label.PATIENT)]
    pred = [at(TEXT, "Juan", Label.STAFF), at(TEXT, "Garcia", Label.PATIENT)]
    report = evaluate([doc(gold)], [pred])
    assert report.relaxed[Label.PATIENT] == Score(n_gold=1, n_pred=1, found=1, correct=1)
    assert report.relaxed[Label.STAFF] == Score(n_gold=0, n_pred=1, found=0, correct=1)
    assert report.relaxed_micro == Score(1, 2, 1, 2)
    assert report.strict_micro == Score(1, 2, 0, 0)
    assert report.strict_micro.f1 == 0.0


def test_relaxed_one_prediction_covering_two_gold_spans_finds_both() -> None:
    gold = [at(TEXT, "12/02/2020", Label.DATE), at(TEXT, "Madrid", Label.CITY)]
    pred = [at(TEXT, "12/02/2020 en Madrid", Label.OTHER)]
    micro = evaluate([doc(gold)], [pred]).relaxed_micro
    assert micro == Score(n_gold=2, n_pred=1, found=2, correct=1)
    assert (micro.precision, micro.recall, micro.f1) == (1.0, 1.0, 1.0)


def test_touching_spans_do_not_overlap() -> None:
    gold = [at(TEXT, "Juan", Label.PATIENT)]
    pred = [at(TEXT, " Garcia", Label.PATIENT)]  # starts where the gold span ends
    assert evaluate([doc(gold)], [pred]).relaxed_micro == Score(1, 1, 0, 0)


def test_duplicate_predictions_from_two_sources_count_once() -> None:
    gold = [at(TEXT, "Madrid", Label.CITY)]
    pred = [at(TEXT, "Madrid", Label.CITY, "rules"), at(TEXT, "Madrid", Label.CITY, "ner")]
    report = evaluate([doc(gold)], [pred])
    assert report.strict_micro == Score(1, 1, 1, 1)
    assert report.relaxed_micro == Score(1, 1, 1, 1)


def test_counts_add_up_over_documents() -> None:
    other = "Vive en Madrid."
    gold2 = [at(other, "Madrid", Label.CITY)]
    report = evaluate([doc(GOLD), doc(gold2, other, "d2")], [PRED, []])
    assert report.strict[Label.CITY] == Score(n_gold=2, n_pred=0)
    assert report.strict_micro == Score(5, 5, 2, 2)
    assert report.coverage.n_docs == 2


def test_token_level_counts_a_token_as_phi_when_any_character_is_in_a_span() -> None:
    text = "Juan Garcia nacio el 12/02/2020 en Madrid."
    assert " ".join(text[a:b] for a, b in tokenize(text)) == "Juan Garcia nacio el 12 / 02 / 2020 en Madrid ."
    gold = [
        at(text, "Juan Garcia", Label.PATIENT),
        at(text, "12/02/2020", Label.DATE),
        at(text, "Madrid", Label.CITY),
    ]
    # "Juan" (tp), "02/2020" (3 tp tokens), "el" (fp): Garcia, 12, / and Madrid missed.
    pred = [at(text, "Juan", Label.STAFF), at(text, "02/2020", Label.AGE), at(text, "el ", Label.CITY)]
    tokens = evaluate([doc(gold, text)], [pred]).tokens
    assert tokens == Score(n_gold=8, n_pred=5, found=4, correct=4)
    assert tokens.precision == pytest.approx(0.8)
    assert tokens.recall == pytest.approx(0.5)
    assert tokens.f1 == pytest.approx(2 * 0.8 * 0.5 / 1.3)


def test_token_touched_by_a_partial_prediction_is_predicted_phi() -> None:
    text = "Juan Garcia"
    gold = [Span(0, 11, Label.PATIENT)]
    pred = [Span(7, 9, Label.PATIENT)]  # "rc" inside "Garcia"
    assert evaluate([doc(gold, text)], [pred]).tokens == Score(2, 1, 1, 1)


def test_coverage_counts_fully_deidentified_documents_ignoring_whitespace() -> None:
    t1, t2, t3 = "Juan Garcia vino.", "Vive en Madrid.", "Sin datos."
    gold = [
        doc([at(t1, "Juan Garcia", Label.PATIENT)], t1, "a"),
        doc([at(t2, "Madrid", Label.CITY)], t2, "b"),
        doc([], t3, "c"),
    ]
    pred = [
        [at(t1, "Juan", Label.PATIENT), at(t1, "Garcia", Label.PATIENT)],  # the space is not PHI
        [at(t2, "Madri", Label.CITY)],  # one character left
        [at(t3, "Sin", Label.OTHER)],  # a false alarm does not matter here
    ]
    cov = evaluate(gold, pred).coverage
    assert cov == Coverage(n_docs=3, n_docs_with_phi=2, n_fully_covered=1, phi_chars=16, missed_chars=1)
    assert cov.share == pytest.approx(2 / 3)
    assert cov.share_with_phi == pytest.approx(0.5)


def test_coverage_uses_any_label() -> None:
    text = "Madrid"
    cov = evaluate([doc([Span(0, 6, Label.CITY)], text)], [[Span(0, 6, Label.PATIENT)]]).coverage
    assert cov.n_fully_covered == 1


def test_label_filter_drops_other_labels_on_both_sides() -> None:
    report = evaluate([doc(GOLD)], [PRED], labels={Label.PHONE, Label.EMAIL})
    assert set(report.strict) == {Label.PHONE, Label.EMAIL}
    assert report.strict_micro == Score(1, 2, 1, 1)
    assert report.coverage.phi_chars == len("912345678")


def test_predictions_past_the_end_of_the_text_are_clipped_not_fatal() -> None:
    text = "Madrid"
    report = evaluate([doc([Span(0, 6, Label.CITY)], text)], [[Span(3, 40, Label.CITY)]])
    assert report.relaxed_micro == Score(1, 1, 1, 1)
    assert report.coverage.missed_chars == 3


def test_rows_follow_the_label_set_order() -> None:
    report = evaluate([doc(GOLD)], [PRED])
    order = list(Label)
    assert list(report.strict) == sorted(report.strict, key=lambda k: order.index(Label(k)))


def test_evaluate_rejects_misaligned_predictions() -> None:
    with pytest.raises(ValueError, match="1 gold documents but 2 predictions"):
        evaluate([doc(GOLD)], [PRED, PRED])


@pytest.mark.parametrize(
    ("score", "p", "r", "f1"),
    [
        (Score(), None, None, None),
        (Score(n_gold=3), None, 0.0, 0.0),
        (Score(n_pred=2), 0.0, None, 0.0),
        (Score(n_gold=2, found=2), None, 1.0, None),  # relaxed: found under another label
        (Score(n_pred=2, correct=1), 0.5, None, None),
        (Score(4, 2, 1, 1), 0.5, 0.25, 1 / 3),
        (Score(2, 2, 0, 0), 0.0, 0.0, 0.0),
    ],
)
def test_score_ratios_are_undefined_over_nothing(
    score: Score, p: float | None, r: float | None, f1: float | None
) -> None:
    assert score.precision == (pytest.approx(p) if p is not None else None)
    assert score.recall == (pytest.approx(r) if r is not None else None)
    assert score.f1 == (pytest.approx(f1) if f1 is not None else None)


def test_score_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError):
        Score(n_gold=1, n_pred=0, found=2)
