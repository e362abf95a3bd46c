"""The journey of one note through ``deid.pipeline``, built from settings by its one constructor:
detection, concept tagging, substitution, the concepts block and HL7 out. Real components (the
rules detector, the in-memory memo, the substitution engine); a tagger that fails is the only
stand-in, and a word list stands in for the concept head where the test needs mentions."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from deid.concepts import Concept
from deid.events import RawNote
from deid.hl7 import hl7_to_raw_note, parse_hl7_note, parse_message
from deid.pipeline import Analysis, NotePipeline, build_pipeline
from deid.settings import Settings
from deid.store.memory import InMemoryStore

SECRET = "kq3-Zr8vT1xPw0LmN5bYc7Hs2DgF4jAe9Uo6"
ORU = Path(__file__).resolve().parents[1] / "hl7" / "samples" / "oru_r01_fr.hl7"
PHONE = "612 345 678"  # a Spanish mobile number, as the rules read it


def settings(*, concepts: bool = False, profile: str = "random") -> Settings:
    return Settings.model_validate({"hmac_secret": SECRET, "model": {"enabled": False}, "profile": profile,
                                    "concepts": {"enabled": concepts, "languages": ["es"]}})


def spanish_note(event_id: str = "es-1", extra: str = "") -> RawNote:
    return RawNote(event_id=event_id, patient_id="P-1", language="es",
                   text=f"Tratada con omeprazol desde el 12/03/2024. Teléfono: {PHONE}.{extra}")


class FailingTagger:
    """A concept tagger that breaks on any text holding ``BOOM`` (the one stand-in)."""

    model_version = "1"

    def tag(self, texts: Sequence[str]) -> list[list[Concept]]:
        if any("BOOM" in t for t in texts):
            raise RuntimeError("tagger failure")
        return [[] for _ in texts]

    def tag_sentences(self, texts: Sequence[str]) -> list[list[Concept]]:
        return self.tag(texts)


class WordList(FailingTagger):
    """Every occurrence of a few words, the phone number included (as a tagger's boundary might
    run into PHI)."""

    model_name = "word-list"
    WORDS = ("omeprazol", "insulina", PHONE)

    def tag(self, texts: Sequence[str]) -> list[list[Concept]]:
        super().tag(texts)
        return [[Concept(t.index(w), t.index(w) + len(w), "NORMALIZABLES") for w in self.WORDS if w in t]
                for t in texts]


def pipeline(s: Settings, tagger: object | None = None) -> NotePipeline:
    return build_pipeline(s, InMemoryStore(), random.Random(3), concept_tagger=tagger)  # type: ignore[arg-type]


def test_the_pipeline_from_settings_with_the_model_off_has_the_rules_alone_and_no_tagger() -> None:
    p = build_pipeline(settings(), InMemoryStore(), random.Random(1))
    assert p.detector.model_name == "rules"
    assert (p.model_info.name, p.model_info.version) == (p.detector.model_name, p.detector.model_version)
    assert p.concept_tagger is None
    (found,) = p.analyse([spanish_note()])
    assert {spanish_note().text[s.start:s.end] for s in found.spans} >= {"12/03/2024", PHONE}
    assert found.concepts is None  # tagging did not run


async def test_a_note_goes_from_its_text_to_a_deidentified_note_in_one_call() -> None:
    (out,) = await pipeline(settings()).process([spanish_note()])
    assert PHONE not in out.text and "12/03/2024" not in out.text
    assert out.text.startswith("Tratada con omeprazol desde el ")
    assert out.concepts is None


async def test_the_same_seed_gives_the_same_note() -> None:
    first = await pipeline(settings()).process([spanish_note()])
    again = await pipeline(settings()).process([spanish_note()])
    assert first == again


async def test_a_note_whose_tagger_fails_comes_back_without_concepts_and_the_failure_reported() -> None:
    p = pipeline(settings(concepts=True), FailingTagger())
    notes = [spanish_note("es-1", " BOOM"), spanish_note("es-2")]
    broken, fine = p.analyse(notes)
    assert isinstance(broken.concepts, RuntimeError)
    assert fine.concepts == []  # the batch was retried note by note: only the broken note lost them
    outs = await p.substitute(notes, [broken.spans, fine.spans])
    placed = p.with_concepts(notes[0], broken.spans, outs[0], broken.concepts)
    assert placed.note == outs[0] and placed.note.concepts is None and placed.note.text
    assert placed.failure is broken.concepts and placed.withheld == 0
    assert p.with_concepts(notes[1], fine.spans, outs[1], fine.concepts).failure is None


async def test_concept_mentions_are_moved_onto_the_deidentified_text_and_those_on_phi_withheld() -> None:
    p = pipeline(settings(concepts=True), WordList())
    note = spanish_note(extra=" Se añade insulina.")
    (a,) = p.analyse([note])
    assert isinstance(a.concepts, list) and len(a.concepts) == 3
    (out,) = await p.substitute([note], [a.spans])
    placed = p.with_concepts(note, a.spans, out, a.concepts)
    block = placed.note.concepts
    assert block is not None and placed.failure is None
    assert [m.text for m in block.mentions] == ["omeprazol", "insulina"]
    assert all(placed.note.text[m.start:m.end] == m.text for m in block.mentions)
    assert placed.withheld == 1  # the phone number: PHI, never published as a concept
    assert block.model.name == "word-list" and block.trained_on == ["es"]


def test_concepts_off_in_the_settings_leave_a_given_tagger_unused() -> None:
    tagger = WordList()
    p = pipeline(settings(concepts=False), tagger)
    assert p.concept_tagger is None
    assert [a.concepts for a in p.analyse([spanish_note()])] == [None]


def test_a_language_not_listed_is_not_tagged() -> None:
    p = pipeline(settings(concepts=True), WordList())
    french = RawNote(event_id="fr-1", patient_id="P-1", language="fr", text="Traitée par omeprazol.")
    assert p.analyse([french]) == [Analysis(spans=[], concepts=None)]


async def test_an_hl7_message_comes_out_with_its_identity_fields_from_the_notes_memo() -> None:
    s = settings()
    p = pipeline(s)
    message = ORU.read_bytes()
    note = hl7_to_raw_note(message, s)
    (a,) = p.analyse([note])
    (out,) = await p.substitute([note], [a.spans])
    hl7_out = await p.hl7_output(message, note, out)
    pid = parse_message(hl7_out).first("PID")
    assert pid is not None
    assert parse_message(hl7_out).get(pid, 5, 1) not in ("", "DUPONT")
    assert b"1850375123456" not in hl7_out and b"0612345678" not in hl7_out
    assert parse_hl7_note(hl7_out, s).text == out.text  # the message carries the de-identified note
    assert "06 12 34 56 78" not in out.text


@pytest.mark.parametrize(("profile", "tagged"), [("placeholder", True), ("random", False)])
async def test_the_substitution_profile_comes_from_the_settings(profile: str, tagged: bool) -> None:
    (out,) = await pipeline(settings(profile=profile)).process([spanish_note()])
    assert ("[DATE]" in out.text) is tagged and "12/03/2024" not in out.text
