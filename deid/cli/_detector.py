"""The command line's side of building the detector (``redact``, ``eval``, ``audit``): its flags laid
over the settings, then the library's one constructor, ``deid.pipeline.build_detector``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deid.cli import CliError

if TYPE_CHECKING:
    from deid.protocols import Detector
    from deid.settings import Settings


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
    from deid.pipeline import RULES_ONLY_WARNING

    print(f"WARNING: {RULES_ONLY_WARNING}", file=stream or sys.stderr)


def detector_settings(args: argparse.Namespace, settings: Settings | None = None) -> Settings:
    """``settings`` (default: from the environment) with the command's flags on top: ``--rules-only``
    (``model.enabled`` false), ``--model`` (``model.path``), ``--backend``, ``--min-phi-prob``. The
    command line decides whether the model runs (``DEID_MODEL__ENABLED`` is the worker's switch)."""
    from deid.settings import Settings

    rules_only = bool(getattr(args, "rules_only", False))
    model_dir: Path | None = getattr(args, "model", None)
    if rules_only and model_dir is not None:
        raise CliError("--model and --rules-only exclude each other")
    base = settings if settings is not None else Settings()
    updates: dict[str, Any] = {"enabled": not rules_only}
    if model_dir is not None:
        updates["path"] = model_dir
    for flag in ("backend", "min_phi_prob"):
        if getattr(args, flag, None) is not None:
            updates[flag] = getattr(args, flag)
    return base.model_copy(update={"model": base.model.model_copy(update=updates)})


def detector_from_args(args: argparse.Namespace, *, warn: bool = True, settings: Settings | None = None
                       ) -> Detector:
    """The detector a command runs: ``deid.pipeline.build_detector`` over ``settings`` (default:
    ``detector_settings(args)``; a command that builds the whole pipeline passes the settings it
    built from them); rules alone are warned about on standard error (unless ``warn`` is false:
    ``deid eval`` scores the rules alone on purpose), a model that is missing or does not load is a
    one-line error."""
    from deid.pipeline import ModelUnavailable, build_detector

    settings = settings if settings is not None else detector_settings(args)
    if warn and not settings.model.enabled:
        warn_no_names()
    try:
        return build_detector(settings)
    except ModelUnavailable as exc:
        raise CliError(str(exc)) from None


def _probability(value: str) -> float:
    try:
        p = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if not 0.0 < p <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in (0, 1]: {value!r}")
    return p
