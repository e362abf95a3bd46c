"""``deid train`` reads the realistic corpus's train notes only, and carries a concept head over
unchanged on export (issue 30)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from deid.cli import main

CORPUS = Path(__file__).resolve().parents[2] / "corpora" / "realistic" / "notes.jsonl"


@pytest.fixture(autouse=True)
def no_real_training(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run that got past the checks would start training for minutes: a failure instead."""
    import deid.lab.training.ner

    def refuse(*_: Any, **__: Any) -> Path:
        raise AssertionError("training started")

    monkeypatch.setattr(deid.lab.training.ner, "train", refuse)


def _split_of_notes() -> dict[str, str]:
    notes = (json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip())
    return {n["note_id"]: n["split"] for n in notes}


@pytest.mark.parametrize("arg", ["", "@dev", "@test", "@dev:3"])
def test_training_on_the_realistic_corpus_without_its_train_split_is_refused(
        arg: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["train", "--corpus", f"{CORPUS}{arg}", "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{CORPUS}@train" in err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("arg", ["", "@train", "@test"])
def test_model_selection_on_the_realistic_corpus_takes_its_dev_split_only(
        arg: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["train", "--synth", "1", "--dev", f"{CORPUS}{arg}", "--out", str(tmp_path / "run")])
    assert code == 2
    assert f"{CORPUS}@dev" in capsys.readouterr().err


def test_a_split_on_another_corpus_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "c.tsv"
    other.write_text("Juan\tB-PER\n", encoding="utf-8")
    assert main(["train", "--corpus", f"{other}@train", "--out", str(tmp_path / "run")]) == 2
    assert "only the realistic corpus has splits" in capsys.readouterr().err


def test_the_train_split_reaches_training_with_its_repeat_and_nothing_else(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import deid.lab.training.ner

    seen: dict[str, Any] = {}

    def fake_train(cfg: Any, docs: Any, dev: Any, resume: bool = True) -> Path:
        seen["docs"], seen["dev"] = list(docs), dev
        return tmp_path / "best"

    monkeypatch.setattr(deid.lab.training.ner, "train", fake_train)
    code = main(["train", "--corpus", f"{CORPUS}@train:2", "--dev", f"{CORPUS}@dev",
                 "--out", str(tmp_path / "run")])
    assert code == 0
    split = _split_of_notes()
    n_train = sum(1 for s in split.values() if s == "train")
    ids = [d.doc_id for d in seen["docs"]]
    assert {split[i] for i in ids} == {"train"}
    assert len(ids) == 2 * n_train  # held-out lists name no realistic note; the repeat oversamples
    assert {split[d.doc_id] for part in seen["dev"].values() for d in part} == {"dev"}


def _tensor_bytes(path: Path) -> dict[str, bytes]:
    from safetensors import safe_open

    with safe_open(str(path), framework="pt") as f:
        names = list(f.keys())  # a safetensors handle is not iterable
        return {k: f.get_tensor(k).numpy().tobytes() for k in names}


def _head_and_export(tmp_path: Path) -> tuple[dict[str, Any], Path, Path]:
    """A concept head's tensors, an empty source directory and an export holding its own
    de-identification tensors."""
    import torch
    from safetensors.torch import save_file

    gen = torch.Generator().manual_seed(7)
    source, out = tmp_path / "shipped", tmp_path / "candidate"
    source.mkdir()
    out.mkdir()
    head = {"concepts.classifier.weight": torch.randn(7, 4, generator=gen).half(),
            "concepts.layers.0.w": torch.randn(4, 4, generator=gen).half()}
    (source / "config.json").write_text(json.dumps({"deid_concepts": {"n_layers": 1}, "x": 1}))
    save_file({"classifier.weight": torch.randn(3, 4, generator=gen).half()}, str(out / "model.safetensors"))
    (out / "config.json").write_text(json.dumps({"deid_model_version": "cand"}))
    return head, source, out


def test_export_carries_the_concept_head_file_byte_for_byte(tmp_path: Path) -> None:
    import torch
    from safetensors.torch import save_file

    from deid.cli.train import carry_concepts

    head, source, out = _head_and_export(tmp_path)
    save_file(head, str(source / "concepts.safetensors"), metadata={"note": "kept"})
    save_file({"classifier.weight": torch.zeros(3, 4).half()}, str(source / "model.safetensors"))
    own = (out / "model.safetensors").read_bytes()

    assert carry_concepts(source, out) == 2
    assert (out / "concepts.safetensors").read_bytes() == (source / "concepts.safetensors").read_bytes()
    assert (out / "concepts.safetensors").stat().st_mode & 0o777 == 0o644
    assert (out / "model.safetensors").read_bytes() == own  # the export's own file, untouched
    cfg = json.loads((out / "config.json").read_text())
    assert cfg == {"deid_model_version": "cand", "deid_concepts": {"n_layers": 1}}
    with pytest.raises(ValueError, match="already holds"):
        carry_concepts(source, out)


def test_export_carries_an_older_model_s_head_out_of_its_model_file_unchanged(tmp_path: Path) -> None:
    """A model exported before the head had its own file holds it in model.safetensors: the export
    gets those tensors (same dtypes and bytes) in its concepts.safetensors."""
    import torch
    from safetensors.torch import save_file

    from deid.cli.train import carry_concepts

    head, source, out = _head_and_export(tmp_path)
    save_file({**head, "classifier.weight": torch.zeros(3, 4).half()}, str(source / "model.safetensors"))
    own = (out / "model.safetensors").read_bytes()

    assert carry_concepts(source, out) == 2
    got = _tensor_bytes(out / "concepts.safetensors")
    assert got == {k: v.numpy().tobytes() for k, v in head.items()}
    assert (out / "model.safetensors").read_bytes() == own
