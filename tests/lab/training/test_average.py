"""The weight-space average of two exported models: each floating tensor mixed, the rest copied."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file, save_file

from deid.lab.training.average import average, main


def _model(d: Path, value: float, version: str, shape: tuple[int, ...] = (2, 3)) -> Path:
    d.mkdir()
    tensors = {"w": torch.full(shape, value, dtype=torch.float16), "ids": torch.arange(4)}
    save_file(tensors, str(d / "model.safetensors"))
    (d / "config.json").write_text(json.dumps({"deid_model_version": version}))
    (d / "concepts.safetensors").write_bytes(b"head-" + version.encode())
    return d


def test_each_tensor_is_the_weighted_mean_and_the_rest_of_the_tuned_model_is_copied(tmp_path: Path) -> None:
    base, tuned = _model(tmp_path / "a", 1.0, "base"), _model(tmp_path / "b", 3.0, "tuned")
    out = average(base, tuned, 0.25, tmp_path / "out")
    weights = load_file(str(out / "model.safetensors"))
    assert weights["w"].dtype == torch.float16 and torch.all(weights["w"] == 1.5)  # 0.75 * 1 + 0.25 * 3
    assert torch.equal(weights["ids"], torch.arange(4))
    assert (out / "concepts.safetensors").read_bytes() == b"head-tuned"
    config = json.loads((out / "config.json").read_text())
    assert config["deid_model_version"] == "tuned-avg0.25" and config["deid_weight_average"]["alpha"] == 0.25


def test_models_of_two_shapes_are_refused_with_a_one_line_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base, tuned = _model(tmp_path / "a", 1.0, "base"), _model(tmp_path / "b", 3.0, "tuned", (3, 3))
    assert main([str(base), str(tuned), "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error:") and err.count("\n") == 1
