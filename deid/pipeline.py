"""The end-to-end note pipeline: detect (sync, run off the event loop) then substitute (async).

``build_pipeline(settings, store)`` is the one place that wires detection and substitution from
settings, and ``build_detector(settings)`` the one that builds the detector: the worker and every
command go through them (a command lays its flags over the settings first).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from deid.deadline import Deadline, detect_within
from deid.events import DeidNote, ModelInfo, RawNote
from deid.protocols import Detector
from deid.settings import Settings
from deid.spans import Span
from deid.store.base import PatientStore


class Substituter(Protocol):
    async def substitute(
        self, notes: Sequence[RawNote], spans: Sequence[Sequence[Span]], model: ModelInfo
    ) -> list[DeidNote]: ...


class NotePipeline:
    def __init__(self, detector: Detector, substituter: Substituter) -> None:
        self.detector = detector
        self.substituter = substituter
        self.model_info = ModelInfo(name=detector.model_name, version=detector.model_version)

    def detect(self, notes: Sequence[RawNote], deadline: Deadline | None = None) -> list[list[Span]]:
        """CPU/GPU bound: call from a worker thread, not the event loop. Past ``deadline`` it
        raises ``deid.deadline.DetectionTimeout`` at the detector's next check."""
        return detect_within(self.detector, [n.text for n in notes], [n.language for n in notes], deadline)

    async def substitute(self, notes: Sequence[RawNote], spans: Sequence[Sequence[Span]]) -> list[DeidNote]:
        return await self.substituter.substitute(notes, spans, self.model_info)

    async def process(self, notes: Sequence[RawNote]) -> list[DeidNote]:
        return await self.substitute(notes, self.detect(notes))


# The one "no model" warning: the worker logs it, the command line prints it (issue 16: running
# without the model must never look like a full de-identification).
RULES_ONLY_WARNING = ("RULES ONLY (no model): person and hospital names are NOT detected and pass "
                      "through in clear, nor is other free-text PHI; use this only for tests or for "
                      "notes known to hold no names")


class ModelUnavailable(RuntimeError):
    """The model the settings name is not there or does not load (one line, no note text)."""


def build_detector(settings: Settings) -> Detector:
    """The one constructor of the detector, for the worker and every command: the rules merged
    with the token classifier ``settings.model`` describes (its path, else the shipped model, on
    its backend and threshold), or the rules alone when ``model.enabled`` is false. A command line
    lays its flags over the settings first (``deid.cli._detector.detector_settings``)."""
    from deid.detection import HybridDetector
    from deid.rules import RuleDetector

    if not settings.model.enabled:
        return HybridDetector(RuleDetector(), None)
    from deid.ner import DEFAULT_MODEL_DIR, load_detector_from_settings

    path = settings.model.path or DEFAULT_MODEL_DIR
    if not (path / "config.json").is_file():
        raise ModelUnavailable(f"no model at {path} (expected a token-classification directory with "
                               "config.json)")
    try:
        model = load_detector_from_settings(settings.model, path)
    except (OSError, ValueError, KeyError, RuntimeError) as exc:
        raise ModelUnavailable(f"cannot load the model at {path}: {type(exc).__name__}") from None
    return HybridDetector(RuleDetector(), model)


def build_pipeline(
    settings: Settings, store: PatientStore, rng: random.Random | None = None,
    detector: Detector | None = None,
) -> NotePipeline:
    """The one constructor of the note pipeline: ``build_detector`` (unless a detector is given)
    and ``deid.substitution.build_substituter`` under the settings' profile."""
    from deid.substitution import build_substituter

    det = detector if detector is not None else build_detector(settings)
    return NotePipeline(det, build_substituter(settings, store, rng))
