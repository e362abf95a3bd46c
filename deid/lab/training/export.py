"""Turn a training checkpoint into the shipped compact form (fp16, no word embeddings)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path


def export_checkpoint(checkpoint: Path, out: Path, version: str | None = None) -> Path:
    from deid.ner.model import CONCEPTS_KEY, load_token_classifier, save_compact

    model, _ = load_token_classifier(checkpoint)
    if CONCEPTS_KEY in model.config.to_dict():
        # the compact file holds the de-identification model only; a head is added by
        # deid.lab.training.concepts (and a retrained de-identification model invalidates a stacked one)
        import logging

        logging.getLogger("deid.lab.training.export").warning(
            "%s: its concept head is not exported (retrain one with python -m deid.lab.training.concepts)",
            checkpoint)
    extra: dict[str, object] = {"deid_model_name": "deid-ner-e5-small"}
    scores = checkpoint / "scores.json"
    if version is None:
        version = str(getattr(model.config, "deid_model_version", "") or checkpoint.name)
    extra["deid_model_version"] = version
    keep = [p for p in ("MODEL_CARD.md",) if (out / p).exists()]
    saved = {p: (out / p).read_text() for p in keep}
    if out.exists():
        for child in out.iterdir():
            if child.is_file() and child.name not in saved:
                child.unlink()
            elif child.is_dir():
                shutil.rmtree(child)
    save_compact(model, out, fp16=True, extra=extra)
    for name, text in saved.items():
        (out / name).write_text(text)
    if scores.exists():
        (out / "scores.json").write_text(json.dumps(json.loads(scores.read_text()), indent=2))
    return out
