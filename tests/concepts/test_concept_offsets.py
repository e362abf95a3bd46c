"""Concept mentions found in the original text, moved onto the de-identified text
(``deid.concepts.offsets``): shifted by what substitution added or removed before them, withheld
when they overlap or touch a PHI span."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deid.concepts import Concept
from deid.concepts.offsets import OffsetsMismatch, concept_mentions, move_concepts, replacements_of
from deid.events import DeidNote, ModelInfo, PrivacyAccount, SubstitutedSpan
from deid.labels import Label
from deid.render import Replacement, render
from deid.spans import Span

TEXT = "Paciente Juan Pérez, 45 años, tratado con omeprazol 20 mg y amoxicilina."
NAME = (TEXT.index("Juan"), TEXT.index(","))  # "Juan Pérez"
OMEPRAZOL = Concept(TEXT.index("omeprazol"), TEXT.index("omeprazol") + 9, "NORMALIZABLES")
AMOXICILINA = Concept(TEXT.index("amoxicilina"), TEXT.index("amoxicilina") + 11, "NORMALIZABLES")


def rep(start: int, end: int, surrogate: str, label: Label = Label.PATIENT) -> Replacement:
    return Replacement(start, end, label, surrogate, "random")


@pytest.mark.parametrize("surrogate", ["Bartolomé Fernández-Castillo", "[PER]", "", "Juan Pérez"])
def test_a_concept_after_a_surrogate_of_another_length_lands_on_the_same_words(surrogate: str) -> None:
    reps = [rep(*NAME, surrogate)]
    out, _ = render(TEXT, reps)
    moved = move_concepts(len(TEXT), [OMEPRAZOL, AMOXICILINA], reps)
    assert [out[c.start : c.end] for c in moved] == ["omeprazol", "amoxicilina"]
    assert moved[0].start == OMEPRAZOL.start + len(surrogate) - (NAME[1] - NAME[0])


def test_a_concept_before_every_replacement_keeps_its_offsets() -> None:
    c = Concept(0, 8, "NOTNORMALIZABLES")  # "Paciente"
    assert move_concepts(len(TEXT), [c], [rep(*NAME, "X")]) == [c]


@pytest.mark.parametrize(("start", "end", "why"), [
    (NAME[0], NAME[1], "the PHI span itself"),
    (NAME[0] + 2, NAME[1] - 2, "inside the PHI span"),
    (NAME[0] - 5, NAME[0] + 2, "overlapping its start"),
    (NAME[1] - 2, NAME[1] + 3, "overlapping its end"),
    (NAME[0] - 5, NAME[1] + 3, "covering it"),
    (NAME[0] - 4, NAME[0], "touching its start"),
    (NAME[1], NAME[1] + 1, "touching its end"),
])
def test_a_concept_overlapping_or_touching_a_phi_span_is_withheld(start: int, end: int, why: str) -> None:
    c = Concept(start, end, "PROTEINAS")
    assert move_concepts(len(TEXT), [c, OMEPRAZOL], [rep(*NAME, "Ana")]) == [
        Concept(OMEPRAZOL.start - 7, OMEPRAZOL.end - 7, "NORMALIZABLES")], why


def test_a_concept_touching_a_phi_span_left_in_clear_is_withheld_too() -> None:
    kept = Span(TEXT.index("45"), TEXT.index("45") + 8, Label.AGE)  # "45 años", kept as written
    c = Concept(kept.start, kept.start + 2, "NOTNORMALIZABLES")
    assert move_concepts(len(TEXT), [c], [rep(kept.start, kept.end, "45 años", Label.AGE)]) == []
    assert move_concepts(len(TEXT), [c], [], phi=[kept]) == []  # detected, whatever was done with it


def test_a_concept_outside_the_text_or_empty_is_withheld_and_duplicates_come_out_once() -> None:
    bad = [Concept(-1, 3, "NORMALIZABLES"), Concept(5, 5, "NORMALIZABLES"),
           Concept(len(TEXT) - 2, len(TEXT) + 1, "NORMALIZABLES")]
    assert move_concepts(len(TEXT), [*bad, OMEPRAZOL, OMEPRAZOL], []) == [OMEPRAZOL]


def test_overlapping_replacements_are_refused() -> None:
    with pytest.raises(ValueError, match="overlap"):
        move_concepts(len(TEXT), [], [rep(0, 5, "a"), rep(4, 8, "b")])


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, list[Replacement], list[Concept]]:
    text = draw(st.text(alphabet="abcdeé ,.\n", min_size=1, max_size=80))
    n = len(text)
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=12, unique=True)))
    reps = []
    for a, b in zip(cuts[::2], cuts[1::2], strict=False):  # disjoint, possibly touching
        if a < b:
            reps.append(rep(a, b, draw(st.text(alphabet="XYZ[]", max_size=20))))
    concepts = []
    for _ in range(draw(st.integers(0, 10))):
        a = draw(st.integers(0, n - 1))
        b = draw(st.integers(a + 1, n))
        concepts.append(Concept(a, b, draw(st.sampled_from(["NORMALIZABLES", "PROTEINAS"]))))
    return text, reps, concepts


@given(cases())
def test_every_published_concept_reads_the_same_words_in_the_deidentified_text(
        case: tuple[str, list[Replacement], list[Concept]]) -> None:
    text, reps, concepts = case
    out, _ = render(text, reps)
    moved = move_concepts(len(text), concepts, reps)
    for new in moved:
        assert 0 <= new.start < new.end <= len(out)
    # every concept clear of the replacements (not even touching one) is published, on its words
    clear = [c for c in concepts if not any(r.start <= c.end and c.start <= r.end for r in reps)]
    assert len(moved) == len({(c.start, c.end, c.type) for c in clear})
    assert sorted(out[m.start : m.end] for m in moved) == sorted(
        {(c.start, c.end, c.type): text[c.start : c.end] for c in clear}.values())
    # and each one, moved one by one, reads its original words
    for c in clear:
        (new,) = move_concepts(len(text), [c], reps)
        assert out[new.start : new.end] == text[c.start : c.end]


def deid_note(text: str, reps: list[Replacement]) -> DeidNote:
    out, placed = render(text, reps)
    return DeidNote(event_id="e", patient_pseudonym="p", language="es", text=out,
                    spans=[SubstitutedSpan(start=p.start, end=p.end, label=p.label.value, strategy=p.strategy)
                           for p in placed],
                    privacy=PrivacyAccount(epsilon_spent=0, patient_epsilon_total=0, patient_epsilon_cap=1,
                                           exhausted=False),
                    model=ModelInfo(name="t", version="1"))


def test_the_replacements_are_rebuilt_from_overlapping_detections_and_the_published_note() -> None:
    # two detections of one name overlap: the engine replaced their union
    spans = [Span(NAME[0], NAME[0] + 4, Label.PATIENT), Span(NAME[0] + 2, NAME[1], Label.PATIENT)]
    note = deid_note(TEXT, [rep(*NAME, "María Antonia Ruiz")])
    (r,) = replacements_of(TEXT, spans, note)
    assert (r.start, r.end, r.surrogate) == (*NAME, "María Antonia Ruiz")
    block = concept_mentions(TEXT, spans, note, [OMEPRAZOL, Concept(NAME[0], NAME[0] + 4, "PROTEINAS")],
                             ModelInfo(name="c", version="2"), ["es"])
    assert [(m.text, note.text[m.start : m.end], m.type) for m in block.mentions] == [
        ("omeprazol", "omeprazol", "NORMALIZABLES")]
    assert block.trained_on == ["es"] and block.version == 1


def test_spans_that_do_not_account_for_the_published_text_raise_without_quoting_it() -> None:
    note = deid_note(TEXT, [rep(*NAME, "Ana")])
    with pytest.raises(OffsetsMismatch) as err:
        replacements_of(TEXT, [], note)
    with pytest.raises(OffsetsMismatch):
        replacements_of(TEXT, [Span(NAME[0], NAME[1] - 1, Label.PATIENT)], note)
    assert "Juan" not in str(err.value) and "Ana" not in str(err.value)
