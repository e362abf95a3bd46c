"""End-to-end throughput and latency of the worker through a real (embedded Tansu) broker, beside
the detector alone measured in the same run on the same notes.

    .venv/bin/python bench/pipeline_throughput.py --notes 96            # default model + rules
    .venv/bin/python bench/pipeline_throughput.py --notes 200 --no-model  # rules only
    .venv/bin/python bench/pipeline_throughput.py --notes 400 --stub-detector --workers 2 --store redis

``--stub-detector`` puts a detector that returns spans computed before the run in place of the
real one (``bench/host_cost.py``'s ``StubDetector``: the rules merged with the notes' gold
mentions by default, ``rules`` or the real ``detector`` on request), so the figures are the host's
alone: decoding, batching, substitution, publishing, committing. ``--workers N`` runs N worker
processes (``deid worker``, configured by DEID_* variables as in production) in one consumer group
sharing the raw topic's ``--partitions``; without it the worker runs inside this process, as
before. Several processes need the shared store to stay consistent across a rebalance:
``--store redis`` starts a real redis-server on a free port (the in-memory default gives each
process its own memo, which is enough for throughput when no partition moves during the run).
Each worker process's CPU seconds over the run are read from /proc. The processes are spawned
before the parent loads its own detector (the loads overlap), load their models in parallel, and
join the group together once all have loaded, with short group timeouts (``WorkerProcesses``).

Each phase's seconds (detector load, workers' load, group join, warm-up, timed burst, stop,
model-only) are printed and written to the JSON (``phase_seconds``); ``--verbose`` logs each as it
starts and ends, with each worker's start and assignments. Stopped by ``timeout`` (SIGTERM), the
run stops its workers and broker and says, on its last two lines, which phase it was in.

Notes are synthetic French series (deid.lab.synth: several notes per invented patient). All notes are
produced at once (a burst), so latency is record timestamp -> output consumed under saturation,
queueing included. Broker, worker, producer and consumer share this machine's cores: on a small
box the pipeline competes with its own harness (say so when reporting).
Model-only runs the detection stage on the batches the worker would cut from a full backlog
(same event count and token budget), timed before and after the pipeline run (mean reported: load drifts);
with worker processes only after (before, they are loading their models beside it).
Tokens are the model tokenizer's pieces when a model is loaded, else characters / 3.5.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import pickle
import platform
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from host_cost import StubDetector, bench_settings, proc_cpu_s, stub_spans, synth_notes

from deid.events import DeidNote, RawNote, encode
from deid.pipeline import NotePipeline, build_detector, build_pipeline
from deid.settings import Settings
from deid.store.base import PatientStore
from deid.store.memory import InMemoryStore
from worker.batching import estimate_tokens, split_by_budget
from worker.env import worker_env
from worker.main import serve
from worker.services.broker import TansuBroker, create_topics
from worker.stream import StreamWorker


class Stopped(Exception):
    """SIGTERM (``timeout``'s signal) during the run: the phases so far are reported."""


class Phases:
    """Seconds of each phase of the run: in the output and the JSON (``phase_seconds``), logged as
    each starts and ends with ``--verbose`` (stderr). A run stopped by ``timeout`` (SIGTERM) or
    failing says which phase it was in, on its last two lines (what the GPU step keeps)."""

    def __init__(self, verbose: bool) -> None:
        self.verbose = verbose
        self.t0 = time.monotonic()
        self.seconds: dict[str, float] = {}
        self.current: list[str] = []
        self.failed_in: str | None = None  # the innermost phase an exception left

    def log(self, msg: str) -> None:
        if self.verbose:
            print(f"[{time.monotonic() - self.t0:7.2f} s] {msg}", file=sys.stderr, flush=True)

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        self.current.append(name)
        self.log(f"{name} ...")
        t = time.monotonic()
        try:
            yield
        except BaseException:
            self.failed_in = self.failed_in or self.where()
            raise
        finally:
            self.seconds[name] = round(self.seconds.get(name, 0.0) + time.monotonic() - t, 3)
            self.current.pop()
            self.log(f"{name}: {time.monotonic() - t:.2f} s")

    def where(self) -> str:
        return " > ".join(self.current) or "between phases"


PHASES = Phases(verbose=False)


def make_notes(n: int, per_patient: int, seed: int) -> list[RawNote]:
    return synth_notes(n, per_patient, seed)[0]


def gpu_name() -> str:
    try:
        import torch
    except ImportError:
        return "no GPU"
    return torch.cuda.get_device_name() if torch.cuda.is_available() else "no GPU"


def token_counter(detector: Any) -> Any:
    model = getattr(detector, "model", None)  # HybridDetector(rules, model)
    tok = getattr(model, "_tokenizer", None)
    if tok is None:
        return lambda text: estimate_tokens(text)
    return lambda text: len(tok(text, add_special_tokens=False)["input_ids"])


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


@dataclass
class _Rec:
    value: bytes


def worker_batches(notes: list[RawNote], settings: Settings) -> list[list[RawNote]]:
    """The batches the worker would cut from a full backlog (same count and token budget)."""
    recs = [_Rec(encode(n)) for n in notes]
    out, i = [], 0
    while i < len(notes):
        n = split_by_budget(recs[i:], settings.batch.max_events, settings.model.max_tokens_per_batch)
        out.append(notes[i:i + n])
        i += n
    return out


def model_only(pipeline: NotePipeline, batches: list[list[RawNote]]) -> float:
    t0 = time.perf_counter()
    for batch in batches:
        pipeline.detect(batch)
    return time.perf_counter() - t0


async def through_broker(settings: Settings, pipeline: NotePipeline, store: PatientStore,
                         notes: list[RawNote], warm_up: list[RawNote], servers: list[int]
                         ) -> tuple[float, list[float], int, dict[str, float], list[float], list[float]]:
    """The run through a worker in this process (the harness's own work counts in its CPU)."""
    started: asyncio.Future[tuple[StreamWorker, int]] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(serve(settings, store=store, pipeline=pipeline, install_signals=False,
                                     on_started=lambda w, p: started.set_result((w, p))))
    with PHASES.phase("workers_join"):
        worker, _ = await asyncio.wait_for(started, 120)
        while not worker.assigned:  # do not time the group join
            if task.done():
                task.result()
            await asyncio.sleep(0.1)
    if warm_up:
        with PHASES.phase("warm_up"):
            await drive(settings, warm_up)
    stats0 = stage_stats(worker.metrics.registry.collect())
    before, cpu0 = [proc_cpu_s(pid) for pid in servers], time.process_time()
    with PHASES.phase("timed_burst"):
        wall_s, latencies, done = await drive(settings, notes)
    cpu = [time.process_time() - cpu0]
    server_cpu = [proc_cpu_s(pid) - b for pid, b in zip(servers, before, strict=True)]
    stats = minus(stage_stats(worker.metrics.registry.collect()), stats0)
    with PHASES.phase("workers_stop"):
        worker.stop()
        await task
    return wall_s, latencies, done, stats, cpu, server_cpu


async def drive(settings: Settings, notes: list[RawNote]) -> tuple[float, list[float], int]:
    """Produce every note at once and read the outputs back: (seconds from the first send to the
    last output, latency per note, outputs seen)."""
    k = settings.kafka
    consumer = AIOKafkaConsumer(k.topic_deid_notes, bootstrap_servers=k.bootstrap_servers, group_id=None,
                                auto_offset_reset="latest", enable_auto_commit=False)
    await consumer.start()
    await consumer.getmany(timeout_ms=500)  # position at the end before producing
    producer = AIOKafkaProducer(bootstrap_servers=k.bootstrap_servers, acks="all", linger_ms=5)
    await producer.start()
    sent: dict[str, float] = {}
    t0 = time.time()
    futures = []
    for note in notes:
        sent[note.event_id] = time.time()
        futures.append(await producer.send(k.topic_raw_notes, encode(note), key=note.patient_id.encode()))
    await asyncio.gather(*futures)
    PHASES.log(f"{len(notes)} notes produced in {time.time() - t0:.2f} s")
    latencies: list[float] = []
    seen: set[str] = set()
    deadline = time.monotonic() + 1800
    t_last = t0
    while len(seen) < len(notes) and time.monotonic() < deadline:
        got = await consumer.getmany(timeout_ms=500)
        now = time.time()
        for recs in got.values():
            for rec in recs:
                ev = DeidNote.model_validate_json(rec.value or b"{}").event_id
                if ev in sent and ev not in seen:
                    seen.add(ev)
                    latencies.append(now - sent[ev])
                    t_last = now
                    if len(seen) in (1, len(notes)):
                        PHASES.log(f"output {len(seen)}/{len(notes)} after {now - t0:.2f} s")
    await producer.stop()
    await consumer.stop()
    return t_last - t0, latencies, len(seen)


def stage_stats(metrics: Any, into: dict[str, float] | None = None) -> dict[str, float]:
    """Batches, records and seconds per stage from a worker's metric families (summed into
    ``into`` across workers)."""
    stats = into if into is not None else {}
    for metric in metrics:
        for sample in metric.samples:
            key = {"deid_batch_size_count": "batches", "deid_batch_size_sum": "records"}.get(sample.name)
            if sample.name == "deid_stage_seconds_sum":
                key = f"{sample.labels['stage']}_s"
            if key is not None:
                stats[key] = round(stats.get(key, 0.0) + sample.value, 3)
    return stats


def minus(after: dict[str, float], before: dict[str, float]) -> dict[str, float]:
    """The timed burst's own counts: the warm-up's taken away."""
    return {k: round(v - before.get(k, 0.0), 3) for k, v in after.items()}


# ------------------------------------------------------------------------- worker processes


def serve_worker(spans_file: str) -> int:
    """The body of one worker process (``--serve-worker``): the real ``deid worker`` command, with
    the stub detector of ``spans_file`` in place of the real one when the file is not empty. With
    ``BENCH_JOIN_BARRIER`` (a folder) it joins the group only once the parent says so: the
    processes load their models in parallel, then join together (see ``WorkerProcesses``)."""
    if spans_file:
        with open(spans_file, "rb") as f:
            by_text, name = pickle.load(f)  # written by this script's parent run, just before

        import deid.pipeline

        stub = StubDetector(by_text, name=name)
        deid.pipeline.build_detector = lambda settings: stub
    barrier = os.environ.get("BENCH_JOIN_BARRIER")
    if barrier:
        start = StreamWorker.start

        async def start_together(self: StreamWorker) -> None:
            # models loaded, HTTP up: say so, then wait for every other process before joining
            (Path(barrier) / f"loaded-{os.getpid()}").touch()
            # SIGTERM at the barrier (the parent gave up) ends the wait: start, then run() closes
            while not (Path(barrier) / "go").exists() and not self._stopping.is_set():
                await asyncio.sleep(0.05)
            await start(self)

        StreamWorker.start = start_together  # type: ignore[method-assign]
    # the worker command itself, not through the "deid.commands" entry point: a GPU node that runs
    # this tree uninstalled (PYTHONPATH) has no entry points, and ``deid worker`` is unknown there
    import argparse

    from worker.cli import worker as worker_command

    parser = argparse.ArgumentParser(prog="deid")
    worker_command.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["worker"])
    return int(args.handler(args) or 0)


