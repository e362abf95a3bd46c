"""French street addresses: house number and type of way make the mention, not a common noun."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from deid.labels import Label

Find = Callable[[str, str], list[tuple[str, Label]]]
S = Label.STREET


@pytest.mark.parametrize(
    ("text", "surface"),
    [
        ("Domicile : 12 rue de la Paix, 75002 Paris.", "12 rue de la Paix"),
        ("1, boulevard élodie bourdon, 17420 picard", "1, boulevard élodie bourdon"),
        ("Georgette Noirot 31, RUE GÉRARD GOMEZ, 10280 DESCHAMPS", "31, RUE GÉRARD GOMEZ"),
        ("stacey ESTEVE Avenue Luce Millet, 15916 Saint Claude", "Avenue Luce Millet"),
        ("Hôpital, 47-83 Boulevard de l'Hôpital, 75013 Paris", "47-83 Boulevard de l'Hôpital"),
        ("Adresse : 28 bis chemin Etienne d'ORGE 2B717 STRASBOURG", "28 bis chemin Etienne d'ORGE"),
        ("vit au 153 rue du Lys à Lille depuis 2010", "153 rue du Lys"),
        ("12 Place de la République, 69002 Lyon", "12 Place de la République"),
        ("12 RUE DU DOCTEUR GACHET 04 047 CERGY", "12 RUE DU DOCTEUR GACHET"),
        ("Cabinet 8 Rue du 8 Mai 1945\nTél : 01 02 03 04 05", "8 Rue du 8 Mai 1945"),
    ],
)
def test_french_street_addresses(find: Find, text: str, surface: str) -> None:
    assert (surface, S) in find(text, "fr")


@pytest.mark.parametrize(
    "text",
    [
        "Relais par voie orale. Mise en place d'une sonde.",
        "Il a reçu 2 cours de chimiothérapie et 3 places en hôpital de jour.",
        "Passage en SDN pour pose APD.",
        "Voie percutanée sous contrôle scopique.",
        "Route de la hanche gauche douloureuse",
        "12 rue de la paix à paris dans le service",
    ],
)
def test_common_nouns_are_not_streets(find: Find, text: str) -> None:
    assert [s for s in find(text, "fr") if s[1] is S] == []


def test_streets_are_french_only(find: Find) -> None:
    assert [s for s in find("Vive en 12 rue de la Paix, Madrid", "es") if s[1] is S] == []
