"""``deid export-training INPUT --output OUT``: a pseudonymised copy of an annotated corpus whose
PHI words are moved to embedding neighbours (labels kept), for sharing training data."""

from __future__ import annotations

import argparse
import random
from pathlib import Path
from typing import Any

from deid.cli import CliError

FORMATS = ("brat", "eds-jsonl", "eds-templates", "echr-tsv")


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "export-training",
        help="write a copy of an annotated corpus with its PHI moved to embedding neighbours",
        description="Read an annotated corpus (BRAT directory, eds-pseudo .jsonl, ECHR .tsv) and write "
        "eds-style jsonl ({\"note_id\", \"note_text\", \"entities\": [{\"start\", \"end\", \"label\"}]}) "
        "in which every word of every gold PHI span is replaced by one of its N nearest neighbours in "
        "the multilingual-e5-small embedding space (Friedrich et al. 2019) and every number by random "
        "digits of the same shape. Labels are the project's, offsets point into the new text.",
    )
    p.add_argument("input", metavar="INPUT", type=Path, help="annotated corpus (BRAT dir, .jsonl, .tsv)")
    p.add_argument("--output", "-o", metavar="OUT", type=Path, required=True, help="output .jsonl file")
    p.add_argument("--format", choices=FORMATS, default=None, help="corpus format (default: guessed)")
    p.add_argument("--lang", choices=("fr", "es", "en"), default=None, help="language of the corpus")
    p.add_argument("--neighbours", "-n", type=int, default=5, metavar="N",
                   help="draw among the N nearest neighbours (1..10, default 5)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed the generator (reproducible output; never in production)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import orjson

    from deid.lab.corpora import CorpusFormatError, read_corpus
    from deid.lab.neighbours.export import pseudonymise_document, to_eds_record
    from deid.neighbours.replace import check_n
    from deid.neighbours.table import load_table

    try:
        check_n(args.neighbours)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    try:
        docs = read_corpus(args.input, args.format, args.lang)
    except CorpusFormatError as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(f"cannot read {args.input}: {exc.strerror or 'I/O error'}") from None
    rng: random.Random = random.Random(args.seed) if args.seed is not None else random.SystemRandom()
    table = load_table()
    try:
        with args.output.open("wb") as out:
            for doc in docs:
                new = pseudonymise_document(doc, rng, args.neighbours, table)
                out.write(orjson.dumps(to_eds_record(new)) + b"\n")
    except OSError as exc:
        raise CliError(f"cannot write {args.output}: {exc.strerror or 'I/O error'}") from None
    return 0
