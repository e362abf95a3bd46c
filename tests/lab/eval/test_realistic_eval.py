"""``deid eval`` on the realistic corpus: notes chosen by split and language, gold untouched, and
the clinical text lost to over-redaction counted per 1,000 tokens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deid.lab.corpora import CorpusFormatError, detect_format, read_corpus
from deid.lab.corpora.realistic import Mention, Note, Person, write_jsonl
from deid.lab.eval import evaluate, render_table
from deid.labels import Label
from deid.spans import Span


def _note(note_id: str, patient: str, lang: str, split: str, text: str, names: list[str]) -> Note:
    mentions = [Mention(text.index(n), text.index(n) + len(n), "PATIENT", n, "p1") for n in names]
    return Note(note_id, patient, lang, "US" if lang == "en" else "FR", "progress_note", "nurse",
                "2024-03-15", "", {"p1": Person("patient", "F")}, text, mentions, "w99", split)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "notes.jsonl"
    write_jsonl([
        _note("w99-001", "w99-p01", "en", "train", "Pt Ruth Abney resting, husband at bedside.",
              ["Ruth Abney"]),
        _note("w99-002", "w99-p02", "en", "dev", "Seen with Maisie Kell today.", ["Maisie Kell"]),
        _note("w99-003", "w99-p03", "fr", "dev", "Mme Odile Ferrand a bien dormi.", ["Odile Ferrand"]),
    ], path)
    return path


def test_a_realistic_corpus_is_recognised_and_read_with_its_own_labels(corpus: Path) -> None:
    assert detect_format(corpus) == "realistic"
    docs = read_corpus(corpus, convention=False)
    assert [d.doc_id for d in docs] == ["w99-001", "w99-002", "w99-003"]
    assert [d.language for d in docs] == ["en", "en", "fr"]
    first = docs[0]
    assert [(first.text[s.start : s.end], s.label) for s in first.spans] == [("Ruth Abney", Label.PATIENT)]


def test_split_and_language_select_notes(corpus: Path) -> None:
    def ids(**select: str) -> list[str]:
        return [d.doc_id for d in read_corpus(corpus, convention=False, **select)]

    assert ids(split="dev") == ["w99-002", "w99-003"]
    assert ids(language="en", split="dev") == ["w99-002"]


def test_an_empty_selection_or_a_split_elsewhere_is_a_clear_error(corpus: Path, tmp_path: Path) -> None:
    with pytest.raises(CorpusFormatError, match="no note of split test"):
        read_corpus(corpus, split="test", convention=False)
    eds = tmp_path / "eds.jsonl"
    record = {"note_id": "a", "note_text": "Mme X.", "entities": []}
    eds.write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert detect_format(eds) == "eds-jsonl"
    with pytest.raises(CorpusFormatError, match="only the realistic corpus has splits"):
        read_corpus(eds, "eds-jsonl", "fr", split="dev")


def test_clinical_tokens_changed_counts_only_tokens_outside_gold(corpus: Path) -> None:
    doc = read_corpus(corpus, split="train", convention=False)[0]
    husband = doc.text.index("husband")
    # The name found, and "husband" over-redacted: one clinical token of the note changed.
    predicted = [Span(3, 13, Label.PATIENT, "test"), Span(husband, husband + 7, Label.RELATIVE, "test")]
    report = evaluate([doc], [predicted])
    clinical = report.n_tokens - report.tokens.n_gold
    assert report.n_tokens == 9 and clinical == 7  # Pt Ruth Abney resting , husband at bedside .
    assert report.clinical_changed_per_1000 == pytest.approx(1000 / 7)
    assert evaluate([doc], [predicted[:1]]).clinical_changed_per_1000 == 0.0
    assert "clinical tokens changed: 1 of 7" in render_table(report)


def test_relaxed_errors_list_the_unmatched_predictions_and_the_missed_gold(corpus: Path) -> None:
    from deid.lab.eval.matching import relaxed_errors

    doc = read_corpus(corpus, split="train", convention=False)[0]
    husband = doc.text.index("husband")
    partial = Span(3, 7, Label.PATIENT, "test")  # "Ruth": overlaps the gold name, so no error
    wrong = Span(husband, husband + 7, Label.RELATIVE, "test")
    assert relaxed_errors(doc.spans, [partial, wrong, wrong], len(doc.text)) == [("false_positive", wrong)]
    assert relaxed_errors(doc.spans, [], len(doc.text)) == [("missed", doc.spans[0])]


def test_eval_errors_writes_one_json_line_per_relaxed_error(corpus: Path, tmp_path: Path) -> None:
    from deid.cli import main

    out = tmp_path / "errors.jsonl"
    # the rules alone find a titled French name ("Mme Odile Ferrand"), not a bare English one
    assert main(["eval", str(corpus), "--split", "dev", "--rules-only", "--errors", str(out),
                 "--output", str(tmp_path / "report.txt")]) == 0
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(r["doc"], r["kind"], r["text"], r["label"]) for r in lines] == [
        ("w99-002", "missed", "Maisie Kell", "PATIENT")]
    assert lines[0]["context"] == "Seen with Maisie Kell today."


def test_eval_errors_in_a_missing_folder_fails_before_detection(
    corpus: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from deid.cli import main

    assert main(["eval", str(corpus), "--rules-only", "--errors", str(tmp_path / "nowhere" / "e.jsonl")]) != 0
    assert "no such directory" in capsys.readouterr().err
