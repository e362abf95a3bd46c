"""End-to-end throughput and latency of the worker through a real (embedded Tansu) broker, beside
the detector alone measured in the same run on the same notes.

    .venv/bin/python bench/pipeline_throughput.py --notes 96            # default model + rules
    .venv/bin/python bench/pipeline_throughput.py --notes 200 --no-model  # rules only

Notes are synthetic French series (deid.synth: several notes per invented patient). All notes are
produced at once (a burst), so latency is record timestamp -> output consumed under saturation,
queueing included. Broker, worker, producer and consumer share this machine's cores: on a small
box the pipeline competes with its own harness (say so when reporting).
Model-only runs the detection stage on the batches the worker would cut from a full backlog
(same event count and token budget), timed before and after the pipeline run (mean reported: load drifts).
Tokens are the model tokenizer's pieces when a model is loaded, else characters / 3.5.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer

from deid.events import DeidNote, RawNote, encode
from deid.pipeline import NotePipeline, build_detector, build_pipeline
from deid.settings import Settings
from deid.store.base import PatientStore
from deid.store.memory import InMemoryStore
from worker.batching import estimate_tokens, split_by_budget
from worker.main import serve
from worker.services.broker import TansuBroker, create_topics
from worker.stream import StreamWorker


def make_notes(n: int, per_patient: int, seed: int) -> list[RawNote]:
    from deid.synth import generate_patient_series

    series = generate_patient_series((n + per_patient - 1) // per_patient, per_patient, seed=seed)
    notes = []
    for p, docs in enumerate(series):
        for k, doc in enumerate(docs):
            notes.append(RawNote(event_id=f"bench-{p}-{k}", patient_id=f"BENCH-{seed}-{p}",
                                 document_id=doc.doc_id, note_type="synth", language="fr", text=doc.text))
    return notes[:n]


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
                         notes: list[RawNote]) -> tuple[float, list[float], int, dict[str, float]]:
    k = settings.kafka
    started: asyncio.Future[tuple[StreamWorker, int]] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(serve(settings, store=store, pipeline=pipeline, install_signals=False,
                                     on_started=lambda w, p: started.set_result((w, p))))
    worker, _ = await asyncio.wait_for(started, 120)
    while not worker.assigned:  # do not time the group join
        if task.done():
            task.result()
        await asyncio.sleep(0.1)
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
    await producer.stop()
    await consumer.stop()
    worker.stop()
    await task
    stats: dict[str, float] = {}
    for metric in worker.metrics.registry.collect():
        for sample in metric.samples:
            if sample.name == "deid_batch_size_count":
                stats["batches"] = sample.value
            elif sample.name == "deid_batch_size_sum":
                stats["records"] = sample.value
            elif sample.name == "deid_stage_seconds_sum":
                stats[f"{sample.labels['stage']}_s"] = round(sample.value, 3)
    return t_last - t0, latencies, len(seen), stats


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--notes", type=int, default=96)
    ap.add_argument("--per-patient", type=int, default=4)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--no-model", action="store_true", help="rules only")
    ap.add_argument("--max-events", type=int, default=None, help="batch.max_events (default: settings)")
    ap.add_argument("--partitions", type=int, default=2)
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args()

    settings = Settings()
    if settings.hmac_secret is None:  # the worker requires one; a benchmark run needs no stable one
        import secrets

        from pydantic import SecretStr

        settings.hmac_secret = SecretStr(secrets.token_urlsafe(32))
    settings.model.enabled = not args.no_model
    settings.http.host, settings.http.port = "127.0.0.1", 0
    if args.max_events:
        settings.batch.max_events = args.max_events
    notes = make_notes(args.notes, args.per_patient, args.seed)
    t = time.perf_counter()
    detector = build_detector(settings)
    load_s = time.perf_counter() - t
    store = InMemoryStore()
    pipeline = build_pipeline(settings, store, detector=detector)
    count = token_counter(detector)
    tokens = sum(count(n.text) for n in notes)
    pipeline.detect(notes[: min(4, len(notes))])  # warm-up
    batches = worker_batches(notes, settings)
    model_before = model_only(pipeline, batches)

    with TansuBroker() as broker:
        settings.kafka.bootstrap_servers = broker.bootstrap_servers
        k = settings.kafka
        asyncio.run(create_topics(broker.bootstrap_servers, [k.topic_raw_notes], args.partitions))
        asyncio.run(create_topics(broker.bootstrap_servers, [k.topic_deid_notes, k.topic_dead_letter]))
        wall_s, lat, done, stats = asyncio.run(through_broker(settings, pipeline, store, notes))
    # Model-only again after the pipeline run: on a shared machine the load drifts, and the mean of
    # the two brackets the pipeline run more fairly than either alone.
    model_after = model_only(pipeline, batches)
    model_s = (model_before + model_after) / 2

    res = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPU cores, {gpu_name()}",
        "detector": f"{pipeline.model_info.name} {pipeline.model_info.version}",
        "notes": len(notes), "delivered": done, "tokens": tokens,
        "mean_tokens_per_note": round(tokens / len(notes), 1),
        "batch_max_events": settings.batch.max_events, "partitions": args.partitions,
        "model_only_batches": len(batches),
        "model_load_s": round(load_s, 2),
        "model_only": {"seconds": round(model_s, 3), "seconds_before_after": [round(model_before, 3),
                                                                              round(model_after, 3)],
                       "notes_per_s": round(len(notes) / model_s, 2),
                       "tokens_per_s": round(tokens / model_s, 1)},
        "pipeline": {"seconds": round(wall_s, 3), "notes_per_s": round(done / wall_s, 2),
                     "tokens_per_s": round(tokens * done / len(notes) / wall_s, 1),
                     "latency_p50_s": round(statistics.median(lat), 3) if lat else None,
                     "latency_p99_s": round(pct(lat, 0.99), 3) if lat else None,
                     "batches": int(stats.get("batches", 0)),
                     "mean_batch_size": round(stats.get("records", 0) / max(1, stats.get("batches", 1)), 1),
                     "stage_seconds": {k: v for k, v in stats.items() if k.endswith("_s")}},
    }
    res["ratio_pipeline_over_model_only"] = round((done / wall_s) / (len(notes) / model_s), 3)
    print(json.dumps(res, indent=2, ensure_ascii=False))
    print(f"\npipeline / model-only throughput ratio: {res['ratio_pipeline_over_model_only']}")
    if args.json:
        args.json.write_text(json.dumps(res, indent=2, ensure_ascii=False) + "\n")
    return 0 if done == len(notes) else 1


if __name__ == "__main__":
    sys.exit(main())
