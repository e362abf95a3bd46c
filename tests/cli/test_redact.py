"""``deid redact``: placeholders with correct offsets, JSON spans, one-line errors."""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path

import pytest

from deid.cli import main
from deid.cli.redact import build_detector

NOTE = "Patient vu le 12/02/2020, tél 01 23 45 67 89, IPP : 8012939402.\nHomme de 40 ans.\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_redact_prints_the_note_with_category_placeholders(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    note = tmp_path / "note.txt"
    note.write_text(NOTE, encoding="utf-8")
    code, out, err = run(capsys, "redact", "--rules-only", str(note))
    assert code == 0 and err == ""
    assert out == "Patient vu le [DATE], tél [TEL], IPP : [QID].\nHomme de [AGE].\n"


def test_redact_json_gives_input_and_output_spans_with_consistent_offsets(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    note = tmp_path / "note.txt"
    note.write_text(NOTE, encoding="utf-8")
    code, out, _ = run(capsys, "redact", "--rules-only", "--json", "--lang", "fr", str(note))
    assert code == 0
    doc = json.loads(out)
    assert [(NOTE[s["start"]:s["end"]], s["label"], s["category"], s["source"]) for s in doc["spans"]] == [
        ("12/02/2020", "DATE", "DATE", "rules.date"),
        ("01 23 45 67 89", "PHONE", "TEL", "rules.phone"),
        ("8012939402", "ID_PATIENT", "QID", "rules.labelled_id"),
        ("40 ans", "AGE", "AGE", "rules.age"),
    ]
    text = doc["text"]
    assert [text[s["start"]:s["end"]] for s in doc["output_spans"]] == ["[DATE]", "[TEL]", "[QID]", "[AGE]"]
    assert {s["strategy"] for s in doc["output_spans"]} == {"placeholder"}
    assert doc["detector"]["name"] == "rules"


def test_redact_reads_standard_input(monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    fake = io.TextIOWrapper(io.BytesIO("Varón de 40 años, NHC: 7834563.".encode()), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", fake)
    code, out, _ = run(capsys, "redact", "--lang", "es", "--rules-only", "-")
    assert code == 0
    assert out == "Varón de [AGE], NHC: [QID].\n"


def test_redact_keeps_a_byte_order_mark_so_offsets_match_the_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    note = tmp_path / "bom.txt"
    note.write_bytes("\ufeffNHC: 7834563.".encode())
    _, out, _ = run(capsys, "redact", "--rules-only", "--json", "--lang", "es", str(note))
    (span,) = json.loads(out)["spans"]
    assert (span["start"], span["end"]) == (6, 13)


def test_a_file_that_is_not_utf8_is_a_one_line_error(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("Née le 12/02/2020 à Orléans".encode("latin-1"))
    code, out, err = run(capsys, "redact", str(bad))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "not UTF-8" in err and "Traceback" not in err
    assert "Orl" not in err  # never echo the note's content


@pytest.mark.parametrize("name", ["missing.txt", "."])
def test_an_unreadable_path_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                name: str) -> None:
    code, out, err = run(capsys, "redact", str(tmp_path / name))
    assert code == 2 and out == ""
    assert err.startswith("deid redact: error: cannot read") and err.count("\n") == 1


def test_an_unknown_language_is_rejected_by_the_parser(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["redact", "--lang", "de", "-"])
    assert exc.value.code == 2


def test_rules_only_builds_the_rules_alone() -> None:
    args = argparse.Namespace(rules_only=True, model=None, lang="fr", json=False)
    assert build_detector(args).model_name == "rules"


def test_a_missing_model_directory_is_a_one_line_error(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    note = tmp_path / "note.txt"
    note.write_text(NOTE, encoding="utf-8")
    code, out, err = run(capsys, "redact", "--model", str(tmp_path / "nowhere"), str(note))
    assert code == 2 and out == ""
    assert err.startswith("deid redact: error: no model at") and err.count("\n") == 1


def test_dp_strategy_keeps_a_patients_surrogates_across_runs_with_a_local_memo(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEID_HMAC_SECRET", "redact-test-secret-" + "0" * 32)  # --store needs one
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("Admis le 12/02/2020. IPP : 8012939402. Homme de 40 ans.\n", encoding="utf-8")
    second.write_text("Revu le 12/02/2020 (IPP : 8012939402).\n", encoding="utf-8")
    memo = tmp_path / "memo" / "store.sqlite"
    common = ["redact", "--rules-only", "--strategy", "dp", "--date", "2020-03-01", "--patient", "p1",
              "--store", str(memo), "--json"]
    _, out1, _ = run(capsys, *common, str(first))
    _, out2, _ = run(capsys, *common, str(second))
    doc1, doc2 = json.loads(out1), json.loads(out2)
    sur1 = {doc1["text"][s["start"]:s["end"]] for s in doc1["output_spans"] if s["label"] == "ID_PATIENT"}
    sur2 = {doc2["text"][s["start"]:s["end"]] for s in doc2["output_spans"] if s["label"] == "ID_PATIENT"}
    date1 = {doc1["text"][s["start"]:s["end"]] for s in doc1["output_spans"] if s["label"] == "DATE"}
    date2 = {doc2["text"][s["start"]:s["end"]] for s in doc2["output_spans"] if s["label"] == "DATE"}
    assert sur1 == sur2 and "8012939402" not in sur1
    assert date1 == date2
    assert "8012939402" not in doc1["text"] + doc2["text"]


def test_a_bad_document_date_is_rejected_by_the_parser(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["redact", "--date", "2020-13-01", "-"])
    assert exc.value.code == 2
