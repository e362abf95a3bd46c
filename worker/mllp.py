"""The MLLP bridge: HL7 v2 over TCP (optional TLS) -> the raw-hl7 topic, ACK after the broker's.

Per connection, frames (``0x0B`` message ``0x1C 0x0D``) are handled in order, one at a time:
validate (MSH, message type, patient id, note text: what the worker will need), write the raw
bytes keyed by the patient's HMAC pseudonym (never the raw id), and answer AA only once the
broker acknowledged the write. A message that cannot be parsed gets AR (do not resend); one that
could not be written gets AE (resend later). A slow broker slows the senders down instead of
making us drop: a connection reads its next frame only after answering the current one, and a
bridge-wide semaphore bounds the writes in flight, so TCP flow control pushes back on the
interface engine.

Each message is parsed and validated once, in a small thread pool (never on the event loop: a
large message on one connection does not hold up the others). What the broker can never take
is refused (AR ``message_too_large``): the size cap is the configured one lowered, at start, to
the topic's ``max.message.bytes`` and the producer's ``max_request_size``. Hostile or stuck peers
are bounded: a connection cap, an idle timeout and a partial-frame timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from deid.hl7 import Hl7Error, Hl7Message, build_ack, read_header
from deid.settings import KafkaSettings, Settings
from deid.store.keys import KeyHasher
from worker.mllp_decode import Inspected, Rejection, inspect_hl7

log = logging.getLogger("deid.mllp")

START_BLOCK = 0x0B
END_BLOCK = 0x1C
CARRIAGE_RETURN = 0x0D
DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024
# What the broker counts beyond the payload: record batch header (61 bytes), record framing
# (varints, at most ~30) and the key (a 32-character pseudonym); measured 120 bytes, kept with room.
RECORD_OVERHEAD_BYTES = 256
# Threads that parse messages: parsing holds the interpreter lock, so more threads add no
# throughput, only fairness (a small message parses while a large one is in progress) and memory.
PARSE_THREADS = 4
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

    @property
    def in_frame(self) -> bool:
        """A start block was read and its end block not yet (bytes of an oversized frame included)."""
        return self._inside

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


class MessageTooLarge(Exception):
    """The broker (or the producer, before sending) refused the record for its size: resending
    can never succeed, so the sender gets AR ``message_too_large``."""


class RawHl7Sink(Protocol):
    async def send(self, key: bytes, value: bytes) -> None:
        """Return only once the broker acknowledged the write; raise ``MessageTooLarge`` for a
        record too large for the broker, another exception otherwise."""


def message_cap(configured: int, max_request_size: int, topic_max_message_bytes: int | None) -> int:
    """The largest message (payload bytes) the bridge accepts: the configured cap, lowered to
    what the producer (``max_request_size``) and the topic (``max.message.bytes``; None when it
    could not be read) take once the payload is framed as a record. Anything larger is answered
    AR ``message_too_large`` instead of AE and resent forever."""
    broker_limits = [max_request_size] + ([topic_max_message_bytes] if topic_max_message_bytes else [])
    return max(1, min(configured, min(broker_limits) - RECORD_OVERHEAD_BYTES))


async def topic_max_message_bytes(kafka: KafkaSettings, topic: str, timeout_s: float = 15.0) -> int | None:
    """The topic's ``max.message.bytes`` (Kafka reports the broker's default for a topic without
    its own), read with the admin API; None when the broker does not say or cannot be asked
    (ACLs without DescribeConfigs...): the configured cap then stands alone."""
    from aiokafka.admin import AIOKafkaAdminClient
    from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType

    from worker.kafka_config import common_kwargs

    kw = common_kwargs(kafka)
    kw["client_id"] = f"{kafka.client_id}-mllp-admin"
    admin = AIOKafkaAdminClient(**kw)
    try:
        async with asyncio.timeout(timeout_s):
            await admin.start()
            # every config of the topic: a filtered request is not understood by every broker
            responses = await admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic)])
    except Exception as exc:  # the cap then comes from the settings alone
        log.warning("could not read max.message.bytes of the raw-hl7 topic (%s); using "
                    "DEID_MLLP__MAX_MESSAGE_BYTES and the producer's max_request_size", type(exc).__name__)
        return None
    finally:
        with contextlib.suppress(Exception):
            await admin.close()
    for response in responses:
        for error_code, _, _, name, entries, *_ in response.resources:
            if error_code or name != topic:
                continue
            for config_name, value, *_ in entries:
                if config_name == "max.message.bytes":
                    with contextlib.suppress(TypeError, ValueError):
                        return int(value)
    log.info("the raw-hl7 topic reports no max.message.bytes; the cap is DEID_MLLP__MAX_MESSAGE_BYTES "
             "and the producer's max_request_size")
    return None


class KafkaSink:
    """aiokafka producer writing to the raw-hl7 topic (acks=all, see worker.kafka_config)."""

    def __init__(self, settings: Settings, topic: str | None = None) -> None:
        self._settings = settings
        self.topic = topic or settings.kafka.topic_raw_hl7
        self.max_request_size = settings.kafka.max_request_size
        self._producer: Any = None

    async def start(self) -> None:
        from aiokafka import AIOKafkaProducer

        from worker.kafka_config import producer_kwargs

        kw = producer_kwargs(self._settings.kafka)
        kw["client_id"] = f"{self._settings.kafka.client_id}-mllp"
        # An MLLP sender waits for each ACK, so lingering only adds latency; writes from several
        # connections still share a request while one is in flight.
        kw["linger_ms"] = 0
        self.max_request_size = kw["max_request_size"]
        producer = AIOKafkaProducer(**kw)
        try:
            await producer.start()
        except BaseException:
            await producer.stop()
            raise
        self._producer = producer

    async def max_payload_bytes(self, configured: int) -> int:
        """``message_cap`` for this sink's producer and topic (asks the broker once)."""
        topic_limit = await topic_max_message_bytes(self._settings.kafka, self.topic)
        return message_cap(configured, self.max_request_size, topic_limit)

    async def send(self, key: bytes, value: bytes) -> None:
        from aiokafka.errors import MessageSizeTooLargeError, RecordListTooLargeError

        if self._producer is None:
            raise RuntimeError("KafkaSink.start() was not awaited")
        try:
            await self._producer.send_and_wait(self.topic, value=value, key=key)
        except (MessageSizeTooLargeError, RecordListTooLargeError) as exc:
            raise MessageTooLarge(type(exc).__name__) from exc

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
        self.connections_refused = Counter(
            "deid_mllp_connections_refused", "Connections closed at once: the connection cap was reached",
            registry=r)
        self.timeouts = Counter("deid_mllp_timeouts", "Connections closed for silence (idle) or for a "
                                "frame not finished in time (frame)", ["kind"], registry=r)
        self.write_seconds = Histogram("deid_mllp_write_seconds", "Broker write latency",
                                       registry=r)
        for outcome in ("AA", "AE", "AR"):
            self.messages.labels(outcome)
        for kind in ("idle", "frame"):
            self.timeouts.labels(kind)


