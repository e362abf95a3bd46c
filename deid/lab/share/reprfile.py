"""The shared file: sequences of vectors and their tag ids, and nothing else of the notes.

A safetensors file holding ``vectors`` (all units, float16, dim columns), ``labels`` (int8 tag
ids of ``deid.labels.BIO_TAGS``), ``offsets`` (where each sequence starts), and in its header
the frozen representation model's id and sha256. No unit id, no document id, no label name, no
path: sequences are written in a random order, so a file does not even keep a note's sentences
together.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from deid.labels import BIO_TAGS

FORMAT = "deid-repr/1"
TAGSET_SHA256 = hashlib.sha256(json.dumps(BIO_TAGS).encode()).hexdigest()


class ReprFileError(ValueError):
    """Not a representation file, or one of another tag set."""


@dataclass(frozen=True)
class ReprFile:
    vectors: list[np.ndarray]  # one (length, dim) float32 array per sequence
    labels: list[np.ndarray]  # one (length,) int64 array per sequence
    model_id: str
    model_sha256: str

    @property
    def dim(self) -> int:
        return int(self.vectors[0].shape[1]) if self.vectors else 0


def write_repr_file(
    path: Path,
    vectors: Sequence[np.ndarray],
    labels: Sequence[np.ndarray],
    *,
    model_id: str,
    model_sha256: str,
    rng: np.random.Generator,
) -> None:
    from safetensors.numpy import save_file

    if len(vectors) != len(labels) or not vectors:
        raise ValueError("one label sequence per vector sequence, and at least one")
    order = rng.permutation(len(vectors))
    lengths = np.asarray([vectors[i].shape[0] for i in order], dtype=np.int64)
    tensors: dict[str, np.ndarray] = {
        "vectors": np.concatenate([vectors[i] for i in order]).astype(np.float16),
        "labels": np.concatenate([labels[i] for i in order]).astype(np.int8),
        "offsets": np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64),
    }
    meta = {
        "format": FORMAT,
        "model_id": model_id,
        "model_sha256": model_sha256,
        "tagset_sha256": TAGSET_SHA256,
        "sequences": str(len(vectors)),
    }
    save_file(tensors, str(path), metadata=meta)


def read_repr_file(path: Path) -> ReprFile:
    from safetensors import SafetensorError, safe_open

    try:
        with safe_open(str(path), "np") as f:
            meta = f.metadata() or {}
            if meta.get("format") != FORMAT:
                raise ReprFileError(f"{path}: not a representation file ({FORMAT})")
            if meta.get("tagset_sha256") != TAGSET_SHA256:
                raise ReprFileError(f"{path}: labels of another tag set than this version's")
            vec = f.get_tensor("vectors").astype(np.float32)
            lab = f.get_tensor("labels").astype(np.int64)
            off = f.get_tensor("offsets")
    except SafetensorError as exc:
        raise ReprFileError(f"{path}: not a representation file") from exc
    spans = list(zip(off[:-1].tolist(), off[1:].tolist(), strict=True))
    return ReprFile(
        [vec[a:b] for a, b in spans], [lab[a:b] for a, b in spans], meta["model_id"], meta["model_sha256"]
    )


def max_cosine_to_rows(vectors: np.ndarray, table: np.ndarray, chunk: int = 4096) -> float:
    """The highest cosine between a shared vector and a row of the input table (its first ``dim``
    columns when the vectors are shorter): near 1 would mean the file carries input embeddings."""
    dim = vectors.shape[1]
    if dim > table.shape[1]:
        return 0.0  # no row can be carried whole in fewer columns than the vector's
    rows = table[:, :dim].astype(np.float32)
    rows = rows / (np.linalg.norm(rows, axis=1, keepdims=True) + 1e-12)
    v = vectors.astype(np.float32)
    v = v / (np.linalg.norm(v, axis=1, keepdims=True) + 1e-12)
    best = -1.0
    for lo in range(0, v.shape[0], chunk):
        best = max(best, float((v[lo : lo + chunk] @ rows.T).max()))
    return best
