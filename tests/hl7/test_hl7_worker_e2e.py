"""MLLP -> bridge -> broker -> worker -> deid-notes (+ deid-hl7): the full HL7 path.

Skipped until ``worker.stream`` consumes the raw-hl7 topic (wiring: docs/HL7.md, "Worker wiring").
"""

from __future__ import annotations

import asyncio
import inspect
import re
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

import orjson
import pytest
from hl7_samples import sample

from deid.events import DeidNote
from deid.hl7 import parse_message
from deid.labels import Label
from deid.settings import Settings
from deid.spans import Span
from deid.store.memory import InMemoryStore
from worker.mllp import KafkaSink, MllpBridge
from worker.mllp_client import MllpClient, ack_code

pytestmark = pytest.mark.integration


def _worker_consumes_raw_hl7() -> bool:
    try:
        import worker.stream as stream
    except ImportError:
        return False
    return "topic_raw_hl7" in inspect.getsource(stream)


class SampleDetector:
    """Gold mentions of oru_r01_fr.hl7's text, standing in for the model."""

    model_name = "test-hl7-gold"
    model_version = "1"
    TERMS = (("DUPONT", Label.PATIENT), ("14/03/1985", Label.BIRTH_DATE),
             ("PETIT", Label.STAFF), ("06 12 34 56 78", Label.PHONE), ("Villeurbanne", Label.CITY))

    def detect(self, texts: Sequence[str], languages: Sequence[str]) -> list[list[Span]]:
        out = []
        for text in texts:
            spans = [Span(m.start(), m.end(), label, "test") for term, label in self.TERMS
                     for m in re.finditer(re.escape(term), text)]
            out.append(sorted(spans))
        return out


@pytest.fixture(scope="module")
def broker() -> Iterator[str]:
    from worker.services.broker import TansuBroker

    with TansuBroker() as b:
        yield b.bootstrap_servers


async def _consume(bootstrap: str, topic: str, expected: int, timeout_s: float = 30.0) -> list[bytes]:
    from aiokafka import AIOKafkaConsumer, TopicPartition

    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False,
                                auto_offset_reset="earliest")
    await consumer.start()
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        await consumer.seek_to_beginning(tp)
        out: list[bytes] = []
        deadline = asyncio.get_running_loop().time() + timeout_s
        while len(out) < expected and asyncio.get_running_loop().time() < deadline:
            batch = await consumer.getmany(tp, timeout_ms=500)
            out += [r.value for r in batch.get(tp, [])]
        return out
    finally:
        await consumer.stop()


@pytest.mark.skipif(not _worker_consumes_raw_hl7(), reason="the worker does not consume raw-hl7 yet")
async def test_mllp_to_worker_outputs_agree_between_pid_and_text(broker: str) -> None:
    from worker.main import serve
    from worker.services.broker import create_topics

    tag = uuid.uuid4().hex[:8]
    settings = Settings.model_validate({
        "kafka": {"bootstrap_servers": broker, "consumer_group": f"g-{tag}",
                  "topic_raw_notes": f"raw-{tag}", "topic_raw_hl7": f"rawhl7-{tag}",
                  "topic_deid_notes": f"deid-{tag}", "topic_deid_hl7": f"deidhl7-{tag}",
                  "topic_dead_letter": f"dlq-{tag}", "publish_hl7": True,
                  "session_timeout_ms": 6000, "heartbeat_interval_ms": 500, "rebalance_timeout_ms": 6000},
        "model": {"enabled": False},
        "hmac_secret": "e2e-test-secret-0123456789abcdef0123456789",  # no default secret (issue 19)
        "batch": {"max_events": 8, "max_wait_ms": 50},
        "http": {"host": "127.0.0.1", "port": 0},
    })
    k = settings.kafka
    await create_topics(broker, [k.topic_raw_notes, k.topic_raw_hl7, k.topic_deid_notes, k.topic_deid_hl7,
                                 k.topic_dead_letter])
    started: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(serve(settings, store=InMemoryStore(), detector=SampleDetector(),
                                     install_signals=False, on_started=lambda w, p: started.set_result(w)))
    either: list[asyncio.Future[Any]] = [task, started]
    await asyncio.wait(either, timeout=30, return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        task.result()
    worker = started.result()
    sink = KafkaSink(settings)
    await sink.start()
    bridge = MllpBridge(settings, sink)
    await bridge.start("127.0.0.1", 0)
    try:
        async with await MllpClient.connect("127.0.0.1", bridge.port) as client:
            assert ack_code(await client.send(sample("oru_r01_fr.hl7"))) == "AA"
        [note_value] = await _consume(broker, k.topic_deid_notes, 1)
        [hl7_value] = await _consume(broker, k.topic_deid_hl7, 1)
    finally:
        await bridge.close()
        await sink.stop()
        worker.stop()
        await asyncio.wait_for(task, 30)

    note = DeidNote.model_validate(orjson.loads(note_value))
    assert note.event_id == "MSG00001"
    msg = parse_message(hl7_value)
    pid = msg.first("PID")
    surname, given = msg.get(pid, 5, 1), msg.get(pid, 5, 2)
    assert "DUPONT" not in note.text and "DUPONT" not in hl7_value.decode()
    assert surname and surname in note.text  # the same surrogate in PID-5 and in the text
    birth = msg.get(pid, 7)
    assert f"{birth[6:8]}/{birth[4:6]}/{birth[:4]}" in note.text
    assert given != "Jean-Pierre"
