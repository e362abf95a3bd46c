"""The model honours the detection deadline between forward passes (issue 33): a 200k-character
note is read in dozens of passes, and the check before each one is what lets a deadline stop it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from deid.labels import BIO_TAGS
from deid.ner.chunked import ChunkedDetector
from deid.ner.infer import InferenceConfig, NerDetector
from deid.protocols.deadline import Deadline, DetectionTimeout

ID2LABEL = dict(enumerate(BIO_TAGS))


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def ticking_forward(clock: Clock, calls: list[int]) -> Any:
    """A forward pass that answers O everywhere and takes one second of ``clock``."""
    o_id = next(i for i, t in ID2LABEL.items() if t == "O")

    def forward(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        calls.append(ids.shape[0])
        clock.now += 1.0
        probs = np.zeros((*ids.shape, len(ID2LABEL)), np.float32)
        probs[..., o_id] = 1.0
        return probs

    return forward


def detector(e5_tokenizer: Any, clock: Clock, calls: list[int]) -> NerDetector:
    # small windows and budget: the note below needs many passes
    config = InferenceConfig(max_len=64, overlap=8, token_budget=256)
    return NerDetector(None, e5_tokenizer, forward=ticking_forward(clock, calls), id2label=ID2LABEL,
                       config=config)


ADVERSARIAL = "a-" * 2_000


def test_the_model_stops_between_forward_passes_once_the_deadline_passed(e5_tokenizer: Any) -> None:
    clock, calls = Clock(), []
    det = detector(e5_tokenizer, clock, calls)
    assert det.detect([ADVERSARIAL], ["en"]) == [[]]
    passes = len(calls)
    assert passes > 10
    calls.clear()
    clock.now = 0.0
    with pytest.raises(DetectionTimeout) as err:
        det.detect([ADVERSARIAL], ["en"], deadline=Deadline.after(3.5, clock))
    assert err.value.args == ("ner",)
    assert len(calls) == 4  # passes started at 0, 1, 2 and 3 s; the fifth would start past 3.5 s
    # the detector is usable again (its lock was released)
    calls.clear()
    assert det.detect(["short"], ["en"], deadline=Deadline.after(10.0, clock)) == [[]]


def test_a_deadline_far_enough_changes_nothing(e5_tokenizer: Any) -> None:
    clock, calls = Clock(), []
    det = detector(e5_tokenizer, clock, calls)
    text = "Mme Lefebvre, née le 12/03/1951. " * 40
    assert det.detect([text], ["fr"], deadline=Deadline.after(1e6, clock)) == det.detect([text], ["fr"])


def test_long_notes_in_pieces_stop_between_pieces(e5_tokenizer: Any) -> None:
    clock, calls = Clock(), []
    chunked = ChunkedDetector(detector(e5_tokenizer, clock, calls), max_chars=500, batch=1)
    with pytest.raises(DetectionTimeout):
        chunked.detect([ADVERSARIAL], ["en"], deadline=Deadline.after(2.5, clock))
    assert len(calls) <= 3
