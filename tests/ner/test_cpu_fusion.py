"""The encoder's dense blocks fused into oneDNN calls on CPU (issue 18): the shipped model reads
every token as the eager model does, in fp32 and in bf16; the detector runs fused; a model that
may still train is never touched."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from deid.ner import DEFAULT_MODEL_DIR, cpu_fusion
from deid.ner.cpu_fusion import FusedLinear, FusedResidualOutput, fuse_bert_for_cpu, fusion_available
from deid.ner.infer import NerDetector, predict_spans
from deid.ner.model import load_token_classifier

pytestmark = pytest.mark.skipif(not fusion_available(), reason="torch built without oneDNN")


def _shipped(dtype: torch.dtype = torch.float32) -> Any:
    model, _ = load_token_classifier(Path(DEFAULT_MODEL_DIR))
    return model.eval().to(dtype)


def _batch() -> tuple[torch.Tensor, torch.Tensor]:
    rng = np.random.default_rng(7)
    ids = torch.from_numpy(rng.integers(5, 30000, size=(6, 96)).astype(np.int64))
    mask = torch.ones_like(ids)
    mask[1, 40:] = 0  # padded rows: the mask must reach the fused graph unchanged
    mask[4, 70:] = 0
    return ids, mask


def _logits(model: Any, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    with torch.inference_mode():
        return model(input_ids=ids, attention_mask=mask).logits.float()


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["fp32", "bf16"])
def test_the_fused_shipped_model_tags_every_token_as_the_eager_one(dtype: torch.dtype) -> None:
    if not fusion_available(dtype):
        pytest.skip(f"this CPU has no oneDNN {dtype}")
    ids, mask = _batch()
    eager = _shipped(dtype)
    fused = _shipped(dtype)
    layers = fuse_bert_for_cpu(fused)
    assert layers == eager.config.num_hidden_layers
    a, b = _logits(eager, ids, mask), _logits(fused, ids, mask)
    real = mask.bool()
    agreement = (a.argmax(-1) == b.argmax(-1))[real].float().mean().item()
    # fp32: the same arithmetic in another order; bf16: rounding of 8-bit mantissas, stated bound
    tol = 1e-3 if dtype == torch.float32 else 0.5
    assert (a - b)[real].abs().max().item() < tol
    assert agreement >= (1.0 if dtype == torch.float32 else 0.995)


def test_fusion_replaces_the_dense_blocks_and_keeps_the_weights_themselves() -> None:
    model = _shipped()
    weight = model.bert.encoder.layer[0].intermediate.dense.weight
    fuse_bert_for_cpu(model)
    layer = model.bert.encoder.layer[0]
    assert isinstance(layer.intermediate.dense, FusedLinear) and layer.intermediate.dense.act == "gelu"
    assert isinstance(layer.attention.self.query, FusedLinear)
    assert isinstance(layer.output, FusedResidualOutput)
    assert isinstance(layer.attention.output, FusedResidualOutput)
    assert layer.intermediate.dense.weight is weight  # no copy of the weights


def test_a_training_model_or_one_without_cpu_support_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    training = _shipped().train()
    assert fuse_bert_for_cpu(training) == 0
    assert not any(isinstance(m, FusedLinear) for m in training.modules())
    monkeypatch.setattr(cpu_fusion, "fusion_available", lambda dtype=torch.float32: False)
    model = _shipped()
    assert fuse_bert_for_cpu(model) == 0
    assert not any(isinstance(m, FusedLinear) for m in model.modules())


def test_the_cpu_detector_runs_fused_and_padded_and_finds_what_the_eager_model_finds() -> None:
    text = ("Paciente: Rosa Martínez García, 67 años, nacida el 12/03/1951 en Sevilla. "
            "Médico: Dr. Juan López. Teléfono 954 123 456.")
    detector = NerDetector.from_path(DEFAULT_MODEL_DIR, device="cpu", dtype="float32")
    assert any(isinstance(m, FusedLinear) for m in detector._model.modules())
    eager, tok = load_token_classifier(Path(DEFAULT_MODEL_DIR))
    expected = predict_spans(eager.eval(), tok, [text])[0]
    got = detector.detect([text], ["es"])[0]
    assert [(s.start, s.end, s.label) for s in got] == [(s.start, s.end, s.label) for s in expected]
    # batches padded to a multiple of 32 (the default) read as unpadded ones: padding is masked
    assert detector.config.pad_multiple == 32
    unpadded = detector.with_config(replace(detector.config, pad_multiple=1))
    texts = [text, text[:40], "Alta: 3 de mayo de 2019. Dra. Ana Ruiz Pérez, Hospital de Jaén."]
    for a, b in zip(detector.detect(texts, ["es"] * 3), unpadded.detect(texts, ["es"] * 3), strict=True):
        assert [(s.start, s.end, s.label) for s in a] == [(s.start, s.end, s.label) for s in b]
    # training's checkpoint scoring goes through the same forward and must not be fused
    assert not any(isinstance(m, FusedLinear) for m in eager.modules())


def test_the_cpu_forward_reads_a_padded_batch_as_the_model_does_with_its_2d_mask() -> None:
    """``torch_forward`` hands SDPA a broadcast boolean mask; the probabilities are those of the
    model called the documented way."""
    from deid.ner.infer import torch_forward

    ids, mask = _batch()
    model = _shipped()
    assert model.config._attn_implementation == "sdpa"
    expected = torch.softmax(_logits(model, ids, mask), dim=-1).numpy()
    got = torch_forward(model)(ids.numpy(), mask.numpy())
    real = mask.bool().numpy()
    assert np.abs(got - expected)[real].max() < 1e-5
