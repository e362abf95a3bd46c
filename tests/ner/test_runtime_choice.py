"""The model's runtime and number format follow the hardware (issue 18): bf16 torch on a CPU with
AMX, ONNX int8 on other CPUs, fp32 torch on a GPU; an explicit setting always wins."""

from __future__ import annotations

import pytest

from deid.ner import runtime


@pytest.fixture
def amx(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime, "cpu_has_amx_bf16", lambda: True)
    monkeypatch.setattr(runtime, "_cuda_available", lambda: False)


@pytest.fixture
def no_amx(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runtime, "cpu_has_amx_bf16", lambda: False)
    monkeypatch.setattr(runtime, "_cuda_available", lambda: False)


@pytest.mark.usefixtures("amx")
def test_a_cpu_with_amx_runs_torch_with_bf16_weights() -> None:
    assert runtime.resolve_backend("auto", "cpu") == "torch"
    assert runtime.resolve_backend("auto", "auto") == "torch"
    assert runtime.resolve_dtype("auto", "cpu") == "bfloat16"
    assert runtime.resolve_dtype("auto", "auto") == "bfloat16"


@pytest.mark.usefixtures("no_amx")
def test_a_cpu_without_amx_runs_onnx_int8_or_fp32_torch() -> None:
    assert runtime.resolve_backend("auto", "cpu") == "onnx"
    assert runtime.resolve_dtype("auto", "cpu") == "float32"


@pytest.mark.usefixtures("amx")
def test_a_gpu_runs_fp32_torch_even_beside_an_amx_cpu() -> None:
    assert runtime.resolve_backend("auto", "cuda") == "torch"
    assert runtime.resolve_dtype("auto", "cuda") == "float32"


@pytest.mark.usefixtures("amx")
def test_an_explicit_backend_or_dtype_is_kept() -> None:
    assert runtime.resolve_backend("onnx", "cpu") == "onnx"
    assert runtime.resolve_dtype("float32", "cpu") == "float32"
    assert runtime.resolve_dtype("float16", "cuda") == "float16"


def test_the_amx_probe_answers_a_bool_on_this_machine() -> None:
    runtime.cpu_has_amx_bf16.cache_clear()
    assert isinstance(runtime.cpu_has_amx_bf16(), bool)


@pytest.mark.usefixtures("amx")
def test_the_torch_detector_on_an_amx_cpu_casts_its_weights_to_bf16_and_says_so() -> None:
    torch = pytest.importorskip("torch")
    from transformers import BertConfig, BertForTokenClassification

    from deid.ner.infer import NerDetector

    config = BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, num_labels=3,
                        id2label={0: "O", 1: "B-PERSON", 2: "I-PERSON"},
                        label2id={"O": 0, "B-PERSON": 1, "I-PERSON": 2})
    model = BertForTokenClassification(config)
    auto = NerDetector(model, tokenizer=None, device="cpu")
    assert auto.backend == "torch-bf16"
    assert next(model.parameters()).dtype == torch.bfloat16
    fp32 = NerDetector(BertForTokenClassification(config), tokenizer=None, device="cpu", dtype="float32")
    assert fp32.backend == "torch"
    int8 = NerDetector(BertForTokenClassification(config), tokenizer=None, device="cpu", quantize_int8=True)
    assert int8.backend == "torch"
