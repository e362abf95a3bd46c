"""``deid scramble FILE|DIR|- ...``: every-token mode, each word replaced by one of its N nearest
neighbours in an embedding space and each number by random digits (Abdalla et al. 2020).

One file (or ``-``) prints the scrambled note. Several files, a directory or ``--jsonl`` run in one
process (the neighbour table loaded once) with a progress bar and a summary on standard error.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

import orjson

from deid.cli import CliError
from deid.cli.redact import Progress, iter_inputs, read_note


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "scramble",
        help="replace every word of notes by an embedding neighbour (100%% PHI recall, low readability)",
        description="Every-token mode (Abdalla et al. 2020): print the note (a file, or - for standard "
        "input) with every word replaced by a random one of its N nearest neighbours in the "
        "multilingual-e5-small embedding space, unknown words by a random word of similar length and "
        "every number by random digits of the same length. Punctuation, whitespace and case style are "
        "kept. No detection is involved, so no PHI can be missed. Several files, a directory or --jsonl "
        "run in one process with a progress bar and a summary.",
    )
    p.add_argument("paths", metavar="FILE", nargs="+",
                   help="UTF-8 text file, directory (its --glob files), or - for standard input")
    p.add_argument("--neighbours", "-n", type=int, default=5, metavar="N",
                   help="draw among the N nearest neighbours (1..10; 3, 5, 7 in the paper; default 5)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed the generator (reproducible output; never in production)")
    p.add_argument("--jsonl", action="store_true",
                   help="inputs are JSON lines with a \"text\" (and optional \"id\"); prints one JSON "
                   "object per note")
    p.add_argument("--out-dir", metavar="DIR", type=Path, default=None,
                   help="with several text files or a directory: write each scrambled note here")
    p.add_argument("--glob", default="*.txt", metavar="PATTERN",
                   help="files taken from a directory, searched recursively (default: *.txt)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar on standard error (default: when it is a terminal)")
    p.set_defaults(handler=run, lang="fr", date=None)


def run(args: argparse.Namespace) -> int:
    from deid.neighbours.replace import check_n, replace_tokens

    try:
        check_n(args.neighbours)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    rng: random.Random = random.Random(args.seed) if args.seed is not None else random.SystemRandom()
    batch_mode = args.jsonl or len(args.paths) > 1 or any(Path(p).is_dir() for p in args.paths if p != "-")
    if not batch_mode:
        text = read_note(args.paths[0])
        sys.stdout.write(replace_tokens(text, rng, args.neighbours))
        sys.stdout.flush()
        return 0
    if not args.jsonl and args.out_dir is None:
        raise CliError("several notes: give --out-dir DIR to write them, or --jsonl for JSON lines")
    if args.out_dir is not None:
        args.out_dir.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    started = time.perf_counter()
    n_notes = n_chars = 0
    with Progress(None, "notes", args.progress) as bar:
        for note in iter_inputs(args, errors):
            output = replace_tokens(note.text, rng, args.neighbours)
            n_notes += 1
            n_chars += len(note.text)
            if args.jsonl:
                sys.stdout.buffer.write(orjson.dumps({"id": note.note_id, "text": output}) + b"\n")
            else:
                assert args.out_dir is not None and note.rel is not None
                dest = args.out_dir / note.rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_text(output, encoding="utf-8")
            bar.update(1)
    sys.stdout.flush()
    elapsed = time.perf_counter() - started
    print(f"deid scramble: {n_notes} notes, {n_chars:,} characters in {elapsed:.1f} s "
          f"({n_notes / elapsed if elapsed > 0 else 0:.1f} notes/s); {len(errors)} skipped", file=sys.stderr)
    for e in errors:
        print(f"deid scramble: {e}", file=sys.stderr)
    return 1 if errors else 0