def scrape(ports: list[str]) -> dict[str, float]:
    """Batches, records and stage seconds summed over the workers' /metrics."""
    from prometheus_client.parser import text_string_to_metric_families

    stats: dict[str, float] = {}
    for port in ports:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
            stage_stats(text_string_to_metric_families(r.read().decode()), stats)
    return stats


def _assigned(log: str) -> int | None:
    """The partitions a worker holds now, by its log's last "assigned N partitions" line."""
    found = re.findall(r"assigned (\d+) partitions", log)
    return int(found[-1]) if found else None


def worker_timeline(log: str, spawned: float) -> str:
    """A worker's log lines (their text up to the first colon: no payload is logged anyway) in
    seconds after the processes were spawned (the log's local clock, ms): load, join, batches, stop."""
    out = []
    for line in log.splitlines():
        m = re.match(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3}) \S+ \S+ (.*)", line)
        if m:
            at = datetime.strptime(m[1], "%Y-%m-%d %H:%M:%S").timestamp() + int(m[2]) / 1000 - spawned
            out.append(f"{at:.2f} s {m[3].split(':')[0]}")
    return "; ".join(out) or "nothing logged"


class WorkerProcesses:
    """``n`` ``deid worker`` processes in one consumer group, spawned early (their model loads
    overlap the parent's own work) and stopped on exit, whatever happened.

    The join is what cost the time: Tansu answers a JoinGroup only after half the member's session
    timeout (15 s with the default 30 s), and a member that joins after the group formed makes
    everybody rejoin. Processes that finish loading their models at different times (8 processes
    loading on one GPU node) therefore either wait the full window or cause a rebalance each. So
    the processes wait at a barrier once loaded and join together, with the short group timeouts of
    ``bench_group_timeouts`` (one window of 3 s)."""

    def __init__(self, settings: Settings, n: int, spans_file: str, log_dir: Path) -> None:
        self.barrier = log_dir / "barrier"
        self.barrier.mkdir()
        # INFO: the "assigned N partitions" lines below are read from the workers' logs
        env = {**os.environ, **worker_env(settings), "DEID_LOG_LEVEL": "INFO",
               "BENCH_JOIN_BARRIER": str(self.barrier)}
        # Each process its share of the cores, as a pod per worker would have (unless set): torch's
        # default of every core in each of 8 processes oversubscribes the node 8 times.
        self.threads = int(os.environ.get("DEID_MODEL__THREADS") or max(1, (os.cpu_count() or 1) // n))
        env["DEID_MODEL__THREADS"] = str(self.threads)
        self.logs = [log_dir / f"worker-{i}.log" for i in range(n)]
        self.procs: list[subprocess.Popen[bytes]] = []
        self.spawned = time.time()
        for path in self.logs:
            with path.open("wb") as out:
                self.procs.append(subprocess.Popen(
                    [sys.executable, str(Path(__file__).resolve()), "--serve-worker", spans_file],
                    env=env, stdout=out, stderr=subprocess.STDOUT))

    def _wait(self, what: str, done: Any, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while not done():
            dead = [i for i, p in enumerate(self.procs) if p.poll() is not None]
            if dead or time.monotonic() > deadline:
                why = f"worker(s) {dead} exited" if dead else f"not within {timeout_s:.0f} s"
                tail = "\n".join(p.read_text(errors="replace")[-1500:] for p in self.logs)
                raise RuntimeError(f"the worker processes: {what}: {why}\n{tail}")
            time.sleep(0.05)

    def join(self, partitions: int, timeout_s: float = 300) -> None:
        """Wait for every process to load its models, let them join, wait until every process
        holds partitions and together they hold them all: the raw notes' and the raw HL7 topic's
        one (a worker subscribes to both; the round-robin assignor deals them in topic order, so
        with partitions >= workers each gets raw-notes partitions)."""
        with PHASES.phase("workers_load"):
            self._wait("models loaded", lambda: len(list(self.barrier.glob("loaded-*"))) == len(self.procs),
                       timeout_s)
        (self.barrier / "go").touch()
        with PHASES.phase("workers_join"):
            def shared() -> bool:
                held = [_assigned(p.read_text(errors="replace")) for p in self.logs]
                return all(h for h in held) and sum(h or 0 for h in held) == partitions + 1
            self._wait("partitions shared", shared, timeout_s)
        for i, path in enumerate(self.logs):
            PHASES.log(f"worker {i}: " + worker_timeline(path.read_text(errors="replace"), self.spawned))

    def stop(self) -> None:
        with PHASES.phase("workers_stop"):
            for p in self.procs:
                if p.poll() is None:
                    p.send_signal(signal.SIGTERM)
            for i, p in enumerate(self.procs):
                try:
                    p.wait(30)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
                PHASES.log(f"worker {i} exited ({p.returncode})")
            for i, path in enumerate(self.logs):
                PHASES.log(f"worker {i}: " + worker_timeline(path.read_text(errors="replace"), self.spawned))


def through_workers(settings: Settings, workers: WorkerProcesses, notes: list[RawNote],
                    warm_up: list[RawNote], partitions: int, servers: list[int]
                    ) -> tuple[float, list[float], int, dict[str, float], list[float], list[float]]:
    """The run through the worker processes: they share the partitions and de-identify the
    warm-up notes first (not timed), then every note is produced at once. Also each process's CPU
    seconds over the timed part."""
    workers.join(partitions)
    if warm_up:
        with PHASES.phase("warm_up"):
            asyncio.run(drive(settings, warm_up))
    logs, procs = workers.logs, workers.procs
    ports = [m[1] for p in logs if (m := re.search(r"http on port (\d+)", p.read_text(errors="replace")))]
    stats0 = scrape(ports)
    before, cpu0 = [proc_cpu_s(pid) for pid in servers], [proc_cpu_s(p.pid) for p in procs]
    with PHASES.phase("timed_burst"):
        wall_s, latencies, done = asyncio.run(drive(settings, notes))
    cpu = [proc_cpu_s(p.pid) - c for p, c in zip(procs, cpu0, strict=True)]
    server_cpu = [proc_cpu_s(pid) - b for pid, b in zip(servers, before, strict=True)]
    stats = minus(scrape(ports), stats0)
    return wall_s, latencies, done, stats, cpu, server_cpu


def bench_group_timeouts(settings: Settings) -> None:
    """The worker tests' group timeouts (tests/worker/worker_testkit.py): Tansu holds a JoinGroup
    for half the session timeout, 15 s with the production default of 30 s, 3 s with these.
    Detection runs off the event loop, so heartbeats every 0.5 s keep a busy worker in the group."""
    k = settings.kafka
    k.session_timeout_ms, k.heartbeat_interval_ms, k.rebalance_timeout_ms = 6000, 500, 6000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--notes", type=int, default=96)
    ap.add_argument("--per-patient", type=int, default=4)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--no-model", action="store_true", help="rules only")
    ap.add_argument("--stub-detector", nargs="?", const="gold", choices=("gold", "rules", "detector"),
                    help="a detector that returns spans computed before the run: the rules merged with "
                    "the gold (default), the rules alone, or the real detector's")
    ap.add_argument("--workers", type=int, default=None,
                    help="N worker processes in one consumer group (default: one, inside this process)")
    ap.add_argument("--store", choices=("memory", "redis"), default="memory",
                    help="the patient store: in memory, or a real redis-server started on a free port")
    ap.add_argument("--warm-up", type=int, default=16,
                    help="notes de-identified before the timed burst (other patients, same texts): surrogate "
                    "tables load and the group settles first, as in a long-running worker")
    ap.add_argument("--max-events", type=int, default=None, help="batch.max_events (default: settings)")
    ap.add_argument("--partitions", type=int, default=2)
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("--verbose", action="store_true",
                    help="log each phase as it starts and ends, each worker's start and assignments (stderr)")
    ap.add_argument("--serve-worker", metavar="SPANS_FILE", help=argparse.SUPPRESS)  # a child process
    args = ap.parse_args()
    if args.serve_worker is not None:
        return serve_worker(args.serve_worker)
    if args.workers is not None and args.workers > args.partitions:
        ap.error("--workers beyond --partitions would leave a worker idle")
    PHASES.verbose = args.verbose

    def on_term(signum: int, frame: Any) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # once: the cleanup below must not be cut short
        raise Stopped(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_term)  # the finally blocks stop the workers and the broker
    try:
        return run(args)
    except (Stopped, Exception) as exc:
        if not isinstance(exc, Stopped):
            traceback.print_exc()
        # Two lines, last: what the GPU step's ``tail`` keeps.
        print(f"phase seconds so far: {json.dumps(PHASES.seconds)}", flush=True)
        why = str(exc).splitlines()[0] if str(exc) else ""
        print(f"pipeline_throughput: {type(exc).__name__} ({why}) after {time.monotonic() - PHASES.t0:.1f}s,"
              f" in phase: {PHASES.failed_in or PHASES.where()}", flush=True)
        return 124 if isinstance(exc, Stopped) else 1


def run(args: argparse.Namespace) -> int:

    settings = bench_settings()  # the worker requires a secret; a benchmark run needs no stable one
    settings.model.enabled = not args.no_model and args.stub_detector in (None, "detector")
    settings.http.host, settings.http.port = "127.0.0.1", 0
    if args.max_events:
        settings.batch.max_events = args.max_events
    bench_group_timeouts(settings)
    with PHASES.phase("notes"):
        notes, gold = synth_notes(args.notes, args.per_patient, args.seed)
    by_text: dict[str, list[Any]] = {}
    detector: Any = None
    load_s = 0.0
    if args.stub_detector:  # before the worker processes: they read its spans
        t = time.perf_counter()
        with PHASES.phase("detector_load"):
            by_text, _, stands_for = stub_spans(notes, gold, args.stub_detector, settings)
            detector = StubDetector(by_text, name=f"stub({stands_for})")
        load_s = time.perf_counter() - t
    store: PatientStore = InMemoryStore()
    model_before = 0.0

    worker_cpu: list[float] = []
    broker_cpu = redis_cpu = 0.0
    redis = None
    if args.store == "redis":
        from worker.services.redis_server import RedisServer

        redis = RedisServer().start()
        settings.redis.url = redis.url
    try:
        with contextlib.ExitStack() as stack:
            with PHASES.phase("broker_start"):
                broker = stack.enter_context(TansuBroker())
                tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="deid-bench-"))
                settings.kafka.bootstrap_servers = broker.bootstrap_servers
                k = settings.kafka
                asyncio.run(create_topics(broker.bootstrap_servers, [k.topic_raw_notes], args.partitions))
                asyncio.run(create_topics(broker.bootstrap_servers, [k.topic_deid_notes, k.topic_dead_letter,
                                                                     k.topic_raw_hl7]))
            assert broker.process is not None
            servers = [broker.process.pid, *([redis.pid] if redis else [])]
            workers = None
            if args.workers is not None:
                # Spawned now: their imports and model loads overlap the parent's own load below.
                spans_file = ""
                if args.stub_detector:
                    spans_file = str(Path(tmp) / "spans.pickle")
                    with open(spans_file, "wb") as f:
                        pickle.dump((by_text, detector.model_name), f)
                workers = WorkerProcesses(settings, args.workers, spans_file, Path(tmp))
                stack.callback(workers.stop)
            if detector is None:
                t = time.perf_counter()
                with PHASES.phase("detector_load"):
                    detector = build_detector(settings)
                load_s = time.perf_counter() - t
            pipeline = build_pipeline(settings, store, detector=detector)
            count = token_counter(detector)
            tokens = sum(count(n.text) for n in notes)
            with PHASES.phase("detector_warm_up"):
                pipeline.detect(notes[: min(4, len(notes))])
            batches = worker_batches(notes, settings)
            warm_up = [n.model_copy(update={"event_id": f"warm-{i}", "patient_id": f"WARM-{i}"})
                       for i, n in enumerate(notes[: args.warm_up])]
            # The stub costs nothing: a model-only figure would say nothing. With worker processes
            # the model-only run waits until they are gone (they load their models meanwhile).
            if not args.stub_detector and workers is None:
                with PHASES.phase("model_only_before"):
                    model_before = model_only(pipeline, batches)
            if workers is None:
                if redis is not None:
                    from deid.store.factory import open_store

                    store = open_store(settings)
                    pipeline = build_pipeline(settings, store, detector=detector)
                wall_s, lat, done, stats, worker_cpu, server_cpu = asyncio.run(
                    through_broker(settings, pipeline, store, notes, warm_up, servers))
            else:
                wall_s, lat, done, stats, worker_cpu, server_cpu = through_workers(
                    settings, workers, notes, warm_up, args.partitions, servers)
            broker_cpu = server_cpu[0]
            redis_cpu = server_cpu[1] if redis else 0.0
    finally:
        if redis is not None:
            redis.stop()
    # Model-only again after the pipeline run: on a shared machine the load drifts, and the mean of
    # the two brackets the pipeline run more fairly than either alone.
    with PHASES.phase("model_only_after"):
        model_after = model_only(pipeline, batches) if not args.stub_detector else 0.0
    model_s = (model_before + model_after) / 2 if model_before else model_after

    res: dict[str, Any] = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "command": " ".join([".venv/bin/python", *sys.argv]),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPU cores, {gpu_name()}",
        "detector": f"{pipeline.model_info.name} {pipeline.model_info.version}",
        "notes": len(notes), "delivered": done, "tokens": tokens,
        "mean_tokens_per_note": round(tokens / len(notes), 1),
        "batch_max_events": settings.batch.max_events, "partitions": args.partitions,
        "worker_processes": args.workers or "1 (in this process)", "store": args.store,
        "worker_model_threads": workers.threads if workers else settings.model.threads,
        "model_only_batches": len(batches),
        "model_load_s": round(load_s, 2),
        "model_only": None if args.stub_detector else {
            "seconds": round(model_s, 3),
            "seconds_before_after": [round(model_before, 3) if model_before else None, round(model_after, 3)],
            "notes_per_s": round(len(notes) / model_s, 2), "tokens_per_s": round(tokens / model_s, 1)},
        "pipeline": {"seconds": round(wall_s, 3), "notes_per_s": round(done / wall_s, 2),
                     "tokens_per_s": round(tokens * done / len(notes) / wall_s, 1),
                     "latency_p50_s": round(statistics.median(lat), 3) if lat else None,
                     "latency_p99_s": round(pct(lat, 0.99), 3) if lat else None,
                     "batches": int(stats.get("batches", 0)),
                     "mean_batch_size": round(stats.get("records", 0) / max(1, stats.get("batches", 1)), 1),
                     "stage_seconds": {k: v for k, v in stats.items() if k.endswith("_s")}},
        "phase_seconds": PHASES.seconds,
        "total_s": round(time.monotonic() - PHASES.t0, 2),
        "worker_cpu_s_each": [round(c, 3) for c in worker_cpu],
        "cpu_s_per_note": {"workers": round(sum(worker_cpu) / max(done, 1), 6),
                           "broker": round(broker_cpu / max(done, 1), 6),
                           "redis": round(redis_cpu / max(done, 1), 6) if redis else None},
    }
    if not args.stub_detector:
        res["ratio_pipeline_over_model_only"] = round((done / wall_s) / (len(notes) / model_s), 3)
    print(json.dumps(res, indent=2, ensure_ascii=False))
    if not args.stub_detector:
        print(f"\npipeline / model-only throughput ratio: {res['ratio_pipeline_over_model_only']}")
    print("phases (s): " + ", ".join(f"{k} {v:.1f}" for k, v in PHASES.seconds.items())
          + f"; total {res['total_s']:.1f}")
    print(f"pipeline: {res['pipeline']['notes_per_s']} notes/s with {res['worker_processes']} worker "
          f"process(es); workers' CPU {res['cpu_s_per_note']['workers']} s/note (all processes together)")
    if args.json:
        args.json.write_text(json.dumps(res, indent=2, ensure_ascii=False) + "\n")
    return 0 if done == len(notes) else 1


if __name__ == "__main__":
    sys.exit(main())
