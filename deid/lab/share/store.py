"""A frozen representation model on disk, and de-identification heads trained from shared files.

A model directory holds ``model.safetensors`` (the trained weights, not the frozen table) and
``config.json`` (sizes, the units, the table's sha256, the training history). Its identity is the
pair (``model_id``, sha256 of ``model.safetensors``), recorded in every file made with it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deid.lab.share.model import ReprDims, Representation, Tagger, frozen_embedding
from deid.lab.share.units import Units, load_units, table_sha256
from deid.labels import BIO_TAGS

MODEL_FORMAT = "deid-repr-model/1"
HEAD_FORMAT = "deid-repr-head/1"


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclass
class FrozenRepresentation:
    represent: Representation
    units: Units
    model_id: str
    sha256: str
    max_len: int


def save_representation(
    represent: Representation, units: Units, out: Path, *, model_id: str, max_len: int, extra: dict[str, Any]
) -> str:
    """Write the model directory; return the sha256 of its weights."""
    from safetensors.torch import save_file

    out.mkdir(parents=True, exist_ok=True)
    save_file(
        {k: v.contiguous() for k, v in represent.trainable_state().items()}, str(out / "model.safetensors")
    )
    config = {
        "format": MODEL_FORMAT,
        "model_id": model_id,
        "dims": represent.dims.to_dict(),
        "units": units.describe(),
        "table_sha256": table_sha256(units.embeddings),
        "max_len": max_len,
        **extra,
    }
    (out / "config.json").write_text(json.dumps(config, indent=1))
    return file_sha256(out / "model.safetensors")


def load_representation(path: Path, units: Units | None = None) -> FrozenRepresentation:
    """The frozen model of ``path`` (``units`` given: reuse them, e.g. an already loaded table)."""
    from safetensors.torch import load_file

    cfg_path = path / "config.json"
    if not cfg_path.is_file():
        raise FileNotFoundError(f"{path}: not a representation model directory (no config.json)")
    config = json.loads(cfg_path.read_text())
    if config.get("format") != MODEL_FORMAT:
        raise ValueError(f"{path}: not a representation model ({MODEL_FORMAT})")
    units = units or load_units(config["units"])
    if table_sha256(units.embeddings) != config["table_sha256"]:
        raise ValueError(f"{path}: the model was trained over another embedding table")
    represent = Representation(frozen_embedding(units.embeddings), ReprDims(**config["dims"]))
    represent.load_state_dict(load_file(str(path / "model.safetensors")), strict=False)
    represent.requires_grad_(False)
    represent.eval()
    return FrozenRepresentation(
        represent,
        units,
        str(config["model_id"]),
        file_sha256(path / "model.safetensors"),
        int(config["max_len"]),
    )


def save_head(head: Tagger, out: Path, *, width: int, hidden: int, extra: dict[str, Any]) -> None:
    from safetensors.torch import save_file

    out.mkdir(parents=True, exist_ok=True)
    save_file({k: v.contiguous() for k, v in head.state_dict().items()}, str(out / "head.safetensors"))
    config = {"format": HEAD_FORMAT, "width": width, "hidden": hidden, "n_tags": len(BIO_TAGS), **extra}
    (out / "head.json").write_text(json.dumps(config, indent=1))


def load_head(path: Path) -> tuple[Tagger, dict[str, Any]]:
    from safetensors.torch import load_file

    config = json.loads((path / "head.json").read_text())
    if config.get("format") != HEAD_FORMAT:
        raise ValueError(f"{path}: not a head trained from representation files")
    head = Tagger(int(config["width"]), int(config["hidden"]), int(config["n_tags"]))
    head.load_state_dict(load_file(str(path / "head.safetensors")))
    head.eval()
    return head, config
