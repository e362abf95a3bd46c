"""Where a detection batch's time goes: word splitting, subword tokenization, window planning and
packing, the encoder, decoding, the rules, and the merge with its checks (``combine``).

Usage: .venv/bin/python bench/profile_detect.py CORPUS [--limit N] [--batch 16] [--threads 2]
       [--backends torch,torch-bf16,onnx-int8] [--long-kb 0] [--model DIR]
       .venv/bin/python bench/profile_detect.py CORPUS [CORPUS ...] --recognizers [--limit 0]
       [--repeat 3] [--digest]

Runs the default detector's stages one by one over the corpus in batches of ``--batch`` notes
(as the worker and ``deid eval`` call it) and prints seconds and shares per stage, with the
tokens fed to the encoder and the padding. ``--long-kb K`` also profiles one note of K kB made
by joining the corpus's notes (the long-note path: ``deid redact`` on a big file).

``--recognizers`` profiles the rules alone, no model: each registered recognizer's ``find`` over
every note of each language (the corpora's texts together, every split), as seconds of CPU per MB
of UTF-8 text (median of ``--repeat``; each recognizer warmed up first), the slowest first.
``--digest`` also prints a hash of each recognizer's spans over those texts: two runs that print
the same hashes found the same spans (the check that a faster recognizer changed no output).
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
               decode=tm.decode, total=total, tokens=tm.tokens, padded=tm.padded,
               overlap=tm.tokens - tm.distinct - 2 * tm.n_windows, n_windows=tm.n_windows)
    return out


def recognizer_seconds(texts: dict[str, list[str]], repeat: int) -> dict[tuple[str, str], float]:
    """CPU seconds of each registered recognizer's ``find`` over each language's texts (median of
    ``repeat`` passes), by (recognizer, language)."""
    import statistics

    from deid.rules import build_recognizers

    out: dict[tuple[str, str], float] = {}
    for rec in build_recognizers():
        for lang, tx in texts.items():
            rec.find(tx[0][:2000], lang)  # lazy tables and compiled patterns: not timed
            runs = []
            for _ in range(repeat):
                t0 = time.process_time()
                for t in tx:
                    rec.find(t, lang)
                runs.append(time.process_time() - t0)
            out[(rec.name, lang)] = statistics.median(runs)
    return out


def recognizer_digests(texts: dict[str, list[str]]) -> dict[str, str]:
    """A hash of each recognizer's spans (offsets, label, source, score) over every text."""
    import hashlib

    from deid.rules import build_recognizers

    out: dict[str, str] = {}
    for rec in build_recognizers():
        h = hashlib.sha256()
        for lang, tx in sorted(texts.items()):
            for t in tx:
                for s in sorted(rec.find(t, lang), key=lambda s: (s.start, s.end, str(s.label))):
                    h.update(f"{lang}|{s.start}|{s.end}|{s.label}|{s.source}|{s.score}\n".encode())
                h.update(b"\x00")
        out[rec.name] = h.hexdigest()[:16]
    return out


