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
])
def test_look_alikes_are_not_initials(text: str) -> None:
    assert found(text) == []
