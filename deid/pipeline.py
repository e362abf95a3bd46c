"""The end-to-end note pipeline: detect (sync, run off the event loop) then substitute (async).

``build_pipeline(settings, store)`` is the one place that wires detection and substitution from
settings; the worker and the CLI both go through it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from deid.deadline import Deadline, detect_within
from deid.detect import Detector
from deid.events import DeidNote, ModelInfo, RawNote
from deid.keys import KeyHasher
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


def build_detector(settings: Settings) -> Detector:
    """The rules merged with the token classifier the settings name (rules alone when disabled)."""
    from deid.detection import HybridDetector
    from deid.rules import RuleDetector

    model: Detector | None = None
    if settings.model.enabled:
        from deid.ner import load_detector

        model = load_detector(settings.model)
    return HybridDetector(RuleDetector(), model)


def build_pipeline(
    settings: Settings, store: PatientStore, rng: random.Random | None = None,
    detector: Detector | None = None,
) -> NotePipeline:
    from deid.substitution import Substituter as StoreSubstituter
    from deid.substitution import mode_settings

    det = detector if detector is not None else build_detector(settings)
    cfg = mode_settings(settings, settings.profile)  # the profile's strategies, the settings' on top
    substituter = StoreSubstituter(store, KeyHasher(settings.secret_bytes()), cfg,
                                   rng or random.SystemRandom())
    return NotePipeline(det, substituter)
