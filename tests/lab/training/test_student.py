"""The smaller student of issue 18: layers kept from the teacher, and the distillation loss."""

from __future__ import annotations

import math
from pathlib import Path

import pytest


def test_distillation_loss_is_the_temperature_scaled_kl_over_real_tokens() -> None:
    import torch

    from deid.lab.training.ner import distillation_loss

    teacher = torch.tensor([[[2.0, 0.0, -1.0], [0.0, 0.0, 0.0]]])
    student = torch.tensor([[[0.0, 1.0, 0.0], [5.0, -5.0, 0.0]]])
    mask = torch.tensor([[1, 0]])  # the second token is padding: it must not count
    T = 2.0
    pt = [math.exp(x / T) for x in (2.0, 0.0, -1.0)]
    pt = [x / sum(pt) for x in pt]
    ps = [math.exp(x / T) for x in (0.0, 1.0, 0.0)]
    ps = [x / sum(ps) for x in ps]
    expected = sum(a * math.log(a / b) for a, b in zip(pt, ps, strict=True)) * T * T
    assert float(distillation_loss(student, teacher, mask, T)) == pytest.approx(expected, rel=1e-5)
    assert float(distillation_loss(teacher, teacher, mask, T)) == pytest.approx(0.0, abs=1e-6)


def test_a_student_keeps_the_chosen_layers_and_round_trips_as_a_smaller_checkpoint(tmp_path: Path) -> None:
    import torch

    from deid.lab.training.ner import keep_layers
    from deid.ner.model import load_token_classifier, new_token_classifier, save_compact

    torch.manual_seed(0)
    teacher = new_token_classifier().eval()
    student = new_token_classifier().eval()
    student.load_state_dict(teacher.state_dict())
    keep_layers(student, [2, 5, 8, 11])
    assert len(student.bert.encoder.layer) == 4 and student.config.num_hidden_layers == 4
    w = student.bert.encoder.layer[1].attention.self.query.weight
    assert torch.equal(w, teacher.bert.encoder.layer[5].attention.self.query.weight)
    save_compact(student, tmp_path / "student", fp16=False)
    loaded, tok = load_token_classifier(tmp_path / "student")
    ids = tok("Paciente Juan Pérez, 45 años.", return_tensors="pt")
    with torch.inference_mode():
        assert torch.allclose(student(**ids).logits, loaded(**ids).logits, atol=1e-5)
    with pytest.raises(ValueError):
        keep_layers(new_token_classifier(), [5, 2])


def test_a_tag_the_trained_head_lacks_is_left_unscored_not_taught_as_o() -> None:
    from deid.lab.training.ner import document_examples
    from deid.labels import Label
    from deid.ner.e5 import load_tokenizer
    from deid.ner.encode import IGNORE
    from deid.ner.text import TAG2ID
    from deid.spans import Document, Span

    text = "Paciente varón de 45 años."
    doc = Document("d", text, "es", (Span(9, 14, Label.SEX, "gold"),))
    old_head = {t: i for t, i in TAG2ID.items() if not t.endswith("-SEX")}
    (ex,) = document_examples(load_tokenizer(), doc, 256, 64, old_head)
    (full,) = document_examples(load_tokenizer(), doc, 256, 64)
    assert TAG2ID["B-SEX"] in full.labels and TAG2ID["B-SEX"] not in ex.labels
    scored = [a for a, b in zip(ex.labels, full.labels, strict=True) if b == TAG2ID["B-SEX"]]
    assert scored == [IGNORE]


def test_a_bf16_distillation_run_keeps_fp32_weights_and_writes_a_loadable_student(tmp_path: Path) -> None:
    """``deid train --bf16``: autocast only, the student's master weights and checkpoint stay fp32."""
    import torch

    from deid.lab.training.ner import TrainConfig, train
    from deid.labels import Label
    from deid.ner import DEFAULT_MODEL_DIR
    from deid.ner.model import load_token_classifier
    from deid.spans import Document, Span

    text = "Paciente: Juan Pérez García, ingresó el 3 de mayo de 2019 en el Hospital La Paz."
    doc = Document("d1", text, "es", (Span(10, 27, Label.PATIENT, "gold"), Span(40, 57, Label.DATE, "gold")))
    top = load_token_classifier(DEFAULT_MODEL_DIR)[0].config.num_hidden_layers - 1
    cfg = TrainConfig(out_dir=str(tmp_path / "run"), init=str(DEFAULT_MODEL_DIR), keep_layers=[1, top],
                      teacher=str(DEFAULT_MODEL_DIR), bf16=True, max_steps=2, warmup_steps=1,
                      threads=2, eval_minutes=100.0, save_minutes=100.0)
    best = train(cfg, [doc, doc], {"dev": [doc]}, resume=False)
    student, _ = load_token_classifier(best)
    assert student.config.num_hidden_layers == 2
    assert all(p.dtype == torch.float32 for p in student.parameters())
    assert (tmp_path / "run" / "last").is_dir()


def test_a_run_without_a_dev_set_names_its_last_checkpoint_which_exists(tmp_path: Path) -> None:
    """Nothing chooses a checkpoint without a dev set: ``train`` returns the last one, a loadable
    model directory (it used to name a ``best`` directory that no run had written)."""
    from deid.lab.training.ner import TrainConfig, train
    from deid.labels import Label
    from deid.ner import DEFAULT_MODEL_DIR
    from deid.ner.model import load_token_classifier
    from deid.spans import Document, Span

    text = "Patient: John Smith, seen on 3 May 2019 at Mercy Hospital."
    doc = Document("d1", text, "en", (Span(9, 19, Label.PATIENT, "gold"), Span(29, 39, Label.DATE, "gold")))
    cfg = TrainConfig(out_dir=str(tmp_path / "run"), init=str(DEFAULT_MODEL_DIR), max_steps=1, warmup_steps=1,
                      threads=1, eval_minutes=100.0, save_minutes=100.0)
    chosen = train(cfg, [doc], {}, resume=False)
    assert chosen == tmp_path / "run" / "last"
    assert not (tmp_path / "run" / "best").exists()
    assert load_token_classifier(chosen)[0].config.num_hidden_layers >= 1
