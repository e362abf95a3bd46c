"""Hostile input, the worker side (issue 33): a detection deadline that stops the work, decoding off
the event loop, readiness that sees a store refusing writes and a frozen broker within 15 s.
Against the real (Tansu) broker and redis-server the tests start."""

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
from redis.asyncio import Redis
from worker_testkit import GazetteerDetector, consume, produce, running_worker, worker_settings

import worker.stream
from deid.events import DeidNote, RawNote
from deid.protocols.deadline import Deadline
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


async def topics(bootstrap: str, s: Settings) -> None:
    k = s.kafka
    await create_topics(bootstrap, [k.topic_raw_notes], 1)
    await create_topics(bootstrap, [k.topic_deid_notes, k.topic_dead_letter], 1)


async def get(port: int, path: str, timeout_s: float = 5.0) -> tuple[int, str]:
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout_s)) as http, \
            http.get(f"http://127.0.0.1:{port}{path}") as r:
        return r.status, await r.text()


async def wait_status(port: int, want: int, timeout_s: float) -> str:
    deadline = time.monotonic() + timeout_s
    status, text = 0, ""
    while time.monotonic() < deadline:
        status, text = await get(port, "/readyz")
        if status == want:
            return text
        await asyncio.sleep(0.25)
    raise AssertionError(f"/readyz stayed {status} ({text.strip()}) instead of {want}")


# -- readiness -------------------------------------------------------------------------------------


async def test_readyz_is_not_ready_while_redis_refuses_writes_and_ready_again_when_it_takes_them(
        broker: TansuBroker, redis_server: Any) -> None:
    """Out of memory under noeviction: PING answers, every write is refused. The old readiness
    (PING) said ready; the write probe says 503 with the cause, and 200 once writes work."""
    from deid.store.redis import RedisPatientStore

    s = worker_settings(broker.bootstrap_servers, "redis-oom", redis_url=redis_server.url)
    await topics(broker.bootstrap_servers, s)
    store = RedisPatientStore.from_settings(s.redis)
    admin = Redis.from_url(redis_server.url, decode_responses=True)
    before = await admin.config_get("maxmemory*")
    try:
        async with running_worker(s, store) as (_, port):
            await wait_status(port, 200, 30)
            await admin.config_set("maxmemory-policy", "noeviction")
            await admin.config_set("maxmemory", "1")
            try:
                assert await admin.ping()
                text = await wait_status(port, 503, 10)
                assert "store unavailable" in text and "OutOfMemoryError" in text
            finally:
                await admin.config_set("maxmemory", before["maxmemory"])
                await admin.config_set("maxmemory-policy", before["maxmemory-policy"])
            assert (await wait_status(port, 200, 10)).startswith("ready")
        probes = [k async for k in admin.scan_iter(match="deid:probe:*")]
        assert len(probes) == 1 and 0 < await admin.ttl(probes[0]) <= 60  # one key, expiring
    finally:
        await admin.aclose()
        await store.close()


async def test_readyz_turns_503_within_15_s_of_a_broker_freeze_with_the_default_probe_settings(
        own_broker: TansuBroker) -> None:
    """docs/WORKER.md: 3 probes x 5 s. The former probe loop took its timeout + 1 s and then the
    interval per failure (3 x 11 s, ~30 s measured); now the bound is 15 s from the last answer."""
    bootstrap = own_broker.bootstrap_servers
    s = worker_settings(bootstrap, "freeze-default")
    k = s.kafka
    assert (k.probe_interval_s, k.probe_timeout_s, k.probe_failures_unready) == (5.0, 5.0, 3)
    await topics(bootstrap, s)
    assert own_broker.process is not None
    pid = own_broker.process.pid
    async with running_worker(s, InMemoryStore()) as (worker, port):
        await wait_status(port, 200, 30)
        os.kill(pid, signal.SIGSTOP)
        frozen_at = time.monotonic()
        try:
            text = await wait_status(port, 503, 20)
            took = time.monotonic() - frozen_at
            assert "broker unreachable" in text
            assert took <= 15.5, f"503 after {took:.1f}s"  # 15 s + one /readyz poll (0.25 s) + slack
        finally:
            os.kill(pid, signal.SIGCONT)
        await wait_status(port, 200, 20)  # the next probe answers: within one interval
        assert worker.broker_reachable


# -- decoding off the event loop -------------------------------------------------------------------


