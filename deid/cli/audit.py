"""``deid audit CORPUS``: leaks and broken facts of a realistic corpus under each profile."""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deid.cli import CliError

if TYPE_CHECKING:
    from deid.lab.corpora.realistic import Note
    from deid.lab.eval.audit_run import ProfileReport

PROFILES = ("placeholder", "dp", "random", "safe-harbor")


def register(subparsers: Any) -> None:
    from deid.cli._detector import add_model_options

    p = subparsers.add_parser(
        "audit",
        help="count leaks and broken facts of a realistic corpus under each profile",
        description="De-identify every note of a realistic corpus (corpora/realistic/notes.jsonl: "
        "text, gold PHI mentions, each patient's people and true dates) under each profile, each "
        "patient's notes in order on one memo, and report: leaks (a gold PHI value whose letters "
        "or digits survive, beyond what the profile keeps on purpose, docs/PRIVACY.md) per 1,000 "
        "PHI mentions, and broken facts (one person rendered two ways, a gender flip, dates out of "
        "order, an age against its birth date, a town and postcode that do not exist together, a "
        "clinical number changed). Exit status 1 when a leak or broken fact is found.",
    )
    p.add_argument("corpus", type=Path, metavar="CORPUS", help="notes.jsonl of a realistic corpus, "
                   "or its folder of raw writer files (corpora/realistic/raw)")
    p.add_argument("--split", choices=("train", "dev", "test", "all"), default="dev",
                   help="which part of the corpus (default: dev; test only to report)")
    p.add_argument("--profile", dest="profiles", action="append", choices=PROFILES, default=None,
                   help="profile to audit, repeatable (default: all four)")
    p.add_argument("--lang", choices=("fr", "es", "en"), default=None, help="only notes of this language")
    p.add_argument("--limit", type=int, default=None, metavar="N", help="only the first N notes")
    p.add_argument("--rules-only", dest="rules_only", action="store_true",
                   help="detect with the rules alone (names are then not detected)")
    p.add_argument("--gold", action="store_true",
                   help="replace the gold mentions instead of detecting (audits substitution alone)")
    p.add_argument("--model", metavar="DIR", type=Path, default=None, help="model directory")
    p.add_argument("--seed", type=int, default=0, help="seed of the surrogate draws (default 0)")
    p.add_argument("--findings", metavar="FILE", type=Path, default=None,
                   help="write every leak and broken fact as JSON lines")
    p.add_argument("--html", metavar="FILE", type=Path, default=None,
                   help="write a page for a privacy officer: each note's original and output side "
                   "by side, leaks and broken facts marked, totals per profile")
    p.add_argument("--quiet", action="store_true",
                   help="totals only, no finding lines (finding lines quote the corpus's gold values: "
                   "this is a report for an annotated corpus, never run it into a shared log)")
    add_model_options(p)
    p.set_defaults(handler=run)


def load(path: Path, split: str, lang: str | None, limit: int | None) -> list[Note]:
    from deid.lab.corpora.realistic import MarkupError, build, read_jsonl

    if not path.exists():
        raise CliError(f"{path}: no such file or directory")
    try:
        notes = build(path) if path.is_dir() else read_jsonl(path)
    except MarkupError as exc:
        raise CliError(str(exc)) from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CliError(f"{path}: not a realistic corpus ({type(exc).__name__})") from None
    notes = [n for n in notes if (split == "all" or n.split == split) and (lang is None or n.lang == lang)]
    if not notes:
        raise CliError(f"{path}: no note in split {split!r}" + (f" and language {lang!r}" if lang else ""))
    return notes[:limit] if limit else notes


def run(args: argparse.Namespace) -> int:
    from deid.lab.eval.audit_run import audit_profile, gold_spans

    notes = load(args.corpus, args.split, args.lang, args.limit)
    profiles = args.profiles or list(PROFILES)
    started = time.perf_counter()
    if args.gold:
        detected = [gold_spans(n) for n in notes]
        detector_name = "gold"
    else:
        from deid.cli._detector import detector_from_args
        from deid.ner.chunked import ChunkedDetector

        detector = detector_from_args(args)
        chunked = ChunkedDetector(detector, batch=16)
        detected = chunked.detect([n.text for n in notes], [n.lang for n in notes])
        detector_name = f"{detector.model_name} {detector.model_version}"
    reports = [audit_profile(notes, detected, p, seed=args.seed) for p in profiles]
    elapsed = time.perf_counter() - started
    print(f"deid audit: {len(notes)} notes ({args.split}), {len({n.patient for n in notes})} patients, "
          f"detector {detector_name}, {elapsed:.1f} s")
    for r in reports:
        print_report(r, quiet=args.quiet)
    if args.findings:
        write_findings(args.findings, reports)
    if args.html:
        from deid.lab.eval.audit_html import page

        args.html.write_text(page(reports, title=f"deid audit: {args.corpus.name}, {args.split}"),
                             encoding="utf-8")
        print(f"deid audit: wrote {args.html}", file=sys.stderr)
    bad = any(a.leaks or a.facts for r in reports for a in r.audits)
    return 1 if bad else 0


def print_report(r: ProfileReport, *, quiet: bool) -> None:
    from deid.lab.eval.audit_run import FACT_KINDS

    facts = r.fact_counts()
    n = len(r.audits)
    print(f"\n== {r.profile}: {r.leaked_mentions} leaked of {r.mentions} PHI mentions "
          f"({r.leaks_per_1000():.1f} per 1,000); broken facts {sum(facts.values())} "
          f"({sum(facts.values()) / max(1, n):.2f} per note): "
          + ", ".join(f"{k} {facts.get(k, 0)}" for k in FACT_KINDS))
    for key in ("lang", "kind"):
        for value, (notes, mentions, leaks, broken) in r.by(key).items():
            print(f"   {key}={value}: {notes} notes, {mentions} PHI, {leaks} leaked "
                  f"({1000 * leaks / max(1, mentions):.1f}/1,000), {broken} broken facts")
    if quiet:
        return
    for a in r.audits:
        for f in a.leaks + a.facts:
            print(f"   {f.note_id} {f.kind:<15} {f.label:<11} {f.original!r} -> {f.output!r} {f.detail}")


def write_findings(path: Path, reports: list[ProfileReport]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for r in reports:
            for a in r.audits:
                for f in a.leaks + a.facts:
                    fh.write(json.dumps({"profile": r.profile, **asdict(f)}, ensure_ascii=False) + "\n")
