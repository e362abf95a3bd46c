"""The patient's sex (MEDDOCAN SEXO): a quasi-identifier label, detected by rule, kept by default."""

from __future__ import annotations

import pytest

from deid.labels import KEPT_BY_DEFAULT, Category, Label
from deid.rules import build_recognizers
from deid.spans import Span

(SEX,) = build_recognizers(["sex"])


def found(text: str, lang: str) -> list[str]:
    return [text[s.start : s.end] for s in SEX.find(text, lang)]


def test_sex_is_a_quasi_identifier_kept_by_default() -> None:
    assert Label.SEX.category is Category.OTHER
    assert Label.SEX in KEPT_BY_DEFAULT
    assert Label.PHI not in KEPT_BY_DEFAULT


@pytest.mark.parametrize(("text", "expected"), [
    ("Edad: 38 años Sexo: H.\nFecha de Ingreso: 12/03/2012", ["H"]),
    ("Informe clínico del paciente: Varón de 42 años, sin antecedentes", ["Varón"]),
    ("Historia Actual: Paciente mujer, 44 años, que acude", ["mujer"]),
    ("Se trata de un niño que ingresa por fiebre", ["niño"]),
    ("Recién nacido de 29 días de vida", ["Recién nacido"]),
    ("Paciente morena, sexo femenino, 23 años", ["femenino"]),
])
def test_spanish_patient_sex_as_meddocan_annotates_it(text: str, expected: list[str]) -> None:
    assert found(text, "es") == expected


@pytest.mark.parametrize("text", [
    "vive con su mujer invidente desde hace años",
    "dos hijos, hermano varón y sendos hijos",
    "el parto dio un producto varón con peso de 3.200 g",
    "VSG 35 mm/h, talla 1,85 m, IgM positivo",
    "amigos de sexo masculino",
])
def test_spanish_words_about_someone_else_or_units_are_not_the_patient_sex(text: str) -> None:
    assert found(text, "es") == []


@pytest.mark.parametrize(("text", "lang", "expected"), [
    ("Sexe : F\nNée le 03/04/1950", "fr", ["F"]),
    ("Femme de 45 ans adressée pour douleurs", "fr", ["Femme"]),
    ("patient de sexe masculin", "fr", ["masculin"]),
    ("Sex: M  DOB: 03/04/1950", "en", ["M"]),
    ("67 y/o male with chest pain", "en", ["male"]),
    ("a 45-year-old woman presented", "en", ["woman"]),
    ("80 yo F admitted from home", "en", ["F"]),
])
def test_french_and_english_shapes(text: str, lang: str, expected: list[str]) -> None:
    assert found(text, lang) == expected


def test_french_relatives_and_english_units_are_not_the_patient_sex() -> None:
    assert found("sa femme de 40 ans l'accompagne", "fr") == []
    assert found("5 F catheter, 88/46 mmHg", "en") == []


def test_sex_spans_are_their_own_label() -> None:
    text = "Varón de 42 años"
    assert SEX.find(text, "es") == [Span(0, 5, Label.SEX, "rules.sex")]