def report_recognizers(corpora: list[Path], limit: int | None, repeat: int, digest: bool) -> None:
    from deid.lab.corpora import read_corpus

    texts: dict[str, list[str]] = {}
    for path in corpora:
        docs = read_corpus(path, convention=False)
        for d in docs[:limit] if limit else docs:
            texts.setdefault(d.language, []).append(d.text)
    mb = {lang: sum(len(t.encode()) for t in tx) / 1e6 for lang, tx in texts.items()}
    langs = sorted(texts)
    secs = recognizer_seconds(texts, repeat)
    names = sorted({n for n, _ in secs}, key=lambda n: -sum(secs[(n, la)] for la in langs))
    print(f"# rules per recognizer: {', '.join(map(str, corpora))}; "
          + ", ".join(f"{la}: {len(texts[la])} notes, {mb[la]:.3f} MB" for la in langs)
          + f"; CPU s per MB, median of {repeat}")
    print("| recognizer | " + " | ".join(f"{la} s/MB" for la in langs) + " | all s/MB | share |")
    print("|---|" + "---:|" * (len(langs) + 2))
    total = sum(secs.values())
    all_mb = sum(mb.values())
    for n in names:
        row = sum(secs[(n, la)] for la in langs)
        print(f"| {n} | " + " | ".join(f"{secs[(n, la)] / mb[la]:.4f}" for la in langs)
              + f" | {row / all_mb:.4f} | {100 * row / total:.1f} % |")
    print("| **all recognizers** | " + " | ".join(f"{sum(secs[(n, la)] for n in names) / mb[la]:.4f}"
                                             for la in langs) + f" | {total / all_mb:.4f} | 100 % |")
    slowest = sum(secs[(names[0], la)] for la in langs)
    print(f"\nslowest: {names[0]} ({slowest / all_mb:.4f} s/MB over all texts)")
    if digest:
        print("\n| recognizer | spans digest |\n|---|---|")
        for name, h in recognizer_digests(texts).items():
            print(f"| {name} | {h} |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("corpus", type=Path, nargs="+")
    p.add_argument("--recognizers", action="store_true", help="the rules per recognizer, no model")
    p.add_argument("--repeat", type=int, default=3, help="with --recognizers: passes (median)")
    p.add_argument("--digest", action="store_true", help="with --recognizers: a hash of each one's spans")
    p.add_argument("--limit", type=int, default=None,
                   help="notes (default 64; with --recognizers, each corpus's first N, default all)")
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--backends", default="onnx-int8,torch-bf16")
    p.add_argument("--long-kb", type=int, default=0)
    p.add_argument("--model", type=Path, default=None, help="model directory (default: the shipped one)")
    args = p.parse_args()
    if args.recognizers:
        report_recognizers(args.corpus, args.limit, args.repeat, args.digest)
        return

    import torch

    from deid.lab.corpora import read_corpus
    from deid.ner import DEFAULT_MODEL_DIR, load_detector, load_onnx_detector
    from deid.ner.infer import InferenceConfig
    from deid.settings import Settings

    torch.set_num_threads(args.threads)
    model_dir = args.model or DEFAULT_MODEL_DIR
    # the product's windows (DEID_MODEL__WINDOW_TOKENS, DEID_MODEL__WINDOW_STRIDE)
    model = Settings().model
    config = InferenceConfig(max_len=model.window_tokens, overlap=model.window_stride)
    docs = [d for path in args.corpus for d in read_corpus(path)][: args.limit or 64]
    texts, langs = [d.text for d in docs], [d.language for d in docs]
    runs: list[tuple[str, list[str], list[str]]] = [(f"{len(docs)} notes", texts, langs)]
    if args.long_kb:
        big, i = "", 0
        while len(big.encode()) < args.long_kb * 1024:
            big += texts[i % len(texts)] + "\n\n"
            i += 1
        runs.append((f"one {len(big.encode()) // 1024} kB note", [big], [langs[0]]))
    chars = sum(len(t) for t in texts)
    print(f"# model: {model_dir}")
    print(f"# {', '.join(map(str, args.corpus))}: {len(docs)} notes, {chars / len(docs):.0f} chars/note; "
          f"batches of {args.batch}; {args.threads} threads; windows of {config.max_len} tokens, "
          f"overlap {config.overlap}")
    stages = ("split_words", "tokenize_and_split", "windows_and_packing", "encoder", "decode", "rules",
              "merge")
    for backend in args.backends.split(","):
        if backend in ("torch", "torch-bf16"):
            det = load_detector(model_dir, device="cpu",
                                dtype="bfloat16" if backend == "torch-bf16" else "float32", config=config)
        else:
            det = load_onnx_detector(model_dir, int8=backend == "onnx-int8", threads=args.threads,
                                     config=config)
        det.detect(texts[:2], langs[:2])  # warm-up
        for label, tx, lg in runs:
            res = profile(det, tx, lg, args.batch)
            total = res["total"]
            print(f"\n## {backend}, {label}: {total:.1f} s, {len(tx) / total:.2f} notes/s, "
                  f"{res['tokens'] / res['encoder']:.0f} tokens/s in the encoder, padding "
                  f"{100 * (1 - res['tokens'] / max(res['padded'], 1)):.1f} % of fed tokens")
            print(f"tokens fed per note: {res['tokens'] / len(tx):.0f} in {res['n_windows'] / len(tx):.2f} "
                  f"windows, {100 * res['overlap'] / max(res['tokens'], 1):.1f} % of them read twice "
                  "(overlap)")
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
