"""The report's JSON form and its fixed-width table."""

from __future__ import annotations

import json

from deid.lab.eval import EvalReport, RunInfo, evaluate, render_table
from deid.labels import Label
from deid.spans import Document, Span

TEXT = "Ingreso el 12/02/2020, tel 912345678."


def make_report(run: RunInfo | None = None) -> EvalReport:
    gold = Document("d", TEXT, "es", (Span(11, 21, Label.DATE), Span(27, 36, Label.PHONE)))
    pred = [Span(11, 21, Label.DATE), Span(0, 7, Label.PATIENT)]
    report = evaluate([gold], [pred])
    return report.with_run(run) if run is not None else report


RUN = RunInfo(
    corpus="dev",
    format="brat",
    n_docs=1,
    detector="fake",
    detector_version="0",
    seconds=0.5,
    language="es",
    labels=None,
)


def test_json_holds_counts_and_ratios_with_null_for_undefined() -> None:
    data = json.loads(make_report(RUN).to_json())
    assert data["strict"]["micro"] == {
        "n_gold": 2,
        "n_pred": 2,
        "found": 1,
        "correct": 1,
        "precision": 0.5,
        "recall": 0.5,
        "f1": 0.5,
    }
    assert data["strict"]["labels"]["PHONE"]["precision"] is None
    assert data["strict"]["labels"]["PHONE"]["recall"] == 0.0
    assert data["category_strict"]["categories"]["TEL"]["n_gold"] == 1
    assert data["relaxed"]["micro"]["found"] == 1
    assert data["tokens"]["n_gold"] == 6  # 12 / 02 / 2020 and 912345678
    assert data["coverage"]["share"] == 0.0
    assert data["run"]["docs_per_s"] == 2.0
    assert data["run"]["detector"] == "fake"


def test_json_round_trips_to_an_equal_report() -> None:
    for report in (make_report(), make_report(RUN)):
        assert EvalReport.from_json(report.to_json()) == report


def test_table_shows_a_row_per_label_and_the_micro_average() -> None:
    table = render_table(make_report(RUN))
    lines = table.splitlines()
    assert lines[0] == "corpus: dev (brat, es), 1 documents"
    assert lines[1] == "detector: fake 0, detection 0.50 s, 2.0 docs/s"
    date_row = next(line for line in lines if line.startswith("DATE "))
    assert " ".join(date_row.split()) == "DATE 1 1 | 1 1.000 1.000 1.000 | 1 1 1.000 1.000 1.000"
    phone_row = next(line for line in lines if line.startswith("PHONE "))
    assert " ".join(phone_row.split()[:8]) == "PHONE 1 0 | 0 - 0.000 0.000"
    micro_rows = [line for line in lines if line.startswith("micro ")]
    assert len(micro_rows) == 2  # fine labels, then categories
    assert micro_rows[0].split()[4:8] == ["1", "0.500", "0.500", "0.500"]
    assert any(line.startswith("tokens (binary PHI, i2b2): gold 6, pred 6, tp 5") for line in lines)
    assert "fully de-identified documents: 0/1 (0.0%); of the 1 with PHI: 0 (0.0%)" in lines


def test_table_columns_line_up() -> None:
    lines = render_table(make_report()).splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("label "))
    header = lines[at]
    bars = [i for i, ch in enumerate(header) if ch == "|"]
    for line in lines[at + 2 : at + 5]:
        if "|" in line:
            assert [i for i, ch in enumerate(line) if ch == "|"] == bars


def test_the_official_scores_come_first_and_use_the_corpus_tags() -> None:
    """MEDDOCAN's own rules: exact span and corpus tag; a CENTRO_SALUD is no HOSPITAL even though
    both are the project's HOSPITAL."""
    text = "Centro de Salud Delicias, Hospital Clinico"
    gold = Document("d", text, "es", (Span(0, 24, Label.HOSPITAL, "gold:CENTRO_SALUD"),
                                      Span(26, 42, Label.HOSPITAL, "gold:HOSPITAL")))
    pred = [Span(0, 24, Label.HOSPITAL, "ner"), Span(26, 42, Label.HOSPITAL, "ner")]
    report = evaluate([gold], [pred], corpus="meddocan")
    assert report.strict_micro.f1 == 1.0  # the project's labels
    ner = report.official["ner_strict"]
    assert (ner.n_gold, ner.n_pred, ner.found) == (2, 2, 1)
    assert report.official["span_strict"].f1 == 1.0
    table = render_table(report).splitlines()
    assert table[0].startswith("official scores")
    assert EvalReport.from_json(report.to_json()) == report
