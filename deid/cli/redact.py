"""``deid redact FILE|DIR|- ...``: print notes with every detected mention replaced.

One file (or ``-``) prints the redacted note, as it always did. Several files, a directory or a
JSON-lines stream (``--jsonl``) go through one process, the model loaded once, with a progress
bar on standard error and a summary at the end: text files are written under ``--out-dir``,
JSON lines (and ``--json`` for several notes) to standard output, one object per note.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from deid.cli import CliError
from deid.cli._detector import add_model_options, detector_from_args, detector_settings

if TYPE_CHECKING:
    from deid.pipeline import NotePipeline
    from deid.protocols import Detector
    from deid.render import PlacedSpan
    from deid.settings import Settings
    from deid.spans import Span
    from deid.store.base import PatientStore

LANGUAGES = ("fr", "es", "en")
MAX_BYTES = 16 * 1024 * 1024  # a note, not a corpus: refuse anything larger than this


def profiles() -> list[str]:
    """The substitution profiles the library offers (``deid.substitution.PROFILES``): a profile
    added there appears here without touching this file."""
    from deid.substitution import PROFILES

    return list(PROFILES)


class _DeprecatedStrategy(argparse.Action):
    """``--strategy``: the former name of ``--profile``, still accepted, with a note on stderr."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        print("deid redact: note: --strategy is deprecated, use --profile (the same choice)", file=sys.stderr)
        setattr(namespace, self.dest, values)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "redact",
        help="replace the PHI of notes with placeholders ([PER], [DATE]...) or surrogates",
        description="Detect PHI in notes and print them with every mention replaced. One FILE (or - "
        "for standard input) prints the note; with --json, the redacted text, \"spans\" (the "
        "mentions in the input, original offsets, with the recognizer that found each) and "
        "\"output_spans\" (where each replacement sits in the output). Several files, a directory or "
        "--jsonl run in one process (the model loaded once) with a progress bar and a summary on "
        "standard error.",
    )
    p.add_argument("paths", metavar="FILE", nargs="+",
                   help="UTF-8 text file, directory (its --glob files), or - for standard input")
    p.add_argument("--lang", choices=LANGUAGES, default=None,
                   help="language of the notes (default: read from each note's text, French when it "
                   "says too little; a note that reads as another language than --lang is warned about)")
    p.add_argument("--json", action="store_true", help="print JSON with the text and the spans")
    p.add_argument("--rules-only", "--no-model", dest="rules_only", action="store_true",
                   help="detect with the rule recognizers alone (person names are then NOT detected)")
    p.add_argument("--model", metavar="DIR", type=Path, default=None,
                   help="token-classification model directory (default: the shipped model)")
    choices = profiles()
    p.add_argument("--profile", dest="profile", choices=choices, default="placeholder",
                   help="substitution profile, one of " + ", ".join(choices) + " (docs/PRIVACY.md): "
                   "placeholder: category tags (default); dp: dates on a per-patient differentially "
                   "private timeline (order kept), ages derived from the surrogate birth date, random "
                   "names and ids, cities by the exponential mechanism; random: random surrogates, "
                   "dates shifted by one secret per patient, ages under 90 KEPT; safe-harbor: HIPAA "
                   "Safe Harbor dates (year only) and ages (90+), ages under 90 KEPT. Every profile "
                   "keeps the patient's sex, titles and kinship words; what a note kept is listed in "
                   "its JSON's kept_labels. Without DEID_HMAC_SECRET a random secret is drawn per "
                   "process (surrogates then differ between runs; --store needs the secret)")
    p.add_argument("--strategy", dest="profile", choices=choices, action=_DeprecatedStrategy,
                   default=argparse.SUPPRESS, help="deprecated: the former name of --profile")
    p.add_argument("--date", metavar="YYYY-MM-DD", type=_iso_date, default=None,
                   help="document date: the reference of relative dates, partial dates and ages; "
                   "without it they are noised alone or replaced by their placeholder")
    p.add_argument("--locale", choices=("fr-FR", "es-ES", "en-US", "en-GB"), default=None,
                   help="conventions of the notes: en-US reads 3/9/2024 as March 9 and draws US "
                   "places, en-GB day first and UK places (default: DEID_LOCALES for the language, "
                   "else for English read from each note's text (day-first dates, postcodes, NHS "
                   "numbers, spellings; said on standard error), else the language's: en-US for en)")
    p.add_argument("--date-order", choices=("dmy", "mdy"), default=None,
                   help="order of numeric dates, overriding the locale's")
    p.add_argument("--patient", metavar="ID", default="local",
                   help="patient id: surrogates are memoized per patient (with --store)")
    p.add_argument("--store", metavar="FILE", type=Path, default=None,
                   help="local memo file (SQLite) kept between runs, so that two notes of one patient "
                   "get the same surrogates (default: memo kept in memory for this run only)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed the surrogate generator (reproducible output; never in production)")
    p.add_argument("--jsonl", action="store_true",
                   help="inputs are JSON lines, one note per line: {\"text\": ..., optional \"id\", "
                   "\"lang\", \"date\", \"patient\"}; prints one JSON object per note")
    p.add_argument("--out-dir", metavar="DIR", type=Path, default=None,
                   help="with several text files or a directory: write each redacted note here, under "
                   "its path relative to its input")
    p.add_argument("--glob", default="*.txt", metavar="PATTERN",
                   help="files taken from a directory, searched recursively (default: *.txt)")
    p.add_argument("--batch-size", type=int, default=16, metavar="N",
                   help="notes (or pieces of a long note) per detection call (default 16)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress bar on standard error (default: when it is a terminal)")
    add_model_options(p)
    p.set_defaults(handler=run)


