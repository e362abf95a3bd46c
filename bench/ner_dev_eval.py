"""Dev scores of a NER checkpoint alone, the rules alone and both merged (HybridDetector).

Usage: .venv/bin/python bench/ner_dev_eval.py MODEL_DIR CORPUS[:MAXDOCS] [CORPUS...] [--threads N]
Prints strict / relaxed micro P, R, F1 (deid.lab.eval) per corpus and detector, scored as the output
stands ("raw", what ``deid eval`` prints) and projected onto the corpus's own annotation scheme
("scheme", what ``deid eval --scheme`` prints; deid.lab.eval.scheme), against the corpus's own gold
(``--convention``: gold projected onto the project's span convention, ``deid eval --convention``).
``--json DIR`` also writes each hybrid report as JSON (with the official figures). The frozen
held-out splits and the English dev set are scored by ``bench/detection_sets.py``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model", type=Path)
    p.add_argument("corpora", nargs="+")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--detectors", default="ner,rules,hybrid")
    p.add_argument("--json", type=Path, metavar="DIR", help="write the hybrid reports as JSON here")
    p.add_argument("--convention", action="store_true", help="gold under the project's span convention")
    args = p.parse_args()

    import torch

    from deid.detection import HybridDetector, combine
    from deid.lab.corpora import detect_format, read_corpus
    from deid.lab.eval import Evaluator, RunInfo
    from deid.lab.eval.scheme import CORPUS_OF_FORMAT, scheme_for_format
    from deid.ner import load_detector
    from deid.protocols import Detector
    from deid.rules import RuleDetector

    torch.set_num_threads(args.threads)
    ner = load_detector(args.model)
    rules = RuleDetector()
    detectors: dict[str, Detector] = {"ner": ner, "rules": rules, "hybrid": HybridDetector(rules, ner)}
    print(f"# model {args.model} ({ner.model_version}); {args.threads} threads")
    print("| corpus | docs | detector | scoring | strict P | strict R | strict F1 | relaxed P | relaxed R "
          "| relaxed F1 | s |")  # fmt: skip
    print("|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for spec in args.corpora:
        head, sep, tail = spec.rpartition(":")
        path, limit = (Path(head), int(tail)) if sep and tail.isdigit() else (Path(spec), 0)
        docs = read_corpus(path, convention=args.convention)
        docs = docs[:limit] if limit else docs
        scheme = scheme_for_format(detect_format(path))
        cache: dict[str, list] = {}
        for name in args.detectors.split(","):
            t0 = time.perf_counter()
            if name == "hybrid" and "ner" in cache and "rules" in cache:
                preds = [combine(r, m, d.text, d.language)
                         for r, m, d in zip(cache["rules"], cache["ner"], docs, strict=True)]  # fmt: skip
            else:
                preds = []
                for i in range(0, len(docs), 16):
                    batch = docs[i : i + 16]
                    preds.extend(detectors[name].detect([d.text for d in batch], [d.language for d in batch]))
            cache[name] = preds
            dt = time.perf_counter() - t0
            for scoring in ("raw", "scheme"):
                ev = Evaluator(corpus=CORPUS_OF_FORMAT.get(detect_format(path)))
                for d, sp in zip(docs, preds, strict=True):
                    ev.add(d, sp if scoring == "raw" else scheme.project(sp, d.text, d.language))
                rep = ev.report()
                s, r = rep.strict_micro, rep.relaxed_micro
                cells = " | ".join(_f(x) for x in (s.precision, s.recall, s.f1, r.precision, r.recall, r.f1))
                print(f"| {path.name} | {len(docs)} | {name} | {scoring} | {cells} | {dt:.0f} |", flush=True)
                if args.json is not None and name == "hybrid":
                    run = RunInfo(corpus=str(path), format=detect_format(path), n_docs=len(docs),
                                  detector=detectors[name].model_name,
                                  detector_version=detectors[name].model_version, seconds=dt,
                                  scheme=scheme.corpus if scoring == "scheme" else None)  # fmt: skip
                    lang = docs[0].language if docs else "none"
                    name_ = scheme.corpus + (f"-{lang}" if scheme.corpus == "echr" else "")
                    out = args.json / f"ner-dev-{name_}{'' if scoring == 'raw' else '-scheme'}.json"
                    out.write_text(rep.with_run(run).to_json())


def _f(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


if __name__ == "__main__":
    main()
