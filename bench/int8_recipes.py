"""Other int8 recipes for the ONNX model on a CPU without VNNI (issue 32): is there one that is as
fast as the shipped dynamic int8 and reads a note the same whatever notes share its batch?

The shipped graph (``deid.ner.onnx_backend``, recipe v4) quantizes each MatMul's activations with
one dynamic scale per batch tensor, so a window's numbers depend on the other windows of its
forward pass (journal of the thirteenth stop). Two recipes would make them the window's own:

- **static** activation scales (``quantize_static``, QDQ format, weights per channel), calibrated on
  real forward inputs of the realistic corpus's train notes (``--calibration-notes``), MinMax;
- **weight-only** block quantization (``MatMulNBits``, 8 or 4 bits, blocks of 32, compute in int8:
  activations quantized per row and block, so per window). Needs the ``onnx_ir`` package, which the
  project does not install (``pip install --target DIR onnx-ir`` and ``--extra-path DIR``).

Each variant is timed on the same recorded batches as the fp32 and the shipped int8 graph, in one
process, and compared with fp32: the share of tokens whose most probable tag is the same, and the
recall of fp32's PHI tokens.

Usage: .venv/bin/python bench/int8_recipes.py OUT_DIR [--calibration-notes 120] [--batches 20]
       [--threads 2] [--nbits 8 4] [--extra-path DIR]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpora" / "realistic" / "notes.jsonl"


def record_batches(n_notes: int, seed: int = 7) -> list[tuple[np.ndarray, np.ndarray]]:
    """The forward inputs the detector builds for ``n_notes`` train notes of the realistic corpus."""
    from deid.ner import DEFAULT_MODEL_DIR, load_onnx_detector

    texts = [r["text"] for r in map(json.loads, CORPUS.open(encoding="utf-8")) if r.get("split") == "train"]
    random.Random(seed).shuffle(texts)
    detector = load_onnx_detector(DEFAULT_MODEL_DIR, int8=False)
    batches: list[tuple[np.ndarray, np.ndarray]] = []
    inner = detector._forward

    def record(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        batches.append((ids.copy(), mask.copy()))
        return inner(ids, mask)  # type: ignore[no-any-return]

    detector._forward = record
    chosen = texts[:n_notes]
    for i in range(0, len(chosen), 16):
        detector.token_predictions(chosen[i : i + 16])
    return batches


def static_qdq(fp32: Path, out: Path, batches: list[tuple[np.ndarray, np.ndarray]]) -> None:
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Reader(CalibrationDataReader):  # type: ignore[misc]
        def __init__(self) -> None:
            self.it: Iterator[tuple[np.ndarray, np.ndarray]] = iter(batches)

        def get_next(self) -> dict[str, np.ndarray] | None:
            b = next(self.it, None)
            return None if b is None else {"input_ids": b[0], "attention_mask": b[1]}

    # the fused operators need the symbolic shape inference to type their outputs: without it
    # only the weights were quantized (no activation had a type)
    pre = out.with_suffix(".pre.onnx")
    quant_pre_process(str(fp32), str(pre), skip_optimization=True, auto_merge=True)
    quantize_static(str(pre), str(out), Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                    calibrate_method=CalibrationMethod.MinMax,
                    extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
    pre.unlink()


def weight_only(fp32: Path, out: Path, bits: int) -> None:
    import onnx
    from onnxruntime.quantization import matmul_nbits_quantizer as nbits

    config = nbits.DefaultWeightOnlyQuantConfig(block_size=32, is_symmetric=True, accuracy_level=4, bits=bits)
    quantizer = nbits.MatMulNBitsQuantizer(onnx.load(str(fp32)), algo_config=config)
    quantizer.process()
    quantizer.model.save_model_to_file(str(out), True)


def compare(paths: dict[str, Path], batches: list[tuple[np.ndarray, np.ndarray]], threads: int) -> None:
    from deid.ner.onnx_backend import ort_session

    outs: dict[str, list[np.ndarray]] = {}
    print("| graph | CPU s | wall s | tokens agreeing with fp32 | recall of fp32's PHI tokens | PHI tokens |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, path in paths.items():
        session = ort_session(path, threads)
        session.run(["probs"], {"input_ids": batches[0][0], "attention_mask": batches[0][1]})
        cpu, wall = time.process_time(), time.perf_counter()
        outs[name] = [session.run(["probs"], {"input_ids": i, "attention_mask": m})[0] for i, m in batches]
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        agree = total = phi_ref = phi_hit = phi = 0
        for (_, mask), ref, got in zip(batches, outs["fp32"], outs[name], strict=True):
            keep = mask.astype(bool)
            a, b = ref.argmax(-1)[keep], got.argmax(-1)[keep]
            agree += int((a == b).sum())
            total += int(keep.sum())
            phi_ref += int((a != 0).sum())
            phi_hit += int(((a != 0) & (b != 0)).sum())
            phi += int((b != 0).sum())
        print(f"| {name} | {cpu:.1f} | {wall:.1f} | {agree / total:.5f} | {phi_hit / phi_ref:.5f} | {phi} |",
              flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out_dir", type=Path, help="where the quantized graphs are written (~1.5 GB)")
    p.add_argument("--calibration-notes", type=int, default=120)
    p.add_argument("--batches", type=int, default=20, help="recorded batches to time and compare on")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--nbits", type=int, nargs="*", default=[8, 4], choices=[4, 8])
    p.add_argument("--extra-path", type=Path, help="a folder holding onnx_ir, for the weight-only recipes")
    args = p.parse_args(argv)
    if args.extra_path:
        sys.path.append(str(args.extra_path))
    import logging

    logging.getLogger("onnxruntime.quantization").setLevel(logging.WARNING)  # a line per MatMul: noise
    from deid.ner import DEFAULT_MODEL_DIR
    from deid.ner.onnx_backend import ensure_onnx

    fp32, int8 = ensure_onnx(Path(DEFAULT_MODEL_DIR), False), ensure_onnx(Path(DEFAULT_MODEL_DIR), True)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    batches = record_batches(args.calibration_notes)
    print(f"# {len(batches)} batches recorded from {args.calibration_notes} train notes; "
          f"{sum(int(m.sum()) for _, m in batches)} tokens; timing on the first {args.batches}")
    paths: dict[str, Path] = {"fp32": fp32, "dynamic int8 (shipped)": int8}
    static = args.out_dir / "static-qdq-minmax.onnx"
    static_qdq(fp32, static, batches)
    paths["static int8, QDQ, MinMax"] = static
    for bits in args.nbits:
        try:
            weight_only(fp32, args.out_dir / f"nbits{bits}.onnx", bits)
        except ImportError as exc:
            print(f"# weight-only {bits} bits skipped: {exc} (see --extra-path)")
            continue
        paths[f"weight-only {bits} bits, int8 compute"] = args.out_dir / f"nbits{bits}.onnx"
    compare(paths, batches[: args.batches], args.threads)
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except (OSError, ValueError) as exc:
        print(f"int8_recipes: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
