"""Initials of a letter's author and typist, and of a nurse signing transmissions, are people."""

from __future__ import annotations

import pytest

from deid.rules.initials import SignatureInitialsRecognizer


def found(text: str, lang: str = "fr") -> list[str]:
    return [text[s.start : s.end] for s in SignatureInitialsRecognizer().find(text, lang)]


@pytest.mark.parametrize(("text", "initials"), [
    ("Réf. : HK/mlg", ["HK", "mlg"]),
    ("N/Réf : VA/SL", ["VA", "SL"]),
    ("Réf : HVK/MOP/sl", ["HVK", "MOP", "sl"]),  # three people, the typist's "sl" too
    ("Cordialement.\nRBL/mpg   DD: 03/06/2022", ["RBL", "mpg"]),
    ("JKL:mno", ["JKL", "mno"]),
    ("Transcribed by: dkw", ["dkw"]),
    ("Physio (JL) treated x2", ["JL"]),
    ("Triage (KO) cat 4: inversion injury", ["KO"]),  # the triage nurse, as an ENP (WH) is one
    ("Nuit calme. IDE : CL. Matin : toilette. AS: JBR", ["CL", "JBR"]),
])
def test_initials_where_secretarial_practice_puts_them(text: str, initials: list[str]) -> None:
    assert found(text) == initials


@pytest.mark.parametrize("text", [
    "BUN/Cr 32/1.4, Hgb 10.2",  # lab values
    "CV: RRR, no murmur",  # a heading and its text
    "glycémie 1,2 g/l, 5 mg/dl",
    "Sous TNT sl si douleur.",
    "IDE : passage à 14h",
    "Triage (ESI) 3, triage (MTS) orange",  # a triage scale in brackets after the word
    "paramedic (ALS) crew, ENP (MIU) review, Triage (UTC), ACP (DNR) discussed",  # services, levels
])
def test_look_alikes_are_not_initials(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(("text", "initials"), [
    ("Son will visit Tues.\n\nHQ FY1  bleep 4417  /  discussed w IN SpR", ["HQ", "IN"]),
    ("Fille passe ce matin vers 10h.\n\nFB", ["FB"]),  # the entry's last line signs it
    ("Pt settled overnight.\n-- KL\n", ["KL"]),
])
def test_initials_before_a_grade_or_alone_on_the_last_line_sign(text: str, initials: list[str]) -> None:
    assert found(text, "en") == initials


@pytest.mark.parametrize("text", ["Seen by AMU SpR, plan as above.", "Requested by: Dr F Okoye (ED StR)",
                                  "BP 120/80.\nOK\n", "Discharge plan.\nTTO\n", "Allergies:\nNKDA"])
def test_a_unit_before_a_grade_or_a_clinical_word_last_is_no_one(text: str) -> None:
    assert found(text, "en") == []
