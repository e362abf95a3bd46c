"""Compact checkpoints (no word embeddings) round-trip; the train command fails in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from deid.cli import main


def test_compact_checkpoint_round_trips_without_word_embeddings(tmp_path: Path) -> None:
    import torch
    from safetensors import safe_open

    from deid.ner.model import WORD_EMB, load_token_classifier, new_token_classifier, save_compact

    torch.manual_seed(0)
    model = new_token_classifier().eval()
    save_compact(model, tmp_path / "ckpt", fp16=False)
    with safe_open(str(tmp_path / "ckpt" / "model.safetensors"), framework="pt") as f:
        assert WORD_EMB not in set(f.keys())
    assert (tmp_path / "ckpt" / "model.safetensors").stat().st_size < 120 * 2**20
    loaded, tok = load_token_classifier(tmp_path / "ckpt")
    ids = tok("Mme Hélène Martin, née le 3 mars 1950.", return_tensors="pt")
    with torch.inference_mode():
        a = model(**ids).logits
        b = loaded(**ids).logits
    assert torch.allclose(a, b, atol=1e-5)


def test_compact_save_drops_a_concept_head_it_does_not_write(tmp_path: Path) -> None:
    """A model trained from an --init model that has a concept head inherits its config entry; the
    compact file holds only the token classifier, so the entry must go or the model would claim
    tensors it lacks (seen on a distilled student, 2026-11-24)."""
    import json

    from deid.concepts.model import CONFIG_KEY
    from deid.ner.model import load_token_classifier, new_token_classifier, save_compact

    model = new_token_classifier().eval()
    model.config.update({CONFIG_KEY: {"from_layer": 0, "stacked": True}})
    save_compact(model, tmp_path / "ckpt", fp16=False)
    assert CONFIG_KEY not in json.loads((tmp_path / "ckpt" / "config.json").read_text())
    load_token_classifier(tmp_path / "ckpt")


def test_train_without_data_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error" in err


def test_export_of_a_missing_checkpoint_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["train", "--export", str(tmp_path / "nope"), "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_english_training_notes_from_an_evaluation_seed_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The English dev set is drawn with seeds from 1,000,000 up: training must not see them."""
    code = main(["train", "--synth-en", "2", "--seed", "1000017", "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "reserved for evaluation" in err


@pytest.mark.timeout(300)
def test_synthetic_english_notes_join_the_training_documents(tmp_path: Path) -> None:
    import json

    out = tmp_path / "run"
    assert main(["train", "--synth-en", "2", "--init", "deid/models/default", "--max-steps", "1",
                 "--threads", "2", "--device", "cpu", "--out", str(out), "--no-resume"]) == 0
    assert json.loads((out / "config.json").read_text())["sources"][-1] == "synth-en:2"
    assert "train: 2 docs" in (out / "train.log").read_text()
