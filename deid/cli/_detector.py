"""Detector construction shared by the commands that detect (``redact``, ``eval``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from deid.cli import CliError

if TYPE_CHECKING:
    from deid.detect import Detector


def hybrid_detector(model_dir: Path | None, rules_only: bool) -> Detector:
    """Rules alone (``rules_only``), else rules merged with the token classifier at ``model_dir``
    (the shipped default model when None)."""
    from deid.detection import HybridDetector
    from deid.rules import RuleDetector

    if rules_only:
        if model_dir is not None:
            raise CliError("--model and --rules-only exclude each other")
        return HybridDetector(RuleDetector(), None)
    from deid.ner import DEFAULT_MODEL_DIR, load_detector

    path = model_dir or DEFAULT_MODEL_DIR
    if not (path / "config.json").is_file():
        raise CliError(f"no model at {path} (expected a token-classification directory with config.json)")
    try:
        model = load_detector(path)
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        raise CliError(f"cannot load the model at {path}: {type(exc).__name__}") from None
    return HybridDetector(RuleDetector(), model)
