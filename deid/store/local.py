"""Local persistent store: one SQLite file, for command-line runs over files.

Same semantics as the Redis store (same checks, same commit protocol, same retention), so two
``deid redact`` runs on notes of one patient get the same surrogates and share one budget. Several
processes may use one file: every write is one ``BEGIN IMMEDIATE`` transaction, which SQLite
serializes across processes. Calls run in a worker thread so they do not block the event loop.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from deid.store.base import PROBE_TTL_S, CommitResult, PatientStore, Release, StoreUnavailable
from deid.store.checks import check_hex, check_release, check_spend_id

T = TypeVar("T")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS patients (
    patient TEXT PRIMARY KEY, spent INTEGER NOT NULL DEFAULT 0, touched REAL NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS memo (
    patient TEXT NOT NULL, key TEXT NOT NULL, surrogate TEXT NOT NULL, PRIMARY KEY (patient, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS spends (
    patient TEXT NOT NULL, spend_id TEXT NOT NULL, spent INTEGER NOT NULL, total INTEGER NOT NULL,
    PRIMARY KEY (patient, spend_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS events (
    patient TEXT NOT NULL, event_key TEXT NOT NULL, PRIMARY KEY (patient, event_key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS timeline (
    patient TEXT NOT NULL, key TEXT NOT NULL, point TEXT NOT NULL, PRIMARY KEY (patient, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS probes (
    key TEXT PRIMARY KEY, expires REAL NOT NULL
) WITHOUT ROWID;
"""
_TABLES = ("memo", "spends", "events", "timeline")
_DAY_S = 86_400.0


