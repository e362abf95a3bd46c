"""The host's cost per note with the model's cost removed (issue 32): what a GPU node's CPUs still
pay per note, stage by stage, in one worker process.

    .venv/bin/python bench/host_cost.py --notes 30 --repeat 1            # a quick check
    .venv/bin/python bench/host_cost.py --notes 1000 --repeat 3          # the full measurement
    .venv/bin/python bench/host_cost.py --corpus corpora/realistic/notes.jsonl --repeat 3

The detector is a stub (``StubDetector``) that returns spans computed before the clock starts:
by default what the hybrid detector would output if the model found exactly the gold mentions
(the rules merged with the gold, ``--spans gold``), or the real default detector's output
(``--spans detector``: the model runs once, up front, on this machine's CPU). Everything else is
the worker's real code, stage by stage, over the notes in the batches the worker cuts
(``batch.max_events`` and the token budget):

- decode: the record bytes to a ``RawNote`` (``worker.decode.decode_record``);
- ner-tokenize / ner-host-rest: the NER stage's host work with the shipped model's tokenizer
  (``deid.ner.infer.token_predictions`` and ``decode_predictions``, a fresh word cache): word
  splitting and subword tokenization (CPU of every thread), then window planning, packing into
  batches, reading back and decoding (their wall time in this thread, from ``Timings``: single-
  threaded, so CPU on a quiet machine), around an encoder that costs nothing (it answers "O"
  everywhere, so decoding is its cheapest case; the GPU's own copies are not counted);
- rules and merge: the rule recognizers and their merge with the model's spans (``combine``);
- substitute: ``deid.substitution.build_substituter`` under the default profile, with an
  in-memory store and, when ``redis-server`` is installed, a real one started on a free port
  (its own CPU reported apart); the output text is rendered there;
- encode: the output event as the worker publishes it (``model_copy`` without timings, orjson);
- publish: ``AIOKafkaProducer.send`` of every output to the embedded Tansu broker with the
  worker's producer settings, one gather per batch (the broker's CPU reported apart);
- consume+commit: the raw records fetched in the worker's consumer group, one commit per batch.

CPU seconds are ``time.process_time()`` (every thread of this process); a server's are read from
/proc. "notes/s per core" is 1 / CPU s per note. Each stage runs ``--repeat`` times (fresh stores
and caches each time) and the median is reported. The machine's other load shows in wall time,
less in CPU time: say what else ran when reporting.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import shlex
import shutil
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from deid.events import DeidNote, ModelInfo, RawNote, encode
from deid.settings import Settings
from deid.spans import Span

# ---------------------------------------------------------------------------------------- stub


class StubDetector:
    """A ``Detector`` that returns spans computed before the run, looked up by the note's text:
    the model's cost is zero while everything around it (batching, substitution, publishing) does
    its real work."""

    def __init__(self, spans_by_text: Mapping[str, Sequence[Span]], name: str = "stub",
                 version: str = "0") -> None:
        self._spans = {t: list(s) for t, s in spans_by_text.items()}
        self._name = name
        self._version = version

    @property
    def model_name(self) -> str:
        return self._name

    @property
    def model_version(self) -> str:
        return self._version

    def detect(self, texts: Sequence[str], languages: Sequence[str]) -> list[list[Span]]:
        return [list(self._spans[t]) for t in texts]


@dataclass
class Workload:
    """The notes, their gold mentions (empty when the corpus has none) and the settings of a run."""

    notes: list[RawNote]
    gold: list[list[Span]]
    settings: Settings
    source: str


def bench_settings() -> Settings:
    """The default settings with a throwaway secret (the substituter needs one; a benchmark run
    needs no stable one)."""
    settings = Settings()
    if settings.hmac_secret is None:
        import secrets

        from pydantic import SecretStr

        settings.hmac_secret = SecretStr(secrets.token_urlsafe(32))
    return settings


def synth_notes(n: int, per_patient: int, seed: int) -> tuple[list[RawNote], list[list[Span]]]:
    """Synthetic French series (several notes per invented patient) with their exact gold spans;
    the same notes and event ids as ``bench/pipeline_throughput.py``."""
    from deid.lab.synth import generate_patient_series

    series = generate_patient_series((n + per_patient - 1) // per_patient, per_patient, seed=seed)
    notes: list[RawNote] = []
    gold: list[list[Span]] = []
    for p, docs in enumerate(series):
        for k, doc in enumerate(docs):
            notes.append(RawNote(event_id=f"bench-{p}-{k}", patient_id=f"BENCH-{seed}-{p}",
                                 document_id=doc.doc_id, note_type="synth", language="fr", text=doc.text))
            gold.append(list(doc.spans))
    return notes[:n], gold[:n]


def corpus_notes(path: Path, n: int | None) -> tuple[list[RawNote], list[list[Span]]]:
    """A corpus's notes (each its own patient) with its gold mentions as they are."""
    from deid.lab.corpora import read_corpus

    docs = read_corpus(path, convention=False)[:n]
    notes = [RawNote(event_id=f"bench-{i}", patient_id=f"BENCH-{d.doc_id}", document_id=d.doc_id,
                     note_type="corpus", language=d.language, text=d.text)  # type: ignore[arg-type]
             for i, d in enumerate(docs)]
    return notes, [list(d.spans) for d in docs]


