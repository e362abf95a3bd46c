"""In-memory store: the embedded default and the unit tests' store. One process only."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from deid.store.base import PROBE_TTL_S, CommitResult, PatientStore, Release
from deid.store.checks import check_hex


@dataclass
class _Patient:
    memo: dict[str, str] = field(default_factory=dict)
    spent: int = 0
    spends: dict[str, tuple[int, int]] = field(default_factory=dict)  # spend id -> (spent, total)
    processed: set[str] = field(default_factory=set)
    timeline: dict[str, str] = field(default_factory=dict)


class InMemoryStore(PatientStore):
    def __init__(self) -> None:
        self._patients: dict[str, _Patient] = {}
        self._lock = asyncio.Lock()
        self._probes: dict[str, float] = {}  # probe key -> expiry (monotonic), apart from patients

    def _get(self, patient: str) -> _Patient:
        return self._patients.setdefault(patient, _Patient())

    async def lookup(self, patient: str, keys: Sequence[str]) -> dict[str, str]:
        memo = self._get(patient).memo
        return {k: memo[k] for k in keys if k in memo}

    async def commit(
        self, patient: str, spend_id: str, releases: Sequence[Release], cap_micro: int
    ) -> CommitResult:
        async with self._lock:
            p = self._get(patient)
            replay = spend_id in p.spends
            cost = sum(r.cost_micro for r in {r.key: r for r in releases}.values() if r.key not in p.memo)
            granted = cost == 0 or p.spent + cost <= cap_micro  # a replay pays for what is new
            spent_now = 0
            if granted:
                if cost > 0:
                    p.spent += cost
                    spent_now = cost
                if not replay:
                    p.spends[spend_id] = (spent_now, p.spent)
            refused: set[str] = set()
            out: dict[str, str] = {}
            for r in releases:
                if r.key in p.memo:
                    out[r.key] = p.memo[r.key]
                elif r.cost_micro > 0 and not granted:
                    refused.add(r.key)
                else:
                    p.memo[r.key] = r.surrogate
                    out[r.key] = r.surrogate
                    if r.timeline:
                        p.timeline.setdefault(r.key, r.timeline)
            # a replay that paid for nothing reports its first account (byte-identical output)
            rec_spent, rec_total = (p.spends[spend_id] if replay and spent_now == 0
                                    else (spent_now, p.spent))
            return CommitResult(
                out, granted, spent_now, p.spent, replay, frozenset(refused), rec_spent, rec_total
            )

    async def timeline(self, patient: str) -> dict[str, str]:
        return dict(self._get(patient).timeline)

    async def spent(self, patient: str) -> int:
        return self._get(patient).spent

    async def mark_processed(self, patient: str, event_key: str) -> bool:
        p = self._get(patient)
        first = event_key not in p.processed
        p.processed.add(event_key)
        return first

    async def erase_patient(self, patient: str) -> int:
        p = self._patients.pop(patient, None)
        return 0 if p is None else len(p.memo) + len(p.spends) + len(p.processed) + len(p.timeline) + 1

    async def probe_write(self, probe_key: str) -> None:
        check_hex("probe key", probe_key)
        now = time.monotonic()
        self._probes = {k: t for k, t in self._probes.items() if t > now}
        self._probes[probe_key] = now + PROBE_TTL_S
