"""Hospital names read as a reader reads them: an article belongs to the name it precedes, and a
person's name in a hospital's name is not a town."""

from __future__ import annotations

import random
from datetime import date

import pytest

from deid.events import ModelInfo, RawNote
from deid.labels import Label
from deid.settings import Settings
from deid.spans import Span
from deid.store.keys import KeyHasher
from deid.store.memory import InMemoryStore
from deid.substitution import Substituter


async def replaced(text: str, surface: str, label: Label, lang: str, seed: int,
                   locale: str | None = None) -> str:
    """What ``surface`` (one span of ``label``) becomes in ``text`` under the random profile."""
    start = text.index(surface)
    sub = Substituter(InMemoryStore(), KeyHasher(b"0123456789abcdef-test-secret"),
                      Settings(profile="random"), random.Random(seed))
    raw = RawNote(event_id=f"e{seed}", patient_id="p1", language=lang,  # type: ignore[arg-type]
                  document_date=date(2024, 3, 20), text=text, locale=locale)  # type: ignore[arg-type]
    [out] = await sub.substitute([raw], [[Span(start, start + len(surface), label)]],
                                 ModelInfo(name="gold", version="0"))
    [s] = out.spans
    return out.text[s.start : s.end]


async def hospital(text: str, name: str, lang: str, seed: int, locale: str | None = None) -> str:
    return await replaced(text, name, Label.HOSPITAL, lang, seed, locale)


@pytest.mark.parametrize("seed", range(6))
async def test_the_article_before_a_hospital_s_name_goes_with_the_name(seed: int) -> None:
    got = await hospital("Ingresó en el Hospital Universitario La Paz.", "Hospital Universitario La Paz",
                         "es", seed)
    assert got.startswith("Hospital Universitario ") and " La " not in got and "Paz" not in got, got


@pytest.mark.parametrize("seed", range(6))
async def test_a_person_s_name_in_a_hospital_s_name_is_replaced_whole_not_read_as_a_town(seed: int) -> None:
    text = "Seen at the John Radcliffe Hospital."
    got = await hospital(text, "John Radcliffe Hospital", "en", seed, "en-GB")
    assert got.endswith(" Hospital") and "John" not in got and "Radcliffe" not in got, got
    # a town written after the kind words is still the hospital's town
    got = await hospital("Seen at Hôpital de Dijon.", "Hôpital de Dijon", "fr", seed)
    assert got.startswith("Hôpital d") and "Dijon" not in got, got


async def town_in(text: str, town: str, seed: int) -> str:
    return await replaced(text, town, Label.CITY, "fr", seed)


@pytest.mark.parametrize("seed", range(12))
async def test_a_hospital_s_town_cut_after_de_or_d_takes_a_name_that_agrees(seed: int) -> None:
    # the model tags only the town: "de" / "d'" stay in the text, so the surrogate must fit them
    vowels = tuple("AEIOUYÉÈÊÂÎÔH")
    got = await town_in("Hospitalisée au CHU de Dijon.", "Dijon", seed)
    assert not got.startswith(vowels) and not got.startswith(("Le ", "La ", "Les ", "L'")), got
    got = await town_in("Suivie au centre hospitalier d'Auxerre.", "Auxerre", seed)
    assert got.startswith(vowels), got
