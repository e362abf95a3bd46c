"""The bridge on loopback with an in-memory sink (the broker itself: test_mllp_kafka.py)."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from hl7_samples import sample

from deid.hl7 import parse_message
from deid.settings import MllpSettings, Settings
from deid.store.keys import KeyHasher
from worker.mllp import MllpBridge, frame
from worker.mllp_client import MllpClient, ack_code, send_message

VT = b"\x0b"


class FakeSink:
    def __init__(self) -> None:
        self.records: list[tuple[bytes, bytes]] = []
        self.gate: asyncio.Event | None = None
        self.fail_next = 0
        self.concurrent = 0
        self.max_concurrent = 0
        self.delay_s = 0.0

    async def send(self, key: bytes, value: bytes) -> None:
        self.concurrent += 1
        self.max_concurrent = max(self.max_concurrent, self.concurrent)
        try:
            if self.gate is not None:
                await self.gate.wait()
            if self.delay_s:
                await asyncio.sleep(self.delay_s)
            if self.fail_next:
                self.fail_next -= 1
                raise ConnectionError("broker down")
            self.records.append((key, value))
        finally:
            self.concurrent -= 1


def _msa(ack: bytes) -> tuple[str, str, str]:
    msg = parse_message(ack)
    msa = msg.first("MSA")
    return msg.get(msa, 1), msg.get(msa, 2), msg.get(msa, 3)


@pytest.fixture
def sink() -> FakeSink:
    return FakeSink()


@pytest.fixture
async def bridge(sink: FakeSink) -> AsyncIterator[MllpBridge]:
    b = MllpBridge(Settings(), sink, max_in_flight=2, max_message_bytes=64 * 1024)
    await b.start("127.0.0.1", 0)
    yield b
    await b.close(grace_s=1.0)


async def test_a_valid_message_is_written_keyed_by_patient_hmac_then_acked(
        bridge: MllpBridge, sink: FakeSink, fr_oru: bytes) -> None:
    ack = await send_message("127.0.0.1", bridge.port, fr_oru)
    assert _msa(ack) == ("AA", "MSG00001", "")
    assert sink.records == [(KeyHasher(Settings().secret_bytes()).patient("8812345").encode(), fr_oru)]
    assert b"8812345" not in sink.records[0][0]


async def test_ack_waits_for_the_broker_acknowledgement(bridge: MllpBridge, sink: FakeSink,
                                                        fr_mdm: bytes) -> None:
    sink.gate = asyncio.Event()
    async with await MllpClient.connect("127.0.0.1", bridge.port) as client:
        await client.send_raw(frame(fr_mdm))
        with pytest.raises(TimeoutError):
            await client.read_ack(timeout_s=0.3)
        assert sink.records == []
        sink.gate.set()
        assert ack_code(await client.read_ack()) == "AA"
    assert len(sink.records) == 1


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (sample("bad_missing_msh.hl7"), "missing_msh"),
        (sample("bad_encoding_chars.hl7"), "bad_encoding_characters:MSH-2"),
        (sample("bad_truncated.hl7"), "truncated_segment:OBX"),
        (sample("bad_no_patient_id.hl7"), "missing_patient_id:PID-3"),
        (b"\xff\xfe garbage", "missing_msh"),
    ],
)
async def test_malformed_message_gets_ar_and_the_next_one_on_the_connection_is_accepted(
        bridge: MllpBridge, sink: FakeSink, fr_oru: bytes, bad: bytes, reason: str) -> None:
    async with await MllpClient.connect("127.0.0.1", bridge.port) as client:
        code, _, text = _msa(await client.send(bad))
        assert (code, text) == ("AR", reason)
        assert _msa(await client.send(fr_oru))[0] == "AA"
    assert [v for _, v in sink.records] == [fr_oru]


async def test_nak_names_the_control_id_when_the_msh_was_readable(bridge: MllpBridge) -> None:
    ack = await send_message("127.0.0.1", bridge.port, sample("bad_truncated.hl7"))
    assert _msa(ack)[:2] == ("AR", "TRUNC-1")
    err = parse_message(ack).first("ERR")
    assert err is not None and err[3].startswith("101^")


async def test_bad_framing_gets_a_nak_and_does_not_disturb_the_next_frame(
        bridge: MllpBridge, sink: FakeSink, fr_oru: bytes, en_oru: bytes) -> None:
    async with await MllpClient.connect("127.0.0.1", bridge.port) as client:
        # junk outside any frame is ignored; a frame cut by a new start block is rejected
        await client.send_raw(b"noise before any frame\r\n" + VT + fr_oru[:40] + frame(en_oru))
        first, second = await client.read_ack(), await client.read_ack()
        assert _msa(first)[0] == "AR" and _msa(first)[2] == "bad_framing"
        assert _msa(second)[:2] == ("AA", "CTRL-EN-0002")
        assert _msa(await client.send(fr_oru))[0] == "AA"
    assert [v for _, v in sink.records] == [en_oru, fr_oru]
    assert bridge.metrics.junk_bytes._value.get() > 0


async def test_pipelined_messages_are_answered_in_order(bridge: MllpBridge, sink: FakeSink, fr_oru: bytes,
                                                        en_oru: bytes, fr_mdm: bytes) -> None:
    async with await MllpClient.connect("127.0.0.1", bridge.port) as client:
        await client.send_raw(frame(fr_oru) + frame(en_oru) + frame(fr_mdm))
        ids = [_msa(await client.read_ack())[1] for _ in range(3)]
    assert ids == ["MSG00001", "CTRL-EN-0002", "MDM-2024-000123"]


async def test_a_failed_write_gets_ae_and_a_resend_is_accepted(bridge: MllpBridge, sink: FakeSink,
                                                               fr_oru: bytes) -> None:
    sink.fail_next = 1
    async with await MllpClient.connect("127.0.0.1", bridge.port) as client:
        code, ctl, text = _msa(await client.send(fr_oru))
        assert (code, ctl, text) == ("AE", "MSG00001", "broker_write_failed")
        assert _msa(await client.send(fr_oru))[0] == "AA"
    assert len(sink.records) == 1


async def test_oversized_message_gets_ar(bridge: MllpBridge, sink: FakeSink, fr_oru: bytes) -> None:
    huge = fr_oru + b"OBX|9|TX|||" + b"x" * (70 * 1024) + b"\r"
    async with await MllpClient.connect("127.0.0.1", bridge.port) as client:
        assert _msa(await client.send(huge))[:3:2] == ("AR", "message_too_large")
        assert _msa(await client.send(fr_oru))[0] == "AA"


async def test_a_slow_broker_makes_senders_wait_instead_of_dropping(bridge: MllpBridge, sink: FakeSink,
                                                                    fr_oru: bytes) -> None:
    sink.delay_s = 0.05
    acks = await asyncio.gather(*(send_message("127.0.0.1", bridge.port, fr_oru) for _ in range(8)))
    assert [ack_code(a) for a in acks] == ["AA"] * 8
    assert len(sink.records) == 8
    assert sink.max_concurrent <= 2  # max_in_flight


async def test_configured_authority_keys_on_that_identifier(sink: FakeSink, fr_oru: bytes) -> None:
    settings = Settings(mllp=MllpSettings(patient_id_authority="ASIP-SANTE-INS-NIR"))
    b = MllpBridge(settings, sink)
    await b.start("127.0.0.1", 0)
    try:
        assert ack_code(await send_message("127.0.0.1", b.port, fr_oru)) == "AA"
    finally:
        await b.close()
    assert sink.records[0][0] == KeyHasher(settings.secret_bytes()).patient("1850375123456").encode()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
async def test_tls_listener(tmp_path: Path, sink: FakeSink, fr_oru: bytes) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                    "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    settings = Settings(mllp=MllpSettings(tls_certfile=cert, tls_keyfile=key))
    b = MllpBridge(settings, sink)
    await b.start("127.0.0.1", 0)
    try:
        ctx = ssl.create_default_context(cafile=str(cert))
        assert ack_code(await send_message("127.0.0.1", b.port, fr_oru, tls=ctx)) == "AA"
    finally:
        await b.close()
    assert len(sink.records) == 1


async def test_close_drops_idle_connections_at_once_and_lets_a_busy_one_finish(
        sink: FakeSink, fr_oru: bytes) -> None:
    b = MllpBridge(Settings(), sink)
    await b.start("127.0.0.1", 0)
    idle = await MllpClient.connect("127.0.0.1", b.port)
    busy = await MllpClient.connect("127.0.0.1", b.port)
    sink.gate = asyncio.Event()
    await busy.send_raw(frame(fr_oru))
    await asyncio.sleep(0.2)  # the busy handler is now waiting on the broker
    closing = asyncio.create_task(b.close(grace_s=5.0))
    await asyncio.sleep(0.2)
    assert not closing.done()
    sink.gate.set()
    assert ack_code(await busy.read_ack()) == "AA"  # answered before the connection went
    await asyncio.wait_for(closing, 2.0)
    with pytest.raises((ConnectionError, TimeoutError)):
        await idle.read_ack(timeout_s=1.0)
    await idle.close()
    await busy.close()
