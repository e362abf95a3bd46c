"""``deid train --from-repr FILE...``: a de-identification head from representation files only
(the command's side; the lab code it drives is ``deid.lab.share``).

Every file must come from one frozen representation model (same sha256): vectors of two models
live in different spaces. With ``--dev CORPUS --repr-model DIR`` the head is then scored on the
corpus, represented first with that model (token-level binary PHI F1 over words).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np


def train_from_repr(args: argparse.Namespace) -> int:
    import torch

    from deid.cli import CliError
    from deid.lab.share.head import HeadConfig, represent_segments, score_words, train_head
    from deid.lab.share.reprfile import ReprFileError, read_repr_file
    from deid.lab.share.store import load_representation, save_head

    torch.set_num_threads(args.threads)
    vectors: list[np.ndarray] = []
    labels: list[np.ndarray] = []
    models: set[tuple[str, str]] = set()
    for name in args.from_repr:
        try:
            f = read_repr_file(Path(name))
        except (ReprFileError, OSError) as exc:
            raise CliError(str(exc) if isinstance(exc, ReprFileError) else f"cannot read {name}") from None
        models.add((f.model_id, f.model_sha256))
        vectors.extend(f.vectors)
        labels.extend(f.labels)
    if len(models) != 1:
        raise CliError(f"the files come from {len(models)} representation models; a head needs one")
    model_id, sha = next(iter(models))
    if not vectors:
        raise CliError("the representation files hold no sequence")
    cfg = HeadConfig(hidden=args.head_hidden, epochs=args.head_epochs, seed=args.seed)
    head = train_head(vectors, labels, cfg, log=lambda line: print(line, file=sys.stderr, flush=True))
    save_head(
        head,
        Path(args.out),
        width=int(vectors[0].shape[1]),
        hidden=cfg.hidden,
        extra={
            "repr_model_id": model_id,
            "repr_model_sha256": sha,
            "files": len(args.from_repr),
            "sequences": len(vectors),
        },
    )
    print(f"head written to {args.out} ({len(vectors)} sequences, model {model_id})")
    if not args.dev:
        return 0
    if not args.repr_model:
        raise CliError("--dev with --from-repr needs --repr-model (to represent the dev corpus)")
    try:
        frozen = load_representation(Path(args.repr_model))
    except (FileNotFoundError, ValueError) as exc:
        raise CliError(str(exc)) from None
    if frozen.sha256 != sha:
        raise CliError("--repr-model is not the model the representation files were made with")
    from deid.cli.repr_lab import read_corpora
    from deid.lab.share.units import segment_corpus

    generator = torch.Generator().manual_seed(args.seed)
    for arg in args.dev:
        segments = segment_corpus(frozen.units, read_corpora([arg], what="--dev"), frozen.max_len)
        score = score_words(head, represent_segments(frozen.represent, segments, generator), segments)
        print(f"dev {arg}: {score.line()}")
    return 0
