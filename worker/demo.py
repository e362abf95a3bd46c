"""The embedded default: broker, Redis (or memory), worker and a producer of sample notes, in one
command. Everything it starts it stops, on Ctrl-C as on a normal exit."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any, TextIO

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from deid.events import DeidNote, encode
from deid.settings import Settings
from worker.main import serve
from worker.samples import sample_notes
from worker.services.broker import TansuBroker, create_topics
from worker.stream import StreamWorker


class Demo:
    def __init__(self, settings: Settings, notes: int, patients: int, exit_after: bool, delay_s: float,
                 timeout_s: float, out: TextIO = sys.stdout) -> None:
        self.settings = settings
        self.notes = sample_notes(notes, patients=patients)
        self.exit_after = exit_after
        self.delay_s = delay_s
        self.timeout_s = timeout_s
        self.out = out
        self.stop = asyncio.Event()
        self.received: dict[str, DeidNote] = {}

    def say(self, line: str = "") -> None:
        print(line, file=self.out, flush=True)

    async def run(self) -> int:
        """0 when every note came out (with ``exit_after``) or on Ctrl-C; 1 on timeout."""
        s = self.settings
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, self.stop.set)
        started: asyncio.Future[tuple[StreamWorker, int]] = loop.create_future()

        def on_started(w: StreamWorker, port: int) -> None:
            started.set_result((w, port))

        worker_task = asyncio.create_task(serve(s, install_signals=False, on_started=on_started))
        stop_wait = asyncio.create_task(self.stop.wait())
        tasks: list[asyncio.Task[Any]] = [stop_wait]
        try:
            first: list[asyncio.Future[Any]] = [worker_task, started, stop_wait]
            await asyncio.wait(first, return_when=asyncio.FIRST_COMPLETED)
            if worker_task.done():
                worker_task.result()
            if not started.done():  # Ctrl-C while the model loads or the group is joined
                worker_task.cancel()
                return 130
            worker, port = started.result()
            self.say(f"worker: http://127.0.0.1:{port}/metrics  (/livez /readyz)")
            self.say(f"model: {worker.pipeline.model_info.name} {worker.pipeline.model_info.version}")
            self.say("")
            tasks += [asyncio.create_task(self._produce()), asyncio.create_task(self._print())]
            deadline = self.timeout_s if self.exit_after else None
            until: list[asyncio.Future[Any]] = [stop_wait, worker_task]
            await asyncio.wait(until, timeout=deadline, return_when=asyncio.FIRST_COMPLETED)
            if worker_task.done():
                worker_task.result()
            self._summary()
            complete = len(self.received) == len(self.notes)
            if self.exit_after and not complete:
                self.say(f"timed out: {len(self.received)}/{len(self.notes)} notes came out")
                return 1
            return 0
        finally:
            for t in tasks:
                t.cancel()
            for t in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await t
            if started.done() and not started.cancelled() and started.exception() is None:
                started.result()[0].stop()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(worker_task, 30)
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)

    async def _produce(self) -> None:
        k = self.settings.kafka
        producer = AIOKafkaProducer(bootstrap_servers=k.bootstrap_servers, acks="all")
        try:
            await producer.start()
            for note in self.notes:
                # Producers key by patient id: one patient's notes stay in order on one partition.
                fut = await producer.send(k.topic_raw_notes, encode(note), key=note.patient_id.encode())
                await fut
                await asyncio.sleep(self.delay_s)
        finally:
            await producer.stop()

    async def _print(self) -> None:
        k = self.settings.kafka
        consumer = AIOKafkaConsumer(k.topic_deid_notes, bootstrap_servers=k.bootstrap_servers, group_id=None,
                                    auto_offset_reset="earliest", enable_auto_commit=False)
        try:
            await consumer.start()
            while True:
                got = await consumer.getmany(timeout_ms=500)
                for recs in got.values():
                    for rec in recs:
                        if rec.value is None:
                            continue
                        note = DeidNote.model_validate_json(rec.value)
                        if note.event_id not in self.received:
                            self.received[note.event_id] = note
                            self._show(note)
                if self.exit_after and len(self.received) >= len(self.notes):
                    self.stop.set()
                    return
        finally:
            await consumer.stop()

    def _show(self, note: DeidNote) -> None:
        p = note.privacy
        self.say(f"── {note.event_id} · patient {note.patient_pseudonym[:10]}… · {note.note_type} · "
                 f"{len(note.spans)} surrogates · ε {p.epsilon_spent:.2f} "
                 f"(patient {p.patient_epsilon_total:.2f}/{p.patient_epsilon_cap:.0f}, "
                 f"{p.epsilon_basis})")
        self.say(note.text.rstrip())
        self.say()

    def _summary(self) -> None:
        if not self.received:
            return
        by_patient: dict[str, list[DeidNote]] = defaultdict(list)
        for n in self.received.values():
            by_patient[n.patient_pseudonym].append(n)
        pseudo, notes = max(by_patient.items(), key=lambda kv: len(kv[1]))
        counts: dict[tuple[str, str], int] = defaultdict(int)
        for n in notes:
            for sp in {(sp.label, n.text[sp.start:sp.end]) for sp in n.spans}:
                counts[sp] += 1
        self.say(f"Consistency: patient {pseudo[:10]}… in {len(notes)} notes; "
                 "surrogates seen in more than one:")
        for (label, text), c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
            if c > 1:
                self.say(f"  {label:<12} {text!r:<40} in {c}/{len(notes)} notes")
        self.say(f"{len(self.received)}/{len(self.notes)} notes de-identified.")


def run_demo(settings: Settings, *, notes: int, patients: int, exit_after: bool, delay_s: float,
             timeout_s: float, use_redis: bool = True, say: Callable[[str], None] | None = None) -> int:
    def echo(line: str) -> None:
        print(line, flush=True)

    say = say or echo
    logging.getLogger("deid.worker").setLevel(logging.WARNING)
    t0 = time.monotonic()
    with TansuBroker() as broker:
        settings.kafka.bootstrap_servers = broker.bootstrap_servers
        k = settings.kafka
        asyncio.run(create_topics(broker.bootstrap_servers, [k.topic_raw_notes], partitions=2))
        asyncio.run(create_topics(broker.bootstrap_servers, [k.topic_deid_notes, k.topic_dead_letter]))
        say(f"broker: Tansu (embedded, in memory) on {broker.bootstrap_servers}")
        with contextlib.ExitStack() as stack:
            redis = None
            if use_redis and settings.redis.url is None:
                try:
                    from worker.services.redis_server import RedisServer, find_binary

                    find_binary()
                except (ImportError, FileNotFoundError):
                    say("store: IN-MEMORY (no redis-server binary found): surrogates are lost on exit "
                        "and this store cannot be shared by several workers")
                else:
                    data = stack.enter_context(tempfile.TemporaryDirectory(prefix="deid-demo-redis-"))
                    redis = RedisServer(data_dir=data, appendonly=True)
                    stack.callback(redis.stop)
                    redis.start()
                    settings.redis.url = redis.url
                    say(f"store: redis-server on 127.0.0.1:{redis.port} (temporary, removed on exit)")
            elif settings.redis.url:
                say("store: Redis at the configured DEID_REDIS__URL")
            else:
                say("store: IN-MEMORY (asked with --memory): surrogates are lost on exit")
            say(f"startup {time.monotonic() - t0:.1f}s; joining the consumer group (a few seconds)…")
            demo = Demo(settings, notes, patients, exit_after, delay_s, timeout_s)
            return asyncio.run(demo.run())
