"""``deid audit``: the realistic corpus through a profile, findings counted, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deid.cli import main

CORPUS = Path(__file__).resolve().parents[2] / "corpora" / "realistic" / "notes.jsonl"


def test_gold_mentions_under_placeholder_leak_nothing_and_exit_0(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    findings = tmp_path / "findings.jsonl"
    code = main(["audit", str(CORPUS), "--split", "dev", "--gold", "--profile", "placeholder",
                 "--findings", str(findings), "--html", str(tmp_path / "a.html")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "== placeholder: 0 leaked of 6569 PHI mentions" in out
    assert findings.read_text(encoding="utf-8") == ""
    assert (tmp_path / "a.html").read_text(encoding="utf-8").count('<div class="note"') == 254


def test_a_leak_is_reported_with_its_kind_and_exit_1(tmp_path: Path) -> None:
    findings = tmp_path / "findings.jsonl"
    code = main(["audit", str(CORPUS), "--split", "dev", "--rules-only", "--limit", "3", "--profile",
                 "placeholder", "--findings", str(findings)])
    assert code == 1  # the rules alone do not find names
    rows = [json.loads(line) for line in findings.read_text(encoding="utf-8").splitlines()]
    assert rows and {r["kind"] for r in rows} <= {"uncovered", "drawn_back", "clinical_value"}
    assert any(r["label"] in ("PATIENT", "STAFF", "RELATIVE", "PERSON") for r in rows)


@pytest.mark.parametrize("args", [["missing.jsonl"], [str(CORPUS), "--lang", "es", "--split", "dev",
                                                       "--limit", "0", "--profile", "nope"]])
def test_a_bad_corpus_or_argument_is_one_line(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    try:
        code = main(["audit", *args])
    except SystemExit as exc:  # argparse's own refusal
        code = int(exc.code or 0)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) >= 1 and "Traceback" not in "\n".join(err)
