"""The runtime's reading of a text's language (``deid.rules.language``): what ``deid redact``
reads a note without ``--lang`` in, and what the lab's corpus check stands on (one copy)."""

from __future__ import annotations

import ast
from pathlib import Path

from deid.lab.corpora import language as lab_language
from deid.rules import language
from deid.rules.language import NOTE_EVIDENCE, marker_counts, read_language

ROOT = Path(__file__).resolve().parents[2]

FRENCH = "Le patient est venu pour une douleur dans le dos et il ne dort pas."
SPANISH = "El paciente fue visto por el médico de guardia y se le dio el alta con su tratamiento."
ENGLISH = "The patient was seen by the registrar and she has been given the discharge letter."


def test_each_language_is_read_from_its_function_words() -> None:
    assert [read_language([t]) for t in (FRENCH, SPANISH, ENGLISH)] == ["fr", "es", "en"]


def test_a_note_with_too_few_marker_words_is_not_read() -> None:
    short = "le patient est"  # three French markers, under NOTE_EVIDENCE
    assert sum(marker_counts([short]).values()) < NOTE_EVIDENCE
    assert read_language([short]) is None


def test_a_text_whose_leader_does_not_outnumber_the_runner_up_twice_is_not_read() -> None:
    mixed = f"{FRENCH} {ENGLISH}"
    counts = marker_counts([mixed])
    assert counts["fr"] >= NOTE_EVIDENCE and counts["en"] >= NOTE_EVIDENCE
    assert read_language([mixed]) is None


def test_only_the_first_characters_are_counted() -> None:
    assert marker_counts([FRENCH, ENGLISH * 10], limit_chars=len(FRENCH))["en"] == 0


def test_a_corpus_needs_more_evidence_than_one_note() -> None:
    assert read_language([FRENCH]) == "fr"
    assert lab_language.identify([FRENCH]) is None  # under the corpus's MIN_EVIDENCE
    assert lab_language.identify([FRENCH] * 10) == "fr"
    assert lab_language.check_language([SPANISH] * 10, "fr") == "es"
    assert lab_language.check_language([FRENCH] * 10, "fr") is None


def test_the_lab_uses_the_runtime_markers_and_keeps_no_copy() -> None:
    assert lab_language.marker_counts is language.marker_counts
    assert lab_language.LANGUAGES is language.LANGUAGES
    assert "_MARKERS" not in vars(lab_language)


def test_deid_redact_reads_the_language_without_the_lab() -> None:
    tree = ast.parse((ROOT / "deid" / "cli" / "redact.py").read_text(encoding="utf-8"))
    modules = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    modules += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert "deid.rules.language" in modules
    assert not [m for m in modules if m == "deid.lab" or m.startswith("deid.lab.")]
