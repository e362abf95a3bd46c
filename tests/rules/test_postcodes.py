"""Postcodes only in address context."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from deid.labels import Label

Find = Callable[[str, str], list[tuple[str, Label]]]
P = Label.POSTCODE


@pytest.mark.parametrize(
    ("text", "lang", "surface"),
    [
        ("Domicile : 12 rue de la Paix, 75002 Paris.", "fr", "75002"),
        ("Réside à 21000 DIJON.", "fr", "21000"),
        ("Code postal : 69003", "fr", "69003"),
        ("45 rue des Glycines, 2A004 Ajaccio", "fr", "2A004"),
        ("12 rue de la Paix, 75002", "fr", "75002"),
        ("Av. de Córdoba s/n, 28041 Madrid.", "es", "28041"),
        ("C.P. 28034", "es", "28034"),
        ("CP: 01022.", "es", "01022"),
        ("Avda. Manuel Siurot S/N. E-41013. Sevilla.", "es", "E-41013"),
        ("Avda. Doctor Olóriz, 16 E-18012 Granada", "es", "E-18012"),
        ("Boston, MA 02115", "en", "02115"),
        ("ZIP code: 10001", "en", "10001"),
        # UK postcodes by their own shape: the model left "LS1" of this one in clear before
        ("14 Park Road, Leeds LS1 4AP, West Yorkshire", "en", "LS1 4AP"),
        ("Her son lives in London SW1A 2AA.", "en", "SW1A 2AA"),
        ("Manchester M1 1AE", "en", "M1 1AE"),
        ("postcode EH16 4TE", "en", "EH16 4TE"),
    ],
)
def test_postcode_in_address_context(find: Find, text: str, lang: str, surface: str) -> None:
    assert (surface, P) in find(text, lang)


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Héparine 25000 UI par jour.", "fr"),
        ("Leucocytes 12000 Plaquettes normales.", "fr"),
        ("Se administraron 40000 unidades.", "es"),
        ("Un total de 12345 pacientes.", "es"),
        ("Stage T2 N1 M0 disease, HbA1c 7.2 %, CD4 350.", "en"),
    ],
)
def test_five_digit_numbers_outside_an_address(find: Find, text: str, lang: str) -> None:
    assert [s for s in find(text, lang) if s[1] is P] == []
