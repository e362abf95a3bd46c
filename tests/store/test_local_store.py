"""Local SQLite store: what a command-line run keeps between runs."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest
from store_testkit import hx

from deid.settings import RedisSettings, Settings
from deid.store.base import Release, StoreUnavailable
from deid.store.factory import open_store
from deid.store.local import LocalFileStore
from deid.store.memory import InMemoryStore
from deid.store.redis import RedisPatientStore

P = hx("patient")


async def test_two_runs_on_one_file_share_surrogates_and_budget(tmp_path: Path) -> None:
    path = tmp_path / ".deid" / "store.sqlite"
    first = LocalFileStore(path)
    await first.commit(P, "file-a", [Release(hx("v", 1), "Martin"), Release(hx("v", 2), "2001", 40)], 100)
    await first.close()
    second = LocalFileStore(path)
    assert await second.lookup(P, [hx("v", 1), hx("v", 2)]) == {hx("v", 1): "Martin", hx("v", 2): "2001"}
    assert await second.spent(P) == 40
    again = await second.commit(P, "file-a", [Release(hx("v", 2), "2001", 40)], 100)
    assert again.replay and again.spent_micro == 0  # a replay of what was paid is free
    extra = await second.commit(P, "file-a", [Release(hx("v", 3), "1999", 40)], 100)
    assert extra.replay and extra.spent_micro == 40 and extra.total_micro == 80  # a new value is not
    await second.close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


async def test_retention_drops_a_patient_untouched_for_longer_than_the_ttl(tmp_path: Path) -> None:
    now = [1_000_000.0]
    store = LocalFileStore(tmp_path / "s.sqlite", patient_ttl_days=1, clock=lambda: now[0])
    await store.commit(P, "n1", [Release(hx("v", 1), "Martin", 5)], 100)
    now[0] += 23 * 3600
    await store.mark_processed(P, hx("event", 1))  # activity refreshes the retention
    now[0] += 23 * 3600
    assert await store.lookup(P, [hx("v", 1)]) == {hx("v", 1): "Martin"}
    now[0] += 25 * 3600
    assert await store.lookup(P, [hx("v", 1)]) == {}
    assert await store.spent(P) == 0
    await store.close()


async def test_a_file_locked_by_another_writer_gives_store_unavailable(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    store = LocalFileStore(path, busy_timeout_s=0.1)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StoreUnavailable):
            await store.commit(P, "n1", [Release(hx("v", 1), "Martin")], 100)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert (await store.commit(P, "n1", [Release(hx("v", 1), "Martin")], 100)).granted
    await store.close()


async def test_open_store_picks_memory_redis_or_local_file(tmp_path: Path) -> None:
    assert isinstance(open_store(Settings()), InMemoryStore)
    redis_store = open_store(
        Settings(redis=RedisSettings(url="redis://127.0.0.1:6399/0", key_prefix="deid:e2"))
    )
    assert isinstance(redis_store, RedisPatientStore)
    assert redis_store.keys(P)[0] == f"deid:e2:{{p:{P}}}:memo"
    await redis_store.close()
    # a memo file needs one
    with_secret = Settings(hmac_secret="local-test-secret-0123456789abcdef0123456789")
    local = open_store(with_secret, local_path=tmp_path / "m.sqlite")
    assert isinstance(local, LocalFileStore)
    await local.close()
