"""Shared helpers of the worker tests: a deterministic detector, settings, produce/consume."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.structs import ConsumerRecord

from deid.events import RawNote, encode
from deid.labels import Label
from deid.settings import Settings
from deid.spans import Span
from deid.store.base import PatientStore
from worker.env import worker_env  # noqa: F401  (re-exported: the worker tests import it from here)
from worker.main import serve
from worker.samples import PATIENTS
from worker.stream import StreamWorker

_DATE = re.compile(r"\b\d{2}/\d{2}/\d{4}\b")
# Tests pass their own secret: there is no default (issue 19).
TEST_SECRET = "worker-test-secret-0123456789abcdef0123456789"


class GazetteerDetector:
    """Finds exactly the identities planted in worker.samples (plus dd/mm/yyyy dates): a stand-in
    for the real detector that keeps these tests fast and independent of model quality."""

    model_name = "test-gazetteer"
    model_version = "1"

    def __init__(self) -> None:
        terms: dict[str, Label] = {}
        for p in PATIENTS:
            terms[p.email] = Label.EMAIL
            terms[p.phone] = Label.PHONE
            terms[p.street] = Label.STREET
            terms[p.city] = Label.CITY
            terms[p.ipp] = Label.ID_PATIENT
            terms[p.doctor.removeprefix("Dr ")] = Label.STAFF
            terms[p.first] = Label.PATIENT
            terms[p.last] = Label.PATIENT
        self._terms = sorted(terms.items(), key=lambda kv: -len(kv[0]))

    def _find(self, text: str) -> list[Span]:
        taken = [False] * len(text)
        spans = []
        for term, label in self._terms:
            for m in re.finditer(re.escape(term), text):
                if not any(taken[m.start():m.end()]):
                    spans.append(Span(m.start(), m.end(), label, "test"))
                    taken[m.start():m.end()] = [True] * (m.end() - m.start())
        for m in _DATE.finditer(text):
            if not any(taken[m.start():m.end()]):
                spans.append(Span(m.start(), m.end(), Label.DATE, "test"))
        return sorted(spans)

    def detect(self, texts: Sequence[str], languages: Sequence[str]) -> list[list[Span]]:
        return [self._find(t) for t in texts]


def worker_settings(bootstrap: str, tag: str, redis_url: str | None = None, **batch: int) -> Settings:
    """Settings of an isolated run: topics and group named after ``tag``, short group timeouts."""
    return Settings.model_validate({
        "kafka": {
            "bootstrap_servers": bootstrap,
            "consumer_group": f"g-{tag}",
            "topic_raw_notes": f"raw-{tag}",
            "topic_deid_notes": f"deid-{tag}",
            "topic_dead_letter": f"dlq-{tag}",
            "session_timeout_ms": 6000,
            "heartbeat_interval_ms": 500,
            "rebalance_timeout_ms": 6000,
            "request_timeout_ms": 10000,
        },
        "redis": {"url": redis_url, "socket_timeout_s": 0.5, "max_retries": 1, "retry_backoff_s": 0.05,
               "retry_backoff_max_s": 0.5},
        "model": {"enabled": False},
        "hmac_secret": TEST_SECRET,
        "batch": {"max_events": 8, "max_wait_ms": 50, **batch},
        "http": {"host": "127.0.0.1", "port": 0},
    })


async def produce(bootstrap: str, topic: str, items: Sequence[RawNote | tuple[bytes | None, bytes | None]]
                  ) -> None:
    """Send notes (keyed by patient id, as producers do) or raw (key, value) pairs; wait for acks."""
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all")
    await producer.start()
    try:
        futures = []
        for it in items:
            if isinstance(it, RawNote):
                futures.append(await producer.send(topic, encode(it), key=it.patient_id.encode()))
            else:
                futures.append(await producer.send(topic, it[1], key=it[0]))
        await asyncio.gather(*futures)
    finally:
        await producer.stop()


async def consume(bootstrap: str, topic: str, expected: int, timeout_s: float,
                  settle_s: float = 0.0) -> list[ConsumerRecord[bytes, bytes]]:
    """Read ``topic`` from the beginning (no group) until ``expected`` records or ``timeout_s``;
    then keep reading ``settle_s`` longer to catch extra (duplicate) records."""
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=None, auto_offset_reset="earliest",
                                enable_auto_commit=False)
    await consumer.start()
    try:
        parts = None
        deadline = time.monotonic() + timeout_s
        while not parts:
            parts = consumer.partitions_for_topic(topic)
            if not parts:
                await consumer._client.force_metadata_update()
                if time.monotonic() > deadline:
                    return []
                await asyncio.sleep(0.1)
        tps = [TopicPartition(topic, p) for p in sorted(parts)]
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        out: list[ConsumerRecord[bytes, bytes]] = []
        settle_deadline: float | None = None
        while True:
            now = time.monotonic()
            if len(out) >= expected and settle_deadline is None:
                settle_deadline = now + settle_s
            if now > deadline or (settle_deadline is not None and now >= settle_deadline):
                return out
            got = await consumer.getmany(timeout_ms=200)
            for recs in got.values():
                out.extend(recs)
    finally:
        await consumer.stop()


@contextlib.asynccontextmanager
async def running_worker(settings: Settings, store: PatientStore, detector: object | None = None,
                         concept_tagger: object | None = None) -> AsyncIterator[tuple[StreamWorker, int]]:
    """The worker served in this process (no signal handlers) until the block ends; yields it
    and its HTTP port once it has started."""
    started: asyncio.Future[tuple[StreamWorker, int]] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(serve(settings, store=store, detector=detector or GazetteerDetector(),  # type: ignore[arg-type]
                                     concept_tagger=concept_tagger,  # type: ignore[arg-type]
                                     install_signals=False,
                                     on_started=lambda w, p: started.set_result((w, p))))
    either: list[asyncio.Future[Any]] = [task, started]
    await asyncio.wait(either, timeout=30, return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        task.result()
    worker, port = started.result()
    try:
        yield worker, port
    finally:
        worker.stop()
        await asyncio.wait_for(task, 40)
