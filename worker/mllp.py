"""The MLLP bridge: HL7 v2 over TCP (optional TLS) -> the raw-hl7 topic, ACK after the broker's.

Per connection, frames (``0x0B`` message ``0x1C 0x0D``) are handled in order, one at a time:
validate (MSH, message type, patient id, note text: what the worker will need), write the raw
bytes keyed by the patient's HMAC pseudonym (never the raw id), and answer AA only once the
broker acknowledged the write. A message that cannot be parsed gets AR (do not resend); one that
could not be written gets AE (resend later). A slow broker slows the senders down instead of
making us drop: a connection reads its next frame only after answering the current one, and a
bridge-wide semaphore bounds the writes in flight, so TCP flow control pushes back on the
interface engine.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from deid.hl7 import Hl7Error, Hl7Message, build_ack
from deid.keys import KeyHasher
from deid.settings import Settings
from worker.mllp_decode import Rejection, check_hl7, try_header

log = logging.getLogger("deid.mllp")

START_BLOCK = 0x0B
END_BLOCK = 0x1C
CARRIAGE_RETURN = 0x0D
DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024
_READ_CHUNK = 64 * 1024


def frame(payload: bytes) -> bytes:
    return bytes([START_BLOCK]) + payload + bytes([END_BLOCK, CARRIAGE_RETURN])


@dataclass(frozen=True, slots=True)
class Frame:
    payload: bytes
    error: str | None = None  # "bad_framing" (a new start block inside a frame), "message_too_large"


class FrameReader:
    """Incremental MLLP deframer. Bytes outside a frame are skipped (and counted); a start block
    inside a frame ends the previous frame as ``bad_framing``; the CR after the end block is
    optional; a frame longer than ``max_bytes`` is reported once and skipped to its end."""

    def __init__(self, max_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> None:
        self.max_bytes = max_bytes
        self._buf = bytearray()
        self._inside = False
        self._oversize = False
        self._skip_cr = False
        self.junk_bytes = 0

    def feed(self, data: bytes) -> list[Frame]:
        out: list[Frame] = []
        self._buf += data
        while self._buf:
            if self._skip_cr:
                self._skip_cr = False
                if self._buf[0] == CARRIAGE_RETURN:
                    del self._buf[0]
                    continue
            if not self._inside:
                start = self._buf.find(START_BLOCK)
                skipped = self._buf if start < 0 else self._buf[:start]
                self.junk_bytes += len(bytes(skipped).strip())
                if start < 0:
                    self._buf.clear()
                    break
                del self._buf[: start + 1]
                self._inside, self._oversize = True, False
                continue
            end = self._buf.find(END_BLOCK)
            restart = self._buf.find(START_BLOCK)
            if restart >= 0 and (end < 0 or restart < end):
                if not self._oversize:
                    out.append(Frame(bytes(self._buf[:restart]), "bad_framing"))
                del self._buf[: restart + 1]
                self._oversize = False
                continue
            if end < 0:
                if len(self._buf) > self.max_bytes:
                    if not self._oversize:
                        out.append(Frame(b"", "message_too_large"))
                        self._oversize = True
                    self._buf.clear()
                break
            if not self._oversize:
                if end > self.max_bytes:
                    out.append(Frame(b"", "message_too_large"))
                else:
                    out.append(Frame(bytes(self._buf[:end])))
            del self._buf[: end + 1]
            self._inside, self._oversize, self._skip_cr = False, False, True
        return out


class RawHl7Sink(Protocol):
    async def send(self, key: bytes, value: bytes) -> None:
        """Return only once the broker acknowledged the write; raise otherwise."""


class KafkaSink:
    """aiokafka producer writing to the raw-hl7 topic (acks=all, see worker.kafka_config)."""

    def __init__(self, settings: Settings, topic: str | None = None) -> None:
        self._settings = settings
        self.topic = topic or settings.kafka.topic_raw_hl7
        self._producer: Any = None

    async def start(self) -> None:
        from aiokafka import AIOKafkaProducer

        from worker.kafka_config import producer_kwargs

        kw = producer_kwargs(self._settings.kafka)
        kw["client_id"] = f"{self._settings.kafka.client_id}-mllp"
        # An MLLP sender waits for each ACK, so lingering only adds latency; writes from several
        # connections still share a request while one is in flight.
        kw["linger_ms"] = 0
        producer = AIOKafkaProducer(**kw)
        try:
            await producer.start()
        except BaseException:
            await producer.stop()
            raise
        self._producer = producer

    async def send(self, key: bytes, value: bytes) -> None:
        if self._producer is None:
            raise RuntimeError("KafkaSink.start() was not awaited")
        await self._producer.send_and_wait(self.topic, value=value, key=key)

    async def stop(self) -> None:
        if self._producer is not None:
            producer, self._producer = self._producer, None
            await producer.stop()


class BridgeMetrics:
    """Labels are closed sets (outcome, reason codes): never a value from a message."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry()
        r = self.registry
        self.messages = Counter("deid_mllp_messages", "Messages answered, by outcome",
                                ["outcome"], registry=r)
        self.rejected = Counter("deid_mllp_rejected", "Messages answered AR, by reason", ["reason"],
                                registry=r)
        self.junk_bytes = Counter("deid_mllp_junk_bytes", "Non-blank bytes outside MLLP frames",
                                  registry=r)
        self.in_flight = Gauge("deid_mllp_in_flight", "Broker writes awaiting acknowledgement",
                               registry=r)
        self.connections = Gauge("deid_mllp_connections", "Open MLLP connections", registry=r)
        self.write_seconds = Histogram("deid_mllp_write_seconds", "Broker write latency",
                                       registry=r)
        for outcome in ("AA", "AE", "AR"):
            self.messages.labels(outcome)