def _iso_date(value: str) -> date:
    try:
        day = date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date in YYYY-MM-DD form: {value!r}") from None
    from deid.events import EARLIEST_DOCUMENT, latest_document, plausible_document_date

    if not plausible_document_date(day):
        raise argparse.ArgumentTypeError(
            f"{value} is not a plausible document date (between {EARLIEST_DOCUMENT} and {latest_document()})")
    return day


def note_language(text: str, given: str | None, source: str) -> str:
    """The language to read ``text`` in: ``given`` (warned about when the text reads as another
    one), else the one the text reads as, else French."""
    from deid.rules.language import read_language

    read = read_language([text])
    if given is not None:
        if read is not None and read != given:
            print(f"deid redact: warning: {source} reads as {read!r}, not {given!r} (--lang); dates, "
                  f"names and places are read as {given!r}", file=sys.stderr)
        return given
    return read or "fr"


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
    """Placeholders for every span but the quasi-identifiers kept by default (the patient's sex),
    as the substitution engine's placeholder profile does."""
    from deid.labels import KEPT_BY_DEFAULT
    from deid.render import Replacement, render

    return render(text, [Replacement(s.start, s.end, s.label, placeholder(s), "placeholder")
                         for s in spans if s.label not in KEPT_BY_DEFAULT])


def redact_settings(args: argparse.Namespace) -> Settings:
    """The settings of a run: the environment's, with the model flags (``detector_settings``) and
    ``--profile`` on top, concept tagging off (the command prints no concepts block)."""
    base = detector_settings(args)
    update: dict[str, Any] = {"profile": args.profile,
                              "concepts": base.concepts.model_copy(update={"enabled": False})}
    if args.profile == "placeholder":
        # placeholders are rendered by ``redact`` and key nothing the command prints: the secret
        # is not read, so a test secret too short for the keyed hashes does not stop the run
        update["hmac_secret"] = None
    return base.model_copy(update=update)


@dataclass
class Run:
    """One run of the command: the pipeline ``deid.pipeline.build_pipeline`` builds from the run's
    settings (the detector loaded once, the substitution engine under ``--profile``) over one memo,
    closed when the run ends."""

    pipeline: NotePipeline
    store: PatientStore

    def close(self) -> None:
        import asyncio

        asyncio.run(self.store.close())


