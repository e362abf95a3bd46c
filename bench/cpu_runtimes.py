"""The model alone on one batch, on each CPU runtime, in one process: torch fp32, torch bf16 (AMX
where the CPU has it), each eager and with the encoder's dense blocks fused into oneDNN calls
(``deid.ner.cpu_fusion``, what the detector runs), and ONNX Runtime int8 (the cached file
``deid.ner.onnx_backend`` builds).

Usage: .venv/bin/python bench/cpu_runtimes.py [--batch 32] [--length 256] [--threads 2] [--repeats 5]

Prints tokens/s per runtime and each runtime's agreement with fp32 (share of tokens whose most
probable tag is the same). The batch is random token ids: speed does not depend on the words.
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
    ids = rng.integers(5, 20000, size=(args.batch, args.length)).astype(np.int64)
    mask = np.ones_like(ids)
    model, _ = load_token_classifier(Path(DEFAULT_MODEL_DIR))
    model.eval()
    target = onnx_path(Path(DEFAULT_MODEL_DIR), True)
    if not target.is_file():
        ensure_onnx(Path(DEFAULT_MODEL_DIR), True, model=model)
    runtimes: list[tuple[str, Any]] = [("torch fp32", torch_forward(model))]
    runtimes.append(("onnx int8", onnx_forward(ort_session(target, args.threads))))

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
