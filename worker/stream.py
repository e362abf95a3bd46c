"""The hot loop: consume raw notes, de-identify them in batches, publish, then commit.

aiokafka directly rather than a Faust agent (docs/WORKER.md says why): Faust acknowledges an event
even when its handler raises and, with concurrency, can commit past a message still in flight;
here an input offset is committed only after every output of its batch (de-identified note or
dead letter) has been acknowledged by the broker. Delivery is at-least-once; a redelivered event
is re-processed against the memo and spends nothing, and its output bytes carry no wall-clock
value (timings travel in a Kafka header), so duplicates are byte-identical.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import orjson
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, ConsumerRebalanceListener, TopicPartition
from aiokafka.errors import KafkaError, MessageSizeTooLargeError, RecordListTooLargeError, RecordTooLargeError
from aiokafka.structs import ConsumerRecord

from deid.concepts import CONCEPT_TYPES
from deid.events import DeadLetter, DeadLetterReason, DeidNote, RawNote, encode
from deid.pipeline import Analysis, Found, NotePipeline
from deid.protocols.deadline import Deadline, DetectionTimeout
from deid.settings import Settings
from deid.spans import Span
from deid.store.base import PatientStore, StoreUnavailable
from worker.batching import estimate_tokens, split_by_budget
from worker.decode import decode_record, record_time
from worker.kafka_config import common_kwargs, consumer_kwargs, producer_kwargs
from worker.metrics import WorkerMetrics
from worker.mllp_decode import decode_hl7_record

log = logging.getLogger("deid.worker")

TIMINGS_HEADER = "deid-timings-ms"
_TOO_LARGE = (MessageSizeTooLargeError, RecordTooLargeError, RecordListTooLargeError)
# How long past its deadline a detection call may run before the worker stops waiting for its
# thread (a detector that does not check the deadline, or one stuck between two checks): the
# shipped detector checks it before every forward pass (0.3-0.4 s at the default token budget on
# 2 cores), so 2 s is a backstop, never the rule. Capped at the deadline itself for short ones.
_BACKSTOP_GRACE_S = 2.0
_STORE_PROBE_TIMEOUT_S = 2.0
__all__ = ["DetectionTimeout", "StreamWorker"]  # DetectionTimeout lives in deid.protocols.deadline


@dataclass
class _Item:
    record: ConsumerRecord[bytes, bytes]
    note: RawNote | None = None
    dead: DeadLetter | None = None
    out: DeidNote | None = None
    hl7_out: bytes | None = None  # the de-identified HL7 message (raw-hl7 input, publish_hl7 on)

    @property
    def tp(self) -> TopicPartition:
        return TopicPartition(self.record.topic, self.record.partition)


@dataclass
class _Prepared:
    """A batch decoded and detected, not yet substituted: what the overlapped loop holds while
    the batch before it finishes."""

    records: list[ConsumerRecord[bytes, bytes]]
    items: list[_Item]
    ok: list[tuple[_Item, Analysis]]  # detected items with their spans and concept mentions
    timings: dict[str, float]  # ms per stage so far


def _tp(record: ConsumerRecord[Any, Any]) -> TopicPartition:
    return TopicPartition(record.topic, record.partition)


class _Abandoned(Exception):
    """The batch cannot finish here (shutdown grace spent, partition revoked): not committed."""


class _Listener(ConsumerRebalanceListener):
    def __init__(self, worker: StreamWorker) -> None:
        self._worker = worker

    async def on_partitions_revoked(self, revoked: Iterable[TopicPartition]) -> None:
        await self._worker._on_revoked(set(revoked))

    async def on_partitions_assigned(self, assigned: Iterable[TopicPartition]) -> None:
        self._worker._on_assigned(set(assigned))


class StreamWorker:
    def __init__(self, settings: Settings, pipeline: NotePipeline, store: PatientStore,
                 metrics: WorkerMetrics | None = None) -> None:
        self.settings = settings
        self.pipeline = pipeline  # the note's journey (detection, concepts, substitution, HL7 out)
        self.store = store
        self.metrics = metrics or WorkerMetrics()
        self._consumer: AIOKafkaConsumer | None = None
        self._producer: AIOKafkaProducer | None = None
        # Held while a batch is processed and committed; a revocation waits for it.
        self._lock = asyncio.Lock()
        self._pending: list[ConsumerRecord[bytes, bytes]] = []
        self._revoking: set[TopicPartition] = set()
        self._stopping = asyncio.Event()
        self._stop_requested_at: float | None = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="deid-detect")
        self.assigned: set[TopicPartition] = set()
        self.running = False
        self.batches_done = 0
        # Broker reachability, from a metadata probe on a connection of its own (readiness).
        self.probe_failures = 0
        self._dates_out_of_window_seen = 0  # the substituter's running count already exported
        self._probe_task: asyncio.Task[None] | None = None
        self._last_broker_answer = time.monotonic()
        # The store's write probe: keyed by the secret like every stored key, one per client id,
        # outside any patient's keys (PatientStore.probe_write).
        self._store_probe_key = hmac.new(
            settings.secret_bytes(), b"readiness-probe\x1f" + settings.kafka.client_id.encode("utf-8"),
            hashlib.sha256).hexdigest()[:32]
        self.rules_only = not settings.model.enabled

    # -- lifecycle ---------------------------------------------------------------------------
    async def start(self) -> None:
        k = self.settings.kafka
        self._producer = AIOKafkaProducer(**producer_kwargs(k))
        try:
            await self._producer.start()
            self._consumer = AIOKafkaConsumer(**consumer_kwargs(k, self.settings.batch.max_events))
            self._consumer.subscribe([k.topic_raw_notes, k.topic_raw_hl7], listener=_Listener(self))
            await self._consumer.start()
        except BaseException:  # cancelled (Ctrl-C during the join) included: close what is open
            if self._consumer is not None:
                await self._consumer.stop()
            await self._producer.stop()
            raise
        self.running = True
        self._last_broker_answer = time.monotonic()
        self._probe_task = asyncio.create_task(self._probe_broker())
        log.info("worker started: group=%s topic=%s", k.consumer_group, k.topic_raw_notes)

    def stop(self) -> None:
        """Ask the loop to finish the batch in flight, commit it and close (signal-handler safe)."""
        if not self._stopping.is_set():
            self._stop_requested_at = time.monotonic()
            self._stopping.set()

    async def run(self) -> None:
        if self._consumer is None:
            await self.start()
        try:
            if self.settings.batch.overlap_detection:
                await self._run_overlapped()
            else:
                while not self._stopping.is_set():
                    records = await self._collect()
                    if records:
                        await self._process(records)
        finally:
            await self._close()

    async def _run_overlapped(self) -> None:
        """Batch N+1 is collected and detected while batch N is substituted, published and
        committed (on a GPU node the host's substitution, not the GPU, bounded the worker:
        docs/BENCHMARKS.md, "On a GPU"). Order holds where it matters: a batch is substituted only
        after the one before it is committed, so a patient's memo and the offsets advance as in
        the sequential loop; detection reads nothing shared. An abandoned batch takes the one
        detected behind it along: both are rewound, neither is committed."""
        finishing: asyncio.Task[bool] | None = None
        behind: list[ConsumerRecord[bytes, bytes]] = []  # records of the batch in ``finishing``
        try:
            while not self._stopping.is_set():
                records = await self._collect()
                if not records:
                    if finishing is not None and finishing.done():
                        if not await finishing:
                            self._rewind(behind)
                        finishing, behind = None, []
                    continue
                prepared = await self._prepare(records)
                if finishing is not None:
                    done_ok = await finishing
                    finishing = None
                    if not done_ok:
                        self._rewind(behind + records)
                        behind = []
                        continue
                behind = records
                finishing = asyncio.create_task(self._finish_locked(prepared))
        finally:
            if finishing is not None and not await finishing:
                self._rewind(behind)

    async def _finish_locked(self, prepared: _Prepared) -> bool:
        async with self._lock:  # a revocation queued behind the batch before runs first
            return await self._finish(self._still_assigned(prepared))

    def _still_assigned(self, prepared: _Prepared) -> _Prepared:
        """Leaves out the items of partitions revoked while the batch was detected: uncommitted,
        they are read again by the partition's new owner. Only the consumer's own assignment
        decides (a partition still ours is never skipped, or a later commit would pass it)."""
        assert self._consumer is not None
        assigned = self._consumer.assignment()
        if all(it.tp in assigned for it in prepared.items):
            return prepared
        keep = [it for it in prepared.items if it.tp in assigned]
        ids = {id(it) for it in keep}
        return _Prepared(
            records=[it.record for it in keep], items=keep,
            ok=[row for row in prepared.ok if id(row[0]) in ids], timings=prepared.timings)

    async def _close(self) -> None:
        self.running = False
        if self._probe_task is not None:
            self._probe_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._probe_task
        try:
            if self._consumer is not None:
                await self._stop_consumer()
        finally:
            if self._producer is not None:
                await self._producer.stop()
            self._executor.shutdown(wait=False)
            log.info("worker stopped after %d batches", self.batches_done)

    async def _stop_consumer(self) -> None:
        """Leave the group (the others rebalance at once). With the broker gone, aiokafka's fetch
        task ends in a CancelledError that ``stop()`` re-raises: that is not ours, swallow it so
        that SIGTERM still exits cleanly (nothing uncommitted is lost: it is redelivered)."""
        assert self._consumer is not None
        task = asyncio.current_task()
        try:
            await self._consumer.stop()
        except asyncio.CancelledError:
            if task is not None and task.cancelling():
                raise
            log.warning("consumer stopped without the broker (its fetch task was cancelled)")

    @property
    def broker_silent_s(self) -> float:
        """Seconds since the broker last answered a metadata probe."""
        return time.monotonic() - self._last_broker_answer

    @property
    def broker_reachable(self) -> bool:
        """False after ``probe_failures_unready`` failed probes in a row, or once no probe has
        been answered for ``probe_failures_unready x probe_interval_s``: the second bounds the
        time to 503 whatever a probe's own timeout (docs/WORKER.md gives the arithmetic)."""
        k = self.settings.kafka
        return (self.probe_failures < k.probe_failures_unready
                and self.broker_silent_s <= k.probe_failures_unready * k.probe_interval_s)

    async def ready(self) -> tuple[bool, str]:
        """Ready only when the worker can do its job: running, the broker answering (metadata
        probe), partitions assigned and the store answering. The detail says what is wrong, and
        says so when names are not detected (rules only)."""
        ok, why = await self._readiness()
        if self.rules_only:
            why += " (RULES ONLY: person names are NOT detected)"
        return ok, why

    async def _readiness(self) -> tuple[bool, str]:
        if not self.running or self._consumer is None:
            return False, "not running"
        if not self.broker_reachable:
            return False, (f"broker unreachable ({self.probe_failures} metadata probes failed in a row, "
                           f"no answer for {self.broker_silent_s:.0f}s)")
        if not self._consumer.assignment():
            return False, "no partition assigned"
        # A write, not a PING: a Redis out of memory (noeviction) or read-only answers PING and
        # refuses every note's commit.
        try:
            await asyncio.wait_for(self.store.probe_write(self._store_probe_key), _STORE_PROBE_TIMEOUT_S)
        except TimeoutError:
            return False, f"store unavailable (no answer to a write in {_STORE_PROBE_TIMEOUT_S:g}s)"
        except StoreUnavailable as exc:  # its message names the operation and a cause, never a key
            return False, f"store unavailable: {exc}"
        except Exception as exc:
            return False, f"store unavailable ({type(exc).__name__})"
        return True, "ready"

    async def _probe_broker(self) -> None:
        """A metadata request every ``kafka.probe_interval_s`` on a client of its own (a frozen or
        stopped broker cannot be seen from the consumer's side: getmany just returns nothing).
        Probes start on a fixed cadence and each is bounded by the interval (and by
        ``probe_timeout_s`` when shorter), so a frozen broker costs one failure per interval; the
        former loop waited the probe's timeout + 1 s and *then* the interval, 11 s a failure."""
        from aiokafka.client import AIOKafkaClient

        k = self.settings.kafka
        bound = min(k.probe_timeout_s, k.probe_interval_s)
        kw = common_kwargs(k)
        kw["client_id"] = f"{k.client_id}-probe"
        kw["request_timeout_ms"] = max(1, int(bound * 1000))
        client = AIOKafkaClient(**kw)
        bootstrapped = False
        next_at = time.monotonic()
        try:
            while True:
                try:
                    async with asyncio.timeout(bound):
                        if not bootstrapped:
                            await client.bootstrap()
                            bootstrapped = True
                        else:
                            await client.fetch_all_metadata()
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    self.probe_failures += 1
                    self.metrics.broker_probe_failures.inc()
                    if self.probe_failures == k.probe_failures_unready:
                        log.error("broker unreachable: %d metadata probes failed in a row (%s); not ready",
                                  self.probe_failures, type(exc).__name__)
                else:
                    if not self.broker_reachable:
                        log.warning("broker reachable again after %d failed probes", self.probe_failures)
                    self.probe_failures = 0
                    self._last_broker_answer = time.monotonic()
                self.metrics.broker_reachable.set(1 if self.broker_reachable else 0)
                next_at = max(next_at + k.probe_interval_s, time.monotonic())
                await asyncio.sleep(next_at - time.monotonic())
        finally:
            with contextlib.suppress(Exception):
                await client.close()

    # -- rebalance ---------------------------------------------------------------------------
    async def _on_revoked(self, revoked: set[TopicPartition]) -> None:
        if revoked:
            self.metrics.rebalances.inc()
        self._revoking |= revoked
        try:
            async with self._lock:  # the batch in flight finishes (and commits) first
                self._pending = [r for r in self._pending if _tp(r) not in revoked]
        finally:
            self._revoking -= revoked
            self.assigned -= revoked
            self.metrics.assigned_partitions.set(len(self.assigned))

    def _on_assigned(self, assigned: set[TopicPartition]) -> None:
        self.assigned = set(assigned)
        self.metrics.assigned_partitions.set(len(self.assigned))
        log.info("assigned %d partitions", len(assigned))

    # -- batching ----------------------------------------------------------------------------
    async def _collect(self) -> list[ConsumerRecord[bytes, bytes]]:
        assert self._consumer is not None
        cfg = self.settings.batch
        max_tokens = self.settings.model.max_tokens_per_batch
        window_s = cfg.max_wait_ms / 1000.0
        deadline = time.monotonic() + window_s if self._pending else None
        tokens = sum(estimate_tokens(r.value) for r in self._pending)
        while not self._stopping.is_set() and len(self._pending) < cfg.max_events and tokens < max_tokens:
            if deadline is None:
                timeout_ms = cfg.max_wait_ms
            else:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                timeout_ms = max(1, int(remaining * 1000))
            got = await self._consumer.getmany(timeout_ms=timeout_ms,
                                               max_records=cfg.max_events - len(self._pending))
            for recs in got.values():
                self._pending.extend(recs)
                tokens += sum(estimate_tokens(r.value) for r in recs)
            if self._pending and deadline is None:
                deadline = time.monotonic() + window_s
        n = split_by_budget(self._pending, cfg.max_events, max_tokens)
        batch, self._pending = self._pending[:n], self._pending[n:]
        return batch

    # -- one batch ---------------------------------------------------------------------------
    async def _process(self, records: list[ConsumerRecord[bytes, bytes]]) -> None:
        """One batch start to end (decode, detect, substitute, publish, commit); rewound when it
        is abandoned."""
        async with self._lock:
            if not await self._finish(await self._prepare(records)):
                self._rewind(records)

    async def _prepare(self, records: list[ConsumerRecord[bytes, bytes]]) -> _Prepared:
        """Decoding and detection: reads nothing shared and writes nothing (no store, no broker),
        so it may run ahead of the batch before it."""
        m = self.metrics
        t_start = time.perf_counter()
        m.events_in.inc(len(records))
        m.batch_size.observe(len(records))
        # Off the event loop: a raw-hl7 record is parsed here, and a big one took seconds during
        # which /livez, heartbeats and the readiness probes would wait (issue 33).
        items = await asyncio.to_thread(self._decode_all, records)
        t_decoded = time.perf_counter()
        m.stage_seconds.labels("decode").observe(t_decoded - t_start)

        good = [it for it in items if it.note is not None]
        notes = [it.note for it in good if it.note is not None]
        analysed = await self._detect(notes) if notes else []
        t_detected = time.perf_counter()
        m.stage_seconds.labels("detect").observe(t_detected - t_decoded)
        tokens = sum(estimate_tokens(n.text) for n in notes)
        m.ner_tokens.inc(tokens)
        if notes and t_detected > t_decoded:
            m.ner_tokens_per_s.set(tokens / (t_detected - t_decoded))

        ok: list[tuple[_Item, Analysis]] = []
        for it, res in zip(good, analysed, strict=True):
            if isinstance(res, DetectionTimeout):
                it.dead = self._dead(it, "detection_timeout",
                                     f"detect: over {self.settings.batch.detect_timeout_s:g}s")
            elif isinstance(res, BaseException):
                it.dead = self._processing_error(it, res, "detect")
            else:
                ok.append((it, res))
        timings = {"decode": (t_decoded - t_start) * 1e3, "detect": (t_detected - t_decoded) * 1e3}
        return _Prepared(records=records, items=items, ok=ok, timings=timings)

    async def _finish(self, prepared: _Prepared) -> bool:
        """Substitution, publication and commit of a prepared batch, in that order; False when the
        batch was abandoned uncommitted (the caller rewinds it)."""
        m = self.metrics
        records, items = prepared.records, prepared.items
        ok_items = [it for it, _ in prepared.ok]
        ok_spans = [a.spans for _, a in prepared.ok]
        ok_found = [a.concepts for _, a in prepared.ok]
        batch_tps = {it.tp for it in items}
        t_subst_start = time.perf_counter()
        try:
            outs = await self._substitute([it.note for it in ok_items if it.note is not None], ok_spans,
                                          batch_tps)
            t_subst = time.perf_counter()
            m.stage_seconds.labels("substitute").observe(t_subst - t_subst_start)
            for it, out, sp, found in zip(ok_items, outs, ok_spans, ok_found, strict=True):
                if isinstance(out, BaseException):
                    it.dead = self._processing_error(it, out, "substitute")
                else:
                    it.out = self._with_concepts(it.note, sp, out, found) if it.note else out
            if self.settings.kafka.publish_hl7:
                await self._hl7_outputs(ok_items, batch_tps)
            timings = {**prepared.timings, "substitute": (t_subst - t_subst_start) * 1e3}
            await self._publish(items, timings, batch_tps)
        except _Abandoned:
            log.warning("batch of %d records abandoned uncommitted (will be redelivered)", len(records))
            return False
        t_published = time.perf_counter()
        m.stage_seconds.labels("publish").observe(t_published - t_subst)
        await self._commit(records)
        m.stage_seconds.labels("commit").observe(time.perf_counter() - t_published)
        now_ms = time.time() * 1000
        for r in records:
            if r.timestamp:
                m.note_seconds.observe(max(0.0, now_ms - r.timestamp) / 1000)
        self.batches_done += 1
        n_out = sum(1 for it in items if it.out is not None)
        log.info("batch %d: in=%d out=%d dead=%d", self.batches_done, len(items), n_out, len(items) - n_out)
        await self._update_lag()
        return True

    def _decode_all(self, records: list[ConsumerRecord[bytes, bytes]]) -> list[_Item]:
        return [self._decode(r) for r in records]

    def _decode(self, r: ConsumerRecord[bytes, bytes]) -> _Item:
        decode = decode_hl7_record if r.topic == self.settings.kafka.topic_raw_hl7 else decode_record
        res = decode(r.value, topic=r.topic, partition=r.partition, offset=r.offset,
                            timestamp_ms=r.timestamp, settings=self.settings)
        if isinstance(res, DeadLetter):
            return _Item(r, dead=res)
        return _Item(r, note=res)

    def _processing_error(self, it: _Item, exc: BaseException, stage: str) -> DeadLetter:
        # The class name only: an exception message may quote the note.
        log.error("event %s failed in %s: %s", it.note.event_id if it.note else "?", stage,
                  type(exc).__name__)
        return self._dead(it, "processing_error", f"{stage}: {type(exc).__name__}")

    def _dead(self, it: _Item, reason: DeadLetterReason, detail: str) -> DeadLetter:
        r = it.record
        return DeadLetter(reason=reason, detail=detail, source_topic=r.topic, partition=r.partition,
                          offset=r.offset, event_id=it.note.event_id if it.note else None,
                          received_at=record_time(r.timestamp))

    def _analyse(self, notes: Sequence[RawNote], deadline: Deadline | None = None) -> list[Analysis]:
        """The pipeline's detection hop (detection, then concept tagging), timed for the metrics."""
        return self.pipeline.analyse(notes, deadline, on_tagged=self.metrics.concept_tag_seconds.observe)

    def _with_concepts(self, note: RawNote, spans: list[Span], out: DeidNote, found: Found) -> DeidNote:
        """``out`` with its concepts block (``NotePipeline.with_concepts``), counted. A tagging (or
        offset) failure publishes the note without the block rather than dead-lettering it: the
        de-identified note is the product and concepts an optional extra."""
        placed = self.pipeline.with_concepts(note, spans, out, found)
        if placed.withheld > 0:
            self.metrics.concept_mentions_withheld.inc(placed.withheld)
        if placed.failure is not None:
            # the class name only: an exception message may quote the note
            self.metrics.concept_failures.inc()
            log.error("event %s: concept extraction failed (%s); published without concepts",
                      note.event_id, type(placed.failure).__name__)
        return placed.note

    async def _detect_call(self, notes: Sequence[RawNote], budget_s: float | None) -> list[Analysis]:
        """One detection call in the detection thread under a deadline of ``budget_s`` (None: no
        limit). The detector checks the deadline itself and raises ``DetectionTimeout``, which
        frees the thread; if it has not come back ``_BACKSTOP_GRACE_S`` later (a detector that
        does not check), the call is given up here."""
        deadline = Deadline.after(budget_s) if budget_s else None
        loop = asyncio.get_running_loop()
        fut = loop.run_in_executor(self._executor, self._analyse, notes, deadline)
        backstop = budget_s + min(_BACKSTOP_GRACE_S, budget_s) if budget_s else None
        try:
            return list(await asyncio.wait_for(fut, backstop))
        except TimeoutError:
            # A thread cannot be interrupted: the stuck call runs on to its end in the old
            # executor (its result is dropped); the next calls get a fresh thread.
            self._executor.shutdown(wait=False)
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="deid-detect")
            raise DetectionTimeout("backstop") from None

    def _detect_groups(self, notes: Sequence[RawNote]) -> list[list[int]]:
        """The notes as detection calls of at most one token budget each (the collector already
        cuts batches so; this holds whatever the batch), a note over the budget alone and after
        the others: a huge note neither shares a deadline with small ones nor delays them."""
        budget = self.settings.model.max_tokens_per_batch
        groups: list[list[int]] = []
        huge: list[list[int]] = []
        cur: list[int] = []
        tokens = 0
        for i, note in enumerate(notes):
            n = estimate_tokens(note.text)
            if n > budget:
                huge.append([i])
                continue
            if cur and tokens + n > budget:
                groups.append(cur)
                cur, tokens = [], 0
            cur.append(i)
            tokens += n
        if cur:
            groups.append(cur)
        return groups + huge

    async def _detect(self, notes: Sequence[RawNote]) -> list[Analysis | BaseException]:
        """Every note's spans, or the exception that stands for it. A call's deadline is
        ``batch.detect_timeout_s`` from its start: a group holds at most one token budget of text,
        so it is no more work than one note at the budget, and each of its notes is answered
        within the deadline. A group that fails or overruns is retried note by note (each with
        the full deadline again) so that only the failing note is dead-lettered; a note alone is
        never retried (its second try would fail the same way, twice as late)."""
        per_note = self.settings.batch.detect_timeout_s or None
        out: list[Analysis | BaseException | None] = [None] * len(notes)
        for group in self._detect_groups(notes):
            try:
                found = await self._detect_call([notes[i] for i in group], per_note)
            except Exception as exc:
                if len(group) > 1:
                    for i in group:
                        out[i] = await self._detect_one(notes[i], per_note)
                    continue
                out[group[0]] = self._failed(notes[group[0]], exc, per_note)
            else:
                for i, res in zip(group, found, strict=True):
                    out[i] = res
        return [res if res is not None else RuntimeError("not detected") for res in out]

    async def _detect_one(self, note: RawNote, per_note: float | None) -> Analysis | BaseException:
        try:
            return (await self._detect_call([note], per_note))[0]
        except Exception as exc:
            return self._failed(note, exc, per_note)

    def _failed(self, note: RawNote, exc: BaseException, per_note: float | None) -> BaseException:
        if isinstance(exc, DetectionTimeout):
            # the stage is a name from the code (rules, ner, a merge step, backstop), never text
            log.error("event %s: detection over %.1fs (stopped in %s); dead-lettered", note.event_id,
                      per_note or 0, exc.args[0] if exc.args else "?")
        return exc

    def _must_abandon(self, batch_tps: set[TopicPartition]) -> bool:
        if batch_tps & self._revoking:
            return True
        if self._stop_requested_at is None:
            return False
        return time.monotonic() - self._stop_requested_at > self.settings.batch.shutdown_grace_s

    async def _substitute(self, notes: list[RawNote], spans: list[list[Span]],
                          batch_tps: set[TopicPartition]) -> list[DeidNote | BaseException]:
        if not notes:
            return []
        backoff = self.settings.redis.retry_backoff_s
        while True:
            try:
                try:
                    return list(await self.pipeline.substitute(notes, spans))
                except StoreUnavailable:
                    raise
                except Exception:
                    pass
                results: list[DeidNote | BaseException] = []
                for note, sp in zip(notes, spans, strict=True):
                    try:
                        results.append((await self.pipeline.substitute([note], [sp]))[0])
                    except StoreUnavailable:
                        raise
                    except Exception as exc:
                        results.append(exc)
                return results
            except StoreUnavailable as exc:
                # Back-pressure: never guess, never dead-letter, never commit past this batch.
                # The reason names the operation and an exception type, never a key or a value.
                self.metrics.store_errors.inc()
                log.warning("store unavailable (%s); retrying the batch in %.2fs", exc, backoff)
            if self._must_abandon(batch_tps):
                raise _Abandoned
            await self._sleep(backoff)
            backoff = min(backoff * 2, self.settings.redis.retry_backoff_max_s)

    async def _hl7_outputs(self, items: list[_Item], batch_tps: set[TopicPartition]) -> None:
        """De-identified HL7 for the raw-hl7 items (``NotePipeline.hl7_output``), with the store
        back-pressure of ``_substitute``; any other failure dead-letters that event alone."""
        hl7_topic = self.settings.kafka.topic_raw_hl7
        pending = [it for it in items
                   if it.out is not None and it.note is not None and it.record.topic == hl7_topic]
        backoff = self.settings.redis.retry_backoff_s
        while pending:
            try:
                for it in list(pending):
                    assert it.note is not None and it.out is not None
                    try:
                        it.hl7_out = await self.pipeline.hl7_output(it.record.value, it.note, it.out)
                    except StoreUnavailable:
                        raise
                    except Exception as exc:
                        it.out = None
                        it.dead = self._processing_error(it, exc, "hl7")
                    pending.remove(it)
            except StoreUnavailable as exc:
                self.metrics.store_errors.inc()
                log.warning("store unavailable (%s); retrying the HL7 outputs in %.2fs", exc, backoff)
                if self._must_abandon(batch_tps):
                    raise _Abandoned from None
                await self._sleep(backoff)
                backoff = min(backoff * 2, self.settings.redis.retry_backoff_max_s)

    def _export_substitution_stats(self) -> None:
        """The substituter's counts (``Substituter.stats``, kept in the core) as metrics."""
        stats = getattr(self.pipeline.substituter, "stats", None)
        seen = stats.get("dates_out_of_window", 0) if stats is not None else 0
        if seen > self._dates_out_of_window_seen:
            self.metrics.dates_out_of_window.inc(seen - self._dates_out_of_window_seen)
            self._dates_out_of_window_seen = seen

    async def _sleep(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopping.wait(), seconds)
        if self._stopping.is_set():
            await asyncio.sleep(min(seconds, 0.5))

    def _messages(self, items: list[_Item], timings: dict[str, float]
                  ) -> list[tuple[_Item, str, bytes | None, bytes, list[tuple[str, bytes]]]]:
        k = self.settings.kafka
        header = [(TIMINGS_HEADER, orjson.dumps({s: round(v, 3) for s, v in timings.items()}))]
        msgs: list[tuple[_Item, str, bytes | None, bytes, list[tuple[str, bytes]]]] = []
        for it in items:
            if it.out is not None:
                # timings_ms stays empty in the value: wall-clock figures would make a redelivered
                # event's output differ from the first one.
                value = encode(it.out.model_copy(update={"timings_ms": {}}))
                msgs.append((it, k.topic_deid_notes, it.out.patient_pseudonym.encode(), value, header))
                if it.hl7_out is not None:
                    msgs.append((it, k.topic_deid_hl7, it.out.patient_pseudonym.encode(), it.hl7_out, []))
            elif it.dead is not None:
                # No key: the input's key is the raw patient id.
                msgs.append((it, k.topic_dead_letter, None, encode(it.dead), []))
        return msgs

    async def _publish(self, items: list[_Item], timings: dict[str, float],
                       batch_tps: set[TopicPartition]) -> None:
        assert self._producer is not None
        backoff = 0.1
        acked: set[tuple[int, str]] = set()  # (item, topic) already acknowledged: not sent again
        while True:
            sent: list[tuple[_Item, str, asyncio.Future[Any]]] = []
            failed: list[tuple[_Item, BaseException]] = []
            for it, topic, key, value, headers in self._messages(items, timings):
                if (id(it), topic) in acked:
                    continue
                try:
                    fut = await self._producer.send(topic, value, key=key, headers=headers)
                    sent.append((it, topic, fut))
                except KafkaError as send_exc:
                    failed.append((it, send_exc))
            results = await asyncio.gather(*(f for _, _, f in sent), return_exceptions=True)
            for (it, topic, _), r in zip(sent, results, strict=True):
                if isinstance(r, BaseException):
                    failed.append((it, r))
                else:
                    acked.add((id(it), topic))
            if not failed:
                break
            self.metrics.publish_errors.inc()
            retriable = True
            for it, err in failed:
                # An output the broker will never take (too large) becomes this note's dead
                # letter; anything else (broker down, timeout, leader moving) retries what was
                # not acknowledged (a send that timed out but landed comes out twice, identical).
                if it.out is not None and isinstance(err, _TOO_LARGE):
                    it.out, it.dead = None, self._processing_error(it, err, "publish")
                    retriable = False
            log.warning("publish of %d records failed (%s); retrying them", len(failed),
                        type(failed[0][1]).__name__)
            if retriable:
                if self._must_abandon(batch_tps):
                    raise _Abandoned
                await self._sleep(backoff)
                backoff = min(backoff * 2, 5.0)
        for it in items:
            if it.out is not None:
                self.metrics.events_out.inc()
                if it.out.privacy.exhausted:
                    self.metrics.budget_exhaustions.inc()
                if it.out.concepts is not None:
                    for mention in it.out.concepts.mentions:  # label: a closed set of types
                        t = mention.type if mention.type in CONCEPT_TYPES else "other"
                        self.metrics.concept_mentions.labels(t).inc()
            elif it.dead is not None:
                self.metrics.dead_lettered.labels(it.dead.reason).inc()
                log.info("dead-lettered offset %d of partition %d: %s", it.dead.offset, it.dead.partition,
                         it.dead.reason)

    async def _commit(self, records: list[ConsumerRecord[bytes, bytes]]) -> None:
        assert self._consumer is not None
        offsets: dict[TopicPartition, int] = {}
        for r in records:
            tp = _tp(r)
            offsets[tp] = max(offsets.get(tp, 0), r.offset + 1)
        assigned = self._consumer.assignment()
        offsets = {tp: o for tp, o in offsets.items() if tp in assigned}
        if not offsets:
            return
        try:
            await self._consumer.commit(offsets)
            self.metrics.commits.inc()
            self._export_substitution_stats()
        except KafkaError as exc:
            # Rebalanced away: the next owner re-processes from the last commit (same bytes out).
            self.metrics.commit_failures.inc()
            log.warning("commit refused (%s); the records will be redelivered", type(exc).__name__)

    def _rewind(self, records: list[ConsumerRecord[bytes, bytes]]) -> None:
        """Seek back to the first record of an abandoned batch so nothing after it commits past it."""
        assert self._consumer is not None
        first: dict[TopicPartition, int] = {}
        for r in records:
            tp = _tp(r)
            first[tp] = min(first.get(tp, r.offset), r.offset)
        assigned = self._consumer.assignment()
        self._pending = [r for r in self._pending if _tp(r) not in first]
        for tp, off in first.items():
            if tp in assigned:
                self._consumer.seek(tp, off)

    async def _update_lag(self) -> None:
        assert self._consumer is not None
        for tp in self._consumer.assignment():
            hw = self._consumer.highwater(tp)
            if hw is None:
                continue
            with contextlib.suppress(Exception):
                pos = await asyncio.wait_for(self._consumer.position(tp), 1.0)
                self.metrics.consumer_lag.labels(str(tp.partition)).set(max(0, hw - pos))
