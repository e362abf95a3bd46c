"""Caches the model's raw spans on the evaluation sets, so that post-processing changes can be
measured in seconds on the same model output (the model is what takes minutes on a CPU).

Usage: .venv/bin/python bench/ner_cache.py MODEL_DIR OUT_DIR [SET ...] [--threads N] [--settings]
SET is one of ``deid.lab.eval.sets.SETS`` (default: all). ``--settings``: the model as the product runs
it (``deid.settings.Settings().model``: runtime, ONNX int8, operating threshold) instead of torch
fp32 with the most probable tag. Writes ``OUT_DIR/SET.json``: the model
version and, per document id, the spans as [start, end, label, score].
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model", type=Path)
    p.add_argument("out", type=Path)
    p.add_argument("sets", nargs="*")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--data", type=Path, default=Path("../shared/data"))
    p.add_argument("--settings", action="store_true",
                   help="the runtime and threshold the settings name (what deid eval runs by default)")
    args = p.parse_args()

    import torch

    from deid.lab.eval.sets import SETS, load_set
    from deid.ner import load_detector, load_detector_from_settings
    from deid.settings import Settings

    torch.set_num_threads(args.threads)
    if args.settings:
        ner = load_detector_from_settings(Settings().model, args.model)
    else:
        ner = load_detector(args.model)
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.sets or list(SETS):
        docs = load_set(name, args.data)
        t0 = time.perf_counter()
        spans: dict[str, list[list[object]]] = {}
        for i in range(0, len(docs), 16):
            batch = docs[i : i + 16]
            found_all = ner.detect([d.text for d in batch], [d.language for d in batch])
            for d, found in zip(batch, found_all, strict=True):
                spans[d.doc_id] = [[s.start, s.end, s.label.value, s.score] for s in found]
        out = {"model_version": ner.model_version, "set": name, "seconds": time.perf_counter() - t0,
               "spans": spans}
        (args.out / f"{name}.json").write_text(json.dumps(out), encoding="utf-8")
        print(f"{name}: {len(docs)} docs, {time.perf_counter() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
