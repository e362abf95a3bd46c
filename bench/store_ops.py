"""Store benchmark: operations per second and round trips per batch for realistic batches.

Starts its own redis-server (appendonly yes, appendfsync everysec, noeviction: the production
settings) on a free port, then replays batches the way the worker does: per batch and per patient,
one ``lookup`` of every distinct value of the batch, then one ``commit`` of the values not yet
memoized. Round trips are counted by instrumenting the client (every command sent) and checked
against the server's INFO commandstats.

    .venv/bin/python bench/store_ops.py                      # 32 notes x 20 mentions, 8 patients
    .venv/bin/python bench/store_ops.py --batches 50 --stores redis
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import platform
import random
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from redis.asyncio import Redis

from deid.store.base import PatientStore, Release
from deid.store.local import LocalFileStore
from deid.store.memory import InMemoryStore
from deid.store.redis import RedisPatientStore
from worker.services.redis_server import RedisServer

CAP = 20_000_000  # 20 epsilon
COST = 50_000  # 0.05 epsilon per new noisy value


def hx(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:32]


@dataclass
class Note:
    patient: str
    event: str
    values: list[tuple[str, int]]  # (value key, cost)


def make_batches(n_batches: int, notes: int, mentions: int, patients: int, seed: int) -> list[list[Note]]:
    """Mentions of a patient come from a pool of ~150 values with Zipf-like reuse (names recur)."""
    rng = random.Random(seed)
    pool = 150
    weights = [1 / (i + 1) for i in range(pool)]
    ids = [hx("patient", p) for p in range(patients * 50)]  # a rolling population of patients
    batches = []
    for b in range(n_batches):
        present = rng.sample(ids[: patients * (2 + b // 10)], patients)
        batch = []
        for n in range(notes):
            patient = present[n % patients]
            picks = rng.choices(range(pool), weights, k=mentions)
            batch.append(
                Note(patient, hx("event", b, n), [(hx(patient, v), COST if v % 3 == 0 else 0) for v in picks])
            )
        batches.append(batch)
    return batches


async def run_batch(
    store: PatientStore, batch: list[Note], concurrent: bool, seed: int, per_note: bool = False
) -> int:
    """One batch; ``per_note``: one commit per note (what ``deid.substitution.deidentify_text``
    does) instead of one per patient. Returns the number of store calls."""
    by_patient: dict[str, list[Note]] = {}
    for note in batch:
        by_patient.setdefault(note.patient, []).append(note)
    rng = random.Random(seed)

    calls = 0

    async def one(patient: str, notes: list[Note]) -> None:
        nonlocal calls
        costs = {k: c for note in notes for k, c in note.values}
        known = await store.lookup(patient, list(costs))
        calls += 1
        groups = [(n.event, dict(n.values)) for n in notes] if per_note else [("all", costs)]
        for event, values in groups:
            releases = [
                Release(k, f"s{rng.randrange(10**9)}", c) for k, c in values.items() if k not in known
            ]
            res = await store.commit(patient, hx("spend", patient, event), releases, CAP)
            known.update(res.surrogates)
            calls += 1

    jobs = [one(p, notes) for p, notes in by_patient.items()]
    if concurrent:
        await asyncio.gather(*jobs)
    else:
        for job in jobs:
            await job
    return calls


def count_commands(client: Redis) -> list[str]:
    sent: list[str] = []
    send: Callable[..., Awaitable[Any]] = client.execute_command

    async def counting(*args: Any, **options: Any) -> Any:
        sent.append(str(args[0]))
        return await send(*args, **options)

    client.execute_command = counting  # type: ignore[method-assign]
    return sent


async def bench(
    store: PatientStore,
    batches: list[list[Note]],
    concurrent: bool,
    on_start: Callable[[], Awaitable[None]] | None = None,
    per_note: bool = False,
) -> dict[str, float]:
    await run_batch(store, batches[0], concurrent, 0, per_note)  # warm-up: connections, script cache
    if on_start is not None:
        await on_start()
    t0 = time.perf_counter()
    calls = 0
    for i, batch in enumerate(batches[1:], 1):
        calls += await run_batch(store, batch, concurrent, i, per_note)
    dt = time.perf_counter() - t0
    n = len(batches) - 1
    notes = sum(len(b) for b in batches[1:])
    mentions = sum(len(note.values) for b in batches[1:] for note in b)
    return {
        "batches_s": n / dt,
        "notes_s": notes / dt,
        "mentions_s": mentions / dt,
        "store_ops_s": calls / dt,
        "ms_per_batch": 1000 * dt / n,
    }


async def naive_per_mention(client: Redis, batches: list[list[Note]]) -> tuple[float, float]:
    """Reference only: one HGET (+ HSETNX when absent) per mention, the design this replaces."""
    sent = count_commands(client)
    t0 = time.perf_counter()
    for batch in batches[1:]:
        for note in batch:
            for key, _ in note.values:
                memo = f"naive:{{p:{note.patient}}}:memo"
                if await client.hget(memo, key) is None:
                    await client.hsetnx(memo, key, "x")
    dt = time.perf_counter() - t0
    n = len(batches) - 1
    return len(sent) / n, 1000 * dt / n


async def bench_redis(
    server: RedisServer,
    batches: list[list[Note]],
    concurrent: bool,
    row: Callable[[str, dict[str, float]], None],
    per_note: bool,
) -> None:
    client = Redis.from_url(server.url, decode_responses=True)
    await client.flushdb()
    store = RedisPatientStore(client)
    sent = count_commands(client)
    admin = Redis.from_url(server.url, decode_responses=True)

    async def start() -> None:
        sent.clear()
        await admin.config_resetstat()

    label = ("redis, patients gather" if concurrent else "redis, sequential") + (
        ", /note" if per_note else ""
    )
    row(label, await bench(store, batches, concurrent, start, per_note))
    stats = await admin.info("commandstats")
    await admin.aclose()
    await store.close()
    n = len(batches) - 1
    per_batch = len(sent) / n
    # Commands run inside the Lua script are in commandstats too but are no round trips:
    # count only what clients send at top level.
    server_calls = sum(stats.get(k, {"calls": 0})["calls"] for k in ("cmdstat_hmget", "cmdstat_evalsha"))
    patients = sum(len({note.patient for note in b}) for b in batches[1:]) / n
    lookups, commits = sent.count("HMGET") / n, sent.count("EVALSHA") / n
    print(
        f"    round trips per batch: {per_batch:.2f} client-counted = {lookups:.2f} HMGET + "
        f"{commits:.2f} EVALSHA ({patients:.0f} patients), {server_calls / n:.2f} server-counted"
    )
    usec = {k: stats.get(f"cmdstat_{k}", {}).get("usec_per_call", 0.0) for k in ("hmget", "evalsha")}
    print(
        f"    server time per call: HMGET {usec['hmget']:.0f} us, "
        f"EVALSHA (commit.lua) {usec['evalsha']:.0f} us"
    )


async def main_async(args: argparse.Namespace) -> None:
    batches = make_batches(args.batches + 1, args.notes, args.mentions, args.patients, args.seed)
    stores = args.stores.split(",")
    print(
        f"# python {platform.python_version()}, {args.batches} batches x {args.notes} notes x "
        f"{args.mentions} mentions, {args.patients} patients per batch"
    )
    print(
        f"{'store':<28}{'batches/s':>10}{'notes/s':>10}{'mentions/s':>12}{'store ops/s':>12}{'ms/batch':>10}"
    )

    def row(name: str, r: dict[str, float]) -> None:
        print(
            f"{name:<28}{r['batches_s']:>10.1f}{r['notes_s']:>10.0f}{r['mentions_s']:>12.0f}"
            f"{r['store_ops_s']:>12.0f}{r['ms_per_batch']:>10.2f}"
        )

    if "memory" in stores:
        row("memory", await bench(InMemoryStore(), batches, False))
    if "local" in stores:
        with tempfile.TemporaryDirectory() as d:
            local = LocalFileStore(Path(d) / "bench.sqlite")
            row("local sqlite", await bench(local, batches, False))
            await local.close()
    if "redis" in stores:
        with RedisServer(appendonly=True, appendfsync="everysec") as server:
            for per_note in (False, True):
                for concurrent in (False, True):
                    await bench_redis(server, batches, concurrent, row, per_note)
            if args.naive:
                client = Redis.from_url(server.url, decode_responses=True)
                trips, ms = await naive_per_mention(client, batches[: args.naive_batches + 1])
                print(
                    f"    reference, one command per mention: {trips:.0f} round trips, {ms:.1f} ms per batch"
                )
                await client.aclose()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batches", type=int, default=300)
    ap.add_argument("--notes", type=int, default=32)
    ap.add_argument("--mentions", type=int, default=20)
    ap.add_argument("--patients", type=int, default=8)
    ap.add_argument("--stores", default="memory,local,redis")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--naive", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--naive-batches", type=int, default=30)
    asyncio.run(main_async(ap.parse_args()))


if __name__ == "__main__":
    main()
