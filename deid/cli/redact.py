"""``deid redact FILE|-``: print a note with every detected mention replaced by its category tag."""

from __future__ import annotations

import argparse
import random
import sys
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from deid.cli import CliError

if TYPE_CHECKING:
    from deid.detect import Detector
    from deid.render import PlacedSpan
    from deid.spans import Span

LANGUAGES = ("fr", "es", "en")
MAX_BYTES = 16 * 1024 * 1024  # a note, not a corpus: refuse anything larger than this


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "redact",
        help="replace the PHI of one note with placeholders ([PER], [DATE]...)",
        description="Detect PHI in a note (a file, or - for standard input) and print it with every "
        "mention replaced by its category tag. With --json, print the redacted text, \"spans\" (the "
        "mentions in the input, original offsets, with the recognizer that found each) and "
        "\"output_spans\" (where each placeholder sits in the output).",
    )
    p.add_argument("path", metavar="FILE", help="UTF-8 text file, or - for standard input")
    p.add_argument("--lang", choices=LANGUAGES, default="fr", help="language of the note (default: fr)")
    p.add_argument("--json", action="store_true", help="print JSON with the text and the spans")
    p.add_argument("--rules-only", action="store_true", help="detect with the rule recognizers alone")
    p.add_argument("--model", metavar="DIR", type=Path, default=None,
                   help="token-classification model directory (default: the shipped model)")
    p.add_argument("--strategy", choices=("placeholder", "random", "dp"), default="placeholder",
                   help="placeholder tags (default), random format-preserving surrogates with shifted "
                   "dates, or differentially private dates/ages/places with random surrogates")
    p.add_argument("--date", metavar="YYYY-MM-DD", type=_iso_date, default=None,
                   help="document date: the reference for durations (dp/random); without it absolute "
                   "dates are replaced by [DATE]")
    p.add_argument("--patient", metavar="ID", default="local",
                   help="patient id: surrogates are memoized per patient (with --store)")
    p.add_argument("--store", metavar="FILE", type=Path, default=None,
                   help="local memo file (SQLite) kept between runs, so that two notes of one patient "
                   "get the same surrogates (default: memo kept in memory for this run only)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed the surrogate generator (reproducible output; never in production)")
    p.set_defaults(handler=run)


def _iso_date(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date in YYYY-MM-DD form: {value!r}") from None


def build_detector(args: argparse.Namespace) -> Detector:
    """The single place that decides which detector ``deid redact`` uses: the rules merged with
    the token classifier (the shipped model, or ``--model``), or the rules alone."""
    from deid.cli._detector import hybrid_detector

    return hybrid_detector(getattr(args, "model", None), args.rules_only)


def read_note(path: str) -> str:
    """The note's text; a one-line CliError when it cannot be read or is not UTF-8."""
    try:
        if path == "-":
            data = sys.stdin.buffer.read(MAX_BYTES + 1)
            name = "standard input"
        else:
            name = path
            with Path(path).open("rb") as fh:
                data = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror or type(exc).__name__}") from None
    if len(data) > MAX_BYTES:
        raise CliError(f"{name} is larger than {MAX_BYTES // (1024 * 1024)} MiB")
    try:
        # A BOM stays a character of the text, so that offsets match the file's (as BRAT counts them).
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CliError(f"{name} is not UTF-8 text (invalid byte at offset {exc.start})") from None


def placeholder(span: Span) -> str:
    return f"[{span.label.category.value}]"


def redact(text: str, spans: list[Span]) -> tuple[str, list[PlacedSpan]]:
    from deid.render import Replacement, render

    return render(text, [Replacement(s.start, s.end, s.label, placeholder(s), "placeholder") for s in spans])


def substitute(text: str, spans: list[Span], args: argparse.Namespace) -> tuple[str, list[dict[str, Any]]]:
    """Surrogates through the substitution engine, memoized in a local store when asked."""
    import asyncio

    from deid.labels import Label
    from deid.settings import Settings
    from deid.store.base import PatientStore
    from deid.store.factory import open_store
    from deid.substitute import deidentify_text

    store: PatientStore | None = None
    if args.store is not None:
        try:
            args.store.parent.mkdir(parents=True, exist_ok=True)
            store = open_store(Settings(), local_path=args.store)
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            raise CliError(f"cannot open the memo file {args.store}: {reason}") from None
    rng = random.Random(args.seed) if args.seed is not None else None
    note = deidentify_text(text, spans, args.lang, args.date, strategy=args.strategy, rng=rng, store=store,
                           patient_id=args.patient, event_id=f"cli:{args.patient}:{hash_text(text)}")
    if store is not None:
        asyncio.run(store.close())
    return note.text, [
        {"start": s.start, "end": s.end, "label": s.label, "category": Label(s.label).category.value,
         "strategy": s.strategy}
        for s in note.spans
    ]


def hash_text(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def run(args: argparse.Namespace) -> int:
    text = read_note(args.path)
    detector = build_detector(args)
    spans = detector.detect([text], [args.lang])[0]
    if args.strategy == "placeholder":
        output, placed = redact(text, spans)
        out_spans: list[dict[str, Any]] = [
            {"start": p.start, "end": p.end, "label": p.label.value, "category": p.label.category.value,
             "strategy": p.strategy}
            for p in placed
        ]
    else:
        output, out_spans = substitute(text, spans, args)
    if args.json:
        payload = {
            "text": output,
            "language": args.lang,
            "detector": {"name": detector.model_name, "version": detector.model_version},
            "spans": [
                {"start": s.start, "end": s.end, "label": s.label.value, "category": s.label.category.value,
                 "source": s.source}
                for s in spans
            ],
            "output_spans": out_spans,
        }
        sys.stdout.buffer.write(orjson.dumps(payload, option=orjson.OPT_INDENT_2) + b"\n")
    else:
        sys.stdout.write(output if output.endswith("\n") or not output else output + "\n")
    sys.stdout.flush()
    return 0
