"""The synthetic French note generator: exact spans, determinism, consistent patient series."""

from __future__ import annotations

from collections import Counter

from deid.lab.synth import generate_notes, generate_patient_series
from deid.labels import Label


def test_notes_have_valid_nonoverlapping_trimmed_spans() -> None:
    for doc in generate_notes(200, seed=3):
        assert doc.language == "fr" and doc.text
        prev_end = 0
        for span in doc.spans:
            assert 0 <= span.start < span.end <= len(doc.text)
            assert span.start >= prev_end
            surface = doc.text[span.start : span.end]
            assert surface == surface.strip() and surface
            prev_end = span.end


def test_notes_cover_the_main_phi_labels() -> None:
    counts = Counter(s.label for d in generate_notes(300, seed=5) for s in d.spans)
    for label in (Label.PATIENT, Label.STAFF, Label.RELATIVE, Label.DATE, Label.BIRTH_DATE, Label.AGE,
                  Label.CITY, Label.STREET, Label.POSTCODE, Label.HOSPITAL, Label.PHONE,
                  Label.ID_PATIENT, Label.ID_SSN, Label.ID_VISIT, Label.EMAIL):  # fmt: skip
        assert counts[label] > 0, label


def test_same_seed_same_notes_and_different_seed_different_notes() -> None:
    assert generate_notes(20, seed=1) == generate_notes(20, seed=1)
    assert generate_notes(20, seed=1) != generate_notes(20, seed=2)


def test_patient_series_repeat_the_same_birth_date_and_ipp() -> None:
    for series in generate_patient_series(10, notes_per_patient=4, seed=9):
        assert len(series) == 4
        births = {d.text[s.start : s.end] for d in series for s in d.spans if s.label == Label.BIRTH_DATE}
        ipps = {d.text[s.start : s.end] for d in series for s in d.spans if s.label == Label.ID_PATIENT}
        # the birth date may be written in several formats, but the IPP is one string
        assert len(ipps) <= 1
        assert births
