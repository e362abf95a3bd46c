"""Facilities named from the public list (deid.rules.facilities) and the kinds of British bodies
(deid.rules.hospital_names)."""

from __future__ import annotations

import gc
import time

import pytest

from deid.rules import RuleDetector


def facilities(text: str, language: str = "en") -> list[str]:
    return [text[s.start : s.end] for s in RuleDetector(["facility"]).find(text, language)]


@pytest.mark.parametrize(("text", "expected"), [
    ("Transferred from Johns Hopkins Hospital for ECMO.", ["Johns Hopkins Hospital"]),
    ("Seen at JOHNS HOPKINS yesterday.", ["JOHNS HOPKINS"]),
    ("Letter from St. Thomas' Hospital, London", ["St. Thomas' Hospital"]),
    ("follow-up at Dayton Children's next week", ["Dayton Children's"]),
    ("Admitted to Trafford General with a fall.", ["Trafford General"]),
])  # fmt: skip
def test_a_listed_facility_is_found_in_a_sentence(text: str, expected: list[str]) -> None:
    assert facilities(text) == expected


def test_a_one_word_form_is_a_facility_after_a_cue() -> None:
    assert facilities("Last admission at Grady, discharged to Southmead ED.") == ["Grady", "Southmead"]
    assert facilities("transferred to the Ochsner ICU") == ["Ochsner"]


@pytest.mark.parametrize("text", [
    "Grady reports pain 4/10.",  # a person, not a place: no cue
    "Mercy was at the bedside.",
    "General: alert. Memorial service planned. Regional anaesthesia. ICU stay 3 days.",
    "Mary Free Bed exercises were reviewed.",  # a given name first: wants a cue
    "seen at johns hopkins hospital",  # in small letters: words, not a name
    "Discharged to Home with Hospice.",  # a kind alone is no form of the list
])  # fmt: skip
def test_a_common_word_or_a_bare_name_without_a_cue_is_no_facility(text: str) -> None:
    assert facilities(text) == []


def test_the_initials_of_a_facility_named_in_the_note_are_the_facility() -> None:
    text = "Royal Derby Hospital, Ward 4. Returned to RDH on 3/2; MRI booked."
    assert facilities(text) == ["Royal Derby Hospital", "RDH"]  # "MRI" is an examination


def test_an_acronym_defined_in_brackets_names_the_facility_in_the_whole_note() -> None:
    text = "Booked for: Ysbyty Gwynedd (YG) labour ward. SVD at YG."
    assert facilities(text) == ["Ysbyty Gwynedd", "YG", "YG"]


def test_initials_of_a_facility_found_by_its_kind_word_are_found_too() -> None:
    text = "SCIOTO VALLEY COMMUNITY HOSPITAL\nnot available at SVCH. Hospitalist, SVCH"
    assert facilities(text) == ["SVCH", "SVCH"]


def test_no_facility_in_french_or_spanish() -> None:
    assert facilities("Johns Hopkins Hospital", "fr") == []


@pytest.mark.parametrize(("text", "expected"), [
    ("North Bristol NHS Trust - MSK Physiotherapy", ["North Bristol NHS Trust"]),
    ("Swansea Bay University Health Board | Eye Department", ["Swansea Bay University Health Board"]),
    ("Western Health and Social Care Trust - Physiotherapy", ["Western Health and Social Care Trust"]),
    ("NHS Lothian | Royal Edinburgh Hospital", ["NHS Lothian", "Royal Edinburgh Hospital"]),
    ("NHS No 738 739 7821, NHS WALES", []),
    ("RIVERBEND URGENT CARE - 1 Gold Star", ["RIVERBEND URGENT CARE"]),
    ("GP: Dr Akinola, Pound Hill Medical Group", ["Pound Hill Medical Group"]),
    ("Best Practice guidance; General Pediatrics clinic", []),
    # a specialty or a form's field before the kind: a service, no place; a practice stays one
    ("DATE OF SURGERY: 03/04/2025\nWard: Thoracic Surgery, Level 8", []),
    ("via Transfer Center; Diabetes & Endocrine Centre, Newham University Hospital",
     ["Newham University Hospital"]),
    ("GP: Riverside Surgery, Bristol", ["Riverside Surgery"]),
])  # fmt: skip
def test_british_bodies_and_practices_are_named_by_their_kind(text: str, expected: list[str]) -> None:
    found = RuleDetector(["hospital_name"]).find(text, "en")
    assert [text[s.start : s.end] for s in found] == expected


def test_the_lexicon_scan_is_linear_in_the_note() -> None:
    detector = RuleDetector(["facility"])  # reads the list once, here

    def timed(n: int) -> float:
        """Least CPU time of three scans of ``n`` repeats of list prefixes that lead nowhere."""
        text = "at Saint Johns Royal Queen Elizabeth " * n
        runs = []
        for _ in range(3):
            start = time.thread_time()
            detector.find(text, "en")
            runs.append(time.thread_time() - start)
        return min(runs)

    gc.disable()
    try:
        small, large = timed(500), timed(5_000)
    finally:
        gc.enable()
    assert large < 20 * max(small, 1e-3)  # ten times the text: about ten times the time
