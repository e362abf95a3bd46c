"""Scores of the detector on the named evaluation sets (dev, frozen held-out, unseen, English dev),
side by side, from cached model output; and what each post-processing step buys.

Usage:
  .venv/bin/python bench/detection_sets.py CACHE_DIR [SET ...] [--without STEP[,STEP]] [--ablate]
      [--data ../shared/data] [--markdown]

``CACHE_DIR`` holds the model's raw spans per set (``bench/ner_cache.py``); a set without a cache
file is scored with the rules alone (and said so). Every figure is against the corpus's own gold
(``convention=False``): "official" is MEDDOCAN's strict NER measure on the corpus's tags
(``deid.lab.eval.official``), "strict" exact span and project label, "relaxed" any overlap whatever
the labels (label-agnostic). ``--ablate`` prints the pipeline less each step in turn;
``--convention`` scores against gold projected onto the project's span convention instead
(``deid eval --convention``). ``--errors DIR`` writes, per set, the official strict errors of the
hybrid detector (``DIR/SET-errors.tsv``: kind, corpus tag, document, span, context, what overlaps
it on the other side) and prints their count per tag, and how many false positives lie inside a
relative temporal expression ("hace 3 años": tagged on purpose, left out by MEDDOCAN's guideline).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from deid.detection.pipeline import PIPELINE, STEP_NAMES, Step, run_pipeline, without
from deid.lab.eval import Evaluator
from deid.lab.eval.official import gold_tag, pred_tag
from deid.lab.eval.report import EvalReport
from deid.lab.eval.scheme import CORPUS_OF_FORMAT, KINSHIP_PHI
from deid.lab.eval.sets import DEV, HELDOUT, SETS, load_set
from deid.labels import Label
from deid.rules import RuleDetector, registered
from deid.spans import Document, Span

_FORMAT_OF_SET = {**{k: v[1] for k, v in DEV.items()}}


def _corpus(name: str) -> str | None:
    from deid.lab.eval.heldout import SOURCES

    if name in DEV:
        return CORPUS_OF_FORMAT[DEV[name][1]]
    if name in HELDOUT:
        return CORPUS_OF_FORMAT[SOURCES[HELDOUT[name]][1]]
    if name.startswith("echr"):
        return "echr"
    return None


def _cached(cache: Path, name: str) -> dict[str, list[Span]] | None:
    path = cache / f"{name}.json"
    if not path.exists():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return {doc_id: [Span(a, b, Label(lab), "ner", sc) for a, b, lab, sc in spans]
            for doc_id, spans in data["spans"].items()}  # fmt: skip


def score(docs: list[Document], rules: list[list[Span]], model: dict[str, list[Span]] | None,
          steps: tuple[Step, ...], corpus: str | None, view: Any = None) -> EvalReport:  # fmt: skip
    ev = Evaluator(corpus=corpus)
    kinship = KINSHIP_PHI.get(corpus or "", frozenset())  # the corpus's guideline, as deid eval runs it
    for doc, r in zip(docs, rules, strict=True):
        pred = r if model is None else run_pipeline(
            r, model.get(doc.doc_id, []), doc.text, doc.language, steps, kinship_phi=kinship)
        if view is not None:
            doc = Document(doc.doc_id, doc.text, doc.language, tuple(view(doc.spans, doc.text)))
            pred = view(pred, doc.text)
        ev.add(doc, pred)
    return ev.report()


def write_errors(path: Path, docs: list[Document], rules: list[list[Span]], model: dict[str, list[Span]],
                 corpus: str | None) -> str:  # fmt: skip
    """The official strict errors to ``path`` (TSV); a one-line count per kind and tag."""
    from collections import Counter

    from deid.lab.eval.scheme import relative_dates

    counts: dict[str, Counter[str]] = {"FP": Counter(), "FN": Counter()}
    in_relative = 0
    lines = []
    for doc, r in zip(docs, rules, strict=True):
        pred = run_pipeline(r, model.get(doc.doc_id, []), doc.text, doc.language, PIPELINE,
                            kinship_phi=KINSHIP_PHI.get(corpus or "", frozenset()))
        gold = {(s.start, s.end, gold_tag(s)) for s in doc.spans}
        got = {(s.start, s.end, pred_tag(s, corpus)) for s in pred}
        relative = relative_dates(doc.text, doc.language)
        for kind, mine, other in (("FP", got - gold, gold), ("FN", gold - got, got)):
            for a, b, tag in sorted(mine):
                counts[kind][tag] += 1
                if kind == "FP" and any(x.start <= a and b <= x.end for x in relative):
                    in_relative += 1
                over = "; ".join(f"{t}:{doc.text[x:y]!r}" for x, y, t in sorted(other) if x < b and a < y)
                before, after = doc.text[max(0, a - 30) : a], doc.text[b : b + 20]
                cells = [kind, tag, doc.doc_id, repr(doc.text[a:b]), repr(before), repr(after), over]
                lines.append("\t".join(cells))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    fp, fn = counts["FP"], counts["FN"]
    return (f"FP {fp.total()} ({in_relative} inside relative temporal expressions) {dict(fp.most_common())}\n"
            f"FN {fn.total()} {dict(fn.most_common())}")


def _f(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def row(name: str, n_docs: int, what: str, rep: EvalReport) -> str:
    o = rep.official.get("ner_strict")
    s, r = rep.strict_micro, rep.relaxed_micro
    cells = [name, str(n_docs), str(s.n_gold), what,
             f"{_f(o.precision)} / {_f(o.recall)} / {_f(o.f1)}" if o is not None else "-",
             f"{_f(s.precision)} / {_f(s.recall)} / {_f(s.f1)}",
             f"{_f(r.precision)} / {_f(r.recall)} / {_f(r.f1)}"]  # fmt: skip
    return "| " + " | ".join(cells) + " |"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cache", type=Path)
    p.add_argument("sets", nargs="*")
    p.add_argument("--data", type=Path, default=Path("../shared/data"))
    p.add_argument("--without", default="", help="comma-separated steps to leave out")
    p.add_argument("--ablate", action="store_true", help="also score the pipeline less each step")
    p.add_argument("--without-rules", default="", metavar="NAMES",
                   help="comma-separated rule recognizers to leave out (deid.rules.registered())")
    p.add_argument("--errors", type=Path, default=None, metavar="DIR",
                   help="write the hybrid detector's official strict errors per set to DIR/SET-errors.tsv")
    p.add_argument("--convention", action="store_true",
                   help="score against gold under the project's span convention (deid eval --convention)")
    args = p.parse_args()

    left_out = {n for n in args.without_rules.split(",") if n}
    rules = RuleDetector([n for n in registered() if n not in left_out]) if left_out else RuleDetector()
    steps = without(*[s for s in args.without.split(",") if s]) if args.without else PIPELINE
    print("| set | docs | gold | detector | official strict P / R / F1 | strict P / R / F1 "
          "| relaxed (label-agnostic) P / R / F1 |")  # fmt: skip
    print("|---|---:|---:|---|---|---|---|")
    for name in args.sets or list(SETS):
        docs = load_set(name, args.data, convention=args.convention)
        rule_spans = rules.detect([d.text for d in docs], [d.language for d in docs])
        model = _cached(args.cache, name)
        corpus = _corpus(name)
        print(row(name, len(docs), "rules", score(docs, rule_spans, None, steps, corpus)), flush=True)
        if model is None:
            continue
        less = ",".join(x for x in (args.without, args.without_rules) if x)
        label = "hybrid" + (f" less {less}" if less else "")
        print(row(name, len(docs), label, score(docs, rule_spans, model, steps, corpus)), flush=True)
        if args.errors is not None:
            args.errors.mkdir(parents=True, exist_ok=True)
            errors = write_errors(args.errors / f"{name}-errors.tsv", docs, rule_spans, model, corpus)
            print(errors, flush=True)
        if name == "en-dev":
            from deid.lab.eval.english import hipaa_view

            rep = score(docs, rule_spans, model, steps, corpus, view=hipaa_view)
            print(row(name, len(docs), "hybrid, HIPAA view (no ages < 90, no sex)", rep), flush=True)
        if args.ablate:
            for step in STEP_NAMES:
                if step != "merge":
                    rep = score(docs, rule_spans, model, without(step), corpus)
                    print(row(name, len(docs), f"hybrid less {step}", rep), flush=True)


if __name__ == "__main__":
    main()
