"""The shipped model (deid/models/default) loads and finds names and dates in FR, ES and EN notes."""

from __future__ import annotations

from typing import Any

import pytest

from deid.labels import Category
from deid.ner import DEFAULT_MODEL_DIR

pytestmark = pytest.mark.skipif(
    not (DEFAULT_MODEL_DIR / "model.safetensors").is_file(), reason="no shipped model"
)

NOTES = {
    "fr": (
        "Compte-rendu d'hospitalisation. Mme Martine Lefebvre, née le 12/03/1951, a été "
        "hospitalisée du 02/02/2024 au 09/02/2024 pour une pneumopathie. Elle vit avec son époux "
        "Gérard Lefebvre. Rendez-vous avec le Dr Antoine Mercier le 15 mars 2024.",
        ["Martine Lefebvre", "Antoine Mercier"],
        ["12/03/1951", "02/02/2024", "15 mars 2024"],
    ),
    "es": (
        "Paciente: Rosa Martínez Gómez, de 67 años, ingresó el 3 de mayo de 2019 en el servicio de "
        "cardiología. Médico responsable: Dr. Javier Ruiz Ortega. Alta el 10/05/2019.",
        ["Rosa Martínez Gómez", "Javier Ruiz Ortega"],
        ["3 de mayo de 2019", "10/05/2019"],
    ),
    "en": (
        "Discharge summary. Patient: John Miller, born 04/11/1948, was admitted on 02/01/2023 "
        "with chest pain. Seen by Dr. Sarah Thompson. Follow-up on March 3, 2023.",
        ["John Miller", "Sarah Thompson"],
        ["04/11/1948", "02/01/2023"],
    ),
}


@pytest.fixture(scope="module")
def detector() -> Any:
    import torch

    from deid.ner import load_default_detector

    torch.set_num_threads(1)
    return load_default_detector(device="cpu")


def test_shipped_model_reports_name_and_version(detector: Any) -> None:
    assert detector.model_name and detector.model_version


@pytest.mark.parametrize("lang", ["fr", "es", "en"])
def test_shipped_model_finds_names_and_dates(detector: Any, lang: str) -> None:
    text, names, dates = NOTES[lang]
    spans = detector.detect([text], [lang])[0]
    assert all(s.source == "ner" for s in spans)

    def covered(surface: str, category: Category) -> bool:
        start = text.index(surface)
        end = start + len(surface)
        hits = [s for s in spans if s.start < end and start < s.end and s.label.category == category]
        chars = {c for s in hits for c in range(max(s.start, start), min(s.end, end))}
        return len(chars) >= 0.8 * (end - start)

    for name in names:
        assert covered(name, Category.PER), name
    for d in dates:
        assert covered(d, Category.DATE), d


SPANISH_DISCHARGE = (
    "Paciente: Dña. María Luisa Fernández García, NHC 3456789.\n"
    "Fecha de nacimiento: 23/07/1951 (72 años).\n"
    "Ingresa el 10/01/2024 por neumonía. Al alta el 18/01/2024 se recomienda control el 01/02/2024.\n"
)


@pytest.mark.parametrize("seed", range(3))
async def test_a_spanish_note_keeps_its_birth_date_one_and_its_age_agrees(detector: Any, seed: int) -> None:
    """The shipped model reads "Fecha de nacimiento: 23/07/1951" as a plain date (MEDDOCAN tags every
    date FECHAS); it came out moved by two days and "72 años" became "74 años" beside it. With the
    field told, the whole note reads true: the age agrees with the surrogate birth date against
    the note's surrogate dates, and the title stays a title."""
    import random
    import re
    from datetime import date

    from deid.detection import HybridDetector
    from deid.events import ModelInfo, RawNote
    from deid.labels import Label
    from deid.rules import RuleDetector
    from deid.settings import Settings
    from deid.store.keys import KeyHasher
    from deid.store.memory import InMemoryStore
    from deid.substitution import Substituter

    spans = HybridDetector(RuleDetector(), detector).detect([SPANISH_DISCHARGE], ["es"])[0]
    born = next(s for s in spans if SPANISH_DISCHARGE[s.start:s.end] == "23/07/1951")
    assert born.label is Label.BIRTH_DATE
    note = RawNote(event_id=f"e{seed}", patient_id="p1", language="es", document_date=date(2024, 1, 18),
                   text=SPANISH_DISCHARGE)  # type: ignore[call-arg]
    sub = Substituter(InMemoryStore(), KeyHasher(b"0123456789abcdef-test-secret"), Settings(),
                      random.Random(seed))
    (out,) = await sub.substitute([note], [spans], ModelInfo(name="shipped", version="0"))
    text = out.text
    assert text.startswith("Paciente: Dña. ")
    d, m, y = map(int, re.search(r"nacimiento: (\d\d)/(\d\d)/(\d{4})", text).groups())  # type: ignore[union-attr]
    age = int(re.search(r"\((\d+) años\)", text).group(1))  # type: ignore[union-attr]
    seen = [date(int(c), int(b), int(a)) for a, b, c in re.findall(r"(\d\d)/(\d\d)/(20\d\d)", text)]
    born_at = date(y, m, d)
    ages = {r.year - born_at.year - ((r.month, r.day) < (born_at.month, born_at.day)) for r in seen}
    assert min(ages) - 1 <= age <= max(ages) + 1, (text, ages)
