"""``deid share-repr CORPUS --model DIR -o FILE``: an annotated corpus as a shareable
representation file (vectors and tag ids, never text), made with a frozen representation model
(Friedrich et al. 2019; ``deid.lab.share``). The provider side is ``deid repr-lab``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from deid.cli import CliError


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "share-repr",
        help="turn an annotated corpus into a shareable representation file (no text)",
        description="Run the frozen representation model over an annotated corpus (BRAT directory, "
        "eds-pseudo .jsonl, ECHR .tsv, ...) and write a representation file: one sequence of noisy "
        "vectors per sentence, with the BIO tag id of each unit, in a random order, and the model's "
        "id and sha256. No token id, no document id, no text. A corpus without PHI annotations is "
        "refused (it would teach a head nothing). See docs/PRIVACY.md for what this does and does "
        "not protect.",
    )
    p.add_argument("input", metavar="CORPUS", type=Path, help="annotated corpus")
    p.add_argument(
        "--model",
        "-m",
        metavar="DIR",
        type=Path,
        required=True,
        help="frozen representation model directory (from deid repr-lab train)",
    )
    p.add_argument(
        "--output", "-o", metavar="FILE", type=Path, required=True, help="representation file to write"
    )
    p.add_argument("--format", default=None, help="corpus format (default: guessed)")
    p.add_argument("--lang", choices=("fr", "es", "en"), default=None, help="language of the corpus")
    p.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    p.add_argument(
        "--include-heldout",
        action="store_true",
        help="also represent the documents of the frozen internal held-out lists (deid/lab/eval/heldout), "
        "which training data leaves out by default",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed the noise and the order (reproducible output; never in production)",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import secrets

    import numpy as np
    import torch

    from deid.lab.corpora import CorpusFormatError, read_corpus
    from deid.lab.share.head import represent_segments
    from deid.lab.share.reprfile import write_repr_file
    from deid.lab.share.store import load_representation
    from deid.lab.share.units import segment_corpus

    torch.set_num_threads(args.threads)
    try:
        docs = read_corpus(args.input, args.format, args.lang)
    except CorpusFormatError as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(f"cannot read {args.input}: {exc.strerror or 'I/O error'}") from None
    if not args.include_heldout:
        import sys

        from deid.lab.eval.heldout import leave_out

        docs, left_out = leave_out(docs)
        if left_out:
            print(f"left out {left_out} held-out documents (deid/lab/eval/heldout)", file=sys.stderr)
    if not any(d.spans for d in docs):
        raise CliError(
            f"{args.input}: no PHI annotation in the corpus; a representation file needs annotated notes"
        )
    try:
        frozen = load_representation(args.model)
    except (FileNotFoundError, ValueError) as exc:
        raise CliError(str(exc)) from None
    seed = args.seed if args.seed is not None else secrets.randbits(63)
    generator = torch.Generator().manual_seed(seed)
    segments = segment_corpus(frozen.units, docs, frozen.max_len)
    vectors = represent_segments(frozen.represent, segments, generator)
    try:
        write_repr_file(
            args.output,
            vectors,
            [s.tags for s in segments],
            model_id=frozen.model_id,
            model_sha256=frozen.sha256,
            rng=np.random.default_rng(seed),
        )
    except OSError as exc:
        raise CliError(f"cannot write {args.output}: {exc.strerror or 'I/O error'}") from None
    print(
        f"{len(segments)} sequences, {sum(len(s) for s in segments)} units, model {frozen.model_id} "
        f"({frozen.sha256[:12]})"
    )
    return 0