async def test_livez_answers_while_a_record_takes_seconds_to_decode(
        broker: TansuBroker, monkeypatch: pytest.MonkeyPatch) -> None:
    """A record whose decoding takes 3 s (what a big raw-hl7 message cost: up to 24 s) must not
    hold the event loop: /livez answers within 1 s throughout and the note comes out."""
    real = worker.stream.decode_record

    def slow_decode(value: bytes | None, **kw: Any) -> Any:
        if value is not None and b"SLOWDECODE" in value:
            time.sleep(3.0)  # holds its thread, as a pure-Python parse does
        return real(value, **kw)

    monkeypatch.setattr(worker.stream, "decode_record", slow_decode)
    s = worker_settings(broker.bootstrap_servers, "slow-decode")
    await topics(broker.bootstrap_servers, s)
    note = RawNote(event_id="slow-decode-1", patient_id="P-sd", text="SLOWDECODE note")
    async with running_worker(s, InMemoryStore()) as (_, port):
        await wait_status(port, 200, 30)
        await produce(broker.bootstrap_servers, s.kafka.topic_raw_notes, [note])
        out_task = asyncio.create_task(consume(broker.bootstrap_servers, s.kafka.topic_deid_notes, 1, 30))
        worst = 0.0
        while not out_task.done():
            t0 = time.monotonic()
            status, _ = await get(port, "/livez", timeout_s=5.0)
            worst = max(worst, time.monotonic() - t0)
            assert status == 200
            await asyncio.sleep(0.1)
        out = await out_task
    assert [DeidNote.model_validate_json(r.value).event_id for r in out] == ["slow-decode-1"]
    assert worst < 1.0, f"/livez took {worst:.2f}s"


# -- the detection deadline ------------------------------------------------------------------------


class CooperativeSlowDetector(GazetteerDetector):
    """On a note saying HUGENOTE, works in 50 ms steps for up to 30 s, checking the deadline
    between steps as the real detector does between forward passes; counts its tries."""

    def __init__(self) -> None:
        super().__init__()
        self.huge_calls = 0
        self.stopped_after_s: list[float] = []

    def detect(self, texts: Sequence[str], languages: Sequence[str], *,
               deadline: Deadline | None = None) -> list[list[Span]]:
        if any("HUGENOTE" in t for t in texts):
            self.huge_calls += 1
            t0 = time.monotonic()
            for _ in range(600):
                if deadline is not None and deadline.expired():
                    self.stopped_after_s.append(time.monotonic() - t0)
                    deadline.check("test")
                time.sleep(0.05)
        return super().detect(texts, languages)


async def test_a_note_over_its_deadline_is_stopped_dead_lettered_once_and_the_patient_s_next_note_flows(
        broker: TansuBroker) -> None:
    """The note is tried once (a note alone is not retried: the old loop tried it twice, each
    for the whole timeout), its detection stops at the deadline (the thread is free again, no
    backstop), it is dead-lettered ``detection_timeout``, and the patient's next note is published."""
    s = worker_settings(broker.bootstrap_servers, "deadline")
    s.batch.detect_timeout_s = 1.0
    await topics(broker.bootstrap_servers, s)
    huge = RawNote(event_id="huge-1", patient_id="P-1", text="HUGENOTE " * 10)
    later = sample_notes(1)[0].model_copy(update={"event_id": "later-1", "patient_id": "P-1"})
    det = CooperativeSlowDetector()
    async with running_worker(s, InMemoryStore(), det) as (worker, _):
        first_executor = worker._executor
        t0 = time.monotonic()
        await produce(broker.bootstrap_servers, s.kafka.topic_raw_notes, [huge])
        dlq = await consume(broker.bootstrap_servers, s.kafka.topic_dead_letter, 1, timeout_s=20)
        took = time.monotonic() - t0
        await produce(broker.bootstrap_servers, s.kafka.topic_raw_notes, [later])
        out = await consume(broker.bootstrap_servers, s.kafka.topic_deid_notes, 1, timeout_s=20)
        same_executor = worker._executor is first_executor  # no backstop: the thread came back
    letters = [orjson.loads(r.value) for r in dlq]
    assert [(d["reason"], d["event_id"]) for d in letters] == [("detection_timeout", "huge-1")]
    assert "HUGENOTE" not in str(letters)
    assert det.huge_calls == 1 and len(det.stopped_after_s) == 1
    assert 0.9 <= det.stopped_after_s[0] <= 1.5  # stopped by the deadline, not by the 30 s of work
    assert took < 6.0, f"dead-lettered after {took:.1f}s"
    assert [DeidNote.model_validate_json(r.value).event_id for r in out] == ["later-1"]
    assert same_executor


def test_notes_over_the_token_budget_are_detected_alone_after_the_others() -> None:
    s = worker_settings("127.0.0.1:1", "groups")
    s.model.max_tokens_per_batch = 100
    w = worker.stream.StreamWorker(s, pipeline=None, store=InMemoryStore())  # type: ignore[arg-type]
    sizes = [10, 1000, 50, 100, 2000, 200]  # characters: 4, 287, 16, 30, 573, 59 estimated tokens
    notes = [RawNote(event_id=f"e{i}", patient_id="P", text="x" * n) for i, n in enumerate(sizes)]
    assert w._detect_groups(notes) == [[0, 2, 3], [5], [1], [4]]
