"""The shipped model's weight files (issue 34): each model in its own file, fp16, and the model card
giving each file's size and sha256."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from deid.ner import DEFAULT_MODEL_DIR

pytestmark = pytest.mark.skipif(
    not (DEFAULT_MODEL_DIR / "model.safetensors").is_file(), reason="no shipped model"
)


def _header(path: Path) -> dict[str, dict[str, object]]:
    """A safetensors file's tensor table (name -> dtype, shape, offsets), read without the data."""
    with path.open("rb") as fh:
        size = int.from_bytes(fh.read(8), "little")
        table: dict[str, dict[str, object]] = json.loads(fh.read(size))
    table.pop("__metadata__", None)
    return table


def test_the_concept_head_and_the_de_identification_model_are_in_separate_files() -> None:
    from deid.concepts.model import CONFIG_KEY, HEAD_FILE, PREFIX, BranchSpec, branch_depth

    model, head = _header(DEFAULT_MODEL_DIR / "model.safetensors"), _header(DEFAULT_MODEL_DIR / HEAD_FILE)
    assert model and not any(k.startswith(PREFIX) for k in model)
    assert head and all(k.startswith(PREFIX) for k in head)
    spec = BranchSpec.from_json(json.loads((DEFAULT_MODEL_DIR / "config.json").read_text())[CONFIG_KEY])
    assert branch_depth(head) == spec.n_layers


def test_the_shipped_weights_are_fp16() -> None:
    for name in ("model.safetensors", "concepts.safetensors"):
        assert {t["dtype"] for t in _header(DEFAULT_MODEL_DIR / name).values()} == {"F16"}, name


def test_the_model_card_gives_each_weight_file_s_size_and_sha256() -> None:
    card = (DEFAULT_MODEL_DIR / "MODEL_CARD.md").read_text(encoding="utf-8")
    files = sorted(DEFAULT_MODEL_DIR.glob("*.safetensors"))
    assert [f.name for f in files] == ["concepts.safetensors", "model.safetensors"]
    for f in files:
        row = re.search(rf"^\s*\| `{re.escape(f.name)}` \|.*\| ([\d,]+) \| `([0-9a-f]{{64}})` \|$", card,
                        re.M)
        assert row, f"MODEL_CARD.md has no row for {f.name}"
        assert int(row.group(1).replace(",", "")) == f.stat().st_size, f.name
        assert row.group(2) == hashlib.sha256(f.read_bytes()).hexdigest(), f.name
