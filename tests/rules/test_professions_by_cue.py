"""Jobs told by an age, by "is a" or by their employer, and the employer beside them (issue 29)."""

from __future__ import annotations

import pytest

from deid.labels import Label
from deid.rules.professions import ProfessionRecognizer


def found(text: str, language: str) -> list[tuple[str, str]]:
    return [(text[s.start : s.end], s.label.value) for s in ProfessionRecognizer().find(text, language)]


@pytest.mark.parametrize(("text", "language", "expected"), [
    ("this 58 year old primary school teacher who presents", "en",
     [("primary school teacher", "PROFESSION")]),
    ("28 yo single F, dispatcher at Harborline Logistics, PPHx", "en",
     [("dispatcher", "PROFESSION"), ("Harborline Logistics", "ORG")]),
    ("Son Omar is a cardiologist at Beaumont Dearborn, asked", "en",
     [("cardiologist", "PROFESSION"), ("Beaumont Dearborn", "ORG")]),
    ("lives w/ mom (29, dental hygienist), dad (33, truck driver, away", "en",
     [("dental hygienist", "PROFESSION"), ("truck driver", "PROFESSION")]),
    ("Retired 3rd grade teacher, Dallas ISD x34 yrs.", "en",
     [("3rd grade teacher", "PROFESSION"), ("Dallas ISD", "ORG")]),
    ("Works part-time as a barista at Artifact Coffee.", "en",
     [("barista", "PROFESSION"), ("Artifact Coffee", "ORG")]),
    ("retired structural engineer (Boeing), hx AFib", "en",
     [("structural engineer", "PROFESSION"), ("Boeing", "ORG")]),
    ("He is a 29 year old software engineer (works for Kestrel Analytics, mostly", "en",
     [("software engineer", "PROFESSION"), ("Kestrel Analytics", "ORG")]),
    ("M. Constantino FERREIRA (55 ans), cariste, en arrêt", "fr", [("cariste", "PROFESSION")]),
    ("Il travaille le soir comme livreur à vélo.", "fr", [("livreur à vélo", "PROFESSION")]),
    ("exerçant la profession de cariste chez Transports Girard à Vénissieux.", "fr",
     [("cariste", "PROFESSION"), ("Transports Girard", "ORG")]),
    ("Profession : chauffeur de bus a la RATP, horaires", "fr",
     [("chauffeur de bus", "PROFESSION"), ("RATP", "ORG")]),
    ("Laboral: mecánico naval, trabajó", "es", [("mecánico naval", "PROFESSION")]),
    ("jubilado, antes maquinista de Renfe. Pensión", "es", [("maquinista", "PROFESSION"), ("Renfe", "ORG")]),
    ("Veuve ancienne couturière.", "fr", [("couturière", "PROFESSION")]),  # after a word: still a job
    ("Mme LEROY ancienne institutrice, vit seule", "fr", [("institutrice", "PROFESSION")]),
])  # fmt: skip
def test_a_listed_job_after_its_cue_is_a_profession_and_its_employer_an_org(
        text: str, language: str, expected: list[tuple[str, str]]) -> None:
    assert found(text, language) == expected


@pytest.mark.parametrize(("text", "language"), [
    ("The nurse at St Mary's called back.", "en"),  # a care job before an employer alone is staff
    ("She is a smoker and a poor historian.", "en"),  # "is a" with no job of the lists
    ("23 yo M   Involuntary exam (Baker Act) initiated", "en"),  # a job word inside a name
    ("Syringe driver (McKinley T34, serial no. T34-229815)", "en"),  # a device, not a job
    ("Social work assessment / case note", "en"),
    ("Sa fille, 40 ans, aidante principale.", "fr"),
    ("- HTA ancienne traitée par amlodipine", "fr"),  # "ancienne" after its noun: old, not former
    ("- PTG G ancienne\n", "fr"),
])  # fmt: skip
def test_words_that_name_no_job_are_left(text: str, language: str) -> None:
    assert [lab for _, lab in found(text, language)] == []


def test_the_employer_is_an_org_and_the_job_a_profession() -> None:
    spans = ProfessionRecognizer().find("SH: Line technician w/ Duke Energy x 19 yrs", "en")
    assert [s.label for s in spans] == [Label.PROFESSION, Label.ORG]


def test_a_job_word_capitalised_in_mid_sentence_is_part_of_an_institution_name_in_spanish() -> None:
    from deid.rules import RuleDetector

    text = ("Por consiguiente, el Tribunal Administrativo del Condado consideró la queja. "
            "Administrativo de Renfe, vive solo.")
    found = [(text[s.start:s.end], s.label.value) for s in RuleDetector().detect([text], ["es"])[0]]
    assert ("Administrativo", "PROFESSION") in found  # at the start of a sentence: his job
    assert ("Condado", "ORG") not in found and ("Administrativo del", "PROFESSION") not in found
