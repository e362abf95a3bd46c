"""``deid eval`` end to end on tiny corpora written in tmp_path, with a fake detector."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

import deid.cli.eval as eval_cli
from deid.cli import CliError, main
from deid.labels import Label
from deid.spans import Span

DATE = re.compile(r"\d{2}/\d{2}/\d{4}")


class DateOnlyDetector:
    """Finds numeric dates and nothing else: enough to give known, non-trivial figures."""

    model_name = "fake-dates"
    model_version = "0"

    def __init__(self) -> None:
        self.batches: list[int] = []

    def detect(self, texts: Sequence[str], languages: Sequence[str]) -> list[list[Span]]:
        self.batches.append(len(texts))
        return [[Span(m.start(), m.end(), Label.DATE, "fake") for m in DATE.finditer(t)] for t in texts]


@pytest.fixture
def detector(monkeypatch: pytest.MonkeyPatch) -> DateOnlyDetector:
    fake = DateOnlyDetector()
    monkeypatch.setattr(eval_cli, "detector_from_args", lambda args, **_: fake)
    return fake


def write_brat(root: Path) -> Path:
    root.mkdir()
    texts = {
        "a": (
            "Paciente Juan Garcia, ingreso 12/02/2020.",
            [("NOMBRE_SUJETO_ASISTENCIA", "Juan Garcia"), ("FECHAS", "12/02/2020")],
        ),
        "b": ("Alta el 03/04/2020.", [("FECHAS", "03/04/2020")]),
    }
    for name, (text, ents) in texts.items():
        (root / f"{name}.txt").write_text(text, encoding="utf-8")
        lines = []
        for i, (label, surface) in enumerate(ents, 1):
            start = text.index(surface)
            lines.append(f"T{i}\t{label} {start} {start + len(surface)}\t{surface}")
        (root / f"{name}.ann").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def write_jsonl(path: Path) -> Path:
    text = "Mme Dupont vue le 26/02/2020."
    rec = {
        "note_id": "n1",
        "note_text": text,
        "entities": [{"start": 4, "end": 10, "label": "NOM"}, {"start": 18, "end": 28, "label": "DATE"}],
    }
    path.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    return path


def test_table_on_a_brat_folder(
    tmp_path: Path, detector: DateOnlyDetector, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", str(write_brat(tmp_path / "brat"))]) == 0
    out = capsys.readouterr()
    lines = out.out.splitlines()
    assert lines[0].endswith("(brat, es), 2 documents")
    label_table = lines[: lines.index("strict by coarse category (exact span, same category)")]
    rows = {ln.split()[0]: " ".join(ln.split()[1:8]) for ln in label_table if ln[:1].isupper()}
    assert rows["DATE"] == "2 2 | 2 1.000 1.000 1.000"
    assert rows["PATIENT"] == "1 0 | 0 - 0.000 0.000"
    assert "deid eval: 2/2 documents" in out.err  # progress goes to stderr


def test_json_on_an_eds_jsonl_file_written_to_output(
    tmp_path: Path, detector: DateOnlyDetector, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = tmp_path / "report.json"
    corpus = write_jsonl(tmp_path / "dev.jsonl")
    assert main(["eval", str(corpus), "--json", "--output", str(out_file)]) == 0
    assert capsys.readouterr().out == ""
    data = json.loads(out_file.read_text(encoding="utf-8"))
    assert data["run"]["format"] == "eds-jsonl"
    assert data["run"]["detector"] == "fake-dates"
    assert data["strict"]["micro"]["precision"] == 1.0
    assert data["strict"]["micro"]["recall"] == 0.5
    assert data["coverage"]["n_fully_covered"] == 0


def test_limit_batches_and_label_filter(
    tmp_path: Path, detector: DateOnlyDetector, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = write_brat(tmp_path / "brat")
    assert main(["eval", str(corpus), "--json", "--batch-size", "1", "--labels", "date,PATIENT"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert detector.batches == [1, 1]
    assert data["run"]["labels"] == ["PATIENT", "DATE"]  # in label-set order
    assert set(data["strict"]["labels"]) == {"DATE", "PATIENT"}

    assert main(["eval", str(corpus), "--json", "--limit", "1", "--labels", "DATE"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["run"]["n_docs"] == 1
    assert set(data["strict"]["labels"]) == {"DATE"}
    assert data["strict"]["micro"]["n_gold"] == 1


def test_explicit_format_overrides_detection(
    tmp_path: Path, detector: DateOnlyDetector, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = write_jsonl(tmp_path / "dev.data")  # no .jsonl suffix: detection would fail
    assert main(["eval", str(corpus), "--format", "eds-jsonl", "--lang", "fr", "--json"]) == 0
    run = json.loads(capsys.readouterr().out)["run"]
    assert (run["format"], run["language"]) == ("eds-jsonl", "fr")


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("deid eval: error: ")
    assert "Traceback" not in err
    return lines[0]


def make_bad_jsonl(tmp_path: Path) -> Path:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"note_id": "n1", "note_text": "x"\n', encoding="utf-8")
    return path


def make_bad_brat_offsets(tmp_path: Path) -> Path:
    root = tmp_path / "bratbad"
    root.mkdir()
    (root / "a.txt").write_text("short", encoding="utf-8")
    (root / "a.ann").write_text("T1\tFECHAS 2 99\tort\n", encoding="utf-8")
    return root


def make_non_integer_brat(tmp_path: Path) -> Path:
    root = tmp_path / "bratnan"
    root.mkdir()
    (root / "a.txt").write_text("short", encoding="utf-8")
    (root / "a.ann").write_text("T1\tFECHAS x 3\tsho\n", encoding="utf-8")
    return root


def make_unknown_brat_label(tmp_path: Path) -> Path:
    root = tmp_path / "bratlabel"
    root.mkdir()
    (root / "a.txt").write_text("short", encoding="utf-8")
    (root / "a.ann").write_text("T1\tNOT_A_LABEL 0 3\tsho\n", encoding="utf-8")
    return root


def make_xyz(tmp_path: Path) -> Path:
    path = tmp_path / "notes.xyz"
    path.write_text("whatever", encoding="utf-8")
    return path


def make_latin1_jsonl(tmp_path: Path) -> Path:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes('{"note_text": "été", "entities": []}\n'.encode("latin-1"))
    return path


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (make_bad_jsonl, "bad.jsonl:1: not an eds-pseudo record"),
        (make_bad_brat_offsets, "a.ann:1: offsets outside the text"),
        (make_non_integer_brat, "a.ann:1: non-integer offsets"),
        (make_unknown_brat_label, "a.ann:1: label 'NOT_A_LABEL'"),
        (make_xyz, "unknown corpus format"),
        (make_latin1_jsonl, "not UTF-8"),
        (lambda tmp: tmp / "missing", "missing: no such file or directory"),
    ],
    ids=["bad-jsonl", "brat-offsets", "brat-non-integer", "brat-unknown-label", "xyz", "latin1", "missing"],
)
def test_malformed_or_unknown_input_is_a_one_line_error(
    tmp_path: Path,
    detector: DateOnlyDetector,
    capsys: pytest.CaptureFixture[str],
    make: Callable[[Path], Path],
    expected: str,
) -> None:
    assert main(["eval", str(make(tmp_path))]) == 2
    assert expected in one_line_error(capsys)
    assert detector.batches == []


def test_format_that_does_not_fit_the_path_is_a_one_line_error(
    tmp_path: Path, detector: DateOnlyDetector, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = write_brat(tmp_path / "brat")
    assert main(["eval", str(corpus), "--format", "eds-jsonl"]) == 2
    assert "cannot read corpus" in one_line_error(capsys)


def test_unknown_label_is_a_one_line_error(
    tmp_path: Path, detector: DateOnlyDetector, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", str(write_brat(tmp_path / "brat")), "--labels", "DATES"]) == 2
    assert "unknown label 'DATES'" in one_line_error(capsys)


def test_unwritable_output_is_a_one_line_error(
    tmp_path: Path, detector: DateOnlyDetector, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = write_brat(tmp_path / "brat")
    assert main(["eval", str(corpus), "--output", str(tmp_path / "no" / "such" / "dir.json")]) == 2
    assert "cannot write report" in one_line_error(capsys)


def test_a_missing_model_directory_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(CliError, match="no model at"):
        eval_cli.detector_from_args(argparse.Namespace(model=tmp_path / "m", rules_only=False))
    with pytest.raises(CliError, match="exclude each other"):
        eval_cli.detector_from_args(argparse.Namespace(model=Path("m"), rules_only=True))


def test_rules_only_builds_the_rules_alone() -> None:
    detector = eval_cli.detector_from_args(argparse.Namespace(model=None, rules_only=True))
    assert detector.model_name == "rules"


def test_the_real_entry_point_exits_non_zero_on_a_missing_corpus(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "deid", "eval", str(tmp_path / "missing")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "no such file or directory" in proc.stderr


def test_default_detector_merges_the_rules_with_the_shipped_model(monkeypatch: pytest.MonkeyPatch) -> None:
    import deid.ner
    from deid.detection import HybridDetector

    class FakeModel:
        model_name, model_version = "fake-ner", "0"

        def detect(self, texts: list[str], languages: list[str]) -> list[list[object]]:
            return [[] for _ in texts]

    loaded: list[Path] = []
    monkeypatch.setattr(deid.ner, "load_detector_from_settings",
                        lambda settings, path=None, **_: loaded.append(path) or FakeModel())
    detector = eval_cli.detector_from_args(argparse.Namespace(model=None, rules_only=False))
    assert isinstance(detector, HybridDetector)
    assert loaded == [deid.ner.DEFAULT_MODEL_DIR]


def test_default_scoring_is_against_the_corpus_own_gold_and_the_convention_is_an_option(
    tmp_path: Path, detector: DateOnlyDetector, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 17: every gold annotation with its span untouched (SEXO and a title included),
    official strict first; ``--convention`` projects the gold and says so."""
    root = tmp_path / "brat"
    root.mkdir()
    text = "Paciente Sr. Juan Garcia, varón, ingreso 12/02/2020."
    ents = [("NOMBRE_SUJETO_ASISTENCIA", "Sr. Juan Garcia"), ("SEXO_SUJETO_ASISTENCIA", "varón"),
            ("FECHAS", "12/02/2020")]
    (root / "a.txt").write_text(text, encoding="utf-8")
    (root / "a.ann").write_text("".join(
        f"T{i}\t{lab} {text.index(s)} {text.index(s) + len(s)}\t{s}\n" for i, (lab, s) in enumerate(ents, 1)),
        encoding="utf-8")
    assert main(["eval", str(root), "--json"]) == 0
    raw = json.loads(capsys.readouterr().out)
    assert raw["run"]["gold"] == "corpus"
    assert raw["strict"]["micro"]["n_gold"] == 3
    assert raw["strict"]["labels"]["SEX"]["n_gold"] == 1
    assert raw["official"]["ner_strict"]["n_gold"] == 3 and raw["official"]["ner_strict"]["found"] == 1
    assert main(["eval", str(root), "--json", "--convention"]) == 0
    conv = json.loads(capsys.readouterr().out)
    assert conv["run"]["gold"] == "convention"
    assert conv["run"]["gold_changes"] == {"unchanged": 2, "trimmed": 1, "split": 0, "joined": 0,
                                           "dropped": 0}
    assert main(["eval", str(root)]) == 0
    table = capsys.readouterr().out
    assert "gold: the corpus's own annotations, every span untouched" in table
    assert "NER strict: exact span and corpus tag (headline)" in table
    assert main(["eval", str(root), "--convention"]) == 0
    assert "gold spans under the convention: unchanged 2, trimmed 1" in capsys.readouterr().out


def test_a_language_the_text_contradicts_is_a_one_line_error(
    tmp_path: Path, detector: DateOnlyDetector, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "brat"
    root.mkdir()
    text = " ".join(["The patient was admitted with his wife and the son, who has been with him at the"
                     " hospital for the night."] * 5)
    (root / "a.txt").write_text(text, encoding="utf-8")
    (root / "a.ann").write_text("", encoding="utf-8")
    assert main(["eval", str(root)]) == 2  # MEDDOCAN's format says Spanish; the text says English
    assert "reads as 'en'" in capsys.readouterr().err
    assert main(["eval", str(root), "--lang", "en", "--json"]) == 0
