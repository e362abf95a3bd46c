"""A relative's name beside a kinship word: in brackets ("sa fille aînée (Fanta)"), and in small
letters between the kinship word and the relative's age ("son will boudreaux (38)")."""

from __future__ import annotations

import pytest

from deid.labels import Label
from deid.rules.kin_names import KinNameRecognizer


def names(text: str, language: str) -> list[str]:
    found = KinNameRecognizer().find(text, language)
    assert all(s.label is Label.RELATIVE for s in found)
    return [text[s.start : s.end] for s in found]


@pytest.mark.parametrize(("text", "language", "expected"), [
    ("Appel de sa fille aînée (Fanta) ce matin.", "fr", ["Fanta"]),
    ("Acompañada (hija, Yokasta) a la consulta.", "es", ["Yokasta"]),
    ("Family: wife claudette boudreaux (64), dtr rose guidry (41), son will boudreaux (38) on speaker",
     "en", ["claudette boudreaux", "rose guidry", "will boudreaux"]),
    ("vit avec sa fille marie (45 ans) à domicile", "fr", ["marie"]),
    ("acude con su hija rosa (41 años)", "es", ["rosa"]),
])  # fmt: skip
def test_a_name_beside_a_kinship_word_is_a_relative(text: str, language: str, expected: list[str]) -> None:
    assert names(text, language) == expected


@pytest.mark.parametrize(("text", "language"), [
    ("mère (Alzheimer), père (décédé)", "fr"),  # a disease, a state
    ("son fils aîné (50 ans) est présent", "fr"),  # an adjective before the age
    ("hijo mayor (12 años)", "es"),
    ("su hermano mediano (30 años), su hermano gemelo (30 años)", "es"),
    ("son aged (38) at bedside", "en"),
    ("Dtr Melanie (41) at bedside", "en"),  # capitalised: the other rules' and the model's
    # a family history writes a disease or a state there, not a name
    ("FH: mother breast ca (45), father mi (55), brother dm (40), son in law (45)", "en"),
    ("ATCD : mère cancer (60 ans), père infarctus (55 ans). Femme enceinte (32 ans)", "fr"),
    ("AF: padre iam (60 años), madre ictus (70 a). Mujer fumadora (45 años)", "es"),
])  # fmt: skip
def test_a_state_a_disease_or_an_adjective_beside_a_kinship_word_is_no_name(text: str, language: str) -> None:
    assert names(text, language) == []
