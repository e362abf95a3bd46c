"""The ONNX Runtime path agrees with the torch path on sample notes (issue 18).

The first run builds the shipped model's ONNX files into the cache (``deid.ner.onnx_backend``,
about a minute on 2 cores); later runs and the CLI reuse them.
"""

from __future__ import annotations

from typing import Any

import pytest

from deid.ner import DEFAULT_MODEL_DIR

pytestmark = [
    pytest.mark.skipif(not (DEFAULT_MODEL_DIR / "model.safetensors").is_file(), reason="no shipped model"),
    pytest.mark.timeout(900),
]
onnxruntime = pytest.importorskip("onnxruntime")

SAMPLES = [
    ("fr", "Compte-rendu d'hospitalisation. Mme Martine Lefebvre, née le 12/03/1951, a été hospitalisée du "
     "02/02/2024 au 09/02/2024 pour une pneumopathie. Elle vit avec son époux Gérard Lefebvre. Rendez-vous "
     "avec le Dr Antoine Mercier le 15 mars 2024."),
    ("es", "Paciente: Rosa Martínez Gómez, de 67 años, ingresó el 3 de mayo de 2019 en el servicio de "
     "cardiología. Médico responsable: Dr. Javier Ruiz Ortega. Alta el 10/05/2019."),
    ("en", "Discharge summary. Patient: John Miller, born 04/11/1948, was admitted on 02/01/2023 with chest "
     "pain. Seen by Dr. Sarah Thompson. Follow-up on March 3, 2023."),
    ("fr", "\n".join(
        f"Le {d}/03/2024, Mme Claire Dubois (IPP 80129394{d:02d}) est revue par le Dr Paul Girard au CHU de "
        "Nantes. Elle habite 12 rue des Lilas, 44000 Nantes. Tél : 06 12 34 56 78. Pas de fièvre."
        for d in range(1, 15))),
]


@pytest.fixture(scope="module")
def backends() -> dict[str, Any]:
    import torch

    from deid.ner import load_detector, load_onnx_detector
    from deid.ner.model import load_token_classifier
    from deid.ner.onnx_backend import ensure_onnx

    torch.set_num_threads(2)
    model, _ = load_token_classifier(DEFAULT_MODEL_DIR)
    ensure_onnx(DEFAULT_MODEL_DIR, int8=True, model=model)  # builds fp32 and int8 once
    return {
        "torch": load_detector(DEFAULT_MODEL_DIR, device="cpu", dtype="float32"),
        "torch-bf16": load_detector(DEFAULT_MODEL_DIR, device="cpu", dtype="bfloat16"),
        "onnx": load_onnx_detector(DEFAULT_MODEL_DIR, int8=False, threads=2),
        "onnx-int8": load_onnx_detector(DEFAULT_MODEL_DIR, int8=True, threads=2),
    }


def _spans(det: Any) -> list[list[tuple[int, int, str]]]:
    found = det.detect([t for _, t in SAMPLES], [lang for lang, _ in SAMPLES])
    return [[(s.start, s.end, s.label.value) for s in doc] for doc in found]


def test_onnx_fp32_gives_exactly_the_torch_spans(backends: dict[str, Any]) -> None:
    assert _spans(backends["onnx"]) == _spans(backends["torch"])


def _assert_same_mentions(ref: list[list[tuple[int, int, str]]], got: list[list[tuple[int, int, str]]],
                          category_share: float) -> None:
    """``got`` keeps at least ``category_share`` of ``ref``'s mentions with their category and
    masks 98 % of the characters ``ref`` masks."""
    from deid.labels import Label

    for (_, text), r, g in zip(SAMPLES, ref, got, strict=True):
        cat_r = {(a, b, Label(lab).category) for a, b, lab in r}
        cat_g = {(a, b, Label(lab).category) for a, b, lab in g}
        assert len(cat_r & cat_g) >= category_share * len(cat_r)
        ref_chars = {c for a, b, _ in r for c in range(a, b) if not text[c].isspace()}
        got_chars = {c for a, b, _ in g for c in range(a, b)}
        assert len(ref_chars & got_chars) >= 0.98 * len(ref_chars)


def test_onnx_int8_finds_the_same_mentions_as_torch(backends: dict[str, Any]) -> None:
    # int8 weights move probabilities by a few hundredths: a fine label (PERSON or STAFF) or a
    # boundary may change where the model hesitates (MEDDOCAN dev F1 in docs/BENCHMARKS.md), but
    # no mention is lost and the categories hold
    _assert_same_mentions(_spans(backends["torch"]), _spans(backends["onnx-int8"]), 0.8)


def test_the_onnx_detector_names_its_backend_and_keeps_the_model_version(backends: dict[str, Any]) -> None:
    assert backends["onnx-int8"].backend == "onnx-int8"
    assert backends["onnx-int8"].model_version == backends["torch"].model_version


def test_torch_bf16_on_cpu_finds_the_same_mentions_as_fp32(backends: dict[str, Any]) -> None:
    # bf16 weights keep 8 bits of mantissa: probabilities move where the model hesitates, but the
    # mentions and their categories hold (MEDDOCAN dev figures in docs/BENCHMARKS.md)
    _assert_same_mentions(_spans(backends["torch"]), _spans(backends["torch-bf16"]), 0.9)
    assert backends["torch-bf16"].backend == "torch-bf16" and backends["torch"].backend == "torch"


def test_settings_pick_onnx_on_cpu_and_the_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    from deid.ner import resolve_backend, runtime

    monkeypatch.setattr(runtime, "cpu_has_amx_bf16", lambda: False)
    assert resolve_backend("auto", "cpu") == "onnx"
    assert resolve_backend("auto", "cuda") == "torch"
    assert resolve_backend("torch", "cpu") == "torch"
    from deid.settings import Settings

    monkeypatch.setenv("DEID_MODEL__BACKEND", "onnx")
    monkeypatch.setenv("DEID_MODEL__MIN_PHI_PROB", "0.3")
    model = Settings().model
    assert model.backend == "onnx" and model.min_phi_prob == 0.3


def test_the_operating_threshold_belongs_to_the_model_unless_a_number_is_set(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The shipped model records 0.1 in its config.json and the settings read it by default; a
    model that records none runs at its most probable tag (a threshold chosen for one model is
    wrong for another); a number in the settings or on the command line overrides it."""
    import json

    from deid.ner import DEFAULT_MODEL_DIR, operating_threshold
    from deid.settings import Settings

    monkeypatch.delenv("DEID_MODEL__MIN_PHI_PROB", raising=False)
    assert Settings().model.min_phi_prob == "model"
    assert operating_threshold("model", DEFAULT_MODEL_DIR) == 0.1
    other = tmp_path / "other"
    other.mkdir()
    (other / "config.json").write_text(json.dumps({"model_type": "bert"}))
    assert operating_threshold("model", other) is None
    assert operating_threshold(0.3, other) == 0.3 and operating_threshold(None, DEFAULT_MODEL_DIR) is None
    monkeypatch.setenv("DEID_MODEL__MIN_PHI_PROB", "0.3")
    assert operating_threshold(Settings().model.min_phi_prob, DEFAULT_MODEL_DIR) == 0.3
    (other / "config.json").write_text(json.dumps({"deid_min_phi_prob": 3}))
    with pytest.raises(ValueError, match="deid_min_phi_prob"):
        operating_threshold("model", other)
