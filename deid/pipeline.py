"""The end-to-end note pipeline: detect (sync, run off the event loop) then substitute (async).

``build_pipeline(settings, store)`` is the one place that wires detection and substitution from
settings; the worker and the CLI both go through it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from deid import __version__
from deid.detect import Detector
from deid.events import DeidNote, ModelInfo, PrivacyAccount, RawNote, SubstitutedSpan
from deid.keys import KeyHasher
from deid.render import Replacement, render
from deid.settings import Settings
from deid.spans import Span
from deid.store.base import MICRO, PatientStore


class Substituter(Protocol):
    async def substitute(
        self, notes: Sequence[RawNote], spans: Sequence[Sequence[Span]], model: ModelInfo
    ) -> list[DeidNote]: ...


class PlaceholderSubstituter:
    """Replaces every mention with its category tag ([PER], [DATE]...): no store, no budget."""

    def __init__(self, hasher: KeyHasher, store: PatientStore, settings: Settings) -> None:
        self._hasher = hasher
        self._store = store
        self._cap = settings.privacy.patient_cap

    async def substitute(
        self, notes: Sequence[RawNote], spans: Sequence[Sequence[Span]], model: ModelInfo
    ) -> list[DeidNote]:
        out = []
        for note, note_spans in zip(notes, spans, strict=True):
            patient = self._hasher.patient(note.patient_id)
            reps = [Replacement(s.start, s.end, s.label, f"[{s.label.category.value}]", "placeholder")
                    for s in note_spans]
            text, placed = render(note.text, reps)
            total = await self._store.spent(patient)
            out.append(
                DeidNote(
                    event_id=note.event_id,
                    patient_pseudonym=patient,
                    document_pseudonym=self._hasher.document(note.document_id) if note.document_id else None,
                    note_type=note.note_type,
                    language=note.language,
                    text=text,
                    spans=[SubstitutedSpan(start=p.start, end=p.end, label=p.label.value, strategy=p.strategy)
                           for p in placed],
                    privacy=PrivacyAccount(epsilon_spent=0.0, patient_epsilon_total=total / MICRO,
                                           patient_epsilon_cap=self._cap, exhausted=False),
                    model=model,
                )
            )
        return out


class NotePipeline:
    def __init__(self, detector: Detector, substituter: Substituter) -> None:
        self.detector = detector
        self.substituter = substituter
        self.model_info = ModelInfo(name=detector.model_name, version=detector.model_version)

    def detect(self, notes: Sequence[RawNote]) -> list[list[Span]]:
        """CPU/GPU bound: call from a worker thread, not the event loop."""
        return self.detector.detect([n.text for n in notes], [n.language for n in notes])

    async def substitute(self, notes: Sequence[RawNote], spans: Sequence[Sequence[Span]]) -> list[DeidNote]:
        return await self.substituter.substitute(notes, spans, self.model_info)

    async def process(self, notes: Sequence[RawNote]) -> list[DeidNote]:
        return await self.substitute(notes, self.detect(notes))


def build_detector(settings: Settings) -> Detector:
    from deid.detection import HybridDetector  # type: ignore[import-not-found,unused-ignore]
    from deid.rules import RuleDetector  # type: ignore[import-not-found,unused-ignore]

    model: Detector | None = None
    if settings.model.enabled:
        try:
            from deid.ner import load_detector  # type: ignore[import-not-found,attr-defined,unused-ignore]
        except ImportError:
            model = None
        else:
            model = load_detector(settings.model)
    detector: Detector = HybridDetector(RuleDetector(), model)
    return detector


def build_pipeline(
    settings: Settings, store: PatientStore, rng: random.Random | None = None,
    detector: Detector | None = None,
) -> NotePipeline:
    hasher = KeyHasher(settings.secret_bytes())
    det = detector if detector is not None else build_detector(settings)
    substituter: Substituter
    try:
        from deid.substitute import Substituter as DpSubstituter  # type: ignore[import-not-found,attr-defined,unused-ignore]
    except ImportError:
        substituter = PlaceholderSubstituter(hasher, store, settings)
    else:
        substituter = DpSubstituter(store, hasher, settings, rng or random.SystemRandom())
    return NotePipeline(det, substituter)


__all__ = [
    "NotePipeline",
    "PlaceholderSubstituter",
    "Substituter",
    "__version__",
    "build_detector",
    "build_pipeline",
]
