"""Model-only NER throughput: tokens/s and notes/s per batch size, fp32 and int8 (CPU) or fp32,
fp16 and bf16 (GPU: half-precision weights, windows packed under --token-budget tokens per forward);
each mode's spans compared with the first mode's (share of spans identical in offsets and label).

Usage: .venv/bin/python bench/ner_throughput.py [--model DIR] [--threads N] [--notes N]
       python bench/ner_throughput.py --device cuda --modes fp32,fp16,bf16 --token-budget 32768
Notes are synthetic French notes (deid.lab.synth); a "batch" is that many notes per detect() call.
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
    p.add_argument("--token-budget", type=int, default=0, help="tokens per forward (0: the default)")
    p.add_argument("--note-chars", type=int, default=0,
                   help="join consecutive synthetic notes until each is at least this long (e.g. 2000)")
    args = p.parse_args()

    import torch

    from deid.lab.synth import generate_notes
    from deid.ner import DEFAULT_MODEL_DIR, load_detector
    from deid.ner.infer import InferenceConfig

    torch.set_num_threads(args.threads)
    notes = [d.text for d in generate_notes(args.notes, seed=1234)]
    if args.note_chars:
        many = generate_notes(args.notes * (args.note_chars // 400 + 2), seed=1234)
        pool, notes = iter(d.text for d in many), []
        while len(notes) < args.notes:
            text = next(pool)
            while len(text) < args.note_chars:
                text += "\n\n" + next(pool)
            notes.append(text)
    model_dir = args.model or DEFAULT_MODEL_DIR
    on_gpu = args.device.startswith("cuda") or (args.device == "auto" and torch.cuda.is_available())
    gpu = torch.cuda.get_device_name() if on_gpu else "no GPU"
    print(f"# model {model_dir}; torch {torch.__version__}; {gpu}; {args.threads} threads; "
          f"{platform.processor() or platform.machine()}; {len(notes)} notes, "
          f"mean {sum(map(len, notes)) / len(notes):.0f} chars")  # fmt: skip
    print("| mode | batch | notes/s | tokens/s | ms/note |")
    print("|---|---:|---:|---:|---:|")
    reference: list[set[tuple[int, int, str]]] = []
    for mode in args.modes.split(","):
        dtype = {"fp16": "float16", "bf16": "bfloat16"}.get(mode, "float32")
        config = InferenceConfig(token_budget=args.token_budget) if args.token_budget else InferenceConfig()
        det = load_detector(model_dir, device=args.device, quantize_int8=(mode == "int8"), dtype=dtype,
                            config=config)
        tok = det._tokenizer
        n_tokens = sum(len(tok(t)["input_ids"]) for t in notes)
        warm = notes[:8]
        det.detect(warm, ["fr"] * len(warm))  # warm-up (and CUDA kernels' first compilation)
        for bs in (int(x) for x in args.batch_sizes.split(",")):
            found: list[set[tuple[int, int, str]]] = []
            t0 = time.perf_counter()
            for i in range(0, len(notes), bs):
                chunk = notes[i : i + bs]
                for spans in det.detect(chunk, ["fr"] * len(chunk)):
                    found.append({(sp.start, sp.end, str(sp.label)) for sp in spans})
            if on_gpu:
                torch.cuda.synchronize()
            dt = time.perf_counter() - t0
            print(f"| {mode} | {bs} | {len(notes) / dt:.1f} | {n_tokens / dt:.0f} | "
                  f"{1000 * dt / len(notes):.1f} |", flush=True)  # fmt: skip
        reference = reference or found
        same = sum(len(a & b) for a, b in zip(found, reference, strict=True))
        union = sum(len(a | b) for a, b in zip(found, reference, strict=True))
        print(f"#   {mode} spans identical to {args.modes.split(',')[0]}'s: {same / max(1, union):.2%} "
              f"({union - same} differ of {union})")
        t = det.timings  # accumulated over every batch size of this mode
        total = t.tokenize + t.windows + t.encoder + t.decode
        print(f"#   {mode} stages: tokenize {t.tokenize / total:.0%}, windows {t.windows / total:.0%}, "
              f"encoder {t.encoder / total:.0%}, decode {t.decode / total:.0%}; padding "
              f"{t.padded / max(1, t.tokens) - 1:.0%} over {t.tokens} tokens", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
