"""The bridge against hostile or stuck peers, on loopback with an in-memory sink: parsing off the
event loop, shape limits answered AR, honest AR for what the broker can never take, and the
connection cap, idle and partial-frame timeouts (the real broker: test_mllp_kafka.py)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
from hl7_samples import hostile_components, sample

import worker.mllp
import worker.mllp_decode
from deid.hl7 import parse_message
from deid.settings import MllpSettings, Settings
from worker.mllp import RECORD_OVERHEAD_BYTES, MessageTooLarge, MllpBridge, frame, message_cap
from worker.mllp_client import MllpClient, ack_code
from worker.mllp_decode import Inspected

VT = b"\x0b"


class Sink:
    def __init__(self) -> None:
        self.records: list[bytes] = []
        self.too_large = False

    async def send(self, key: bytes, value: bytes) -> None:
        if self.too_large:
            raise MessageTooLarge("MessageSizeTooLargeError")
        self.records.append(value)


def _msa(ack: bytes) -> tuple[str, str, str]:
    msg = parse_message(ack)
    msa = msg.first("MSA")
    return msg.get(msa, 1), msg.get(msa, 2), msg.get(msa, 3)


def _settings(**mllp: object) -> Settings:
    return Settings(mllp=MllpSettings(**mllp))  # type: ignore[arg-type]


@pytest.fixture
def sink() -> Sink:
    return Sink()


async def _bridge(sink: Sink, settings: Settings | None = None) -> MllpBridge:
    b = MllpBridge(settings or Settings(), sink)
    await b.start("127.0.0.1", 0)
    return b


@pytest.fixture
async def bridge(sink: Sink) -> AsyncIterator[MllpBridge]:
    b = await _bridge(sink)
    yield b
    await b.close(grace_s=1.0)


async def _closed_by_peer(client: MllpClient, within_s: float) -> bool:
    """True when the bridge closes the connection within ``within_s`` (EOF or reset)."""
    try:
        await client.read_ack(timeout_s=within_s)
    except ConnectionError:
        return True
    except TimeoutError:
        return False
    return False


# -- parsing: once, off the loop, bounded ----------------------------------------------------------

async def test_the_hostile_message_of_the_issue_gets_ar_with_its_reason_and_control_id(
        bridge: MllpBridge, sink: Sink, fr_oru: bytes) -> None:
    async with await MllpClient.connect("127.0.0.1", bridge.port) as client:
        t0 = time.perf_counter()
        ack = await client.send(hostile_components())
        elapsed = time.perf_counter() - t0
        assert _msa(ack) == ("AR", "MSG00001", "too_many_components:OBX-5")
        err = parse_message(ack).first("ERR")
        assert err is not None and err[3].startswith("102^")
        assert _msa(await client.send(fr_oru))[0] == "AA"  # the connection is still good
    assert elapsed < 5.0  # 3.7 MiB over loopback and refused (before: 30-36 s)
    assert sink.records == [fr_oru]
    assert bridge.metrics.rejected.labels("too_many_components")._value.get() == 1


async def test_each_message_is_parsed_once(bridge: MllpBridge, monkeypatch: pytest.MonkeyPatch,
                                           fr_oru: bytes) -> None:
    calls: list[bytes] = []
    real = worker.mllp.inspect_hl7

    def counting(value: bytes | None, settings: Settings) -> Inspected:
        calls.append(value or b"")
        return real(value, settings)

    monkeypatch.setattr(worker.mllp, "inspect_hl7", counting)
    parses = 0
    real_parse = worker.mllp_decode.parse_message

    def counting_parse(payload: bytes | str) -> object:
        nonlocal parses
        parses += 1
        return real_parse(payload)

    monkeypatch.setattr(worker.mllp_decode, "parse_message", counting_parse)
    async with await MllpClient.connect("127.0.0.1", bridge.port) as client:
        assert _msa(await client.send(fr_oru))[0] == "AA"
        assert _msa(await client.send(sample("bad_no_patient_id.hl7")))[0] == "AR"
    assert len(calls) == 2 and parses == 2


async def test_a_small_message_is_acked_while_a_slow_parse_runs_on_another_connection(
        bridge: MllpBridge, monkeypatch: pytest.MonkeyPatch, fr_oru: bytes, en_oru: bytes) -> None:
    """A parse that holds the CPU (pure Python, the interpreter lock taken in turns) for 3 s on
    one connection; a small message on another connection is answered within 1.5 s, while the
    slow one is still running. On the event loop it would have waited the full 3 s."""
    real = worker.mllp.inspect_hl7

    def slow_for_the_big_one(value: bytes | None, settings: Settings) -> Inspected:
        if value == en_oru:
            deadline = time.perf_counter() + 3.0
            while time.perf_counter() < deadline:
                sum(range(1000))
        return real(value, settings)

    monkeypatch.setattr(worker.mllp, "inspect_hl7", slow_for_the_big_one)
    big = await MllpClient.connect("127.0.0.1", bridge.port)
    small = await MllpClient.connect("127.0.0.1", bridge.port)
    try:
        # the clients share the bridge's event loop: a parse on the loop would stall this
        # coroutine too, so the time is measured from the big message's send
        t0 = time.perf_counter()
        await big.send_raw(frame(en_oru))
        await asyncio.sleep(0.2)  # the slow parse is under way
        assert _msa(await small.send(fr_oru, timeout_s=10))[0] == "AA"
        waited = time.perf_counter() - t0 - 0.2
        # 1.5 s: generous for a loaded 2-core CI box (measured about 0.01 s)
        assert waited < 1.5, waited
        with pytest.raises(TimeoutError):  # the slow one is still being parsed
            await big.read_ack(timeout_s=0.1)
        assert _msa(await big.read_ack(timeout_s=10))[0] == "AA"
    finally:
        await big.close()
        await small.close()


async def test_a_maximal_refused_message_does_not_hold_up_other_connections(
        bridge: MllpBridge, fr_oru: bytes) -> None:
    hostile = hostile_components()
    big = await MllpClient.connect("127.0.0.1", bridge.port)
    small = await MllpClient.connect("127.0.0.1", bridge.port)
    try:
        t0 = time.perf_counter()
        sending = asyncio.create_task(big.send(hostile, timeout_s=30))
        acks = [await small.send(fr_oru, timeout_s=10) for _ in range(3)]
        waited = time.perf_counter() - t0
        assert [ack_code(a) for a in acks] == ["AA"] * 3
        assert waited < 2.0, waited
        assert _msa(await sending)[2] == "too_many_components:OBX-5"
    finally:
        await big.close()
        await small.close()


# -- what the broker can never take: AR, never AE ----------------------------------------------------

async def test_a_write_refused_for_its_size_gets_ar_message_too_large_not_ae(
        bridge: MllpBridge, sink: Sink, fr_oru: bytes, en_oru: bytes) -> None:
    async with await MllpClient.connect("127.0.0.1", bridge.port) as client:
        sink.too_large = True
        ack = await client.send(fr_oru)
        assert _msa(ack) == ("AR", "MSG00001", "message_too_large")
        sink.too_large = False
        assert _msa(await client.send(en_oru))[0] == "AA"
    assert bridge.metrics.messages.labels("AE")._value.get() == 0
    assert bridge.metrics.rejected.labels("message_too_large")._value.get() == 1


@pytest.mark.parametrize(
    ("configured", "max_request_size", "topic_limit", "expected"),
    [
        (4 * 2**20, 4 * 2**20, None, 4 * 2**20 - RECORD_OVERHEAD_BYTES),  # the producer's limit
        (4 * 2**20, 4 * 2**20, 1_048_588, 1_048_588 - RECORD_OVERHEAD_BYTES),  # Kafka's default topic
        (4 * 2**20, 8 * 2**20, 16 * 2**20, 4 * 2**20),  # the setting, when the broker takes more
        (512 * 1024, 4 * 2**20, 1_048_588, 512 * 1024),
        (4 * 2**20, 1 * 2**20, 16 * 2**20, 1 * 2**20 - RECORD_OVERHEAD_BYTES),  # never above the producer
        (4 * 2**20, 4 * 2**20, 100, 1),  # absurd topic limit: everything refused, never a crash
    ],
)
def test_the_cap_is_the_smallest_of_the_setting_the_topic_and_the_producer(
        configured: int, max_request_size: int, topic_limit: int | None, expected: int) -> None:
    assert message_cap(configured, max_request_size, topic_limit) == expected


def test_a_payload_at_the_cap_passes_the_producer_size_check() -> None:
    from aiokafka.record.default_records import DefaultRecordBatchBuilder

    from deid.store.keys import KeyHasher

    key = KeyHasher(Settings().secret_bytes()).patient("8812345" * 36).encode()  # any patient: same length
    for limit in (10_000, 1_048_588, 4 * 2**20):
        cap = message_cap(64 * 2**20, limit, None)
        assert DefaultRecordBatchBuilder.estimate_size_in_bytes(key, b"x" * cap, []) <= limit


# -- connections: cap, idle, partial frames ----------------------------------------------------

async def test_connections_beyond_the_cap_are_closed_at_once_and_counted(sink: Sink, fr_oru: bytes) -> None:
    b = await _bridge(sink, _settings(max_connections=2))
    clients = [await MllpClient.connect("127.0.0.1", b.port) for _ in range(2)]
    try:
        for c in clients:  # both are being served
            assert ack_code(await c.send(fr_oru)) == "AA"
        extra = await MllpClient.connect("127.0.0.1", b.port)
        t0 = time.perf_counter()
        assert await _closed_by_peer(extra, within_s=2.0)
        assert time.perf_counter() - t0 < 1.0
        await extra.close()
        assert b.metrics.connections_refused._value.get() == 1
        await clients.pop().close()
        await asyncio.sleep(0.2)  # the bridge sees the close
        async with await MllpClient.connect("127.0.0.1", b.port) as again:
            assert ack_code(await again.send(fr_oru)) == "AA"  # a freed slot is reused
    finally:
        for c in clients:
            await c.close()
        await b.close(grace_s=1.0)


async def test_a_silent_connection_is_closed_after_the_idle_timeout(sink: Sink) -> None:
    b = await _bridge(sink, _settings(idle_timeout_s=0.5))
    try:
        client = await MllpClient.connect("127.0.0.1", b.port)
        t0 = time.perf_counter()
        # junk outside frames does not keep it open
        await client.send_raw(b"\r\n")
        await asyncio.sleep(0.3)
        await client.send_raw(b"noise")
        assert await _closed_by_peer(client, within_s=3.0)
        assert 0.4 < time.perf_counter() - t0 < 2.5
        await client.close()
        assert b.metrics.timeouts.labels("idle")._value.get() == 1
    finally:
        await b.close(grace_s=1.0)


async def test_a_connection_that_keeps_sending_messages_outlives_the_idle_timeout(
        sink: Sink, fr_oru: bytes) -> None:
    b = await _bridge(sink, _settings(idle_timeout_s=0.5))
    try:
        async with await MllpClient.connect("127.0.0.1", b.port) as client:
            for _ in range(6):  # 1.5 s in all, never 0.5 s without a frame
                assert ack_code(await client.send(fr_oru)) == "AA"
                await asyncio.sleep(0.25)
        assert b.metrics.timeouts.labels("idle")._value.get() == 0
    finally:
        await b.close(grace_s=1.0)


async def test_a_frame_not_finished_in_time_is_dropped_and_the_connection_closed(
        sink: Sink, fr_oru: bytes) -> None:
    b = await _bridge(sink, _settings(frame_timeout_s=0.5, idle_timeout_s=30.0))
    try:
        client = await MllpClient.connect("127.0.0.1", b.port)
        t0 = time.perf_counter()
        await client.send_raw(VT + fr_oru[:200])
        await asyncio.sleep(0.2)
        await client.send_raw(fr_oru[200:400])  # dribbling does not extend the frame's time
        assert await _closed_by_peer(client, within_s=3.0)
        assert 0.4 < time.perf_counter() - t0 < 2.5
        await client.close()
        assert b.metrics.timeouts.labels("frame")._value.get() == 1
        assert sink.records == []
    finally:
        await b.close(grace_s=1.0)


async def test_a_frame_sent_in_pieces_within_the_frame_timeout_is_accepted(sink: Sink, fr_oru: bytes) -> None:
    b = await _bridge(sink, _settings(frame_timeout_s=1.5, idle_timeout_s=0.3))
    try:
        async with await MllpClient.connect("127.0.0.1", b.port) as client:
            framed = frame(fr_oru)
            for i in range(0, len(framed), 400):  # slower than the idle timeout, inside one frame
                await client.send_raw(framed[i : i + 400])
                await asyncio.sleep(0.2)
            assert ack_code(await client.read_ack(timeout_s=3.0)) == "AA"
        assert sink.records == [fr_oru]
    finally:
        await b.close(grace_s=1.0)


def test_the_limits_are_settings_with_the_documented_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    assert (MllpSettings().max_connections, MllpSettings().idle_timeout_s, MllpSettings().frame_timeout_s,
            MllpSettings().max_message_bytes) == (64, 60.0, 30.0, 4 * 2**20)
    monkeypatch.setenv("DEID_MLLP__MAX_CONNECTIONS", "8")
    monkeypatch.setenv("DEID_MLLP__IDLE_TIMEOUT_S", "5")
    monkeypatch.setenv("DEID_MLLP__FRAME_TIMEOUT_S", "2.5")
    monkeypatch.setenv("DEID_MLLP__MAX_MESSAGE_BYTES", "1000000")
    m = Settings().mllp
    assert (m.max_connections, m.idle_timeout_s, m.frame_timeout_s, m.max_message_bytes) == (
        8, 5.0, 2.5, 1_000_000)