class LocalFileStore(PatientStore):
    """``PatientStore`` in a SQLite file (created 0600 in a 0700 directory if absent)."""

    def __init__(
        self,
        path: Path | str,
        *,
        patient_ttl_days: int = 0,
        busy_timeout_s: float = 30.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if patient_ttl_days < 0:
            raise ValueError("patient_ttl_days must be >= 0")
        self.path = Path(path)
        self._ttl_s = patient_ttl_days * _DAY_S
        self._clock = clock
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not self.path.exists():
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))
        self._db = sqlite3.connect(
            self.path, timeout=busy_timeout_s, isolation_level=None, check_same_thread=False
        )
        self._lock = threading.Lock()
        self._init_schema(busy_timeout_s)

    def _init_schema(self, busy_timeout_s: float) -> None:
        # Switching to WAL can fail with "locked" at once (no busy handler) while another process
        # is creating the same file: retry until the busy timeout.
        deadline = time.monotonic() + busy_timeout_s
        while True:
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")
                self._db.executescript(_SCHEMA)
                return
            except sqlite3.OperationalError as exc:
                if time.monotonic() >= deadline:
                    self._db.close()
                    raise StoreUnavailable(f"local store unavailable at open ({type(exc).__name__})") from exc
                time.sleep(0.05)

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Cursor]:
        with self._lock:
            cur = self._db.cursor()
            cur.execute("BEGIN IMMEDIATE")
            try:
                yield cur
            except BaseException:
                cur.execute("ROLLBACK")
                raise
            else:
                cur.execute("COMMIT")

    async def _run(self, op: str, fn: Callable[[], T]) -> T:
        try:
            return await asyncio.to_thread(fn)
        except sqlite3.OperationalError as exc:  # locked for longer than busy_timeout, disk gone...
            raise StoreUnavailable(f"local store unavailable during {op} ({type(exc).__name__})") from exc

    def _expire(self, cur: sqlite3.Cursor, patient: str) -> None:
        """Drop a patient untouched for longer than the retention, as Redis TTLs would."""
        if not self._ttl_s:
            return
        row = cur.execute("SELECT touched FROM patients WHERE patient = ?", (patient,)).fetchone()
        if row is not None and row[0] < self._clock() - self._ttl_s:
            self._delete(cur, patient)

    @staticmethod
    def _delete(cur: sqlite3.Cursor, patient: str) -> int:
        removed = 0
        for table in _TABLES:
            removed += cur.execute(f"DELETE FROM {table} WHERE patient = ?", (patient,)).rowcount
        spent = cur.execute("SELECT spent FROM patients WHERE patient = ?", (patient,)).fetchone()
        cur.execute("DELETE FROM patients WHERE patient = ?", (patient,))
        return removed + (1 if spent is not None and spent[0] > 0 else 0)

    def _touch(self, cur: sqlite3.Cursor, patient: str) -> None:
        cur.execute(
            "INSERT INTO patients (patient, spent, touched) VALUES (?, 0, ?)"
            " ON CONFLICT (patient) DO UPDATE SET touched = excluded.touched",
            (patient, self._clock()),
        )

    async def lookup(self, patient: str, keys: Sequence[str]) -> dict[str, str]:
        check_hex("patient", patient)
        wanted = list(dict.fromkeys(keys))
        for k in wanted:
            check_hex("value key", k)
        if not wanted:
            return {}

        def run() -> dict[str, str]:
            with self._tx() as cur:
                self._expire(cur, patient)
                out: dict[str, str] = {}
                for i in range(0, len(wanted), 500):  # stay under SQLite's host-parameter limit
                    chunk = wanted[i : i + 500]
                    marks = ",".join("?" * len(chunk))
                    rows = cur.execute(
                        f"SELECT key, surrogate FROM memo WHERE patient = ? AND key IN ({marks})",
                        (patient, *chunk),
                    )
                    out.update(dict(rows.fetchall()))
                return {k: out[k] for k in wanted if k in out}

        return await self._run("lookup", run)

    async def commit(
        self, patient: str, spend_id: str, releases: Sequence[Release], cap_micro: int
    ) -> CommitResult:
        check_hex("patient", patient)
        check_spend_id(spend_id)
        if not isinstance(cap_micro, int) or cap_micro < 0:
            raise ValueError("cap_micro must be a non-negative integer")
        for r in releases:
            check_release(r)
        releases = list(releases)

        def run() -> CommitResult:
            with self._tx() as cur:
                self._expire(cur, patient)
                self._touch(cur, patient)

                def existing(key: str) -> str | None:
                    row = cur.execute(
                        "SELECT surrogate FROM memo WHERE patient = ? AND key = ?", (patient, key)
                    ).fetchone()
                    return None if row is None else str(row[0])

                recorded = cur.execute(
                    "SELECT spent, total FROM spends WHERE patient = ? AND spend_id = ?", (patient, spend_id)
                ).fetchone()
                replay = recorded is not None
                costs = {r.key: r.cost_micro for r in releases}  # a key listed twice costs once
                cost = sum(c for k, c in costs.items() if c > 0 and existing(k) is None)
                total = int(
                    cur.execute("SELECT spent FROM patients WHERE patient = ?", (patient,)).fetchone()[0]
                )
                granted = cost == 0 or total + cost <= cap_micro  # a replay pays for what is new
                spent_now = 0
                if granted:
                    if cost > 0:
                        total += cost
                        spent_now = cost
                        cur.execute("UPDATE patients SET spent = ? WHERE patient = ?", (total, patient))
                    if not replay:
                        cur.execute(
                            "INSERT INTO spends (patient, spend_id, spent, total) VALUES (?, ?, ?, ?)",
                            (patient, spend_id, spent_now, total),
                        )
                if not replay or spent_now > 0:  # a replay that paid reports what it paid
                    recorded = (spent_now, total)
                surrogates: dict[str, str] = {}
                refused: set[str] = set()
                for r in releases:
                    found = existing(r.key)
                    if found is not None:
                        surrogates[r.key] = found
                    elif r.cost_micro > 0 and not granted:
                        refused.add(r.key)
                    else:
                        cur.execute(
                            "INSERT INTO memo (patient, key, surrogate) VALUES (?, ?, ?)",
                            (patient, r.key, r.surrogate),
                        )
                        if r.timeline:
                            cur.execute(
                                "INSERT OR IGNORE INTO timeline (patient, key, point) VALUES (?, ?, ?)",
                                (patient, r.key, r.timeline),
                            )
                        surrogates[r.key] = r.surrogate
                rec_spent, rec_total = recorded if recorded is not None else (spent_now, total)
                return CommitResult(
                    surrogates,
                    granted,
                    spent_now,
                    total,
                    replay,
                    frozenset(refused),
                    int(rec_spent),
                    int(rec_total),
                )

        return await self._run("commit", run)

    async def timeline(self, patient: str) -> dict[str, str]:
        check_hex("patient", patient)

        def run() -> dict[str, str]:
            with self._tx() as cur:
                self._expire(cur, patient)
                rows = cur.execute("SELECT key, point FROM timeline WHERE patient = ?", (patient,))
                return {str(k): str(v) for k, v in rows.fetchall()}

        return await self._run("timeline", run)

    async def spent(self, patient: str) -> int:
        check_hex("patient", patient)

        def run() -> int:
            with self._tx() as cur:
                self._expire(cur, patient)
                row = cur.execute("SELECT spent FROM patients WHERE patient = ?", (patient,)).fetchone()
                return 0 if row is None else int(row[0])

        return await self._run("spent", run)

    async def mark_processed(self, patient: str, event_key: str) -> bool:
        check_hex("patient", patient)
        check_hex("event key", event_key)

        def run() -> bool:
            with self._tx() as cur:
                self._expire(cur, patient)
                self._touch(cur, patient)
                cur.execute(
                    "INSERT OR IGNORE INTO events (patient, event_key) VALUES (?, ?)", (patient, event_key)
                )
                return cur.rowcount == 1

        return await self._run("mark_processed", run)

    async def erase_patient(self, patient: str) -> int:
        check_hex("patient", patient)

        def run() -> int:
            with self._tx() as cur:
                return self._delete(cur, patient)

        return await self._run("erase_patient", run)

    async def ping(self) -> None:
        def run() -> None:
            with self._lock:
                self._db.execute("SELECT 1").fetchone()

        await self._run("ping", run)

    async def probe_write(self, probe_key: str) -> None:
        """A row in ``probes`` (not a patient table), expired rows dropped in the same transaction:
        a read-only file, a full disk or a lock held past the busy timeout fail it."""
        check_hex("probe key", probe_key)

        def run() -> None:
            now = self._clock()
            with self._tx() as cur:
                cur.execute("DELETE FROM probes WHERE expires < ?", (now,))
                cur.execute("INSERT OR REPLACE INTO probes (key, expires) VALUES (?, ?)",
                            (probe_key, now + PROBE_TTL_S))

        await self._run("probe_write", run)

    async def close(self) -> None:
        with self._lock:
            self._db.close()
