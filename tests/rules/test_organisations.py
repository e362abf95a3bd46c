"""Organisations told by their kind word, and look-alikes that are services or words (issue 29)."""

from __future__ import annotations

import pytest

from deid.labels import Label
from deid.rules.organisations import OrganisationRecognizer


def found(text: str, language: str) -> list[str]:
    spans = OrganisationRecognizer().find(text, language)
    assert all(s.label is Label.ORG for s in spans)
    return [text[s.start : s.end] for s in spans]


@pytest.mark.parametrize(("text", "language", "expected"), [
    ("ayuda a domicilio del Ajuntament de Sabadell desde marzo", "es", ["Ajuntament de Sabadell"]),
    ("trámite con el Ayuntamiento de Alcalá de Henares", "es", ["Ayuntamiento de Alcalá de Henares"]),
    ("traslado por Funeraria San Vicente.", "es", ["Funeraria San Vicente"]),
    ("material prestado por Cruz Roja, sin coste", "es", ["Cruz Roja"]),
    ("curatelle renforcée (UDAF du Morbihan) ;", "fr", ["UDAF du Morbihan"]),
    ("dossier déposé à la Mairie de Saint-Brieuc", "fr", ["Mairie de Saint-Brieuc"]),
    ("Pompes Funèbres Lemoine prévenues", "fr", ["Pompes Funèbres Lemoine"]),
    ("meds from Walgreens Pharmacy on Main St", "en", ["Walgreens Pharmacy"]),
    ("carers from Brookside Homecare x3/day", "en", ["Brookside Homecare"]),
    ("supported living (Harbour View Living Ltd)", "en", ["Harbour View Living Ltd"]),
    ("grab rails fitted by Age UK volunteers", "en", ["Age UK"]),
    ("Kennington Home Care Ltd visit twice daily", "en", ["Kennington Home Care Ltd"]),
])
def test_an_organisation_named_by_its_kind_word_is_an_org(
    text: str, language: str, expected: list[str]
) -> None:
    assert found(text, language) == expected


@pytest.mark.parametrize(("text", "language"), [
    ("collected from the Community Pharmacy", "en"),  # a service, no name
    ("referred to Adult Social Care and the Pharmacy", "en"),
    ("discussed with our Home Care team", "en"),
    ("valorado por Servicios Sociales", "es"),  # a department, no body and place
    ("la mairie a été prévenue", "fr"),  # lower case: the word, not the name
    ("Ajuntament sense nom", "es"),
])
def test_a_service_or_a_kind_word_alone_is_no_org(text: str, language: str) -> None:
    assert found(text, language) == []


def test_a_charity_inside_a_hospital_name_is_left_to_the_hospital() -> None:
    assert found("ingresa en el Hospital Cruz Roja de Bilbao", "es") == []


def test_a_foundation_is_no_org_by_its_kind_word_since_hospitals_are_named_so() -> None:
    assert found("trasladado a la Fundación Jiménez Díaz", "es") == []
