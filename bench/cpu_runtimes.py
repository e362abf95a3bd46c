"""The model alone on one batch, on each CPU runtime, in one process: torch fp32, torch bf16 (AMX
where the CPU has it), each eager and with the encoder's dense blocks fused into oneDNN calls
(``deid.ner.cpu_fusion``, what the detector runs), and ONNX Runtime int8 and fp32 (the cached
files ``deid.ner.onnx_backend`` builds).

Usage: .venv/bin/python bench/cpu_runtimes.py [--batch 32] [--length 256] [--threads 2] [--repeats 5]
       .venv/bin/python bench/cpu_runtimes.py --shapes [--batches 40] [--threads 2]

Prints tokens/s per runtime and each runtime's agreement with fp32 (share of tokens whose most
probable tag is the same). The batch is random token ids: speed does not depend on the words.

``--shapes``: the fused bf16 model on ``--batches`` batches of about 4,096 tokens whose length is
drawn from 150 to 256, as they come (one matrix shape per batch), against the same lengths padded
up to a multiple of 32 (``InferenceConfig.pad_multiple``), alternating, twice: oneDNN builds a
kernel per shape, which is what the padding saves.
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path
from typing import Any


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--length", type=int, default=256)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--shapes", action="store_true", help="time varied batch lengths, raw and padded to 32")
    p.add_argument("--batches", type=int, default=40, help="with --shapes: batches per pass")
    args = p.parse_args()

    import numpy as np
    import torch

    from deid.ner import DEFAULT_MODEL_DIR
    from deid.ner.infer import torch_forward
    from deid.ner.model import load_token_classifier
    from deid.ner.onnx_backend import ensure_onnx, onnx_forward, onnx_path, ort_session
    from deid.ner.runtime import cpu_has_amx_bf16

    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    if args.shapes:
        model, _ = load_token_classifier(Path(DEFAULT_MODEL_DIR))
        forward = torch_forward(model.eval(), "cpu", torch.bfloat16, fuse=True)
        print(f"# torch {torch.__version__}; {args.threads} threads; fused bf16; {args.batches} batches "
              "of ~4,096 tokens, lengths 150-256")
        print("| batch lengths | distinct shapes | tokens/s |")
        print("|---|---:|---:|")
        for rnd in range(2):
            raw = [int(n) for n in rng.integers(150, 257, size=args.batches)]
            padded = [-(-n // 32) * 32 for n in raw]
            for name, lengths in (("as they come", raw), ("padded to a multiple of 32", padded)):
                shapes = [(max(1, 4096 // n), n) for n in lengths]
                t0 = time.perf_counter()
                for shape in shapes:
                    forward(rng.integers(5, 20000, size=shape).astype(np.int64), np.ones(shape, np.int64))
                dt = time.perf_counter() - t0
                tokens = sum(a * b for a, b in shapes)
                print(f"| {name} (pass {rnd + 1}) | {len(set(shapes))} | {tokens / dt:,.0f} |", flush=True)
        return
    ids = rng.integers(5, 20000, size=(args.batch, args.length)).astype(np.int64)
    mask = np.ones_like(ids)
    model, _ = load_token_classifier(Path(DEFAULT_MODEL_DIR))
    model.eval()
    target = onnx_path(Path(DEFAULT_MODEL_DIR), True)
    if not target.is_file():
        ensure_onnx(Path(DEFAULT_MODEL_DIR), True, model=model)
    runtimes: list[tuple[str, Any]] = [("torch fp32", torch_forward(model))]
    runtimes.append(("onnx int8", onnx_forward(ort_session(target, args.threads))))
    # the same fused graph before quantization (built beside the int8 file)
    runtimes.append(("onnx fp32", onnx_forward(ort_session(onnx_path(Path(DEFAULT_MODEL_DIR), False),
                                                           args.threads))))

    def fresh(dtype: Any, fuse: bool) -> Any:
        m, _ = load_token_classifier(Path(DEFAULT_MODEL_DIR))
        return torch_forward(m.eval(), "cpu", dtype, fuse=fuse)

    runtimes.append(("torch fp32, fused (deid.ner.cpu_fusion)", fresh(None, True)))
    runtimes.append(("torch bf16", fresh(torch.bfloat16, False)))
    runtimes.append(("torch bf16, fused (the default on AMX)", fresh(torch.bfloat16, True)))
    print(f"# {platform.processor() or platform.machine()}; AMX bf16: {cpu_has_amx_bf16()}; torch "
          f"{torch.__version__}; {args.threads} threads; batch {args.batch} x {args.length} tokens")
    print("| runtime | tokens/s | argmax agreement with fp32 |")
    print("|---|---:|---:|")
    ref = None
    for name, forward in runtimes:
        forward(ids, mask)  # warm-up
        t0 = time.perf_counter()
        for _ in range(args.repeats):
            probs = forward(ids, mask)
        dt = (time.perf_counter() - t0) / args.repeats
        tags = probs.argmax(-1)
        ref = tags if ref is None else ref
        print(f"| {name} | {ids.size / dt:,.0f} | {(tags == ref).mean():.4f} |", flush=True)


if __name__ == "__main__":
    main()
