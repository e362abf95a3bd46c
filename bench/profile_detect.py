"""Where a detection batch's time goes: word splitting, subword tokenization, window planning and
packing, the encoder, decoding, the rules, and the merge with its checks (``combine``).

Usage: .venv/bin/python bench/profile_detect.py CORPUS [--limit N] [--batch 16] [--threads 2]
       [--backends torch,torch-bf16,onnx-int8] [--long-kb 0]

Runs the default detector's stages one by one over the corpus in batches of ``--batch`` notes
(as the worker and ``deid eval`` call it) and prints seconds and shares per stage, with the
tokens fed to the encoder and the padding. ``--long-kb K`` also profiles one note of K kB made
by joining the corpus's notes (the long-note path: ``deid redact`` on a big file).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any


def profile(det: Any, texts: list[str], langs: list[str], batch: int) -> dict[str, float]:
    from deid.detection import combine
    from deid.ner.infer import Timings
    from deid.ner.text import split_words
    from deid.rules import RuleDetector

    rules = RuleDetector()
    det.timings = Timings()
    out: dict[str, float] = {"split_words": 0.0, "rules": 0.0, "merge": 0.0}
    t_all = time.perf_counter()
    for i in range(0, len(texts), batch):
        tx, lg = texts[i : i + batch], langs[i : i + batch]
        t0 = time.perf_counter()
        for t in tx:
            split_words(t)  # measured apart: the tokenizer call below repeats it
        t1 = time.perf_counter()
        r = rules.detect(tx, lg)
        t2 = time.perf_counter()
        m = det.detect(tx, lg)
        t3 = time.perf_counter()
        [combine(a, b, t, la) for a, b, t, la in zip(r, m, tx, lg, strict=True)]
        t4 = time.perf_counter()
        out["split_words"] += t1 - t0
        out["rules"] += t2 - t1
        out["merge"] += t4 - t3
    total = time.perf_counter() - t_all - out["split_words"]
    tm = det.timings
    out.update(tokenize_and_split=tm.tokenize, windows_and_packing=tm.windows, encoder=tm.encoder,
               decode=tm.decode, total=total, tokens=tm.tokens, padded=tm.padded)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("corpus", type=Path)
    p.add_argument("--limit", type=int, default=64)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--backends", default="onnx-int8,torch-bf16")
    p.add_argument("--long-kb", type=int, default=0)
    args = p.parse_args()

    import torch

    from deid.corpora import read_corpus
    from deid.ner import DEFAULT_MODEL_DIR, load_detector, load_onnx_detector

    torch.set_num_threads(args.threads)
    docs = read_corpus(args.corpus)[: args.limit]
    texts, langs = [d.text for d in docs], [d.language for d in docs]
    runs: list[tuple[str, list[str], list[str]]] = [(f"{len(docs)} notes", texts, langs)]
    if args.long_kb:
        big, i = "", 0
        while len(big.encode()) < args.long_kb * 1024:
            big += texts[i % len(texts)] + "\n\n"
            i += 1
        runs.append((f"one {len(big.encode()) // 1024} kB note", [big], [langs[0]]))
    chars = sum(len(t) for t in texts)
    print(f"# {args.corpus}: {len(docs)} notes, {chars / len(docs):.0f} chars/note; batches of {args.batch}; "
          f"{args.threads} threads")
    stages = ("split_words", "tokenize_and_split", "windows_and_packing", "encoder", "decode", "rules",
              "merge")
    for backend in args.backends.split(","):
        if backend in ("torch", "torch-bf16"):
            det = load_detector(DEFAULT_MODEL_DIR, device="cpu",
                                dtype="bfloat16" if backend == "torch-bf16" else "float32")
        else:
            det = load_onnx_detector(DEFAULT_MODEL_DIR, int8=backend == "onnx-int8", threads=args.threads)
        det.detect(texts[:2], langs[:2])  # warm-up
        for label, tx, lg in runs:
            res = profile(det, tx, lg, args.batch)
            total = res["total"]
            print(f"\n## {backend}, {label}: {total:.1f} s, {len(tx) / total:.2f} notes/s, "
                  f"{res['tokens'] / res['encoder']:.0f} tokens/s in the encoder, padding "
                  f"{100 * (1 - res['tokens'] / max(res['padded'], 1)):.1f} % of fed tokens")
            print("| stage | s | share |")
            print("|---|---:|---:|")
            for st in stages:
                note = " (inside tokenize, not added)" if st == "split_words" else ""
                print(f"| {st}{note} | {res[st]:.2f} | {100 * res[st] / total:.1f} % |")
            other = total - sum(res[s] for s in stages[1:])
            print(f"| other (batch assembly, Python glue) | {other:.2f} | {100 * other / total:.1f} % |",
                  flush=True)


if __name__ == "__main__":
    main()
