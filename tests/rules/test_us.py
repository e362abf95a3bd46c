"""US conventions in English notes (deid.rules.us): each pattern wants the context that makes it
a mention, and the look-alikes of nursing notes stay unflagged."""

from __future__ import annotations

import pytest

from deid.labels import Label
from deid.rules import RuleDetector
from deid.rules.us import EnglishNameRecognizer

DET = RuleDetector()


def found(text: str) -> list[tuple[str, str]]:
    return [(text[s.start : s.end], s.label.value) for s in DET.find(text, "en")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("call (617) 555-0134 to schedule", [("(617) 555-0134", "PHONE")]),
        ("cell 617-555-0148.", [("617-555-0148", "PHONE")]),
        ("SSN: 129-44-7018", [("129-44-7018", "ID_SSN")]),
        (
            "Medicare ID 1EG4-TE5-MK73; BCBS member ID: XYZ123456789.",
            [("1EG4-TE5-MK73", "ID_SSN"), ("XYZ123456789", "ID_SSN")],
        ),
        ("Acct #: 2100129519", [("2100129519", "ID_VISIT")]),
        ("Cr peaked at 1.9 on 8/18.", [("8/18", "DATE")]),
        ("NURSING NOTE 11/9 0700-1900", [("11/9", "DATE")]),
        ("dx with DM in '92, on insulin", [("'92", "DATE")]),
    ],
)
def test_us_identifiers_phones_and_dates(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "BP 88/46 -> 104/60 after 500cc NS bolus @ 0400.",
        "ABG 7.32/45/88 at 14:30, repeat in am.",
        "BUN/Cr 32/1.4, Hgb 10.2",
        "pt @ rest, tolerating sips",
        "Family at bedside, daughter asking questions re: plan.",
        "Echo: EF 35%, mod MR. Cardiology to follow.",
        "Vanco and Zosyn started @ 10:00.",
        "pain 7/10 at rest",
    ],
)
def test_nursing_note_look_alikes_are_not_flagged(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Spoke with Dr. K. Lee re: Lasix", [("K. Lee", "STAFF")]),
        ("cards (dr oyelaran) to see in am", [("oyelaran", "STAFF")]),
        ("dr to see in am", []),
        ("advised to see her own doctor. Her husband agrees", []),
        ("MR. JONES refused", [("JONES", "PERSON")]),
        ("Name: Ho, Evelyn", [("Ho, Evelyn", "PATIENT")]),
        ("Spoke with Carly Perkins, MD re: plan", [("Carly Perkins", "STAFF")]),
        ("Dtr Melanie updated by phone", [("Melanie", "RELATIVE")]),
        ("Jackson (son) can be reached", [("Jackson", "RELATIVE")]),
        ("HPI: torres is a 47 y/o", [("torres", "PATIENT"), ("47 y/o", "AGE")]),
    ],
)
def test_names_by_title_field_degree_and_kinship(text: str, expected: list[tuple[str, str]]) -> None:
    assert found(text) == expected


def test_hospitals_and_towns_but_not_wards_or_post_operative_days() -> None:
    text = "Transferred to 5 West from St. Mary's Hospital ED. Lives in Salem, OR. Seen by Patel, MD."
    assert found(text) == [
        ("St. Mary's Hospital", "HOSPITAL"),
        ("Salem", "CITY"),
        ("OR", "LOCATION"),
        ("Patel", "STAFF"),
    ]
    assert found("admitted to Ward 4B, home POD 2") == []


def test_english_rules_stay_out_of_other_languages() -> None:
    text = "Dr. Smith, 617-555-0134, Ward 4B, Salem, OR"
    assert not [
        s
        for s in DET.find(text, "fr")
        if s.source in ("rules.us_phone", "rules.us_places", "rules.en_names", "rules.titled_name")
    ]
    assert Label.PHONE in {s.label for s in DET.find(text, "en")}


@pytest.mark.parametrize("text", [
    "Pt: Mrs O. M. Featherstone    Hosp no 2291",  # the title alone is no name
    "his mother Mrs A. Mensah, Siobhan",
    "PT: ambulating 40 ft with rolling walker",  # physical therapy's heading
    "PT: independent mobility, stairs x 12",
    'Debrief w/ pt: states he "hasn\'t slept in 4 days"',  # a sentence after the field
])
def test_a_field_or_kinship_word_before_a_title_or_a_sentence_gives_no_name(text: str) -> None:
    assert EnglishNameRecognizer().find(text, "en") == []


def test_a_small_letter_name_after_the_patient_field_stays() -> None:
    text = "Pt: terry horton, 54"
    assert [text[s.start : s.end] for s in EnglishNameRecognizer().find(text, "en")] == ["terry horton"]


@pytest.mark.parametrize(("text", "name"), [
    ("0255 Charge RN Deb notified. Incident report filed.", "Deb"),  # a nickname the table knows
    ("RT Marcus at bedside, ABG sent", "Marcus"),
    ("Nurse Kayleigh aware of the plan", "Kayleigh"),
    ("-- T. Mbeki-Sanders RN  tms", "T. Mbeki-Sanders"),  # a hyphenated surname whole
])
def test_a_nurse_or_therapist_by_role_and_name_is_staff(text: str, name: str) -> None:
    found = [(text[s.start : s.end], s.label) for s in EnglishNameRecognizer().find(text, "en")]
    assert found == [(name, Label.STAFF)]


@pytest.mark.parametrize("text", ["Charge RN notified, no new orders", "Primary RN aware",
                                  "RN Assessment done at 0800", "RN Will see pt at 1400"])
def test_which_nurse_is_no_name(text: str) -> None:
    assert EnglishNameRecognizer().find(text, "en") == []


def test_an_id_label_after_a_name_is_no_idaho_but_idaho_with_its_zip_is() -> None:
    places = RuleDetector(["us_places"])
    text = "interpreter used (Thuy, ID 30418). Lives in Boise, ID 83702. Moved from Boise, ID in May."
    found = [(text[s.start : s.end], s.label.value) for s in places.find(text, "en")]
    assert found == [("Boise", "CITY"), ("ID", "LOCATION"), ("Boise", "CITY"), ("ID", "LOCATION")]