class MllpBridge:
    def __init__(
        self,
        settings: Settings,
        sink: RawHl7Sink,
        *,
        max_in_flight: int = 64,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        metrics: BridgeMetrics | None = None,
    ) -> None:
        self.settings = settings
        self.sink = sink
        self.hasher = KeyHasher(settings.secret_bytes())
        self.max_message_bytes = max_message_bytes
        self.metrics = metrics or BridgeMetrics()
        self._slots = asyncio.Semaphore(max_in_flight)
        self._server: asyncio.Server | None = None
        self._handlers: set[asyncio.Task[None]] = set()
        self._busy: set[asyncio.Task[None]] = set()  # handlers between a frame and its ACK
        self._closing = False

    # -- one message -------------------------------------------------------------------------
    async def process(self, item: Frame) -> bytes:
        """The ACK for one frame (after the broker acknowledged, for an AA)."""
        if item.error is not None:
            msg = try_header(item.payload)
            return self._reject(msg, Hl7Error("bad_framing" if item.error == "bad_framing"
                                              else "message_too_large"))
        # The worker's own check (worker.mllp_decode): whatever it would dead-letter is refused
        # here, before the ACK, with the same reason code.
        checked = check_hl7(item.payload, self.settings)
        if isinstance(checked, Rejection):
            return self._refuse(try_header(item.payload), checked)
        header = try_header(item.payload)
        key = self.hasher.patient(checked.patient_id).encode("ascii")
        async with self._slots:
            self.metrics.in_flight.inc()
            t0 = time.perf_counter()
            try:
                await self.sink.send(key, item.payload)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the broker's reasons are many; the sender only needs AE
                log.warning("raw-hl7 write failed (%s); answered AE", type(exc).__name__)
                self.metrics.messages.labels("AE").inc()
                return build_ack(header, "AE", "broker_write_failed", error_code="207")
            finally:
                self.metrics.in_flight.dec()
                self.metrics.write_seconds.observe(time.perf_counter() - t0)
        self.metrics.messages.labels("AA").inc()
        return build_ack(header, "AA")

    def _reject(self, msg: Hl7Message | None, exc: Hl7Error) -> bytes:
        return self._refuse(msg, Rejection("hl7_parse_error", exc.detail, exc.hl7_error_code))

    def _refuse(self, msg: Hl7Message | None, why: Rejection) -> bytes:
        self.metrics.messages.labels("AR").inc()
        # label: the dead-letter reason, or the HL7 error code word (both closed sets)
        code = why.detail.split(":", 1)[0] if why.reason == "hl7_parse_error" else why.reason
        self.metrics.rejected.labels(code).inc()
        log.info("message rejected: %s (%s)", why.reason, why.ack_text)
        return build_ack(msg, "AR", why.ack_text, error_code=why.hl7_error_code)

    # -- connections -------------------------------------------------------------------------
    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        deframer = FrameReader(self.max_message_bytes)
        self.metrics.connections.inc()
        try:
            while True:
                data = await reader.read(_READ_CHUNK)
                if not data:
                    break
                junk_before = deframer.junk_bytes
                frames = deframer.feed(data)
                if deframer.junk_bytes > junk_before:
                    self.metrics.junk_bytes.inc(deframer.junk_bytes - junk_before)
                if not frames:
                    continue
                task = asyncio.current_task()
                if task is not None:
                    self._busy.add(task)
                try:
                    for item in frames:
                        ack = await self.process(item)
                        writer.write(frame(ack))
                        await writer.drain()
                finally:
                    if task is not None:
                        self._busy.discard(task)
                if self._closing:
                    break
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
            pass  # the peer went away; whatever it had not been answered for, it will resend
        finally:
            self.metrics.connections.dec()
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _track(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
            task.add_done_callback(self._handlers.discard)
        # a connection task cancelled at shutdown ends quietly (asyncio would log it as an error)
        with contextlib.suppress(asyncio.CancelledError):
            await self.handle(reader, writer)

    async def start(self, host: str | None = None, port: int | None = None) -> asyncio.Server:
        """Listen (TLS when settings.mllp.tls_certfile is set); returns the server."""
        mllp = self.settings.mllp
        tls = server_ssl_context(self.settings)
        cb: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]] = self._track
        self._server = await asyncio.start_server(
            cb, host if host is not None else mllp.host, port if port is not None else mllp.port, ssl=tls)
        return self._server

    @property
    def port(self) -> int:
        if self._server is None or not self._server.sockets:
            raise RuntimeError("the bridge is not listening")
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def close(self, grace_s: float = 5.0) -> None:
        """Stop accepting; drop idle connections at once, let busy ones finish the message in
        hand (``grace_s`` at most): an answered message is never half-handled."""
        self._closing = True
        if self._server is not None:
            self._server.close()
        for task in self._handlers - self._busy:
            task.cancel()
        busy = list(self._busy)
        if busy:
            _, pending = await asyncio.wait(busy, timeout=grace_s)
            for task in pending:
                task.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), timeout=1.0)
            self._server = None


