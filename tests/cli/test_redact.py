"""``deid redact``: placeholders with correct offsets, JSON spans, one-line errors."""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path

import pytest

from deid.cli import main
from deid.cli._detector import detector_from_args
from deid.pipeline import RULES_ONLY_WARNING

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
    assert code == 0 and err == f"WARNING: {RULES_ONLY_WARNING}\n"
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
        ("Homme", "SEX", "OTHER", "rules.sex"),  # detected and reported, kept in the text by default
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


def test_an_unreadable_path_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "redact", str(tmp_path / "missing.txt"))
    assert code == 2 and out == ""
    assert err.startswith("deid redact: error: cannot read") and err.count("\n") == 1


def test_a_directory_without_an_output_directory_is_a_one_line_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "redact", "--rules-only", str(tmp_path))
    assert code == 2 and out == ""
    assert err.startswith("deid redact: error: several notes") and err.count("\n") == 1


def test_an_unknown_language_is_rejected_by_the_parser(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["redact", "--lang", "de", "-"])
    assert exc.value.code == 2


def test_rules_only_builds_the_rules_alone() -> None:
    args = argparse.Namespace(rules_only=True, model=None, lang="fr", json=False, backend=None,
                              min_phi_prob=None)
    assert detector_from_args(args).model_name == "rules"


