"""A whole-note detection deadline that the detection code itself honours.

A Python thread cannot be interrupted from outside, and a model forward pass or a regular
expression holding the interpreter lock does not look at a clock: the only deadline that can
stop detection is one the detection code checks between its steps. The caller (the worker) makes
a ``Deadline`` per detection call and passes it down; the rules check it between recognizers,
the model between forward batches, the post-processing between its steps, and each raises
``DetectionTimeout`` once it has passed. The work then stops at the next check, its thread is
free again, and the caller dead-letters the note (``detection_timeout``).

A detector that takes no ``deadline`` (a test stand-in, a third-party one) is still called:
``detect_within`` checks the deadline before calling it, and the caller keeps its own timeout as
a backstop.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from deid.protocols import Detector
from deid.spans import Span

Clock = Callable[[], float]


class DetectionTimeout(Exception):
    """Detection passed its deadline. The message is the stage that noticed (never text)."""


@dataclass(frozen=True, slots=True)
class Deadline:
    """A point on a monotonic ``clock`` after which detection stops at its next check."""

    at: float
    clock: Clock = field(default=time.monotonic, compare=False)

    @classmethod
    def after(cls, seconds: float, clock: Clock = time.monotonic) -> Deadline:
        return cls(clock() + seconds, clock)

    def remaining(self) -> float:
        return self.at - self.clock()

    def expired(self) -> bool:
        return self.clock() >= self.at

    def check(self, stage: str) -> None:
        """Raise ``DetectionTimeout(stage)`` when the deadline has passed."""
        if self.clock() >= self.at:
            raise DetectionTimeout(stage)


def check(deadline: Deadline | None, stage: str) -> None:
    """``deadline.check(stage)``; nothing without a deadline."""
    if deadline is not None:
        deadline.check(stage)


_TAKES_DEADLINE: dict[type, bool] = {}


def takes_deadline(detector: object) -> bool:
    """Whether ``detector.detect`` accepts a ``deadline`` keyword (looked up once per class)."""
    kind = type(detector)
    known = _TAKES_DEADLINE.get(kind)
    if known is None:
        try:
            known = "deadline" in inspect.signature(detector.detect).parameters  # type: ignore[attr-defined]
        except (TypeError, ValueError):
            known = False
        _TAKES_DEADLINE[kind] = known
    return known


def detect_within(detector: Detector, texts: Sequence[str], languages: Sequence[str],
                  deadline: Deadline | None) -> list[list[Span]]:
    """``detector.detect`` under ``deadline``: passed down when the detector takes one, else
    checked before the call (such a detector cannot be stopped once started)."""
    if deadline is None:
        return detector.detect(texts, languages)
    if takes_deadline(detector):
        return detector.detect(texts, languages, deadline=deadline)  # type: ignore[call-arg]
    deadline.check("detect")
    return detector.detect(texts, languages)
