"""``python -m deid.lab.training.concepts`` end to end on a few sentences: the command that trained the
shipped concept head (on a GPU, stopped by ``--max-minutes``) writes the epoch dev chose, and a
model directory whose de-identification tensors are the base model's, untouched, with the head in
its own file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SENTENCES = [
    [("Se", "O"), ("inició", "O"), ("tratamiento", "O"), ("con", "O"), ("paracetamol", "B-NORMALIZABLES"),
     (".", "O")],
    [("Recibió", "O"), ("insulina", "B-PROTEINAS"), ("glargina", "I-PROTEINAS"), ("y", "O"),
     ("metformina", "B-NORMALIZABLES"), (".", "O")],
    [("Sin", "O"), ("alergias", "O"), ("conocidas", "O"), (".", "O")],
    [("Creatinina", "B-NORMALIZABLES"), ("de", "O"), ("1,2", "O"), ("mg/dl", "O"), (".", "O")],
]


def write_conll(path: Path, copies: int) -> Path:
    lines = []
    for _ in range(copies):
        for sent in SENTENCES:
            lines.extend(f"{tok}\t{tag}" for tok, tag in sent)
            lines.append("")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.timeout(300)
def test_a_run_stopped_by_time_keeps_the_best_epoch_and_the_de_id_tensors(tmp_path: Path) -> None:
    from safetensors import safe_open

    from deid.concepts.model import CONFIG_KEY
    from deid.lab.training.concepts import main
    from deid.ner import DEFAULT_MODEL_DIR

    train = write_conll(tmp_path / "train.conll", 3)
    dev = write_conll(tmp_path / "dev.conll", 1)
    out = tmp_path / "run"
    top = json.loads((DEFAULT_MODEL_DIR / "config.json").read_text())["num_hidden_layers"] - 1
    main(["--train", str(train), "--dev", str(dev), "--out", str(out), "--from-layer", str(top),
          "--variants", "stacked", "--epochs", "5", "--lr", "1e-4", "--threads", "2",
          "--device", "cpu", "--max-minutes", "0.0001"])
    summary = json.loads((out / "summary.json").read_text())
    run = summary["runs"][0]
    assert run["epoch"] == 0  # the time limit passed during the first epoch: it stopped there
    assert "stopped by time after epoch 0 of 5" in (out / "train.log").read_text()
    model = out / f"model-stacked-L{top}"
    cfg = json.loads((model / "config.json").read_text())
    assert cfg[CONFIG_KEY]["from_layer"] == top and cfg[CONFIG_KEY]["scores"]["epoch"] == 0
    with safe_open(str(DEFAULT_MODEL_DIR / "model.safetensors"), "pt") as a, \
            safe_open(str(model / "model.safetensors"), "pt") as b:
        names_a, names_b = list(a.keys()), list(b.keys())  # a safetensors handle is not iterable
        de_id = [k for k in names_a if not k.startswith("concepts.")]
        assert sorted(names_b) == sorted(de_id) and all(a.get_tensor(k).equal(b.get_tensor(k)) for k in de_id)
    with safe_open(str(model / "concepts.safetensors"), "pt") as c:
        names_c = list(c.keys())
        assert all(k.startswith("concepts.") for k in names_c)
        assert any(k.startswith("concepts.layers.0.") for k in names_c)


def test_a_branch_from_beyond_the_model_s_last_layer_is_refused_in_one_line(tmp_path: Path) -> None:
    from deid.lab.training.concepts import main
    from deid.ner import DEFAULT_MODEL_DIR

    n = json.loads((DEFAULT_MODEL_DIR / "config.json").read_text())["num_hidden_layers"]
    conll = write_conll(tmp_path / "train.conll", 1)
    with pytest.raises(SystemExit, match=f"--from-layer {n}: the model has layers 0 to {n - 1}"):
        main(["--train", str(conll), "--dev", str(conll), "--out", str(tmp_path / "run"),
              "--from-layer", str(n), "--device", "cpu"])
