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
