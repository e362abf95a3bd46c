"""``deid scramble FILE|-``: every-token mode, each word replaced by one of its N nearest
neighbours in an embedding space and each number by random digits (Abdalla et al. 2020)."""

from __future__ import annotations

import argparse
import random
import sys
from typing import Any

from deid.cli import CliError
from deid.cli.redact import read_note


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "scramble",
        help="replace every word of a note by an embedding neighbour (100%% PHI recall, low readability)",
        description="Every-token mode (Abdalla et al. 2020): print the note (a file, or - for standard "
        "input) with every word replaced by a random one of its N nearest neighbours in the "
        "multilingual-e5-small embedding space, unknown words by a random word of similar length and "
        "every number by random digits of the same length. Punctuation, whitespace and case style are "
        "kept. No detection is involved, so no PHI can be missed.",
    )
    p.add_argument("path", metavar="FILE", help="UTF-8 text file, or - for standard input")
    p.add_argument("--neighbours", "-n", type=int, default=5, metavar="N",
                   help="draw among the N nearest neighbours (1..10; 3, 5, 7 in the paper; default 5)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed the generator (reproducible output; never in production)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from deid.neighbours.replace import check_n, replace_tokens

    try:
        check_n(args.neighbours)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    text = read_note(args.path)
    rng: random.Random = random.Random(args.seed) if args.seed is not None else random.SystemRandom()
    sys.stdout.write(replace_tokens(text, rng, args.neighbours))
    sys.stdout.flush()
    return 0
