"""Readiness that tells the truth, bounded detection, rules-only said loudly: the worker in-process
against a real (Tansu) broker and a real redis-server, both started here on free ports."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Iterator, Sequence
from typing import Any

import aiohttp
import orjson
import pytest
from worker_testkit import GazetteerDetector, consume, produce, running_worker, worker_settings

from deid.events import DeidNote, RawNote
from deid.pipeline import RULES_ONLY_WARNING
from deid.settings import Settings
from deid.spans import Span
from deid.store.memory import InMemoryStore
from worker.samples import sample_notes
from worker.services.broker import TansuBroker, create_topics

pytestmark = pytest.mark.integration


@pytest.fixture
def own_broker() -> Iterator[TansuBroker]:
    """A broker of this test alone: it gets frozen."""
    with TansuBroker() as b:
        yield b




async def topics(bootstrap: str, s: Settings, partitions: int = 1) -> None:
    k = s.kafka
    await create_topics(bootstrap, [k.topic_raw_notes], partitions)
    await create_topics(bootstrap, [k.topic_deid_notes, k.topic_dead_letter], 1)


async def readyz(port: int) -> tuple[int, str]:
    async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{port}/readyz") as r:
        return r.status, await r.text()


async def wait_ready(port: int, want: int, timeout_s: float) -> str:
    deadline = time.monotonic() + timeout_s
    status, text = 0, ""
    while time.monotonic() < deadline:
        status, text = await readyz(port)
        if status == want:
            return text
        await asyncio.sleep(0.25)
    raise AssertionError(f"/readyz stayed {status} ({text.strip()}) instead of {want}")


def fast_probe(s: Settings) -> Settings:
    s.kafka.probe_interval_s = 0.5
    s.kafka.probe_timeout_s = 1.0
    s.kafka.probe_failures_unready = 3
    return s


async def test_readyz_is_not_ready_while_the_broker_is_frozen_and_nothing_is_lost(
        own_broker: TansuBroker) -> None:
    """The broker-freeze test: SIGSTOP the broker mid-stream; /readyz says 503 with the reason
    within a few probes, 200 again after SIGCONT, and every note comes out."""
    bootstrap = own_broker.bootstrap_servers
    s = fast_probe(worker_settings(bootstrap, "freeze"))
    await topics(bootstrap, s)
    notes = sample_notes(12, patients=3)
    await produce(bootstrap, s.kafka.topic_raw_notes, notes[:6])
    assert own_broker.process is not None
    pid = own_broker.process.pid
    async with running_worker(s, InMemoryStore()) as (worker, port):
        await wait_ready(port, 200, 30)
        os.kill(pid, signal.SIGSTOP)
        try:
            text = await wait_ready(port, 503, 15)
            assert "broker unreachable" in text
            assert not worker.broker_reachable
        finally:
            os.kill(pid, signal.SIGCONT)
        await wait_ready(port, 200, 40)
        await produce(bootstrap, s.kafka.topic_raw_notes, notes[6:])
        out = await consume(bootstrap, s.kafka.topic_deid_notes, 12, timeout_s=60)
        async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{port}/metrics") as r:
            metrics = await r.text()
    assert {DeidNote.model_validate_json(r.value).event_id for r in out} == {n.event_id for n in notes}
    assert "deid_broker_reachable 1.0" in metrics
    assert "deid_broker_probe_failures_total" in metrics


async def test_readyz_is_not_ready_while_redis_is_down(broker: TansuBroker, redis_server: Any) -> None:
    from deid.store.redis import RedisPatientStore

    s = worker_settings(broker.bootstrap_servers, "redis-down", redis_url=redis_server.url)
    await topics(broker.bootstrap_servers, s)
    store = RedisPatientStore.from_settings(s.redis)
    try:
        async with running_worker(s, store) as (_, port):
            await wait_ready(port, 200, 30)
            redis_server.pause()  # frozen: every call times out
            try:
                assert "store unavailable" in await wait_ready(port, 503, 15)
            finally:
                redis_server.resume()
            await wait_ready(port, 200, 15)
    finally:
        await store.close()


async def test_rules_only_is_said_in_readyz_and_loudly_at_startup(
        broker: TansuBroker, caplog: pytest.LogCaptureFixture) -> None:
    s = worker_settings(broker.bootstrap_servers, "rules-only")  # model.enabled is False
    await topics(broker.bootstrap_servers, s)
    with caplog.at_level("WARNING", logger="deid.worker"):
        async with running_worker(s, InMemoryStore()) as (_, port):
            text = await wait_ready(port, 200, 30)
    assert "RULES ONLY" in text and "names are NOT detected" in text
    assert RULES_ONLY_WARNING in [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]


class SlowOnMarker(GazetteerDetector):
    """Takes 3 s on a note that says SLOWNOTE (a stand-in for a pathological input)."""

    def detect(self, texts: Sequence[str], languages: Sequence[str]) -> list[list[Span]]:
        if any("SLOWNOTE" in t for t in texts):
            time.sleep(3.0)
        return super().detect(texts, languages)


async def test_a_note_whose_detection_takes_too_long_is_dead_lettered_and_the_others_flow(
        broker: TansuBroker) -> None:
    s = worker_settings(broker.bootstrap_servers, "slow", max_events=4)
    s.batch.detect_timeout_s = 0.5
    await topics(broker.bootstrap_servers, s)
    good = sample_notes(4)
    slow = RawNote(event_id="slow-1", patient_id="P-slow", text="SLOWNOTE " * 10)
    await produce(broker.bootstrap_servers, s.kafka.topic_raw_notes, [good[0], slow, *good[1:]])
    async with running_worker(s, InMemoryStore(), SlowOnMarker()) as (worker, _):
        out = await consume(broker.bootstrap_servers, s.kafka.topic_deid_notes, 4, timeout_s=40)
        dlq = await consume(broker.bootstrap_servers, s.kafka.topic_dead_letter, 1, timeout_s=20)
        dead = worker.metrics.dead_lettered.labels("detection_timeout")._value.get()
    assert sorted(DeidNote.model_validate_json(r.value).event_id for r in out) == sorted(
        n.event_id for n in good)
    letters = [orjson.loads(r.value) for r in dlq]
    assert [(d["reason"], d["event_id"], d["offset"]) for d in letters] == [
        ("detection_timeout", "slow-1", 1)]
    assert "SLOWNOTE" not in str(letters)
    assert dead == 1
