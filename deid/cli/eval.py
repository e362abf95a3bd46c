"""``deid eval PATH``: score the detector against a gold corpus and print the figures;
``deid eval --task concepts FILE.conll``: score the concept tagger (``deid.concepts``) instead."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from deid.cli import CliError
from deid.cli._detector import add_model_options, detector_from_args, detector_settings
from deid.labels import Label

if TYPE_CHECKING:
    from deid.concepts import ConceptTagger
    from deid.spans import Document, Span

FORMATS = ("brat", "eds-jsonl", "eds-templates", "echr-tsv", "realistic")
LANGUAGES = ("fr", "es", "en")
TASKS = ("deid", "concepts")
# options of the de-identification task only (default None or False): an error with --task concepts
_DEID_ONLY = {"errors": "--errors", "format": "--format", "lang": "--lang", "split": "--split",
              "rules_only": "--rules-only", "labels": "--labels", "scheme": "--scheme",
              "convention": "--convention", "backend": "--backend", "min_phi_prob": "--min-phi-prob"}


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "eval",
        help="score the detector (or, with --task concepts, the concept tagger) against an annotated corpus",
        description="--task deid (the default): run the PHI detector over a gold corpus (BRAT folder, "
        "eds-pseudo jsonl or templates, ECHR TSV, the realistic corpus's notes.jsonl) and print "
        "precision, recall and F1 per label and micro-averaged (strict: exact span and label; "
        "relaxed: overlap, any label), strict per coarse category, token-level binary PHI F1 (i2b2), "
        "the share of documents with every PHI character detected, and the clinical tokens changed "
        "per 1,000 (tokens outside every gold span that a prediction covers: what an analyst loses). "
        "--task concepts: run the concept tagger (drug, chemical and protein mentions, the model's "
        "concept head) over a CoNLL file (token TAB BIO tag, a blank line between sentences; each "
        "sentence read whole, as the corpus cuts it) and print strict micro precision, recall and F1 "
        "per concept type and overall (exact offsets and type, as conlleval), and the relaxed figure "
        "(overlap, any type); only --model, --limit, --batch-size, --json and --output apply.",
    )
    p.add_argument("path", type=Path, help="corpus file or BRAT directory (--task concepts: a CoNLL file)")
    p.add_argument(
        "--task",
        choices=TASKS,
        default="deid",
        help="what to score: deid, PHI detection against a de-identification corpus (default); "
        "concepts, concept extraction against a CoNLL file",
    )
    p.add_argument("--format", choices=FORMATS, help="corpus format (default: detected from PATH)")
    p.add_argument("--lang", choices=LANGUAGES, help="language of the documents (default: the format's; "
                   "realistic corpus: score only the notes in this language)")
    p.add_argument("--split", choices=("train", "dev", "test"),
                   help="realistic corpus only: score only this split (default: every note; test is "
                   "read to report, never to choose)")
    p.add_argument("--json", action="store_true", help="print the report as JSON instead of a table")
    p.add_argument("--output", type=Path, metavar="FILE", help="write the report to FILE instead of stdout")
    p.add_argument("--rules-only", action="store_true", help="evaluate the rule recognizers alone")
    p.add_argument("--model", type=Path, metavar="DIR", help="token-classification model directory "
                   "(default: the shipped model)")
    p.add_argument("--limit", type=_positive_int, metavar="N",
                   help="evaluate the first N documents (--task concepts: sentences) only")
    p.add_argument(
        "--labels",
        nargs="+",
        metavar="LABEL",
        help="evaluate only these fine labels (spans of other labels are dropped from gold and "
        "predictions); space or comma separated",
    )
    p.add_argument(
        "--scheme",
        action="store_true",
        help="score under the corpus's own annotation scheme: predicted labels the corpus cannot "
        "express are mapped to its label of the same category or dropped when it annotates no such "
        "category (ages in eds-pseudo), and relative dates are dropped where its guideline leaves "
        "them out (MEDDOCAN, eds-pseudo); gold is untouched",
    )
    p.add_argument(
        "--convention",
        action="store_true",
        help="score against gold projected onto the project's span convention (deid/detection/convention.py) "
        "instead of the corpus's own: courtesy titles trimmed from names, leading articles from dates "
        "and relatives, trailing separators and sentence-final periods from every span; 'today' dates, "
        "titles alone and punctuation-only spans dropped; whole French addresses split into street, "
        "postcode and city; eds-pseudo first and last names joined into one span",
    )
    p.add_argument("--errors", type=Path, metavar="FILE",
                   help="write the relaxed errors as JSON lines, one per span: each prediction that "
                   "overlaps no gold span (false_positive) and each gold span no prediction overlaps "
                   "(missed), with its document, offsets, label, text and a line of context (the "
                   "corpus's text: keep the file where the corpus is kept)")
    p.add_argument("--batch-size", type=_positive_int, default=32, metavar="N",
                   help="documents (--task concepts: sentences) per batch")
    add_model_options(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if getattr(args, "task", "deid") == "concepts":
        return run_concepts(args)
    from deid.lab.eval import Evaluator, RunInfo

    labels = _parse_labels(args.labels)
    for out in (args.output, args.errors):
        if out is not None and not out.parent.is_dir():
            # Fail before a long detection run, not after it.
            raise CliError(f"{out}: cannot write report (no such directory)")
    docs, fmt = _read(args.path, args.format, args.lang, args.convention, args.split)
    changes = None
    if args.convention:  # say what the projection changed in the corpus's gold
        from deid.lab.eval.projection import gold_changes

        changes = gold_changes(_read(args.path, fmt, args.lang, False, args.split)[0], docs)
    if args.limit is not None:
        docs = docs[: args.limit]
    from deid.lab.eval.scheme import CORPUS_OF_FORMAT, KINSHIP_PHI, scheme_for_format

    settings = detector_settings(args)
    kinship = KINSHIP_PHI.get(CORPUS_OF_FORMAT.get(fmt, ""), frozenset())
    if kinship and not settings.detection.kinship_words_phi:  # the corpus's guideline, unless set
        detection = settings.detection.model_copy(update={"kinship_words_phi": sorted(kinship)})
        settings = settings.model_copy(update={"detection": detection})
    # the rules alone are measured on purpose
    detector = detector_from_args(args, warn=False, settings=settings)

    scheme = scheme_for_format(fmt) if args.scheme else None

    evaluator = Evaluator(labels, CORPUS_OF_FORMAT.get(fmt))
    progress = _Progress(len(docs), sys.stderr)
    errors: list[str] | None = [] if args.errors is not None else None
    detect_s = 0.0  # detection alone: the throughput a deployment cares about, scoring excluded
    for i in range(0, len(docs), args.batch_size):
        batch = docs[i : i + args.batch_size]
        started = time.perf_counter()
        predicted = detector.detect([d.text for d in batch], [d.language for d in batch])
        detect_s += time.perf_counter() - started
        if len(predicted) != len(batch):
            raise RuntimeError("detector returned a different number of results than documents")
        for doc, spans in zip(batch, predicted, strict=True):
            scored = scheme.project(spans, doc.text, doc.language) if scheme is not None else spans
            evaluator.add(doc, scored)
            if errors is not None:
                errors.extend(_error_lines(doc, evaluator.errors(doc, scored)))
        progress.update(i + len(batch))
    progress.close()

    report = evaluator.report().with_run(
        RunInfo(
            corpus=str(args.path),
            format=fmt,
            n_docs=len(docs),
            detector=detector.model_name,
            detector_version=detector.model_version,
            seconds=detect_s,
            language=",".join(sorted({d.language for d in docs})),
            labels=tuple(lab.value for lab in Label if lab in labels) if labels is not None else None,
            scheme=scheme.corpus if scheme is not None else None,
            gold_convention=args.convention,
            gold_changes=changes,
            split=args.split,
        )
    )
    from deid.lab.eval.table import render_table

    _write(report.to_json() + "\n" if args.json else render_table(report), args.output)
    if errors is not None:
        _write("".join(errors), args.errors)
    return 0


def _error_lines(doc: Document, errors: Sequence[tuple[str, Span]]) -> list[str]:
    """One JSON line per relaxed error of ``doc`` (``--errors``) with a line of context."""
    import json

    lines = []
    for kind, span in errors:
        left = doc.text.rfind("\n", 0, span.start) + 1
        right = doc.text.find("\n", span.end)
        right = len(doc.text) if right == -1 else min(right, span.end + 60)
        record = {"doc": doc.doc_id, "kind": kind, "label": span.label.value, "start": span.start,
                  "end": span.end, "text": doc.text[span.start : span.end], "source": span.source,
                  "context": doc.text[max(left, span.start - 60) : right]}
        lines.append(json.dumps(record, ensure_ascii=False) + "\n")
    return lines


def build_concept_tagger(model: Path | None) -> ConceptTagger:
    """The concept tagger ``deid eval --task concepts`` measures: the concept head of the model at
    ``model`` (the shipped model when None); a model without one is a one-line ``CliError``."""
    try:
        from deid.concepts.tagger import ConceptsUnavailable, load_concept_tagger
    except ImportError:
        raise CliError("concept extraction is not available in this installation") from None
    if model is not None and not model.is_dir():
        raise CliError(f"no model at {model} (no such directory)")
    try:
        return load_concept_tagger(model)
    except ConceptsUnavailable as exc:
        raise CliError(str(exc).splitlines()[0] if str(exc) else "the model has no concept head") from None
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        where = model if model is not None else "the shipped model"
        raise CliError(f"cannot load the concept tagger of {where}: {type(exc).__name__}") from None


def run_concepts(args: argparse.Namespace) -> int:
    """``--task concepts``: strict micro P/R/F1 per concept type of the tagger on a CoNLL file."""
    from deid.lab.corpora.conll import ConllError, read_conll
    from deid.lab.eval.concepts import ConceptEvaluator, ConceptRunInfo

    given = [flag for dest, flag in _DEID_ONLY.items() if getattr(args, dest, None) not in (None, False)]
    if given:
        raise CliError(f"{given[0]} applies to --task deid only, not to --task concepts")
    if args.output is not None and not args.output.parent.is_dir():
        raise CliError(f"{args.output}: cannot write report (no such directory)")
    path: Path = args.path
    if not path.exists():
        raise CliError(f"{path}: no such file or directory")
    if not path.is_file():
        raise CliError(f"{path}: not a CoNLL file")
    try:
        sentences = read_conll(path)
    except ConllError as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(f"{path}: cannot read corpus ({exc.strerror or type(exc).__name__})") from None
    if args.limit is not None:
        sentences = sentences[: args.limit]
    tagger = build_concept_tagger(args.model)

    evaluator = ConceptEvaluator()
    progress = _Progress(len(sentences), sys.stderr, unit="sentences")
    tag_s = 0.0
    for i in range(0, len(sentences), args.batch_size):
        batch = sentences[i : i + args.batch_size]
        started = time.perf_counter()
        predicted = tagger.tag_sentences([s.text for s in batch])  # the corpus's own sentences
        tag_s += time.perf_counter() - started
        if len(predicted) != len(batch):
            raise RuntimeError("concept tagger returned a different number of results than sentences")
        for sentence, concepts in zip(batch, predicted, strict=True):
            evaluator.add(sentence.concepts, concepts)
        progress.update(i + len(batch))
    progress.close()
    report = evaluator.report().with_run(
        ConceptRunInfo(corpus=str(path), n_sentences=len(sentences), tagger_version=tagger.model_version,
                       seconds=tag_s)
    )
    _write(report.to_json() + "\n" if args.json else report.to_table(), args.output)
    return 0


def _read(
    path: Path, fmt: str | None, language: str | None, convention: bool = False, split: str | None = None
) -> tuple[list[Document], str]:
    """The corpus and its format; any unreadable or malformed input is a one-line ``CliError``."""
    from deid.lab.corpora import CorpusFormatError, detect_format, read_corpus

    if not path.exists():
        raise CliError(f"{path}: no such file or directory")
    try:
        fmt = fmt or detect_format(path)
        docs = read_corpus(path, fmt, language, convention=convention, split=split)
    except CorpusFormatError as exc:
        raise CliError(str(exc)) from exc
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        raise CliError(f"{path}: cannot read corpus ({reason})") from exc
    if not docs:
        raise CliError(f"{path}: no documents")
    return docs, fmt


def _parse_labels(values: Sequence[str] | None) -> frozenset[Label] | None:
    if values is None:
        return None
    names = [n.strip().upper() for v in values for n in v.split(",") if n.strip()]
    known = {lab.value for lab in Label}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise CliError(f"unknown label {unknown[0]!r} (known: {', '.join(sorted(known))})")
    if not names:
        raise CliError("--labels: no label given")
    return frozenset(Label(n) for n in names)


def _write(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CliError(f"{output}: cannot write report ({exc.strerror or type(exc).__name__})") from exc


def _positive_int(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {value!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {value!r}")
    return n


class _Progress:
    """Documents done / total and throughput on stderr: one rewritten line on a terminal, a line
    every few seconds otherwise (a log file should not fill with carriage returns)."""

    def __init__(self, total: int, stream: TextIO, every_s: float = 5.0, unit: str = "documents") -> None:
        self.total = total
        self.unit = unit
        self.stream = stream
        self.tty = stream.isatty()
        self.every_s = every_s
        self.started = time.perf_counter()
        self.last = self.started
        self.done = 0

    def update(self, done: int) -> None:
        self.done = done
        now = time.perf_counter()
        if self.tty:
            self.stream.write("\r" + self._line(now))
            self.stream.flush()
        elif now - self.last >= self.every_s or done == self.total:
            self.stream.write(self._line(now) + "\n")
            self.last = now

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()

    def _line(self, now: float) -> str:
        elapsed = now - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        per = "docs" if self.unit == "documents" else self.unit
        return f"deid eval: {self.done}/{self.total} {self.unit}, {rate:.1f} {per}/s"
