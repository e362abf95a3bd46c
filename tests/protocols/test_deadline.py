"""The whole-note detection deadline (issue 33): every stage of detection checks it and stops."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from deid.detection import HybridDetector
from deid.detection.pipeline import PIPELINE, run_pipeline
from deid.labels import Label
from deid.protocols.deadline import Deadline, DetectionTimeout, detect_within, takes_deadline
from deid.rules import RuleDetector
from deid.spans import Span


class Clock:
    """A hand-driven monotonic clock."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class TickingRecognizer:
    """A recognizer that takes one second of the clock and finds nothing."""

    def __init__(self, name: str, clock: Clock, calls: list[str]) -> None:
        self.name, self._clock, self._calls = name, clock, calls

    def find(self, text: str, language: str) -> list[Span]:
        self._calls.append(self.name)
        self._clock.now += 1.0
        return []


class NoDeadlineModel:
    """A detector that does not take a deadline (a test stand-in, a third-party one)."""

    model_name, model_version = "m", "1"

    def __init__(self) -> None:
        self.calls = 0

    def detect(self, texts: Sequence[str], languages: Sequence[str]) -> list[list[Span]]:
        self.calls += 1
        return [[] for _ in texts]


def test_a_deadline_passes_on_its_clock_and_names_the_stage_that_noticed() -> None:
    clock = Clock()
    d = Deadline.after(2.0, clock)
    d.check("rules")
    assert d.remaining() == 2.0 and not d.expired()
    clock.now = 2.0
    assert d.expired()
    with pytest.raises(DetectionTimeout) as err:
        d.check("ner")
    assert err.value.args == ("ner",)


def test_the_rules_stop_between_recognizers_once_the_deadline_passed() -> None:
    clock, calls = Clock(), []
    rules = RuleDetector(recognizers=[TickingRecognizer(f"r{i}", clock, calls) for i in range(10)])
    with pytest.raises(DetectionTimeout):
        rules.detect(["some text"], ["en"], deadline=Deadline.after(2.5, clock))
    assert calls == ["r0", "r1", "r2"]  # the fourth would start past the deadline
    calls.clear()
    assert rules.detect(["some text"], ["en"]) == [[]] and len(calls) == 10  # no deadline: all run


def test_the_merge_steps_stop_once_the_deadline_passed_and_run_unchanged_before_it() -> None:
    text = "Seen by Dr Martin on 12/03/2024."
    rule = [Span(21, 31, Label.DATE, "rules.date")]
    model = [Span(11, 17, Label.STAFF, "ner")]
    clock = Clock()
    assert run_pipeline(rule, model, text, "en", deadline=Deadline.after(1.0, clock)) == run_pipeline(
        rule, model, text, "en")
    clock.now = 5.0
    with pytest.raises(DetectionTimeout) as err:
        run_pipeline(rule, model, text, "en", deadline=Deadline(1.0, clock))
    assert err.value.args == (PIPELINE[0].name,)


def test_the_hybrid_detector_checks_before_a_model_that_takes_no_deadline() -> None:
    clock, calls = Clock(), []
    model = NoDeadlineModel()
    hybrid = HybridDetector(RuleDetector(recognizers=[TickingRecognizer("r", clock, calls)]), model)
    assert takes_deadline(hybrid) and not takes_deadline(model)
    hybrid.detect(["x"], ["en"], deadline=Deadline.after(5.0, clock))
    assert model.calls == 1
    with pytest.raises(DetectionTimeout):  # the rules took the clock past the deadline
        hybrid.detect(["x"], ["en"], deadline=Deadline.after(0.5, clock))
    assert model.calls == 1  # never started


def test_detect_within_passes_the_deadline_only_to_a_detector_that_takes_one() -> None:
    clock = Clock()
    model = NoDeadlineModel()
    assert detect_within(model, ["a"], ["en"], Deadline.after(1.0, clock)) == [[]]
    assert detect_within(model, ["a"], ["en"], None) == [[]]
    clock.now = 2.0
    with pytest.raises(DetectionTimeout):
        detect_within(model, ["a"], ["en"], Deadline(1.0, clock))
    assert model.calls == 2
