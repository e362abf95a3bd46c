"""Model-only NER throughput on CPU: tokens/s and notes/s per batch size, fp32 and int8.

Usage: .venv/bin/python bench/ner_throughput.py [--model DIR] [--threads N] [--notes N]
Notes are synthetic French notes (deid.synth); a "batch" is that many notes per detect() call.
The timed part is NerDetector.detect (tokenization, windows, forward, decoding).
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", type=Path, default=None, help="model dir (default: shipped model)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--notes", type=int, default=64, help="notes per measurement")
    p.add_argument("--batch-sizes", default="1,2,4,8,16,32,64")
    p.add_argument("--modes", default="fp32,int8")
    p.add_argument("--device", default="cpu")
    args = p.parse_args()

    import torch

    from deid.ner import DEFAULT_MODEL_DIR, load_detector
    from deid.synth import generate_notes

    torch.set_num_threads(args.threads)
    notes = [d.text for d in generate_notes(args.notes, seed=1234)]
    model_dir = args.model or DEFAULT_MODEL_DIR
    print(f"# model {model_dir}; torch {torch.__version__}; {args.threads} threads; "
          f"{platform.processor() or platform.machine()}; {len(notes)} notes, "
          f"mean {sum(map(len, notes)) / len(notes):.0f} chars")  # fmt: skip
    print("| mode | batch | notes/s | tokens/s | ms/note |")
    print("|---|---:|---:|---:|---:|")
    for mode in args.modes.split(","):
        det = load_detector(model_dir, device=args.device, quantize_int8=(mode == "int8"))
        tok = det._tokenizer
        n_tokens = sum(len(tok(t)["input_ids"]) for t in notes)
        det.detect(notes[:2], ["fr"] * 2)  # warm-up
        for bs in (int(x) for x in args.batch_sizes.split(",")):
            t0 = time.perf_counter()
            for i in range(0, len(notes), bs):
                chunk = notes[i : i + bs]
                det.detect(chunk, ["fr"] * len(chunk))
            dt = time.perf_counter() - t0
            print(f"| {mode} | {bs} | {len(notes) / dt:.1f} | {n_tokens / dt:.0f} | "
                  f"{1000 * dt / len(notes):.1f} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