def test_a_missing_model_directory_is_a_one_line_error(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    note = tmp_path / "note.txt"
    note.write_text(NOTE, encoding="utf-8")
    code, out, err = run(capsys, "redact", "--model", str(tmp_path / "nowhere"), str(note))
    assert code == 2 and out == ""
    assert err.startswith("deid redact: error: no model at") and err.count("\n") == 1


def test_dp_strategy_keeps_a_patients_surrogates_across_runs_with_a_local_memo(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # --store needs one
    monkeypatch.setenv("DEID_HMAC_SECRET", "redact-test-secret-0123456789abcdef0123456789")
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("Admis le 12/02/2020. IPP : 8012939402. Homme de 40 ans.\n", encoding="utf-8")
    second.write_text("Revu le 12/02/2020 (IPP : 8012939402).\n", encoding="utf-8")
    memo = tmp_path / "memo" / "store.sqlite"
    common = ["redact", "--rules-only", "--profile", "dp", "--date", "2020-03-01", "--patient", "p1",
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


# --- several notes in one process (issue 18) -------------------------------------------------

SPANISH = "Paciente de 40 años, NHC: 7834563.\n"
FRENCH = "Patient vu le 12/02/2020, tél 01 23 45 67 89, IPP : 8012939402.\n"


def test_no_model_is_an_alias_of_rules_only_and_warns_loudly(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    note = tmp_path / "note.txt"
    note.write_text(FRENCH, encoding="utf-8")
    code, out, err = run(capsys, "redact", "--no-model", str(note))
    assert code == 0 and "[DATE]" in out
    assert err.count("\n") == 1 and "NOT detected" in err and err.startswith("WARNING")


def test_a_directory_is_redacted_into_the_output_directory_with_a_summary(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in"
    (src / "sub").mkdir(parents=True)
    (src / "a.txt").write_text(FRENCH, encoding="utf-8")
    (src / "sub" / "b.txt").write_text("Revu le 13/02/2020, IPP : 8012939403.\n", encoding="utf-8")
    (src / "skip.csv").write_text("12/02/2020", encoding="utf-8")
    out_dir = tmp_path / "out"
    code, out, err = run(capsys, "redact", "--rules-only", "--out-dir", str(out_dir), str(src))
    assert code == 0 and out == ""
    expected = "Patient vu le [DATE], tél [TEL], IPP : [QID].\n"
    assert (out_dir / "a.txt").read_text(encoding="utf-8") == expected
    assert (out_dir / "sub" / "b.txt").read_text(encoding="utf-8") == "Revu le [DATE], IPP : [QID].\n"
    assert not (out_dir / "skip.csv").exists()
    summary = err.splitlines()[-1]
    assert summary.startswith("deid redact: 2 notes") and "0 skipped" in summary


def test_several_files_with_json_print_one_object_per_line(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(FRENCH, encoding="utf-8")
    b.write_text(SPANISH, encoding="utf-8")
    code, out, _ = run(capsys, "redact", "--rules-only", "--json", "--lang", "es", str(a), str(b))
    assert code == 0
    docs = [json.loads(line) for line in out.splitlines()]
    assert [d["id"] for d in docs] == [str(a), str(b)]
    assert docs[1]["text"] == "Paciente de [AGE], NHC: [QID].\n"
    assert all(d["spans"] and d["output_spans"] for d in docs)


def test_a_jsonl_stream_is_read_in_one_process_and_bad_lines_are_skipped_unechoed(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [
        json.dumps({"id": "n1", "text": SPANISH, "lang": "es"}),
        "{not json Dupont",
        json.dumps({"id": 2, "text": FRENCH}),
        json.dumps({"id": 3, "body": "no text"}),
    ]
    fake = io.TextIOWrapper(io.BytesIO(("\n".join(lines) + "\n").encode()), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", fake)
    code, out, err = run(capsys, "redact", "--rules-only", "--jsonl", "-")
    assert code == 1  # some lines were skipped
    docs = [json.loads(line) for line in out.splitlines()]
    assert [d["id"] for d in docs] == ["n1", 2]
    assert docs[0]["text"] == "Paciente de [AGE], NHC: [QID].\n" and docs[0]["language"] == "es"
    assert "standard input:2: skipped (invalid JSON)" in err and "standard input:4: skipped" in err
    assert "Dupont" not in err
    assert "deid redact: 2 notes" in err


def test_profile_choices_are_the_librarys_profiles_and_strategy_is_a_deprecated_alias(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from deid.cli import build_parser
    from deid.substitution import PROFILES

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    redact_parser = sub.choices["redact"]  # type: ignore[attr-defined]
    flags = {s: a for a in redact_parser._actions if a.dest == "profile" for s in a.option_strings}
    assert set(flags) == {"--profile", "--strategy"}
    assert list(flags["--profile"].choices) == list(PROFILES) == list(flags["--strategy"].choices)
    note = tmp_path / "note.txt"
    note.write_text(FRENCH, encoding="utf-8")
    common = ("--rules-only", "--seed", "3", str(note))
    _, by_profile, profile_err = run(capsys, "redact", "--profile", "random", *common)
    _, by_strategy, strategy_err = run(capsys, "redact", "--strategy", "random", *common)
    assert by_profile == by_strategy and "[DATE]" not in by_profile
    assert "deprecated" not in profile_err
    assert "--strategy is deprecated, use --profile" in strategy_err
    with pytest.raises(SystemExit):
        main(["redact", "--profile", "no-such-mode", str(note)])


def test_progress_bar_goes_to_stderr_when_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    note = tmp_path / "note.txt"
    note.write_text(FRENCH * 50, encoding="utf-8")
    code, out, err = run(capsys, "redact", "--rules-only", "--progress", str(note))
    assert code == 0 and out.count("[DATE]") == 50
    assert "B/s" in err and "100%" in err


def test_a_long_note_is_redacted_in_pieces_with_the_same_result(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # 60 kB: three pieces of at most 20,000 characters, cut at line ends
    text = "".join(f"Consultation {i} le 12/02/2020, tél 01 23 45 67 89, IPP : 80129394{i % 100:02d}.\n"
                   for i in range(800))
    note = tmp_path / "long.txt"
    note.write_text(text, encoding="utf-8")
    code, out, _ = run(capsys, "redact", "--rules-only", "--json", str(note))
    assert code == 0
    doc = json.loads(out)
    assert len(doc["spans"]) == 3 * 800
    assert all(text[s["start"]:s["end"]] in ("12/02/2020", "01 23 45 67 89") or s["label"] == "ID_PATIENT"
               for s in doc["spans"])
    assert "80129394" not in doc["text"] and "12/02/2020" not in doc["text"]


def test_scramble_takes_a_directory_and_a_jsonl_stream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.txt").write_text("Jean Dupont habite à Lyon.\n", encoding="utf-8")
    (src / "b.txt").write_text("Tél 0123456789.\n", encoding="utf-8")
    out_dir = tmp_path / "out"
    code, out, err = run(capsys, "scramble", "--seed", "1", "--out-dir", str(out_dir), str(src))
    assert code == 0 and out == ""
    assert sorted(p.name for p in out_dir.iterdir()) == ["a.txt", "b.txt"]
    assert "0123456789" not in (out_dir / "b.txt").read_text(encoding="utf-8")
    assert err.splitlines()[-1].startswith("deid scramble: 2 notes")
    fake = io.TextIOWrapper(io.BytesIO(b'{"id": 7, "text": "Jean Dupont"}\n'), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", fake)
    code, out, _ = run(capsys, "scramble", "--seed", "1", "--jsonl", "-")
    (doc,) = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and doc["id"] == 7 and doc["text"] != "Jean Dupont"


def test_redact_reads_and_writes_dates_in_the_feeds_order_and_says_what_it_kept(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import re
    from datetime import date

    note = tmp_path / "note.txt"
    note.write_text("Admitted 3/9/2024, discharged 3/12/2024.", encoding="utf-8")
    for locale, first, second in (("en-US", date(2024, 3, 9), date(2024, 3, 12)),
                                  ("en-GB", date(2024, 9, 3), date(2024, 12, 3))):
        code, out, _ = run(capsys, "redact", "--rules-only", "--json", "--lang", "en", "--locale", locale,
                           "--profile", "dp", "--date", "2024-12-20", "--seed", "4", str(note))
        assert code == 0
        shape = r"Admitted (\d+)/(\d+)/(\d{4}), discharged (\d+)/(\d+)/(\d{4})\."
        m = re.fullmatch(shape, json.loads(out)["text"])
        assert m, out
        a, b, y1, c, d, y2 = (int(x) for x in m.groups())
        got = [date(y1, a, b), date(y2, c, d)] if locale == "en-US" else [date(y1, b, a), date(y2, d, c)]
        assert got[0] < got[1]  # written back in the feed's order, stay before discharge
        assert (got[1] - got[0]).days < 5 * (second - first).days + 60
    note.write_text("Homme de 40 ans, vu le 3 mars 2021.", encoding="utf-8")
    code, out, _ = run(capsys, "redact", "--rules-only", "--json", "--profile", "random",
                       "--date", "2021-03-05", str(note))
    doc = json.loads(out)
    assert code == 0 and doc["text"].startswith("Homme de 40 ans") and doc["kept_labels"] == ["AGE", "SEX"]


def test_an_english_note_without_lang_is_read_as_english_and_a_wrong_lang_is_warned(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    note = tmp_path / "note.txt"
    note.write_text("The patient was admitted on 3/9/2024 and his wife was at the bedside with the son.\n",
                    encoding="utf-8")
    _, out, _ = run(capsys, "redact", "--rules-only", "--json", str(note))
    assert json.loads(out)["language"] == "en"
    _, _, err = run(capsys, "redact", "--rules-only", "--lang", "fr", str(note))
    assert "reads as 'en', not 'fr'" in err


@pytest.mark.parametrize("day", ["1850-01-01", "2999-01-01"])
def test_an_implausible_document_date_is_refused_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], day: str) -> None:
    note = tmp_path / "note.txt"
    note.write_text(NOTE, encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        main(["redact", "--rules-only", "--date", day, str(note)])
    assert exc.value.code == 2
    assert "not a plausible document date" in capsys.readouterr().err


def test_jsonl_notes_of_one_patient_share_one_memo_without_store(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from deid.labels import Label
    from deid.spans import Span

    class Names:
        model_name = "fixed"
        model_version = "0"

        def detect(self, texts: list[str], languages: list[str]) -> list[list[Span]]:
            return [[Span(t.index("Ginette"), t.index("Ginette") + 16, Label.PATIENT)] for t in texts]

    lines = [json.dumps({"id": i, "text": t, "patient": "p1", "lang": "fr"}) for i, t in enumerate(
        ["Mme Ginette BERTHIER vue ce jour.", "Revue: Ginette BERTHIER va mieux."])]
    src = tmp_path / "notes.jsonl"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    import deid.cli.redact as redact

    original = redact.detector_from_args
    redact.detector_from_args = lambda args, **_: Names()  # type: ignore[assignment,misc,return-value]
    try:
        code, out, _ = run(capsys, "redact", "--jsonl", "--profile", "random", "--seed", "1", str(src))
    finally:
        redact.detector_from_args = original
    assert code == 0
    first, second = (json.loads(line)["text"] for line in out.splitlines())
    assert first.split()[1:3] == second.split()[1:3]  # one patient, one surrogate name