def open_run(args: argparse.Namespace) -> Run:
    """The run's settings, then the one constructor of the pipeline (``deid.pipeline``) over them,
    the detector from ``detector_from_args`` (which warns about the rules alone) and ``--seed``'s
    generator (the system's when not given)."""
    from deid.pipeline import build_pipeline

    settings = redact_settings(args)
    detector = detector_from_args(args, settings=settings)
    store = open_memo(args, settings)
    rng = random.Random(args.seed) if args.seed is not None else None
    return Run(build_pipeline(settings, store, rng, detector), store)


def open_memo(args: argparse.Namespace, settings: Settings) -> PatientStore:
    """``--store``'s memo file, else one in-memory memo for the whole run, so that the notes of one
    patient (--jsonl with a shared "patient", or several files) keep one set of surrogates. The
    placeholder profile draws nothing: it never opens the file (nor needs the secret for it)."""
    from deid.store.factory import open_store
    from deid.store.memory import InMemoryStore

    if args.store is None or args.profile == "placeholder":
        return InMemoryStore()
    try:
        args.store.parent.mkdir(parents=True, exist_ok=True)
        return open_store(settings, local_path=args.store)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise CliError(f"cannot open the memo file {args.store}: {reason}") from None


def substitute(note: Note, spans: list[Span], args: argparse.Namespace, run: Run,
               locale: str | None = None) -> tuple[str, list[dict[str, Any]]]:
    """Surrogates through the run's pipeline, one note at a time (a seeded run draws in the order
    of the notes), memoized per patient."""
    import asyncio

    from deid.events import RawNote
    from deid.labels import Label

    patient = note.patient or args.patient
    raw = RawNote(event_id=f"cli:{patient}:{hash_text(note.text)}", patient_id=patient,
                  language=note.lang or args.lang or "fr",  # type: ignore[arg-type]
                  document_date=note.doc_date or args.date, text=note.text,
                  locale=locale or args.locale, date_order=args.date_order)  # type: ignore[arg-type]
    (out,) = asyncio.run(run.pipeline.substitute([raw], [spans]))
    return out.text, [
        {"start": s.start, "end": s.end, "label": s.label, "category": Label(s.label).category.value,
         "strategy": s.strategy}
        for s in out.spans
    ]


