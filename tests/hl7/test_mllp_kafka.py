"""Bridge -> real Tansu broker (started here on a free port) -> a consumer of the raw-hl7 topic."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
from hl7_samples import sample
from pydantic import SecretStr

from deid.hl7 import hl7_to_raw_note, parse_message
from deid.settings import KafkaSettings, MllpSettings, Settings
from deid.store.keys import KeyHasher
from worker.mllp import RECORD_OVERHEAD_BYTES, KafkaSink, MllpBridge, frame, serve
from worker.mllp_client import MllpClient, ack_code

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def broker() -> Iterator[str]:
    from worker.services.broker import TansuBroker

    with TansuBroker() as b:
        yield b.bootstrap_servers


@pytest.fixture
async def settings(broker: str) -> Settings:
    from worker.services.broker import create_topics

    topic = f"raw-hl7-{uuid.uuid4().hex[:8]}"  # one per test: no test reads another's records
    await create_topics(broker, [topic])
    return Settings(kafka=KafkaSettings(bootstrap_servers=broker, topic_raw_hl7=topic))


@pytest.fixture
async def bridge(settings: Settings) -> AsyncIterator[MllpBridge]:
    sink = KafkaSink(settings)
    await sink.start()
    b = MllpBridge(settings, sink)
    await b.start("127.0.0.1", 0)
    try:
        yield b
    finally:
        await b.close()
        await sink.stop()


async def _read_all(settings: Settings, expected: int, timeout_s: float = 20.0) -> list[tuple[bytes, bytes]]:
    from aiokafka import AIOKafkaConsumer, TopicPartition

    consumer = AIOKafkaConsumer(bootstrap_servers=settings.kafka.bootstrap_servers, enable_auto_commit=False,
                                auto_offset_reset="earliest")
    await consumer.start()
    try:
        tp = TopicPartition(settings.kafka.topic_raw_hl7, 0)
        consumer.assign([tp])
        await consumer.seek_to_beginning(tp)
        out: list[tuple[bytes, bytes]] = []
        deadline = asyncio.get_running_loop().time() + timeout_s
        while len(out) < expected and asyncio.get_running_loop().time() < deadline:
            batch = await consumer.getmany(tp, timeout_ms=500)
            out += [(r.key, r.value) for r in batch.get(tp, [])]
        return out
    finally:
        await consumer.stop()


async def test_mllp_round_trip_through_the_broker_keeps_the_message_intact(
        bridge: MllpBridge, settings: Settings) -> None:
    messages = [sample("oru_r01_fr.hl7"), sample("oru_r01_en.hl7"), sample("mdm_t02_fr.hl7"),
                sample("oru_r01_ed.hl7")]
    async with await MllpClient.connect("127.0.0.1", bridge.port) as client:
        acks = [await client.send(m) for m in messages[:2]]
        # a malformed message between good ones: NAK, and nothing reaches the topic for it
        acks.append(await client.send(sample("bad_truncated.hl7")))
        await client.send_raw(frame(messages[2]) + frame(messages[3]))
        acks += [await client.read_ack(), await client.read_ack()]
    assert [ack_code(a) for a in acks] == ["AA", "AA", "AR", "AA", "AA"]

    records = await _read_all(settings, expected=4)
    hasher = KeyHasher(settings.secret_bytes())
    assert [value for _, value in records] == messages
    for (key, value), expected_id in zip(records, ["8812345", "MRN77001", "IPP445566", "ZX9001"],
                                         strict=True):
        assert key == hasher.patient(expected_id).encode()
        assert expected_id.encode() not in key
        # what the worker will do with the record
        assert hl7_to_raw_note(value, settings).patient_id == expected_id


async def test_ack_control_id_matches_and_follows_the_write(bridge: MllpBridge, settings: Settings) -> None:
    async with await MllpClient.connect("127.0.0.1", bridge.port) as client:
        ack = await client.send(sample("mdm_t02_fr.hl7"))
    msg = parse_message(ack)
    assert msg.get(msg.first("MSA"), 2) == "MDM-2024-000123"
    assert await _read_all(settings, expected=1) == [
        (KeyHasher(settings.secret_bytes()).patient("IPP445566").encode(), sample("mdm_t02_fr.hl7"))]


async def test_deid_mllp_command_bridges_and_stops_cleanly_on_sigterm(settings: Settings) -> None:
    from worker.services.broker import free_port, wait_for_port

    port = free_port()
    env = {**os.environ, "DEID_LOG_LEVEL": "WARNING",
           "DEID_HMAC_SECRET": "mllp-test-secret-0123456789abcdef0123456789"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "deid", "mllp", "--host", "127.0.0.1", "--port", str(port),
         "--bootstrap-servers", settings.kafka.bootstrap_servers, "--topic", settings.kafka.topic_raw_hl7,
         "--max-connections", "2", "--idle-timeout", "1", "--frame-timeout", "1",
         "--max-message-bytes", "100000"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert await asyncio.to_thread(wait_for_port, "127.0.0.1", port, 20.0)
        async with await MllpClient.connect("127.0.0.1", port) as client:
            assert ack_code(await client.send(sample("oru_r01_en.hl7"))) == "AA"
            assert ack_code(await client.send(sample("bad_missing_msh.hl7"))) == "AR"
            too_big = sample("oru_r01_en.hl7") + b"OBX|9|TX|||" + b"x" * 100_000 + b"\r"
            assert ack_code(await client.send(too_big)) == "AR"  # --max-message-bytes
            # the flags reached the bridge: a second connection is served until it idles out
            # (--idle-timeout), a third is closed at once (--max-connections)
            idle = await MllpClient.connect("127.0.0.1", port)
            extra = await MllpClient.connect("127.0.0.1", port)
            with pytest.raises(ConnectionError):
                await extra.read_ack(timeout_s=1.0)
            with pytest.raises(ConnectionError):
                await idle.read_ack(timeout_s=5.0)
            await idle.close()
            await extra.close()
        proc.send_signal(signal.SIGTERM)
        _, err = await asyncio.to_thread(proc.communicate, timeout=15)
        assert proc.returncode == 0, err.decode(errors="replace")
        assert b"O'BRIEN" not in err and b"MRN77001" not in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert [v for _, v in await _read_all(settings, expected=1)] == [sample("oru_r01_en.hl7")]


def _edge_cases() -> list[tuple[str, bytes]]:
    """One message per reason the worker would dead-letter a raw-hl7 record for."""
    good = sample("oru_r01_fr.hl7")
    return [
        ("empty message", b""),
        ("no MSH", sample("bad_missing_msh.hl7")),
        ("no patient id", sample("bad_no_patient_id.hl7")),
        ("truncated segment", sample("bad_truncated.hl7")),
        ("MSH-10 over 256 characters", good.replace(b"|MSG00001|", b"|" + b"C" * 257 + b"|")),
        ("PID-3 over 256 characters", good.replace(b"PID|1||8812345^", b"PID|1||" + b"9" * 257 + b"^")),
        ("text over max_text_chars", good),  # the bridge below runs with max_text_chars=40
        ("unsupported message type", good.replace(b"ORU^R01^ORU_R01", b"ADT^A01^ADT_A01")),
    ]


async def test_every_dead_letter_reason_is_refused_at_the_edge_with_the_worker_s_code(
        settings: Settings) -> None:
    """Each message the worker would dead-letter gets AR from the bridge, before any write, with
    the code of that dead letter, and nothing reaches the real broker (a good message's AA after
    the broker's write: ``test_ack_control_id_matches_and_follows_the_write``)."""
    from deid.events import DeadLetter
    from deid.hl7 import parse_message as parse
    from worker.mllp_decode import decode_hl7_record

    small = settings.model_copy(update={"batch": settings.batch.model_copy(update={"max_text_chars": 40})})
    sink = KafkaSink(small)
    await sink.start()
    bridge = MllpBridge(small, sink)
    await bridge.start("127.0.0.1", 0)
    reasons = set()
    try:
        async with await MllpClient.connect("127.0.0.1", bridge.port) as client:
            for name, message in _edge_cases():
                dead = decode_hl7_record(message, topic="t", partition=0, offset=0, timestamp_ms=0,
                                         settings=small)
                assert isinstance(dead, DeadLetter), name
                reasons.add(dead.reason)
                expected = dead.detail if dead.reason == "hl7_parse_error" else dead.reason
                ack = parse(await client.send(message))
                msa, err = ack.first("MSA"), ack.first("ERR")
                assert (ack.get(msa, 1), ack.get(msa, 3)) == ("AR", expected), name
                assert ack.get(err, 3, 2) == expected, name
    finally:
        await bridge.close()
        await sink.stop()
    assert reasons == {"undecodable_bytes", "hl7_parse_error", "text_too_large"}
    assert await _read_all(settings, expected=1, timeout_s=3.0) == []  # nothing was written


# -- the size cap follows what the broker can take ----------------------------------------------

SECRET = SecretStr("mllp-test-secret-0123456789abcdef0123456789")


def _padded(extra_chars: int) -> bytes:
    """A valid ORU made larger by one more text OBX."""
    return sample("oru_r01_fr.hl7").rstrip(b"\r") + b"\rOBX|9|TX|||" + b"Texte du compte rendu. " * (
        extra_chars // 23) + b"\r"


async def _create_topic(broker: str, configs: dict[str, str]) -> str:
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    topic = f"raw-hl7-{uuid.uuid4().hex[:8]}"
    admin = AIOKafkaAdminClient(bootstrap_servers=broker)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(topic, 1, 1, topic_configs=configs)])
    finally:
        await admin.close()
    return topic


