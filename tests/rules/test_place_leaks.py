"""Places and organisations that leaked on notes others write (issue 29), one whole note per class
of failure: every word that names a place or a body is covered by a rule span, and the clinical
words around them are not. The notes, names and places are made up for these tests."""

from __future__ import annotations

import re

from deid.labels import Label
from deid.rules import RuleDetector

_DETECTOR = RuleDetector()


def covered(text: str, language: str) -> list[tuple[str, Label]]:
    return [(text[s.start : s.end], s.label) for s in _DETECTOR.find(text, language)]


def uncovered(text: str, language: str, values: list[str]) -> list[str]:
    """The values (each found once in ``text``) that some character of is left outside every span."""
    spans = _DETECTOR.find(text, language)
    out = []
    for value in values:
        start = text.index(value)
        chars = [i for i in range(start, start + len(value)) if not text[i].isspace()]
        if not all(any(s.start <= i < s.end for s in spans) for i in chars):
            out.append(value)
    return out


def flagged(text: str, language: str, word: str) -> bool:
    spans = _DETECTOR.find(text, language)
    return any(any(s.start <= m.start() < s.end for s in spans) for m in re.finditer(re.escape(word), text))


def test_french_one_off_facilities_are_covered_with_the_words_of_their_kind() -> None:
    note = (
        "CENTRE HOSPITALIER DE VALMOREL\n"
        "Hôpital cardiologique et vasculaire Armand Quenelle\n"
        "Service de Cardiologie\n\n"
        "Antécédents :\n"
        "- PTG D en 2019 (Clinique Mutualiste des Tilleuls)\n"
        "- RAC opéré en 2015 au Centre Cardio-thoracique de Montbrison, HTA\n"
        "Sortie vers l'EHPAD Les Glycines, Quimperlé\n"
        "Hôpital de jour le 12/03. Centre Médico-Psychologique à revoir.\n"
    )
    assert uncovered(note, "fr", [
        "Hôpital cardiologique et vasculaire Armand Quenelle", "Clinique Mutualiste des Tilleuls",
        "Centre Cardio-thoracique de Montbrison", "EHPAD Les Glycines", "Quimperlé",
    ]) == []  # fmt: skip
    assert ("Quimperlé", Label.CITY) in covered(note, "fr")
    # a kind with no name of its own is no facility
    assert not flagged(note, "fr", "Hôpital de jour")
    assert not flagged(note, "fr", "Centre Médico-Psychologique")


def test_a_capitalised_french_name_without_punctuation_after_it_is_left_to_the_model() -> None:
    # where the name ends is unknown: "Clinique Pervenche Saturation en baisse"
    assert not flagged("Clinique Bellerive Saturation en baisse", "fr", "Clinique")


def test_french_towns_in_address_and_letter_lines_are_covered() -> None:
    note = (
        "Pôle Neurosciences – 12 bd Arago, 38400 Brézins – 04 76 00 00 00\n"
        "ORDONNANCE                                Brézins, le 04/02/2024\n"
        "Médecin traitant : Dr P. LEVASSEUR, Pontcharra\n"
        "Fait à Saint-Jean-de-Moirans, le 5 février 2024\n"
        "Dr Martin, Cardiologue\n"
    )
    found = covered(note, "fr")
    for town in ("Brézins", "Pontcharra", "Saint-Jean-de-Moirans"):
        assert (town, Label.CITY) in found
    assert not flagged(note, "fr", "Cardiologue")


def test_french_address_complements_hamlets_and_sorting_boxes_are_streets() -> None:
    note = (
        "Domicile : lieu-dit Penhoat Vraz, 29860 Plabennec\n"
        "MDV : vit seule au 7 rue des Cordiers, bât. C, apt 31, 2e étage sans ascenseur.\n"
        "CHU de Kerlann – CS 40217 – 29609 Brest Cedex\n"
    )
    found = covered(note, "fr")
    assert ("lieu-dit Penhoat Vraz", Label.STREET) in found
    assert ("7 rue des Cordiers, bât. C, apt 31", Label.STREET) in found
    assert ("CS 40217", Label.STREET) in found
    assert not flagged(note, "fr", "2e étage")


def test_english_streets_counties_and_british_address_lines_are_covered() -> None:
    note = (
        "Pt: Hollis Varga   DOB 02/11/1948\n"
        "4471 Quarry Ridge Pkwy Apt 12B, Dunmore, PA 18512\n"
        "Second home: 18 Larkspur Ct, Suite 4 (summer)\n"
        "Found outside his flat (Brackenfield Rd) by police.\n"
        "Parents in Garnet City; Lackawanna County shelter as a backup.\n"
        "Fernlea House\nOrchard Walk, Frome BA11 2QT\n"
        "6 Minute Walk Test: 320 m. Seen by Dr Stone.\n"
    )
    assert uncovered(note, "en", [
        "4471 Quarry Ridge Pkwy Apt 12B", "18 Larkspur Ct, Suite 4", "Brackenfield Rd", "Garnet City",
        "Lackawanna County", "Orchard Walk",
    ]) == []  # fmt: skip
    assert not flagged(note, "en", "6 Minute Walk")


def test_english_one_off_facilities_their_branch_and_their_alias_are_covered() -> None:
    note = (
        "BLUE HERON RHEUMATOLOGY & ARTHRITIS CENTER\n"
        "DALBY HEALTH URGENT CARE - NORTHGATE\n"
        "Royal Westmoor Hospital (Penvose) - Physio Dept\n"
        "cc: Dr R. Okafor - Ashby Landing CHC; St. Ursula's admissions\n"
        "Plan: review at Penvose in 6 weeks. Takes St John's wort; Level I Trauma Center on call.\n"
    )
    assert uncovered(note, "en", [
        "BLUE HERON RHEUMATOLOGY & ARTHRITIS CENTER", "DALBY HEALTH URGENT CARE - NORTHGATE", "Penvose",
        "Ashby Landing CHC", "St. Ursula's",
    ]) == []  # fmt: skip
    # the alias names the place wherever the note uses it
    assert ("Penvose", Label.HOSPITAL) in covered("Plan: review at Penvose in 6 weeks.\n" + note, "en")
    assert not flagged(note, "en", "St John's")
    assert not flagged(note, "en", "Trauma Center")


def test_employers_and_schools_after_their_cue_are_organisations() -> None:
    note = (
        "SH: works part-time as a barista at Copperleaf Roasters, lives with partner.\n"
        "Employed by Thornbury Freight since 2019. Works with Dr Patel's team at times.\n"
        "Son is a student at Gorsemoor Academy. Works from home on Fridays.\n"
    )
    found = covered(note, "en")
    for org in ("Copperleaf Roasters", "Thornbury Freight", "Gorsemoor Academy"):
        assert (org, Label.ORG) in found
    assert not [s for s, label in found if label == Label.ORG and "Patel" in s]  # a person, not an employer
    assert not [s for s, label in found if label == Label.ORG and "home" in s.lower()]
    assert ("Vireaux Transports", Label.ORG) in covered(
        "Elle travaille chez Vireaux Transports depuis 2010.", "fr"
    )
    assert ("Panadería Olmedo", Label.ORG) in covered("Trabaja en Panadería Olmedo como dependienta.", "es")
