"""Detector construction shared by the commands that detect (``redact``, ``eval``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deid.cli import CliError

if TYPE_CHECKING:
    from deid.protocols import Detector

NO_NAMES_WARNING = (
    "WARNING: rules only (no model): person names (patients, staff, relatives) are NOT detected "
    "and stay in the output"
)


def add_model_options(p: argparse.ArgumentParser) -> None:
    """``--backend`` and ``--min-phi-prob``: the model's runtime and operating threshold, over
    the settings (``DEID_MODEL__BACKEND``, ``DEID_MODEL__MIN_PHI_PROB``)."""
    p.add_argument("--backend", choices=("auto", "torch", "onnx"), default=None,
                   help="model runtime: onnx (ONNX Runtime, int8, CPU; the file is built and cached "
                   "on first use), torch (bf16 weights on a CPU with AMX, fp32 on a GPU; "
                   "DEID_MODEL__DTYPE overrides), auto (torch on a GPU or an AMX CPU, else onnx; "
                   "default: DEID_MODEL__BACKEND or auto)")
    p.add_argument("--min-phi-prob", type=_probability, default=None, metavar="P",
                   help="operating threshold: a word is PHI when the model's P(PHI) = 1 - P(O) reaches P "
                   "(lower finds more PHI, with more false alarms; default: DEID_MODEL__MIN_PHI_PROB, "
                   "else the threshold the model's config.json records, else its most probable tag)")


def warn_no_names(stream: Any = None) -> None:
    """Issue 16: running without the model must never look like a full de-identification."""
    print(NO_NAMES_WARNING, file=stream or sys.stderr)


def hybrid_detector(model_dir: Path | None, rules_only: bool, *, backend: str | None = None,
                    min_phi_prob: float | None = None) -> Detector:
    """Rules alone (``rules_only``), else rules merged with the token classifier at ``model_dir``
    (the shipped default model when None), on the runtime the settings name unless ``backend``."""
    from deid.detection import HybridDetector
    from deid.rules import RuleDetector

    if rules_only:
        if model_dir is not None:
            raise CliError("--model and --rules-only exclude each other")
        return HybridDetector(RuleDetector(), None)
    from deid.ner import DEFAULT_MODEL_DIR, load_detector_from_settings
    from deid.settings import Settings

    settings = Settings().model
    path = model_dir or settings.path or DEFAULT_MODEL_DIR
    if not (path / "config.json").is_file():
        raise CliError(f"no model at {path} (expected a token-classification directory with config.json)")
    updates: dict[str, Any] = {}
    if backend is not None:
        updates["backend"] = backend
    if min_phi_prob is not None:
        updates["min_phi_prob"] = min_phi_prob
    if updates:
        settings = settings.model_copy(update=updates)
    try:
        model = load_detector_from_settings(settings, path)
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        raise CliError(f"cannot load the model at {path}: {type(exc).__name__}") from None
    return HybridDetector(RuleDetector(), model)


def _probability(value: str) -> float:
    try:
        p = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if not 0.0 < p <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in (0, 1]: {value!r}")
    return p
