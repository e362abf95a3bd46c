"""One OS process of the multi-process store test: de-identifies a fixed set of notes and reports.

Run as ``python store_proc_committer.py (--url URL | --local PATH) --seed N --out FILE``. Every
process gets the same notes (same patients, same values, same spend ids: a redelivery on another
replica) but draws its own surrogates from its own seed, so only the store can make them agree.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root

from deid.settings import RedisSettings
from deid.store.base import PatientStore, Release
from deid.store.local import LocalFileStore
from deid.store.redis import RedisPatientStore

N_PATIENTS, N_NOTES, VALUES_PER_NOTE, POOL, COST, CAP = 4, 40, 8, 30, 100, 3_000


def notes() -> list[tuple[str, str, list[str], list[int]]]:
    """(patient, spend id, value keys, costs): identical in every process."""
    rng = random.Random(1234)
    out = []
    for n in range(N_NOTES):
        p = f"{n % N_PATIENTS:032x}"
        values = rng.sample(range(POOL), VALUES_PER_NOTE)
        out.append(
            (p, f"note-{n}", [f"{v + 1:032x}" for v in values], [COST if v % 3 else 0 for v in values])
        )
    return out


async def run(store: PatientStore, seed: int) -> list[dict[str, object]]:
    rng = random.Random(seed)
    order = notes()
    rng.shuffle(order)
    sem = asyncio.Semaphore(8)

    async def one(patient: str, spend_id: str, keys: list[str], costs: list[int]) -> dict[str, object]:
        async with sem:
            known = await store.lookup(patient, keys)
            releases = [
                Release(k, f"s{seed}-{rng.randrange(10**9)}", c)
                for k, c in zip(keys, costs, strict=True)
                if k not in known
            ]
            res = await store.commit(patient, spend_id, releases, CAP)
            rendered = {k: known.get(k) or res.surrogates.get(k) or "<fallback>" for k in keys}
            return {
                "patient": patient,
                "spend_id": spend_id,
                "rendered": rendered,
                "granted": res.granted,
                "spent": res.spent_micro,
                "replay": res.replay,
            }

    results = await asyncio.gather(*(one(*note) for note in order))
    await store.close()
    return list(results)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--url")
    ap.add_argument("--local")
    ap.add_argument("--mode", default="single", choices=("single", "cluster", "sentinel"))
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    store: PatientStore
    if args.url:
        store = RedisPatientStore.from_settings(RedisSettings(url=args.url, mode=args.mode))
    else:
        store = LocalFileStore(args.local)
    results = asyncio.run(run(store, args.seed))
    Path(args.out).write_text(json.dumps(results), encoding="utf-8")


if __name__ == "__main__":
    main()