def stub_spans(notes: Sequence[RawNote], gold: Sequence[Sequence[Span]], mode: str, settings: Settings
               ) -> tuple[dict[str, list[Span]], list[list[Span]], str]:
    """What the stub returns per text, the model's part of it (what the merge takes beside the
    rules) and the detector it stands for. ``gold``: the rules merged with the gold mentions as if
    the model had found exactly them; ``rules``: the rules alone; ``detector``: the real default
    detector (rules and model, run here once, merged as ``HybridDetector`` does)."""
    from deid.detection import combine
    from deid.rules import RuleDetector

    texts, langs = [n.text for n in notes], [n.language for n in notes]
    rules = RuleDetector().detect(texts, langs)
    name = "rules+gold"
    if mode == "detector":
        from deid.pipeline import build_detector

        det = build_detector(settings)
        model = getattr(det, "model", None)  # HybridDetector(rules, model)
        if model is None:
            raise SystemExit("--spans detector needs the model (it did not load)")
        model_spans: list[list[Span]] = []
        for i in range(0, len(texts), 16):
            model_spans.extend(model.detect(texts[i:i + 16], langs[i:i + 16]))
        name = f"{det.model_name} {det.model_version}"
    elif mode == "rules":
        model_spans, name = [[] for _ in texts], "rules"
    else:
        model_spans = [list(g) for g in gold]
    merged = [combine(r, m, t, la) for r, m, t, la in zip(rules, model_spans, texts, langs, strict=True)]
    return dict(zip(texts, merged, strict=True)), model_spans, name


# ---------------------------------------------------------------------------------- measuring


def proc_cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (every thread), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Sample:
    cpu_s: float
    wall_s: float
    server_cpu_s: float = 0.0


@dataclass
class Stage:
    name: str
    what: str
    samples: list[Sample] = field(default_factory=list)
    server: str = ""

    def median(self, attr: str) -> float:
        return statistics.median(getattr(s, attr) for s in self.samples)


class Clock:
    """CPU of this process (every thread) and wall time, plus another process's CPU when given."""

    def __init__(self, server_pid: int | None = None) -> None:
        self.server_pid = server_pid

    def __enter__(self) -> Clock:
        self._server0 = proc_cpu_s(self.server_pid) if self.server_pid else 0.0
        self._cpu0, self._wall0 = time.process_time(), time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.sample = Sample(time.process_time() - self._cpu0, time.perf_counter() - self._wall0,
                             (proc_cpu_s(self.server_pid) - self._server0) if self.server_pid else 0.0)


def worker_batches(notes: Sequence[RawNote], settings: Settings) -> list[list[int]]:
    """Note indices in the batches the worker would cut from a full backlog (its event count and
    token budget, ``worker.batching.split_by_budget``)."""
    from worker.batching import split_by_budget

    @dataclass
    class _Rec:
        value: bytes

    recs = [_Rec(n.text.encode()) for n in notes]
    out, i = [], 0
    while i < len(notes):
        n = split_by_budget(recs[i:], settings.batch.max_events, settings.model.max_tokens_per_batch)
        out.append(list(range(i, i + n)))
        i += n
    return out


# ------------------------------------------------------------------------------------- stages


