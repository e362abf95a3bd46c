"""The realistic corpus's markup: mentions at exact offsets, people per patient, a frozen split."""

from __future__ import annotations

from pathlib import Path

import pytest

from deid.lab.corpora.realistic import MarkupError, build, main, parse_file, split_of

NOTE = """### NOTE w99-001
patient: w99-p01
lang: fr
country: FR
kind: nursing_transmissions
author_role: night nurse
date: 2024-03-15
hard_cases: given name alone
people: p1=patient F; p2=relative F daughter of p1
---
Mme [[BERTHIER Ginette|PATIENT:p1]], née le [[02/05/1941|BIRTH_DATE:1941-05-02]], [[82 ans|AGE:82]].
EVA 4/10. Fille ([[Maryse|RELATIVE:p2]]) appelée. [[Ginette|PATIENT:p1]] a bien dormi.
"""


def _write(tmp_path: Path, body: str, name: str = "w99.txt") -> Path:
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    return path


def test_mentions_sit_at_their_offsets_in_the_plain_text(tmp_path: Path) -> None:
    (note,) = parse_file(_write(tmp_path, NOTE))
    assert "[[" not in note.text and note.text.startswith("Mme BERTHIER Ginette, née le")
    assert [(note.text[m.start : m.end], m.label, m.ref) for m in note.mentions] == [
        ("BERTHIER Ginette", "PATIENT", "p1"), ("02/05/1941", "BIRTH_DATE", "1941-05-02"),
        ("82 ans", "AGE", "82"), ("Maryse", "RELATIVE", "p2"), ("Ginette", "PATIENT", "p1")]
    assert note.people["p2"].role == "relative" and note.people["p2"].gender == "F"


@pytest.mark.parametrize(("change", "message"), [
    (("[[Maryse|RELATIVE:p2]]", "[[Maryse|RELATIVE:p9]]"), "person mention needs the id"),
    (("[[82 ans|AGE:82]]", "[[82 ans|AGEE:82]]"), "unknown label"),
    (("BIRTH_DATE:1941-05-02", "BIRTH_DATE:02/05/1941"), "YYYY, YYYY-MM or YYYY-MM-DD"),
    (("[[Ginette|PATIENT:p1]] a", "[[Ginette|PATIENT:p1] a"), "malformed"),
    (("date: 2024-03-15", "date: 15/03/2024"), "YYYY-MM-DD"),
])
def test_a_fault_is_named_with_its_line(tmp_path: Path, change: tuple[str, str], message: str) -> None:
    with pytest.raises(MarkupError, match=message):
        parse_file(_write(tmp_path, NOTE.replace(*change)))


def test_one_person_id_keeps_its_role_and_gender_across_a_patients_notes(tmp_path: Path) -> None:
    second = NOTE.replace("w99-001", "w99-002").replace("p2=relative F", "p2=relative M")
    with pytest.raises(MarkupError, match="changes role or gender"):
        parse_file(_write(tmp_path, NOTE + second))


def test_the_split_is_by_patient_and_fixed() -> None:
    assert split_of("w01-p01") == split_of("w01-p01")
    parts = [split_of(f"w{w:02d}-p{p:02d}") for w in range(1, 13) for p in range(1, 23)]
    assert {"train", "dev", "test"} == set(parts)
    assert 0.4 < parts.count("train") / len(parts) < 0.6  # 50 / 25 / 25 by design


def test_build_writes_every_note_with_its_split(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = tmp_path / "raw"
    raw.mkdir()
    _write(raw, NOTE)
    assert main(["build", str(raw), str(tmp_path / "notes.jsonl")]) == 0
    (note,) = build(raw)
    assert note.split == split_of("w99-p01")
    assert main(["check", str(raw / "missing.txt")]) == 1
    assert "error:" in capsys.readouterr().err


def test_the_committed_corpus_parses_and_is_built() -> None:
    root = Path(__file__).resolve().parents[3] / "corpora" / "realistic"
    notes = build(root / "raw")
    assert len(notes) >= 300
    from deid.lab.corpora.realistic import read_jsonl

    built = read_jsonl(root / "notes.jsonl")
    assert [(n.note_id, n.text, n.split) for n in built] == [(n.note_id, n.text, n.split) for n in notes]