class MllpBridge:
    def __init__(
        self,
        settings: Settings,
        sink: RawHl7Sink,
        *,
        max_in_flight: int = 64,
        max_message_bytes: int | None = None,
        metrics: BridgeMetrics | None = None,
        parse_threads: int = PARSE_THREADS,
    ) -> None:
        mllp = settings.mllp
        self.settings = settings
        self.sink = sink
        self.hasher = KeyHasher.from_settings(settings)
        self.max_message_bytes = mllp.max_message_bytes if max_message_bytes is None else max_message_bytes
        self.max_connections = mllp.max_connections
        self.idle_timeout_s = mllp.idle_timeout_s
        self.frame_timeout_s = mllp.frame_timeout_s
        self.metrics = metrics or BridgeMetrics()
        self._slots = asyncio.Semaphore(max_in_flight)
        self._parser = ThreadPoolExecutor(max_workers=parse_threads, thread_name_prefix="mllp-parse")
        self._server: asyncio.Server | None = None
        self._handlers: set[asyncio.Task[None]] = set()
        self._busy: set[asyncio.Task[None]] = set()  # handlers between a frame and its ACK
        self._open = 0  # connections being served (the cap counts these)
        self._closing = False

    # -- one message -------------------------------------------------------------------------
    async def process(self, item: Frame) -> bytes:
        """The ACK for one frame (after the broker acknowledged, for an AA)."""
        loop = asyncio.get_running_loop()
        if item.error is not None:
            header = None
            if item.payload:
                header = await loop.run_in_executor(self._parser, read_header, item.payload)
            return self._reject(header, Hl7Error("bad_framing" if item.error == "bad_framing"
                                                 else "message_too_large"))
        # The worker's own check (worker.mllp_decode), one parse, off the event loop: whatever the
        # worker would dead-letter is refused here, before the ACK, with the same reason code.
        checked: Inspected = await loop.run_in_executor(
            self._parser, inspect_hl7, item.payload, self.settings)
        if isinstance(checked.outcome, Rejection):
            return self._refuse(checked.header, checked.outcome)
        header = checked.header
        key = self.hasher.patient(checked.outcome.patient_id).encode("ascii")
        async with self._slots:
            self.metrics.in_flight.inc()
            t0 = time.perf_counter()
            try:
                await self.sink.send(key, item.payload)
            except asyncio.CancelledError:
                raise
            except MessageTooLarge:
                # never AE: a resend would be refused again, forever
                return self._reject(header, Hl7Error("message_too_large"))
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
        loop = asyncio.get_running_loop()
        # Deadlines: between frames, idle_timeout_s from the last frame started or finished (bytes
        # outside frames do not count: dribbled junk cannot hold a connection); inside a frame,
        # frame_timeout_s from its start block. Only time spent waiting for the peer counts.
        quiet_since = loop.time()
        frame_started: float | None = None
        self.metrics.connections.inc()
        try:
            while True:
                if frame_started is not None:
                    kind, deadline = "frame", frame_started + self.frame_timeout_s
                else:
                    kind, deadline = "idle", quiet_since + self.idle_timeout_s
                try:
                    async with asyncio.timeout_at(deadline):
                        data = await reader.read(_READ_CHUNK)
                except TimeoutError:
                    self.metrics.timeouts.labels(kind).inc()
                    log.info("MLLP connection closed: %s timeout", kind)
                    break
                if not data:
                    break
                junk_before = deframer.junk_bytes
                frames = deframer.feed(data)
                if deframer.junk_bytes > junk_before:
                    self.metrics.junk_bytes.inc(deframer.junk_bytes - junk_before)
                if frames:
                    if not await self._answer(frames, writer):
                        break
                    quiet_since = loop.time()
                if not deframer.in_frame:
                    frame_started = None
                elif frames or frame_started is None:  # a frame began with these bytes
                    frame_started = quiet_since = loop.time()
                if self._closing:
                    break
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
            pass  # the peer went away; whatever it had not been answered for, it will resend
        finally:
            self.metrics.connections.dec()
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _answer(self, frames: list[Frame], writer: asyncio.StreamWriter) -> bool:
        """Process and acknowledge ``frames`` in order; False when the peer stopped reading its
        ACKs for ``idle_timeout_s`` (the connection is then closed)."""
        task = asyncio.current_task()
        if task is not None:
            self._busy.add(task)
        try:
            for item in frames:
                ack = await self.process(item)
                writer.write(frame(ack))
                try:
                    async with asyncio.timeout(self.idle_timeout_s):
                        await writer.drain()
                except TimeoutError:
                    self.metrics.timeouts.labels("idle").inc()
                    log.info("MLLP connection closed: the peer does not read its acknowledgements")
                    return False
            return True
        finally:
            if task is not None:
                self._busy.discard(task)

    async def _track(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
            task.add_done_callback(self._handlers.discard)
        if self._open >= self.max_connections:
            # Closed at once, before reading anything: past the cap a peer (or a reconnect storm)
            # would otherwise hold a frame buffer each.
            self.metrics.connections_refused.inc()
            log.warning("MLLP connection refused: %d connections open (the cap)", self._open)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
            return
        self._open += 1
        try:
            # a connection task cancelled at shutdown ends quietly (asyncio would log it as an error)
            with contextlib.suppress(asyncio.CancelledError):
                await self.handle(reader, writer)
        finally:
            self._open -= 1

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
        # a parse still running finishes in its thread; nothing waits for it
        self._parser.shutdown(wait=False, cancel_futures=True)


def server_ssl_context(settings: Settings) -> ssl.SSLContext | None:
    mllp = settings.mllp
    if mllp.tls_certfile is None:
        return None
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain(str(mllp.tls_certfile), str(mllp.tls_keyfile) if mllp.tls_keyfile else None)
    return ctx


async def serve(settings: Settings, stop: asyncio.Event, *, max_in_flight: int = 64,
                max_message_bytes: int | None = None, metrics_port: int | None = None,
                ready: Callable[[MllpBridge], None] | None = None) -> None:
    """Run the bridge until ``stop`` is set: producer first, then the listener; on stop, the
    reverse (connections drain their current message before the producer flushes).

    The size cap is ``max_message_bytes`` (default ``DEID_MLLP__MAX_MESSAGE_BYTES``) lowered to
    what the raw-hl7 topic and the producer take (``message_cap``), read once here.

    Raises ``deid.settings.SecretNotSet`` before anything starts when DEID_HMAC_SECRET is missing
    or short: the bridge keys records by pseudonym and has no default secret."""
    settings.require_secret()
    sink = KafkaSink(settings)
    await sink.start()
    try:
        configured = max_message_bytes if max_message_bytes is not None else settings.mllp.max_message_bytes
        cap = await sink.max_payload_bytes(configured)
    except BaseException:
        await sink.stop()
        raise
    if cap < configured:
        log.info("MLLP message cap lowered from %d to %d bytes (topic max.message.bytes, producer "
                 "max_request_size)", configured, cap)
    bridge = MllpBridge(settings, sink, max_in_flight=max_in_flight, max_message_bytes=cap)
    try:
        if metrics_port is not None:
            from prometheus_client import start_http_server

            start_http_server(metrics_port, addr=settings.http.host, registry=bridge.metrics.registry)
        await bridge.start()
        log.info("MLLP bridge listening on port %d, writing to %s, messages up to %d bytes",
                 bridge.port, sink.topic, cap)
        if ready is not None:
            ready(bridge)
        await stop.wait()
    finally:
        await bridge.close()
        await sink.stop()