def stage_decode(payloads: list[bytes], batches: list[list[int]], settings: Settings) -> Sample:
    from worker.decode import decode_record

    topic = settings.kafka.topic_raw_notes
    with Clock() as c:
        for b in batches:
            for i in b:
                decode_record(payloads[i], topic=topic, partition=0, offset=i, timestamp_ms=None,
                              settings=settings)
    return c.sample


class NerHost:
    """The NER stage's host work with the shipped model's tokenizer and a free encoder."""

    def __init__(self, settings: Settings) -> None:
        import numpy as np

        from deid.ner import DEFAULT_MODEL_DIR
        from deid.ner.infer import InferenceConfig
        from deid.ner.model import load_token_classifier

        model, self.tokenizer = load_token_classifier(settings.model.path or DEFAULT_MODEL_DIR)
        self.id2label = {int(k): v for k, v in model.config.id2label.items()}
        self.o_id = next((i for i, t in self.id2label.items() if t == "O"), 0)
        n_tags = len(self.id2label)
        m = settings.model
        self.config = InferenceConfig(max_len=m.window_tokens, overlap=m.window_stride,
                                      token_budget=m.max_tokens_per_batch)

        def free_encoder(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
            probs = np.zeros((*ids.shape, n_tags), np.float32)
            probs[..., self.o_id] = 1.0
            return probs

        self.forward = free_encoder

    def tokenize(self, texts: list[str], batches: list[list[int]]) -> Sample:
        from deid.ner.encode import WordCache, encode_texts

        cache = WordCache(self.tokenizer)
        with Clock() as c:
            for b in batches:
                encode_texts(self.tokenizer, [texts[i] for i in b], cache)
        return c.sample

    def rest(self, texts: list[str], batches: list[list[int]]) -> tuple[Sample, float]:
        """The host side of ``NerDetector.detect`` after tokenization: windows, packing, reading
        back (``Timings.windows``, the free encoder left out) and decoding. Timed by the clock,
        in this thread (single-threaded Python and numpy: wall = CPU on a quiet machine); also
        the free encoder's own time, left out."""
        from deid.ner.encode import WordCache
        from deid.ner.infer import Timings, decode_predictions, token_predictions

        cache, timings = WordCache(self.tokenizer), Timings()
        decode_s = 0.0
        for b in batches:
            tx = [texts[i] for i in b]
            enc, preds = token_predictions(self.forward, self.tokenizer, tx, self.config, self.o_id,
                                           timings, cache)
            t0 = time.perf_counter()
            decode_predictions(tx, enc, preds, self.id2label, self.config)
            decode_s += time.perf_counter() - t0
        rest = timings.windows + decode_s
        return Sample(rest, rest), timings.encoder


def stage_rules(notes: list[RawNote], batches: list[list[int]]) -> tuple[Sample, list[list[Span]]]:
    from deid.rules import RuleDetector

    rules = RuleDetector()
    out: list[list[Span]] = [[] for _ in notes]
    with Clock() as c:
        for b in batches:
            for i, spans in zip(b, rules.detect([notes[i].text for i in b], [notes[i].language for i in b]),
                                strict=True):
                out[i] = spans
    return c.sample, out


def stage_merge(notes: list[RawNote], rule_spans: list[list[Span]], model_spans: list[list[Span]],
                batches: list[list[int]]) -> Sample:
    from deid.detection import combine

    with Clock() as c:
        for b in batches:
            for i in b:
                combine(rule_spans[i], model_spans[i], notes[i].text, notes[i].language)
    return c.sample


async def substitute_all(settings: Settings, store: Any, notes: list[RawNote], spans: list[list[Span]],
                         batches: list[list[int]], model: ModelInfo, server_pid: int | None
                         ) -> tuple[Sample, list[DeidNote]]:
    from deid.substitution import build_substituter

    sub = build_substituter(settings, store, random.Random(0))
    outs: list[DeidNote] = []
    with Clock(server_pid) as c:
        for b in batches:
            outs.extend(await sub.substitute([notes[i] for i in b], [spans[i] for i in b], model))
    await store.close()
    return c.sample, outs


def stage_encode(outs: list[DeidNote], batches: list[list[int]]) -> tuple[Sample, list[bytes]]:
    import orjson

    values: list[bytes] = []
    with Clock() as c:
        for b in batches:
            orjson.dumps({"detect": 1.0, "substitute": 1.0})  # the batch's timings header
            values.extend(encode(outs[i].model_copy(update={"timings_ms": {}})) for i in b)
    return c.sample, values


async def stage_publish(settings: Settings, broker_pid: int, topic: str, outs: list[DeidNote],
                        values: list[bytes], batches: list[list[int]]) -> Sample:
    from aiokafka import AIOKafkaProducer

    from worker.kafka_config import producer_kwargs

    producer = AIOKafkaProducer(**producer_kwargs(settings.kafka))
    await producer.start()
    try:
        await (await producer.send(topic, b"warm-up"))
        header = [("deid-timings-ms", b'{"detect":1.0}')]
        with Clock(broker_pid) as c:
            for b in batches:
                futures = [await producer.send(topic, values[i], key=outs[i].patient_pseudonym.encode(),
                                               headers=header) for i in b]
                await asyncio.gather(*futures)
    finally:
        await producer.stop()
    return c.sample


async def stage_consume(settings: Settings, broker_pid: int, topic: str, notes: list[RawNote],
                        payloads: list[bytes], batches: list[list[int]], group: str) -> Sample:
    """The raw records produced first (not timed), then fetched by a member of a fresh consumer
    group with the worker's settings, committed batch by batch."""
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
    from aiokafka.structs import OffsetAndMetadata

    from worker.kafka_config import consumer_kwargs, producer_kwargs

    producer = AIOKafkaProducer(**producer_kwargs(settings.kafka))
    await producer.start()
    try:
        futures = [await producer.send(topic, p, key=n.patient_id.encode()) for n, p in zip(notes, payloads,
                                                                                            strict=True)]
        await asyncio.gather(*futures)
    finally:
        await producer.stop()
    k = settings.kafka.model_copy(update={"consumer_group": group, "auto_offset_reset": "earliest"})
    consumer = AIOKafkaConsumer(topic, **consumer_kwargs(k, settings.batch.max_events))
    await consumer.start()
    try:
        while not consumer.assignment():  # the group join is not timed
            await asyncio.sleep(0.05)
        got = 0
        with Clock(broker_pid) as c:
            deadline = time.monotonic() + 300
            while got < len(notes) and time.monotonic() < deadline:
                fetched = await consumer.getmany(timeout_ms=500, max_records=settings.batch.max_events)
                offsets: dict[TopicPartition, OffsetAndMetadata] = {}
                for tp, recs in fetched.items():
                    got += len(recs)
                    offsets[tp] = OffsetAndMetadata(recs[-1].offset + 1, "")
                if offsets:
                    await consumer.commit(offsets)
    finally:
        await consumer.stop()
    if got < len(notes):
        raise RuntimeError(f"consumed {got} of {len(notes)} records")
    return c.sample


# --------------------------------------------------------------------------------------- report


def cpu_description() -> dict[str, str]:
    """The CPU's model name and flags (/proc/cpuinfo), with the SIMD ones that matter here apart."""
    info: dict[str, str] = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            info.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    flags = info.get("flags", "")
    wanted = ("avx2", "avx512f", "avx512_vnni", "avx512_bf16", "avx_vnni", "amx_bf16", "amx_int8", "sha_ni")
    return {"model": info.get("model name", platform.processor() or platform.machine()),
            "cores": str(os.cpu_count()), "simd_flags": " ".join(f for f in flags.split() if f in wanted),
            "flags": flags}


def table(stages: list[Stage], n_notes: int) -> list[str]:
    lines = ["| stage | what | CPU s/note | notes/s per core | wall s/note | notes/s (wall) "
             "| server CPU s/note |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for st in stages:
        cpu, wall = st.median("cpu_s") / n_notes, st.median("wall_s") / n_notes
        server = f"{st.median('server_cpu_s') / n_notes:.6f} ({st.server})" if st.server else ""
        lines.append(f"| {st.name} | {st.what} | {cpu:.6f} | {1 / cpu if cpu else float('inf'):.1f} | "
                     f"{wall:.6f} | {1 / wall if wall else float('inf'):.1f} | {server} |")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--notes", type=int, default=200, help="synthetic notes (or the first N of --corpus)")
    ap.add_argument("--per-patient", type=int, default=4)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--corpus", type=Path, help="a corpus's notes instead of synthetic French ones")
    ap.add_argument("--spans", choices=("gold", "rules", "detector"), default="gold",
                    help="what the stub detector returns (see above)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-redis", action="store_true", help="skip the real redis-server store")
    ap.add_argument("--no-broker", action="store_true", help="skip publishing and consuming")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args()

    settings = bench_settings()
    settings.model.enabled = args.spans == "detector"
    notes, gold = (corpus_notes(args.corpus, args.notes) if args.corpus
                   else synth_notes(args.notes, args.per_patient, args.seed))
    source = str(args.corpus) if args.corpus else f"synthetic French series ({args.per_patient} per patient)"
    texts = [n.text for n in notes]
    batches = worker_batches(notes, settings)
    t0 = time.perf_counter()
    by_text, model_spans, stands_for = stub_spans(notes, gold, args.spans, settings)
    prepare_s = time.perf_counter() - t0
    final = [by_text[t] for t in texts]
    info = ModelInfo(name=f"stub({stands_for})", version="0")
    payloads = [encode(n) for n in notes]
    ner = NerHost(settings)

    stages = {name: Stage(name, what) for name, what in (
        ("decode", "record bytes -> RawNote"),
        ("ner-tokenize", "words + subwords (fresh word cache)"),
        ("ner-host-rest", "windows, packing, read-back, decode (wall; free encoder)"),
        ("rules", "every recognizer + their resolution"),
        ("merge", "combine(rules, model spans)"),
        ("substitute-memory", "plan, draw, commit, render (in-memory store)"),
        ("substitute-redis", "the same on a real redis-server"),
        ("encode", "output event -> orjson bytes"),
        ("publish", "producer.send + ack, per batch"),
        ("consume+commit", "fetch raw records + commit per batch"),
    )}
    # warm-up: imports, lazy tables, compiled patterns (not timed)
    few = batches[:1]
    stage_decode(payloads, few, settings)
    ner.tokenize(texts, few)
    ner.rest(texts, few)
    stage_rules(notes, few)
    asyncio.run(substitute_all(settings, _memory_store(), notes, final, few, info, None))

    redis_bin = None if args.no_redis else shutil.which("redis-server") or (
        "/usr/bin/redis-server" if Path("/usr/bin/redis-server").exists() else None)
    free_encoder_s: list[float] = []
    for rep in range(args.repeat):
        stages["decode"].samples.append(stage_decode(payloads, batches, settings))
        stages["ner-tokenize"].samples.append(ner.tokenize(texts, batches))
        rest, enc_s = ner.rest(texts, batches)
        stages["ner-host-rest"].samples.append(rest)
        free_encoder_s.append(enc_s)
        sample, rule_spans = stage_rules(notes, batches)
        stages["rules"].samples.append(sample)
        stages["merge"].samples.append(stage_merge(notes, rule_spans, model_spans, batches))
        sample, outs = asyncio.run(substitute_all(settings, _memory_store(), notes, final, batches, info,
                                                  None))
        stages["substitute-memory"].samples.append(sample)
        if redis_bin:
            stages["substitute-redis"].samples.append(_with_redis(settings, notes, final, batches, info))
            stages["substitute-redis"].server = "redis-server"
        stages["encode"].samples.append(stage_encode(outs, batches)[0])
        values = stage_encode(outs, batches)[1]
        if not args.no_broker:
            pub, con = _with_broker(settings, notes, payloads, outs, values, batches, rep)
            stages["publish"].samples.append(pub)
            stages["consume+commit"].samples.append(con)
            stages["publish"].server = stages["consume+commit"].server = "broker"
    shown = [st for st in stages.values() if st.samples]

    n = len(notes)
    cpu = {st.name: st.median("cpu_s") / n for st in shown}
    per_process = [k for k in cpu if k != "substitute-redis"]
    total_memory = sum(cpu[k] for k in per_process)
    total_redis = (total_memory - cpu["substitute-memory"] + cpu["substitute-redis"]
                   if "substitute-redis" in cpu else None)
    desc = cpu_description()
    command = shlex.join([".venv/bin/python", *sys.argv])
    res: dict[str, Any] = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "command": command,
        "cpu": desc["model"], "cores": desc["cores"], "simd_flags": desc["simd_flags"],
        "cpu_flags": desc["flags"],
        "python": platform.python_version(),
        "notes": n, "source": source, "chars_per_note": round(sum(len(t) for t in texts) / n),
        "batches": len(batches), "batch_max_events": settings.batch.max_events,
        "stub_detector": stands_for, "stub_prepare_s": round(prepare_s, 2),
        "spans_per_note": round(sum(len(s) for s in final) / n, 1),
        "profile": settings.profile, "repeat": args.repeat,
        "cpu_s_per_note": {k: round(v, 6) for k, v in cpu.items()},
        "wall_s_per_note": {st.name: round(st.median("wall_s") / n, 6) for st in shown},
        "server_cpu_s_per_note": {st.name: round(st.median("server_cpu_s") / n, 6)
                                  for st in shown if st.server},
        "free_encoder_s_excluded": round(statistics.median(free_encoder_s), 4),
        "host_cpu_s_per_note": {"memory_store": round(total_memory, 6),
                                "redis_store": round(total_redis, 6) if total_redis is not None else None},
    }
    print(f"# Host cost per note, model removed ({res['date']})")
    print(f"command: {command}")
    print(f"CPU: {desc['model']}, {desc['cores']} cores visible; SIMD: {desc['simd_flags']}; "
          f"Python {res['python']}")
    print(f"notes: {n} ({source}), {res['chars_per_note']} chars/note, {len(batches)} worker batches of <= "
          f"{settings.batch.max_events}; stub detector returns {stands_for} spans "
          f"({res['spans_per_note']}/note); "
          f"profile {settings.profile}; median of {args.repeat}\n")
    print("\n".join(table(shown, n)))
    print(f"\nhost CPU per note in one worker process (every stage above, in-memory store): "
          f"{total_memory:.6f} s "
          f"-> {1 / total_memory:.1f} notes/s per core")
    if total_redis is not None:
        print(f"the same with the redis store: {total_redis:.6f} s -> {1 / total_redis:.1f} notes/s per core "
              f"(+ redis-server {res['server_cpu_s_per_note']['substitute-redis']:.6f} s/note on its own "
              "core)")
    print("\nA GPU node pays every row; a worker behind the stub detector (bench/pipeline_throughput.py "
          "--stub-detector) pays all but ner-*, rules and merge.")
    print("\n" + json.dumps({k: v for k, v in res.items() if k != "cpu_flags"}, indent=2, ensure_ascii=False))
    if args.json:
        args.json.write_text(json.dumps(res, indent=2, ensure_ascii=False) + "\n")
    return 0


def _memory_store() -> Any:
    from deid.store.memory import InMemoryStore

    return InMemoryStore()


def _with_redis(settings: Settings, notes: list[RawNote], spans: list[list[Span]], batches: list[list[int]],
                info: ModelInfo) -> Sample:
    """Substitution on a fresh redis-server (a fresh memo: no replay), started on a free port."""
    from deid.store.factory import open_store
    from worker.services.redis_server import RedisServer

    with RedisServer() as server:
        s = settings.model_copy(deep=True)
        s.redis.url = server.url
        return asyncio.run(substitute_all(s, open_store(s), notes, spans, batches, info, server.pid))[0]


def _with_broker(settings: Settings, notes: list[RawNote], payloads: list[bytes], outs: list[DeidNote],
                 values: list[bytes], batches: list[list[int]], rep: int) -> tuple[Sample, Sample]:
    from worker.services.broker import TansuBroker, create_topics

    with TansuBroker() as broker:
        s = settings.model_copy(deep=True)
        s.kafka.bootstrap_servers = broker.bootstrap_servers
        assert broker.process is not None
        pid = broker.process.pid
        raw, out = f"host-cost-raw-{rep}", f"host-cost-out-{rep}"
        asyncio.run(create_topics(broker.bootstrap_servers, [raw, out]))
        pub = asyncio.run(stage_publish(s, pid, out, outs, values, batches))
        con = asyncio.run(stage_consume(s, pid, raw, notes, payloads, batches, f"host-cost-{rep}"))
    return pub, con


if __name__ == "__main__":
    sys.exit(main())