def hash_text(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass
class Note:
    """One note of a run: where it came from, its text and its per-note options."""

    source: str  # path, "-", or "FILE:LINE" of a JSON line
    text: str
    lang: str
    doc_date: date | None = None
    patient: str | None = None
    note_id: Any = None
    rel: Path | None = None  # path under --out-dir


def replace(note: Note, spans: list[Span], args: argparse.Namespace, run: Run
            ) -> tuple[str, list[dict[str, Any]]]:
    if args.profile == "placeholder":
        output, placed = redact(note.text, spans)
        return output, [
            {"start": p.start, "end": p.end, "label": p.label.value, "category": p.label.category.value,
             "strategy": p.strategy}
            for p in placed
        ]
    return substitute(note, spans, args, run, note_locale(note, args))


def note_locale(note: Note, args: argparse.Namespace) -> str | None:
    """The locale to substitute ``note`` in: ``--locale``; else, for an English note whose locale
    DEID_LOCALES does not set, the one its text shows (said on standard error, like a language read
    from the text); else None (DEID_LOCALES, or the language's default)."""
    from deid.locales import read_english_locale, reads_locale_from_text
    from deid.settings import Settings

    if not reads_locale_from_text(note.lang, args.locale, Settings()):
        return None
    reading = read_english_locale(note.text)
    if reading.locale is None:
        return None
    where = "standard input" if note.source == "-" else note.source
    print(f"deid redact: {where}: locale {reading.locale} read from the text "
          f"({', '.join(reading.reasons())}); give --locale to override", file=sys.stderr)
    return reading.locale


def payload(note: Note, output: str, spans: list[Span], out_spans: list[dict[str, Any]],
            detector: Detector) -> dict[str, Any]:
    return {
        "text": output,
        "language": note.lang,
        "detector": {"name": detector.model_name, "version": detector.model_version},
        "spans": [
            {"start": s.start, "end": s.end, "label": s.label.value, "category": s.label.category.value,
             "source": s.source}
            for s in spans
        ],
        "output_spans": out_spans,
        # what the profile left in clear (the patient's sex; ages under "random"/"safe-harbor")
        "kept_labels": kept_labels(spans, out_spans),
    }


def kept_labels(spans: list[Span], out_spans: list[dict[str, Any]]) -> list[str]:
    from deid.labels import KEPT_BY_DEFAULT

    kept = {s["label"] for s in out_spans if s["strategy"] == "kept"}
    if all(s["strategy"] == "placeholder" for s in out_spans):  # the placeholder path keeps these
        kept |= {s.label.value for s in spans if s.label in KEPT_BY_DEFAULT}
    return sorted(kept)


def run(args: argparse.Namespace) -> int:
    batch_mode = args.jsonl or len(args.paths) > 1 or any(Path(p).is_dir() for p in args.paths if p != "-")
    if not batch_mode:
        return _run_one(args)
    return _run_batch(args)


def _run_one(args: argparse.Namespace) -> int:
    """One note: the command's original behaviour, with progress for a long one."""
    text = read_note(args.paths[0])
    run = open_run(args)
    try:
        detector = run.pipeline.detector
        note = Note(args.paths[0], text, note_language(text, args.lang, args.paths[0]))
        with Progress(len(text.encode("utf-8")), "B", args.progress) as bar:
            spans = _detect([note], detector, args, bar)[0]
        output, out_spans = replace(note, spans, args, run)
    finally:
        run.close()
    if args.json:
        doc = payload(note, output, spans, out_spans, detector)
        sys.stdout.buffer.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
    else:
        sys.stdout.write(output if output.endswith("\n") or not output else output + "\n")
    sys.stdout.flush()
    return 0


def _detect(notes: list[Note], detector: Detector, args: argparse.Namespace,
            bar: Progress) -> list[list[Span]]:
    from deid.ner.chunked import ChunkedDetector

    def done(pieces: Sequence[str]) -> None:
        bar.update(sum(len(p.encode("utf-8")) for p in pieces))

    chunked = ChunkedDetector(detector, batch=max(1, args.batch_size), progress=done)
    return chunked.detect([n.text for n in notes], [n.lang for n in notes])


def iter_inputs(args: argparse.Namespace, errors: list[str]) -> Iterator[Note]:
    """Every note named on the command line, read lazily (a directory of thousands of files is
    never held in memory at once); unreadable ones are reported in ``errors`` and skipped."""
    for raw in args.paths:
        if args.jsonl:
            yield from _iter_jsonl(raw, args, errors)
            continue
        path = Path(raw)
        if raw != "-" and path.is_dir():
            for f in sorted(p for p in path.rglob(args.glob) if p.is_file()):
                try:
                    text = read_note(str(f))
                    yield Note(str(f), text, note_language(text, args.lang, str(f)), args.date, None, None,
                               f.relative_to(path))
                except CliError as exc:
                    errors.append(str(exc))
            continue
        try:
            text = read_note(raw)
            yield Note(raw, text, note_language(text, args.lang, raw), args.date, None, None, Path(path.name))
        except CliError as exc:
            errors.append(str(exc))


def _iter_jsonl(raw: str, args: argparse.Namespace, errors: list[str]) -> Iterator[Note]:
    try:
        fh = sys.stdin.buffer if raw == "-" else Path(raw).open("rb")  # noqa: SIM115 (closed below)
    except OSError as exc:
        errors.append(f"cannot read {raw}: {exc.strerror or type(exc).__name__}")
        return
    name = "standard input" if raw == "-" else raw
    try:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            where = f"{name}:{lineno}"
            try:
                obj = orjson.loads(line)
                if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
                    raise ValueError("not an object with a \"text\" string")
                lang = obj.get("lang") or obj.get("language") or note_language(obj["text"], args.lang, where)
                if lang not in LANGUAGES:
                    raise ValueError(f"unknown language {lang!r}")
                doc_date = _json_date(obj.get("date")) or args.date
                patient = str(obj["patient"]) if obj.get("patient") is not None else None
            except orjson.JSONDecodeError:
                errors.append(f"{where}: skipped (invalid JSON)")  # never echo the line: it may hold PHI
                continue
            except (ValueError, KeyError) as exc:
                errors.append(f"{where}: skipped ({exc})")
                continue
            yield Note(where, obj["text"], lang, doc_date, patient, obj.get("id"), None)
    finally:
        if fh is not sys.stdin.buffer:
            fh.close()


def _json_date(value: Any) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(str(value))
    except ValueError:
        raise ValueError("\"date\" is not YYYY-MM-DD") from None


def _batches(notes: Iterator[Note], max_chars: int, max_notes: int) -> Iterator[list[Note]]:
    """Notes grouped so a detection call holds at most ``max_notes`` notes or ``max_chars`` characters."""
    cur: list[Note] = []
    size = 0
    for n in notes:
        if cur and (len(cur) >= max_notes or size + len(n.text) > max_chars):
            yield cur
            cur, size = [], 0
        cur.append(n)
        size += len(n.text)
    if cur:
        yield cur


def _run_batch(args: argparse.Namespace) -> int:
    text_out = not args.jsonl and not args.json
    if text_out and args.out_dir is None:
        raise CliError("several notes: give --out-dir DIR to write them, or --json / --jsonl for JSON lines")
    if args.out_dir is not None:
        args.out_dir.mkdir(parents=True, exist_ok=True)
    run = open_run(args)
    try:
        return _redact_all(args, run, text_out)
    finally:
        run.close()


def _redact_all(args: argparse.Namespace, run: Run, text_out: bool) -> int:
    detector = run.pipeline.detector
    errors: list[str] = []
    total_bytes = _known_size(args)
    started = time.perf_counter()
    n_notes = n_chars = 0
    by_category: Counter[str] = Counter()
    with Progress(total_bytes, "B", args.progress) as bar:
        for batch in _batches(iter_inputs(args, errors), 200_000, max(1, args.batch_size)):
            found = _detect(batch, detector, args, bar)
            for note, spans in zip(batch, found, strict=True):
                output, out_spans = replace(note, spans, args, run)
                by_category.update(s.label.category.value for s in spans)
                n_notes += 1
                n_chars += len(note.text)
                if text_out:
                    assert args.out_dir is not None and note.rel is not None
                    dest = args.out_dir / note.rel
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    dest.write_text(output, encoding="utf-8")
                else:
                    doc = payload(note, output, spans, out_spans, detector)
                    doc = {"id": note.note_id if args.jsonl else note.source, **doc}
                    if not args.json:  # plain --jsonl: the text and where each replacement sits
                        doc = {k: doc[k] for k in ("id", "text", "language", "output_spans")}
                    sys.stdout.buffer.write(orjson.dumps(doc) + b"\n")
            sys.stdout.flush()
    elapsed = time.perf_counter() - started
    cats = ", ".join(f"{c} {k}" for c, k in sorted(by_category.items(), key=lambda kv: -kv[1])) or "none"
    print(f"deid redact: {n_notes} notes, {n_chars:,} characters in {elapsed:.1f} s "
          f"({n_notes / elapsed if elapsed > 0 else 0:.1f} notes/s); {sum(by_category.values())} mentions "
          f"replaced ({cats}); {len(errors)} skipped", file=sys.stderr)
    for e in errors:
        print(f"deid redact: {e}", file=sys.stderr)
    return 1 if errors else 0


def _known_size(args: argparse.Namespace) -> int | None:
    """Bytes to read when every input is a plain file or directory (the bar's total), else None."""
    if "-" in args.paths:
        return None
    total = 0
    for raw in args.paths:
        p = Path(raw)
        files = [f for f in p.rglob(args.glob) if f.is_file()] if p.is_dir() else [p]
        total += sum(f.stat().st_size for f in files if f.exists())
    return total


class Progress:
    """A tqdm bar on standard error (characters done), shown on a terminal or when asked."""

    def __init__(self, total: int | None, unit: str, enabled: bool | None) -> None:
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._bar: Any = None
        if self.enabled:
            from tqdm import tqdm

            self._bar = tqdm(total=total, unit=unit, unit_scale=True, file=sys.stderr, dynamic_ncols=True,
                             mininterval=0.5, leave=True)

    def update(self, n: int) -> None:
        if self._bar is not None:
            self._bar.update(n)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.close()
