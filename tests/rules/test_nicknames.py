"""A name the note says someone goes by is a person (issue 29)."""

from __future__ import annotations

import pytest

from deid.labels import Label
from deid.rules.nicknames import NicknameRecognizer


def names(text: str, language: str = "en") -> list[str]:
    return [text[s.start : s.end] for s in NicknameRecognizer().find(text, language)]


@pytest.mark.parametrize(("text", "language", "expected"), [
    ('Allergy: morphine. Goes by "PJ".', "en", ["PJ"]),
    ('Pt is Creole-speaking, family calls her "Vivi" - Vivi grimaced', "en", ["Vivi"]),
    ("Patient: STREET, William John   Known as: Bill\nDOB", "en", ["Bill"]),
    ('Consent form signed - "Kez" (as he signs) - mum present', "en", ["Kez"]),
    ("Emeka, as he prefers to be called, is doing well", "en", ["Emeka"]),
    ('Pt: Caudill, Bobby Ray ("Bubba")   DOB 4/4/1954', "en", ["Bubba"]),
    ('"Encarni", como la llaman en el barrio, tiene', "es", ["Encarni"]),
    ("Mme Ekwalla, surnommée Lolo par ses proches", "fr", ["Lolo"]),
    # French quotes hold their word between (non-breaking) blanks; "l'" before the verb
    ("Préfère qu'on l'appelle « Fifi ».", "fr", ["Fifi"]),
    ("Valoro a Cova (así prefiere que la llamen) en la consulta", "es", ["Cova"]),
    ("Prefiere que le llamen Manolo.", "es", ["Manolo"]),
    ("Mme Ekwalla, dite « Lolo » par ses voisins", "fr", ["Lolo"]),
])  # fmt: skip
def test_the_name_after_or_before_its_cue_is_a_person(text: str, language: str, expected: list[str]) -> None:
    assert names(text, language) == expected
    assert all(s.label is Label.PERSON for s in NicknameRecognizer().find(text, language))


@pytest.mark.parametrize("text", [
    "she was known as a heavy drinker",  # no name after the cue
    "called her GP this morning",  # a word of the note, not a name
    "goes by bus to dialysis",  # in lower case
    'EtOH ("2 beers") nightly',  # quotes in brackets that hold no name
    "prefiere que la llamen por la tarde",  # no capitalised name after the cue
])  # fmt: skip
def test_a_cue_without_a_name_finds_nothing(text: str) -> None:
    assert names(text) == []


@pytest.mark.parametrize("text", [
    "la patiente dit « non », puis « Oui ».",  # words said, in French quotes after "dit"
    "Il dit « Bonjour » à l'équipe.",
    "Dit « le patron » de son père.",
])  # fmt: skip
def test_words_said_in_quotes_are_no_nickname(text: str) -> None:
    assert names(text, "fr") == []