async def _serving(settings: Settings) -> tuple[MllpBridge, asyncio.Event, asyncio.Task[None]]:
    """``serve`` (what ``deid mllp`` runs) on a free port; returns once it listens."""
    from worker.services.broker import free_port

    settings = settings.model_copy(update={"mllp": settings.mllp.model_copy(
        update={"host": "127.0.0.1", "port": free_port()})})
    stop, up = asyncio.Event(), asyncio.get_running_loop().create_future()
    task = asyncio.create_task(serve(settings, stop, ready=up.set_result))
    bridge: MllpBridge = await asyncio.wait_for(up, 30)
    return bridge, stop, task


async def test_the_cap_is_read_from_the_topic_and_larger_messages_get_ar_not_ae(broker: str) -> None:
    """The topic's max.message.bytes (4096) lowers the 4 MiB default: a 5 kB message gets AR
    message_too_large (before: accepted by the bridge, then AE on every resend on a real Kafka),
    one under the cap AA, and only that one is written."""
    topic = await _create_topic(broker, {"max.message.bytes": "4096"})
    settings = Settings(hmac_secret=SECRET,
                        kafka=KafkaSettings(bootstrap_servers=broker, topic_raw_hl7=topic))
    bridge, stop, task = await _serving(settings)
    try:
        assert bridge.max_message_bytes == 4096 - RECORD_OVERHEAD_BYTES
        big, small = _padded(5_000), sample("oru_r01_fr.hl7")
        assert len(big) > 4096 > len(small)
        async with await MllpClient.connect("127.0.0.1", bridge.port) as client:
            ack = parse_message(await client.send(big))
            assert (ack.get(ack.first("MSA"), 1), ack.get(ack.first("MSA"), 3)) == ("AR", "message_too_large")
            assert ack_code(await client.send(small)) == "AA"
    finally:
        stop.set()
        await task
    assert [v for _, v in await _read_all(settings, expected=2, timeout_s=5.0)] == [small]


