"""Dev accuracy and speed of the model's runtimes (torch fp32 or bf16, ONNX fp32, ONNX int8) and the
precision/recall curve of the operating threshold, in one process on the same documents.

Usage: .venv/bin/python bench/backend_eval.py CORPUS [--backends torch,torch-bf16,onnx,onnx-int8]
       [--thresholds 0.1,0.2,...] [--threads 2] [--limit N] [--json FILE]

Each backend reads every document once (``NerDetector.token_predictions``); its output is decoded
at the default operating point (the most probable tag) and at each threshold on
P(PHI) = 1 - P(O), merged with the rules (computed once, ``deid.detection.combine``) and scored
with ``deid.lab.eval`` (strict and relaxed micro P / R / F1, raw, as ``deid eval`` prints them).
The threshold curve is computed on the last backend listed.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("corpus", type=Path)
    p.add_argument("--model", type=Path, default=None)
    p.add_argument("--backends", default="torch,onnx-int8,torch-bf16")
    p.add_argument("--thresholds", default="")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--limit", type=int, default=0)
    p.add_argument("--json", type=Path, default=None, metavar="FILE")
    args = p.parse_args()

    import torch

    from deid.detection import combine
    from deid.lab.corpora import read_corpus
    from deid.lab.eval import Evaluator
    from deid.ner import DEFAULT_MODEL_DIR, load_detector, load_onnx_detector
    from deid.ner.infer import InferenceConfig
    from deid.rules import RuleDetector

    torch.set_num_threads(args.threads)
    model_dir = args.model or DEFAULT_MODEL_DIR
    docs = read_corpus(args.corpus)
    docs = docs[: args.limit] if args.limit else docs
    texts = [d.text for d in docs]
    langs = [d.language for d in docs]
    t0 = time.perf_counter()
    rules = RuleDetector().detect(texts, langs)
    rules_s = time.perf_counter() - t0
    print(f"# {args.corpus} ({len(docs)} docs), model {model_dir}, {args.threads} threads; "
          f"rules {rules_s:.1f} s")
    results: dict[str, Any] = {"corpus": str(args.corpus), "docs": len(docs), "threads": args.threads,
                               "backends": {}, "thresholds": []}

    def score(preds: list[list[Any]]) -> dict[str, float]:
        ev = Evaluator()
        for d, sp in zip(docs, preds, strict=True):
            ev.add(d, sp)
        rep = ev.report()
        s, r = rep.strict_micro, rep.relaxed_micro
        return {"strict_p": s.precision, "strict_r": s.recall, "strict_f1": s.f1,
                "relaxed_p": r.precision, "relaxed_r": r.recall, "relaxed_f1": r.f1}

    print("| backend | model s | tokens/s | scoring | strict P | strict R | strict F1 | relaxed P "
          "| relaxed R | relaxed F1 |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    det: Any = None
    encoded: Any = None
    preds: Any = None
    for backend in args.backends.split(","):
        if backend in ("torch", "torch-bf16"):
            dtype = "bfloat16" if backend == "torch-bf16" else "float32"
            det = load_detector(model_dir, device="cpu", dtype=dtype)
        elif backend == "torch-int8":
            det = load_detector(model_dir, device="cpu", quantize_int8=True)
        else:
            det = load_onnx_detector(model_dir, int8=backend == "onnx-int8", threads=args.threads)
        det.token_predictions(texts[:2])  # warm-up (ORT plans its kernels on first shapes)
        det.timings.tokens = 0
        t0 = time.perf_counter()
        encoded, preds = [], []
        for i in range(0, len(texts), 16):
            e, pr = det.token_predictions(texts[i : i + 16])
            encoded.extend(e)
            preds.extend(pr)
        model_s = time.perf_counter() - t0
        tok_s = det.timings.tokens / model_s
        alone = det.decode(texts, encoded, preds)
        hybrid = [combine(r, m, t, lang) for r, m, t, lang in zip(rules, alone, texts, langs, strict=True)]
        entry = {"model_s": model_s, "tokens_per_s": tok_s, "model_alone": score(alone),
                 "hybrid": score(hybrid),
                 "spans": [[(s.start, s.end, s.label.value) for s in doc] for doc in alone]}
        results["backends"][backend] = entry
        for scoring in ("model_alone", "hybrid"):
            sc = entry[scoring]
            cells = " | ".join(f"{sc[k]:.4f}" for k in ("strict_p", "strict_r", "strict_f1", "relaxed_p",
                                                        "relaxed_r", "relaxed_f1"))
            print(f"| {backend} | {model_s:.0f} | {tok_s:.0f} | {scoring} | {cells} |", flush=True)
    names = list(results["backends"])
    if len(names) > 1:
        ref = results["backends"][names[0]]["spans"]
        for other in names[1:]:
            got = results["backends"][other]["spans"]
            same = sum(a == b for a, b in zip(ref, got, strict=True))
            print(f"# model-alone spans identical to {names[0]} in {same}/{len(ref)} documents: {other}")
    if args.thresholds:
        print(f"\n# threshold curve ({names[-1]}, rules merged): a word is PHI when P(PHI) >= t")
        print("| t | strict P | strict R | strict F1 | relaxed P | relaxed R | relaxed F1 |")
        print("|---:|---:|---:|---:|---:|---:|---:|")
        for t in [float(x) for x in args.thresholds.split(",")]:
            alone = det.decode(texts, encoded, preds, InferenceConfig(min_phi_prob=t))
            hybrid = [combine(r, m, x, lang)
                      for r, m, x, lang in zip(rules, alone, texts, langs, strict=True)]
            sc = score(hybrid)
            results["thresholds"].append({"t": t, **sc})
            cells = " | ".join(f"{sc[k]:.4f}" for k in ("strict_p", "strict_r", "strict_f1", "relaxed_p",
                                                        "relaxed_r", "relaxed_f1"))
            print(f"| {t:.2f} | {cells} |", flush=True)
    if args.json is not None:
        for entry in results["backends"].values():
            entry.pop("spans")
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