def server_ssl_context(settings: Settings) -> ssl.SSLContext | None:
    mllp = settings.mllp
    if mllp.tls_certfile is None:
        return None
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain(str(mllp.tls_certfile), str(mllp.tls_keyfile) if mllp.tls_keyfile else None)
    return ctx


async def serve(settings: Settings, stop: asyncio.Event, *, max_in_flight: int = 64,
                max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES, metrics_port: int | None = None,
                ready: Callable[[MllpBridge], None] | None = None) -> None:
    """Run the bridge until ``stop`` is set: producer first, then the listener; on stop, the
    reverse (connections drain their current message before the producer flushes).

    Raises ``deid.settings.SecretNotSet`` before anything starts when DEID_HMAC_SECRET is missing
    or short: the bridge keys records by pseudonym and has no default secret."""
    settings.require_secret()
    sink = KafkaSink(settings)
    await sink.start()
    bridge = MllpBridge(settings, sink, max_in_flight=max_in_flight, max_message_bytes=max_message_bytes)
    try:
        if metrics_port is not None:
            from prometheus_client import start_http_server

            start_http_server(metrics_port, addr=settings.http.host, registry=bridge.metrics.registry)
        await bridge.start()
        log.info("MLLP bridge listening on port %d, writing to %s", bridge.port, sink.topic)
        if ready is not None:
            ready(bridge)
        await stop.wait()
    finally:
        await bridge.close()
        await sink.stop()