async def test_without_a_topic_limit_the_setting_is_the_cap(broker: str) -> None:
    topic = await _create_topic(broker, {})  # Tansu reports no max.message.bytes for it
    settings = Settings(hmac_secret=SECRET, mllp=MllpSettings(max_message_bytes=3_000),
                        kafka=KafkaSettings(bootstrap_servers=broker, topic_raw_hl7=topic))
    bridge, stop, task = await _serving(settings)
    try:
        assert bridge.max_message_bytes == 3_000
        async with await MllpClient.connect("127.0.0.1", bridge.port) as client:
            ack = parse_message(await client.send(_padded(3_000)))
            assert (ack.get(ack.first("MSA"), 1), ack.get(ack.first("MSA"), 3)) == ("AR", "message_too_large")
            assert ack_code(await client.send(sample("oru_r01_en.hl7"))) == "AA"
    finally:
        stop.set()
        await task


async def test_a_producer_size_refusal_is_answered_ar_message_too_large(settings: Settings) -> None:
    """A bridge whose cap is above the producer's max_request_size (only a hand-built one can
    be: ``serve`` never allows it) gets MessageSizeTooLargeError from the real producer: AR, never
    AE (a resend would fail the same way forever), and the next message goes through."""
    small_requests = settings.model_copy(update={"kafka": settings.kafka.model_copy(
        update={"max_request_size": 8_192})})
    sink = KafkaSink(small_requests)
    await sink.start()
    bridge = MllpBridge(small_requests, sink, max_message_bytes=1024 * 1024)
    await bridge.start("127.0.0.1", 0)
    try:
        async with await MllpClient.connect("127.0.0.1", bridge.port) as client:
            ack = parse_message(await client.send(_padded(20_000)))
            assert (ack.get(ack.first("MSA"), 1), ack.get(ack.first("MSA"), 3)) == ("AR", "message_too_large")
            assert ack_code(await client.send(sample("oru_r01_fr.hl7"))) == "AA"
        assert bridge.metrics.messages.labels("AE")._value.get() == 0
    finally:
        await bridge.close()
        await sink.stop()
    assert [v for _, v in await _read_all(settings, expected=2, timeout_s=5.0)] == [sample("oru_r01_fr.hl7")]
