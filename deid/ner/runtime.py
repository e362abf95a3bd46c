"""Which runtime and number format the model runs in, chosen from the hardware.

Measured on the 2-core development box (Xeon with AMX, 2026-11-25; ``docs/BENCHMARKS.md``,
"Speed on CPU"): the same model, the same 32 x 256-token batch, 2 threads: torch fp32 5.5k
tokens/s, ONNX Runtime int8 (the former CPU default) 7.1k, torch with bfloat16 weights 21k. A CPU
with AMX multiplies bf16 tiles in hardware (oneDNN uses it through torch), which int8 on ONNX
Runtime's kernels does not match here. Without AMX, bf16 is emulated or only partly accelerated,
and int8 ONNX stays the CPU default. On a GPU the encoder runs in fp32 (half precision measured
slower on an H100 for this small encoder, mostly because SDPA picked cuDNN's attention, which plans
each new shape; it no longer may), its matrix products in TF32 (``deid.ner.infer._gpu_kernels``).
"""

from __future__ import annotations

import importlib.util
from functools import cache


@cache
def cpu_has_amx_bf16() -> bool:
    """Whether this CPU multiplies bf16 matrices in hardware (Intel AMX tiles), as torch sees it.

    Uses torch's own probe (which also asks the kernel for the AMX state); False where torch is
    missing or the probe is not there (older or newer torch), so the choice falls back to ONNX."""
    if importlib.util.find_spec("torch") is None:
        return False
    import torch

    probe = getattr(torch.cpu, "_is_amx_tile_supported", None)
    bf16 = getattr(torch.cpu, "_is_avx512_bf16_supported", None)
    try:
        return bool(probe and bf16 and probe() and bf16())
    except (RuntimeError, OSError):
        return False


def _cuda_available() -> bool:
    if importlib.util.find_spec("torch") is None:
        return False
    import torch

    return bool(torch.cuda.is_available())


def on_gpu(device: str) -> bool:
    """Whether the torch path runs on a GPU under this ``device`` setting."""
    return device == "cuda" or (device == "auto" and _cuda_available())


def resolve_backend(backend: str, device: str) -> str:
    """``auto``: torch on a GPU; on a CPU, torch when it has AMX (bf16 weights, see
    ``resolve_dtype``), else ONNX Runtime (int8) when installed, else torch."""
    if backend != "auto":
        return backend
    if device == "cuda" or (device == "auto" and _cuda_available()):
        return "torch"
    if cpu_has_amx_bf16():
        return "torch"
    from deid.ner.onnx_backend import onnx_available

    return "onnx" if onnx_available() else "torch"


def resolve_dtype(dtype: str, device: str) -> str:
    """The torch number format of the weights: ``auto`` is bfloat16 on a CPU with AMX and float32
    elsewhere (a GPU included); any other value is kept as given."""
    if dtype != "auto":
        return dtype
    on_cpu = device == "cpu" or (device == "auto" and not _cuda_available())
    return "bfloat16" if on_cpu and cpu_has_amx_bf16() else "float32"
