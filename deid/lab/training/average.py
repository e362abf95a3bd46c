"""The weight-space average of two exported models of one architecture (WiSE-FT, Wortsman et al.
2022, "Robust fine-tuning of zero-shot models"): each de-identification tensor becomes
``(1 - alpha) * base + alpha * tuned``. A continuation that learns new notes and drifts on the
public sets is pulled back toward the model it started from, at no training cost.

``python -m deid.lab.training.average BASE TUNED --alpha 0.5 --out DIR [--model-version V]``:
``DIR`` gets TUNED's config (its version renamed), the averaged ``model.safetensors`` in TUNED's
dtypes, and every other file of TUNED (the concept head, untouched) copied.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

WEIGHTS = "model.safetensors"


def average(base: Path, tuned: Path, alpha: float, out: Path, version: str | None = None) -> Path:
    from safetensors.torch import load_file, save_file

    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be between 0 and 1, not {alpha}")
    a, b = load_file(base / WEIGHTS), load_file(tuned / WEIGHTS)
    if a.keys() != b.keys() or any(a[k].shape != b[k].shape for k in a):
        raise ValueError(f"{base} and {tuned} are not one architecture: their tensors differ")
    mixed = {}
    for key, t in b.items():
        if t.is_floating_point():
            mixed[key] = ((1 - alpha) * a[key].float() + alpha * t.float()).to(t.dtype)
        else:
            mixed[key] = t.clone()  # integer buffers (position ids) are the same in both
    out.mkdir(parents=True, exist_ok=True)
    for child in tuned.iterdir():
        if child.is_file() and child.name != WEIGHTS:
            shutil.copy2(child, out / child.name)
    save_file(mixed, str(out / WEIGHTS), metadata={"format": "pt"})
    config = json.loads((tuned / "config.json").read_text(encoding="utf-8"))
    config["deid_model_version"] = version or f"{config.get('deid_model_version', tuned.name)}-avg{alpha:g}"
    config["deid_weight_average"] = {"base": str(base), "tuned": str(tuned), "alpha": alpha}
    (out / "config.json").write_text(json.dumps(config, indent=2, ensure_ascii=False), encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m deid.lab.training.average",
                                description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("base", type=Path, help="exported model the tuning started from")
    p.add_argument("tuned", type=Path, help="exported model after tuning")
    p.add_argument("--alpha", type=float, default=0.5, help="weight of TUNED (default 0.5)")
    p.add_argument("--out", type=Path, required=True, help="directory to write")
    p.add_argument("--model-version", help="version to record (default: TUNED's with -avgALPHA)")
    args = p.parse_args(argv)
    try:
        average(args.base, args.tuned, args.alpha, args.out, args.model_version)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"averaged -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
