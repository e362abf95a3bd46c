"""Several OS processes committing the same notes of the same patients into one store."""

from __future__ import annotations

import asyncio
import json
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from store_proc_committer import CAP, N_PATIENTS, POOL

from deid.settings import RedisSettings
from deid.store.base import PatientStore
from deid.store.local import LocalFileStore
from deid.store.redis import RedisPatientStore
from worker.services.redis_server import RedisServer

SCRIPT = Path(__file__).with_name("store_proc_committer.py")


async def run_processes(target: list[str], tmp_path: Path, n: int = 3) -> list[list[dict]]:
    outs = [tmp_path / f"out{i}.json" for i in range(n)]
    procs = [
        await asyncio.create_subprocess_exec(
            sys.executable, str(SCRIPT), *target, "--seed", str(100 + i), "--out", str(out)
        )
        for i, out in enumerate(outs)
    ]
    codes = await asyncio.wait_for(asyncio.gather(*(p.wait() for p in procs)), timeout=60)
    assert codes == [0] * n
    return [json.loads(out.read_text()) for out in outs]


async def check(store: PatientStore, runs: list[list[dict]]) -> None:
    patients = [f"{i:032x}" for i in range(N_PATIENTS)]
    pool = [f"{v + 1:032x}" for v in range(POOL)]
    memo = {p: await store.lookup(p, pool) for p in patients}
    spent_by_patient: dict[str, int] = defaultdict(int)
    charged: dict[tuple[str, str], int] = defaultdict(int)
    rendered: dict[str, list[tuple[bool, dict]]] = defaultdict(list)
    for results in runs:
        for r in results:
            spent_by_patient[r["patient"]] += r["spent"]
            if r["spent"]:
                charged[(r["patient"], r["spend_id"])] += 1
            rendered[r["spend_id"]].append((r["granted"], r["rendered"]))
            for key, sur in r["rendered"].items():
                if sur != "<fallback>":
                    assert memo[r["patient"]][key] == sur  # one surrogate per value, whoever drew it
    assert all(n == 1 for n in charged.values())  # a note is charged once across all processes
    for p in patients:
        total = await store.spent(p)
        assert total == spent_by_patient[p] <= CAP
    assert max(spent_by_patient.values()) > CAP // 2  # the cap was actually exercised
    for versions in rendered.values():  # a redelivered note renders identically when granted
        granted = [r for g, r in versions if g]
        assert all(r == granted[0] for r in granted)


@pytest.mark.integration
async def test_three_processes_on_one_redis_converge_and_never_overspend(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    store = RedisPatientStore.from_settings(RedisSettings(url=redis_server.url))
    await store.client.flushdb()
    runs = await run_processes(["--url", redis_server.url], tmp_path)
    await check(store, runs)
    assert any(r["replay"] for results in runs for r in results)
    await store.close()


async def test_two_processes_on_one_local_file_converge_and_never_overspend(tmp_path: Path) -> None:
    path = tmp_path / "memo.sqlite"
    runs = await run_processes(["--local", str(path)], tmp_path, n=2)
    store = LocalFileStore(path)
    await check(store, runs)
    await store.close()
