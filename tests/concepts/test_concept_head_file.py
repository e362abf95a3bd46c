"""The concept head lives in its own file, ``concepts.safetensors`` (issue 34); a model exported
before that, with the head's tensors in ``model.safetensors``, is still read, and can be split."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def _tensors(path: Path) -> dict[str, tuple[str, bytes]]:
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as f:
        names = list(f.keys())  # a safetensors handle is not iterable
        return {k: (str(f.get_tensor(k).dtype), f.get_tensor(k).numpy().tobytes()) for k in names}


def _older_model(tmp_path: Path) -> tuple[Path, dict[str, object], dict[str, object]]:
    """A model directory in the layout before issue 34: one file holding both models' tensors."""
    import torch
    from safetensors.torch import save_file

    gen = torch.Generator().manual_seed(3)
    head = {"concepts.layers.0.attention.self.query.weight": torch.randn(4, 4, generator=gen).half(),
            "concepts.classifier.bias": torch.randn(7, generator=gen).half()}
    de_id = {"bert.encoder.layer.0.attention.self.query.weight": torch.randn(4, 4, generator=gen).half(),
             "classifier.bias": torch.randn(5, generator=gen).half()}
    model = tmp_path / "older"
    model.mkdir()
    save_file({**head, **de_id}, str(model / "model.safetensors"), metadata={"format": "pt"})
    (model / "config.json").write_text(json.dumps({"deid_concepts": {"from_layer": 0}}))
    return model, head, de_id


def test_an_older_model_s_head_is_read_from_its_model_file(tmp_path: Path) -> None:
    from deid.concepts.model import read_branch_tensors

    model, head, _ = _older_model(tmp_path)
    got = read_branch_tensors(model)
    assert sorted(got) == sorted(head)
    assert all(got[k].equal(v) for k, v in head.items())  # type: ignore[attr-defined]


def test_splitting_an_older_model_moves_the_head_tensors_unchanged(tmp_path: Path) -> None:
    from safetensors import safe_open

    from deid.concepts.model import HEAD_FILE, read_branch_tensors, split_branch_file

    model, head, de_id = _older_model(tmp_path)
    before = _tensors(model / "model.safetensors")
    assert split_branch_file(model) == len(head)
    head_file, model_file = _tensors(model / HEAD_FILE), _tensors(model / "model.safetensors")
    assert sorted(head_file) == sorted(head) and sorted(model_file) == sorted(de_id)
    assert {**head_file, **model_file} == before  # same names, dtypes and bytes
    with safe_open(str(model / "model.safetensors"), framework="pt") as f:
        assert f.metadata() == {"format": "pt"}
    for name in (HEAD_FILE, "model.safetensors"):
        assert (model / name).stat().st_mode & 0o777 == 0o644
    assert sorted(read_branch_tensors(model)) == sorted(head)
    assert split_branch_file(model) == 0  # nothing left to move


def test_a_head_file_holding_other_tensors_is_refused(tmp_path: Path) -> None:
    import torch
    from safetensors.torch import save_file

    from deid.concepts.model import HEAD_FILE, read_branch_tensors, write_branch_file

    with pytest.raises(ValueError, match="concepts"):
        write_branch_file({"classifier.bias": torch.zeros(2)}, tmp_path)
    save_file({"classifier.bias": torch.zeros(2)}, str(tmp_path / HEAD_FILE))
    with pytest.raises(ValueError, match="outside the concept head"):
        read_branch_tensors(tmp_path)


def test_a_compact_save_leaves_no_head_file_its_config_does_not_name(tmp_path: Path) -> None:
    import torch
    from safetensors.torch import save_file

    from deid.concepts.model import HEAD_FILE
    from deid.ner.model import new_token_classifier, save_compact

    (tmp_path / "ckpt").mkdir()
    save_file({"concepts.classifier.bias": torch.zeros(2)}, str(tmp_path / "ckpt" / HEAD_FILE))
    save_compact(new_token_classifier().eval(), tmp_path / "ckpt", fp16=True)
    assert not (tmp_path / "ckpt" / HEAD_FILE).exists()
