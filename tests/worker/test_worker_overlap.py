"""The overlapped loop (``batch.overlap_detection``, on by default) against a real broker: the
next batch is detected while the one before is substituted, outputs keep the input order, and an
abandoned batch takes the batch detected behind it back with it (nothing committed past either)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Sequence

import pytest
from worker_testkit import GazetteerDetector, consume, produce, running_worker, worker_settings

from deid.events import DeidNote
from deid.settings import Settings
from deid.spans import Span
from deid.store.base import CommitResult, Release, StoreUnavailable
from deid.store.memory import InMemoryStore
from worker.samples import sample_notes
from worker.services.broker import TansuBroker, create_topics

pytestmark = pytest.mark.integration


class SlowDetector(GazetteerDetector):
    """The gazetteer, taking ``seconds`` per call; records each call's (start, end)."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds
        self.calls: list[tuple[float, float]] = []
        self._lock = threading.Lock()

    def detect(self, texts: Sequence[str], languages: Sequence[str]) -> list[list[Span]]:
        start = time.monotonic()
        time.sleep(self.seconds)
        out = super().detect(texts, languages)
        with self._lock:
            self.calls.append((start, time.monotonic()))
        return out


class SlowStore(InMemoryStore):
    """The in-memory store, each commit taking ``seconds``; records each commit's (start, end)."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds
        self.commits: list[tuple[float, float]] = []

    async def commit(self, patient: str, spend_id: str, releases: Sequence[Release], cap_micro: int
                     ) -> CommitResult:
        start = time.monotonic()
        await asyncio.sleep(self.seconds)
        res = await super().commit(patient, spend_id, releases, cap_micro)
        self.commits.append((start, time.monotonic()))
        return res


class DownStore(InMemoryStore):
    async def lookup(self, patient: str, keys: Sequence[str]) -> dict[str, str]:
        raise StoreUnavailable("down")


async def _topics(broker: TansuBroker, s: Settings) -> None:
    k = s.kafka
    await create_topics(broker.bootstrap_servers, [k.topic_raw_notes], 1)
    await create_topics(broker.bootstrap_servers, [k.topic_deid_notes, k.topic_dead_letter], 1)


async def test_the_next_batch_is_detected_while_the_one_before_is_substituted_in_input_order(
        broker: TansuBroker) -> None:
    s = worker_settings(broker.bootstrap_servers, "overlap", max_events=2, max_wait_ms=20)
    assert s.batch.overlap_detection  # the default
    await _topics(broker, s)
    notes = sample_notes(12, patients=3)
    await produce(broker.bootstrap_servers, s.kafka.topic_raw_notes, notes)
    detector, store = SlowDetector(0.25), SlowStore(0.1)
    async with running_worker(s, store, detector):
        out = await consume(broker.bootstrap_servers, s.kafka.topic_deid_notes, 12, timeout_s=60,
                            settle_s=1.0)
    # one partition in, one out: a batch published before the one after it, each note once
    assert [DeidNote.model_validate_json(r.value).event_id for r in out] == [n.event_id for n in notes]
    overlapping = [(d, c) for d in detector.calls for c in store.commits if d[0] < c[1] and c[0] < d[1]]
    assert overlapping, "no detection ran while a batch was being substituted"


async def test_an_abandoned_batch_is_rewound_with_the_one_detected_behind_it_and_nothing_is_lost(
        broker: TansuBroker) -> None:
    s = worker_settings(broker.bootstrap_servers, "overlap-abandon", max_events=2, max_wait_ms=20)
    s = s.model_copy(update={"batch": s.batch.model_copy(update={"shutdown_grace_s": 0.3})})
    await _topics(broker, s)
    notes = sample_notes(6, patients=2)
    await produce(broker.bootstrap_servers, s.kafka.topic_raw_notes, notes)
    detector = SlowDetector(0.05)
    async with running_worker(s, DownStore(), detector) as (worker, _):
        deadline = time.monotonic() + 30
        while len(detector.calls) < 2 and time.monotonic() < deadline:  # batch 2 detected behind 1
            await asyncio.sleep(0.05)
        assert len(detector.calls) >= 2
    assert worker.batches_done == 0
    # a healthy worker of the same group starts from the last commit: every note comes out
    async with running_worker(s, InMemoryStore()):
        out = await consume(broker.bootstrap_servers, s.kafka.topic_deid_notes, 6, timeout_s=60)
    assert sorted(DeidNote.model_validate_json(r.value).event_id for r in out) == sorted(
        n.event_id for n in notes)


async def test_the_sequential_loop_is_kept_behind_the_setting(broker: TansuBroker) -> None:
    s = worker_settings(broker.bootstrap_servers, "no-overlap", max_events=2, max_wait_ms=20)
    s = s.model_copy(update={"batch": s.batch.model_copy(update={"overlap_detection": False})})
    await _topics(broker, s)
    notes = sample_notes(6, patients=2)
    await produce(broker.bootstrap_servers, s.kafka.topic_raw_notes, notes)
    detector, store = SlowDetector(0.1), SlowStore(0.05)
    async with running_worker(s, store, detector):
        out = await consume(broker.bootstrap_servers, s.kafka.topic_deid_notes, 6, timeout_s=60)
    assert [DeidNote.model_validate_json(r.value).event_id for r in out] == [n.event_id for n in notes]
    assert not [(d, c) for d in detector.calls for c in store.commits if d[0] < c[1] and c[0] < d[1]]
