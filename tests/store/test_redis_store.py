"""Redis store against a real redis-server: layout, secrecy, round trips, retention, restarts, outages."""

from __future__ import annotations

import re
from pathlib import Path

import fakeredis
import pytest
from redis.asyncio import Redis
from redis.crc import key_slot
from redis.exceptions import NoPermissionError
from store_testkit import hx

from deid.labels import Label
from deid.settings import RedisSettings
from deid.store.base import Release, StoreUnavailable
from deid.store.keys import KeyHasher
from deid.store.redis import RedisPatientStore
from worker.services.redis_server import RedisServer

P = hx("patient", 1)
CAP = 1_000_000


def fast_store(client: Redis, sleeps: list[float] | None = None, **kw: object) -> RedisPatientStore:
    async def record(delay: float) -> None:
        if sleeps is not None:
            sleeps.append(delay)

    return RedisPatientStore(client, sleep=record, retry_backoff_s=0.01, retry_backoff_max_s=0.04, **kw)  # type: ignore[arg-type]


def short_client(url: str, timeout: float = 0.3) -> Redis:
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff

    return Redis.from_url(
        url,
        decode_responses=True,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        retry=Retry(NoBackoff(), 0),
    )


@pytest.mark.integration
async def test_a_patients_keys_share_one_hash_tag_and_cluster_slot(redis_client: Redis) -> None:
    store = RedisPatientStore(redis_client)
    await store.commit(P, "n1", [Release(hx("v", 1), "Martin"), Release(hx("v", 2), "2001", 10)], CAP)
    await store.mark_processed(P, hx("event", 1))
    keys = sorted([k async for k in redis_client.scan_iter()])
    assert keys == sorted(f"deid:{{p:{P}}}:{s}" for s in ("budget", "events", "memo", "spends"))
    assert len({key_slot(k.encode()) for k in keys}) == 1


@pytest.mark.integration
async def test_redis_holds_no_raw_value_or_patient_id_even_on_disk(
    redis_server: RedisServer, redis_client: Redis
) -> None:
    hasher = KeyHasher(b"test-secret-0123456789abcdef")
    patient = hasher.patient("IPP-4471298")
    name_key = hasher.value(patient, Label.PATIENT, "Dupont")
    date_key = hasher.value(patient, Label.DATE, "14/07/1962")
    store = RedisPatientStore(redis_client)
    await store.commit(
        patient, hasher.event("evt-1"), [Release(name_key, "Martin"), Release(date_key, "03/02/1961", 5)], CAP
    )
    await store.mark_processed(patient, hasher.event("evt-1"))

    seen: list[object] = []
    async for key in redis_client.scan_iter():
        seen.append(key)
        kind = await redis_client.type(key)
        if kind == "hash":
            for f, v in (await redis_client.hgetall(key)).items():
                seen += [f, v]
        elif kind == "set":
            seen += list(await redis_client.smembers(key))
        else:
            seen.append(await redis_client.get(key) or "")
    blob = "\n".join(map(str, seen))
    for raw in ("IPP-4471298", "4471298", "Dupont", "dupont", "14/07/1962", "1962", "evt-1"):
        assert raw not in blob
    assert "Martin" in blob  # surrogates are not PHI and are stored as values

    await redis_client.save()
    rdb = (redis_server.data_dir / "dump.rdb").read_bytes()
    assert b"Dupont" not in rdb and b"4471298" not in rdb and b"Martin" in rdb


@pytest.mark.integration
async def test_one_round_trip_per_lookup_and_per_commit(
    redis_server: RedisServer, redis_client: Redis
) -> None:
    store = RedisPatientStore(redis_client)
    await store.commit(hx("warm"), "warm-up", [Release(hx("w"), "x")], CAP)  # loads the script once
    sent: list[str] = []
    send = redis_client.execute_command

    async def counting(*args: object, **options: object) -> object:
        sent.append(str(args[0]))
        return await send(*args, **options)

    redis_client.execute_command = counting  # type: ignore[method-assign]
    admin = Redis.from_url(redis_server.url, decode_responses=True)
    await admin.config_resetstat()
    keys = [hx("v", i) for i in range(20)]
    await store.lookup(P, keys)
    await store.commit(P, "n1", [Release(kk, f"s{i}", 10 * (i % 2)) for i, kk in enumerate(keys)], CAP)
    stats = await admin.info("commandstats")
    await admin.aclose()
    assert sent == ["HMGET", "EVALSHA"]
    # the server saw one HMGET and one EVALSHA from clients (the rest ran inside the script)
    assert stats["cmdstat_hmget"]["calls"] == 1 and stats["cmdstat_evalsha"]["calls"] == 1
    assert "cmdstat_script|load" not in stats and "cmdstat_eval" not in stats


@pytest.mark.integration
async def test_retention_ttl_is_set_and_refreshed_on_each_commit_and_mark(redis_client: Redis) -> None:
    store = RedisPatientStore(redis_client, patient_ttl_days=2)
    await store.commit(P, "n1", [Release(hx("v", 1), "Martin", 5)], CAP)
    await store.mark_processed(P, hx("event", 1))
    ttls = [await redis_client.ttl(k) for k in store.keys(P)]
    assert all(t != -2 for t in ttls[:4])  # memo, budget, spends, events exist (timeline: dates only)
    assert all(2 * 86_400 - 5 <= t <= 2 * 86_400 for t in ttls if t != -2)
    for key in store.keys(P):
        await redis_client.expire(key, 100)
    await store.commit(P, "n2", [], CAP)
    assert min([t for k in store.keys(P) if (t := await redis_client.ttl(k)) != -2]) > 100_000
    for key in store.keys(P):
        await redis_client.expire(key, 100)
    await store.mark_processed(P, hx("event", 2))
    assert min([t for k in store.keys(P) if (t := await redis_client.ttl(k)) != -2]) > 100_000


@pytest.mark.integration
async def test_no_ttl_by_default(redis_client: Redis) -> None:
    store = RedisPatientStore(redis_client)
    await store.commit(P, "n1", [Release(hx("v", 1), "Martin", 5)], CAP)
    assert [await redis_client.ttl(k) for k in store.keys(P)[:3]] == [-1, -1, -1]


@pytest.mark.integration
@pytest.mark.parametrize("crash", [False, True], ids=["graceful-restart", "kill-9"])
async def test_surrogates_and_ledger_survive_a_restart_with_appendonly(tmp_path: Path, crash: bool) -> None:
    with RedisServer(data_dir=tmp_path / "redis", appendonly=True, appendfsync="always") as server:
        store = RedisPatientStore(short_client(server.url, 2.0), max_retries=3, retry_backoff_s=0.05)
        first = await store.commit(
            P, "n1", [Release(hx("v", 1), "Martin"), Release(hx("v", 2), "2001", 300)], CAP
        )
        await store.mark_processed(P, hx("event", 1))
        server.restart(crash=crash)
        # the pooled connection is dead and the script cache empty: both are recovered transparently
        assert await store.lookup(P, [hx("v", 1), hx("v", 2)]) == first.surrogates
        again = await store.commit(P, "n1", [Release(hx("v", 1), "X"), Release(hx("v", 2), "Y", 300)], CAP)
        assert again.replay and again.spent_micro == 0 and again.surrogates == first.surrogates
        assert await store.spent(P) == 300
        assert await store.mark_processed(P, hx("event", 1)) is False
        await store.close()


@pytest.mark.integration
async def test_stopped_server_gives_bounded_exponential_retries_then_store_unavailable() -> None:
    server = RedisServer().start()
    url = server.url
    server.stop()
    sleeps: list[float] = []
    store = fast_store(short_client(url), sleeps, max_retries=4)
    with pytest.raises(StoreUnavailable) as err:
        await store.commit(P, "n1", [Release(hx("v", 1), "Martin")], CAP)
    assert "after 5 attempts" in str(err.value)
    assert len(sleeps) == 4
    # equal jitter: each delay lies in [d/2, d] for d = min(cap, base * 2**attempt)
    for attempt, delay in enumerate(sleeps):
        d = min(0.04, 0.01 * 2**attempt)
        assert d / 2 <= delay <= d
    await store.close()


@pytest.mark.integration
async def test_a_frozen_server_times_out_then_store_unavailable(redis_server: RedisServer) -> None:
    store = fast_store(short_client(redis_server.url, 0.2), max_retries=1)
    await store.ping()
    redis_server.pause()
    try:
        with pytest.raises(StoreUnavailable, match="TimeoutError"):
            await store.lookup(P, [hx("v", 1)])
    finally:
        redis_server.resume()
    await store.ping()  # back to normal once the server answers again
    await store.close()


@pytest.mark.integration
async def test_the_caller_waits_out_an_outage_and_then_commits(tmp_path: Path) -> None:
    server = RedisServer(data_dir=tmp_path / "r", appendonly=True).start()
    server.stop(remove_data=False)

    async def restart_on_second_wait(delay: float) -> None:
        waits.append(delay)
        if len(waits) == 2:
            server.start()

    waits: list[float] = []
    store = RedisPatientStore(short_client(server.url), sleep=restart_on_second_wait, max_retries=5)
    try:
        res = await store.commit(P, "n1", [Release(hx("v", 1), "Martin", 7)], CAP)
        assert res.granted and res.total_micro == 7 and len(waits) == 2
    finally:
        await store.close()
        server.stop(remove_data=True)


@pytest.mark.integration
async def test_password_from_the_url_and_wrong_credentials_fail_without_retrying() -> None:
    with RedisServer(password="s3cret-pw") as server:
        settings = RedisSettings(url=server.url, socket_timeout_s=1.0)
        store = RedisPatientStore.from_settings(settings)
        await store.commit(P, "n1", [Release(hx("v", 1), "Martin")], CAP)
        assert await store.lookup(P, [hx("v", 1)]) == {hx("v", 1): "Martin"}
        await store.close()

        sleeps: list[float] = []
        bad = fast_store(short_client(server.url.replace("s3cret-pw", "wrong")), sleeps)
        with pytest.raises(StoreUnavailable, match="credentials"):
            await bad.lookup(P, [hx("v", 1)])
        assert sleeps == []
        await bad.close()


@pytest.mark.integration
async def test_purge_prefix_removes_an_old_keyspace_and_keeps_the_new_one(redis_client: Redis) -> None:
    old = RedisPatientStore(redis_client, key_prefix="deid")
    new = RedisPatientStore(redis_client, key_prefix="deid:e2")
    for i in range(30):
        await old.commit(hx("p", i), "n", [Release(hx("v", i), "a", 1)], CAP)
    await new.commit(P, "n", [Release(hx("v", 1), "b", 1)], CAP)
    assert await new.purge_prefix("deid", batch=7) == 30 * 3  # memo, budget, spends per patient
    left = [k async for k in redis_client.scan_iter()]
    assert left and all(k.startswith("deid:e2:") for k in left)
    assert await new.lookup(P, [hx("v", 1)]) == {hx("v", 1): "b"}


# -- unit tests: no server needed ------------------------------------------------------------------


async def test_non_hmac_identifiers_are_refused_without_echoing_them() -> None:
    store = RedisPatientStore(fakeredis.FakeAsyncRedis(decode_responses=True))
    for call in (
        store.lookup("Dupont Jean", [hx("v")]),
        store.lookup(P, ["dupont"]),
        store.commit(P, "n1", [Release("0612345678", "x")], CAP),
        store.mark_processed(P, "IPP 12"),
        store.erase_patient("{p:x}"),
    ):
        with pytest.raises(ValueError) as err:
            await call
        assert not re.search(r"dupont|0612345678|IPP|\{p:x\}", str(err.value), re.IGNORECASE)
    with pytest.raises(ValueError):
        await store.commit(P, "n1", [Release(hx("v"), "x", -5)], CAP)


def test_settings_reject_a_ca_file_without_tls_and_a_glob_in_the_prefix() -> None:
    with pytest.raises(ValueError, match="rediss"):
        RedisPatientStore.from_settings(RedisSettings(url="redis://h:6379/0", ssl_ca_certs=Path("/ca.pem")))
    with pytest.raises(ValueError, match="key_prefix"):
        RedisPatientStore.from_settings(RedisSettings(url="redis://h:6379/0", key_prefix="deid*"))


def test_tls_settings_reach_the_connection_pool() -> None:
    store = RedisPatientStore.from_settings(
        RedisSettings(
            url="rediss://:pw@redis.example:6380/0", ssl_ca_certs=Path("/etc/ca.pem"), socket_timeout_s=1.5
        )
    )
    kwargs = store.client.connection_pool.connection_kwargs
    assert kwargs["ssl_ca_certs"] == "/etc/ca.pem" and kwargs["password"] == "pw"
    assert kwargs["socket_timeout"] == 1.5
    assert store.client.connection_pool.connection_class.__name__ == "SSLConnection"


# The least-privilege ACL documented in docs/STORE.md: scripts' inner commands are checked too.
STORE_ACL = (
    "on >acl-pw-0123456789 ~deid:* resetchannels -@all +ping +hmget +get +evalsha +script|load"
    " +hexists +hget +hsetnx +incrby +sadd +expire +hlen +scard +exists +unlink"
)


@pytest.mark.integration
async def test_the_documented_least_privilege_acl_is_enough(
    redis_server: RedisServer, redis_client: Redis
) -> None:
    await redis_client.execute_command("ACL", "SETUSER", "deid-worker", "reset", *STORE_ACL.split())
    await redis_client.script_flush()  # the worker must be able to load the scripts itself
    url = f"redis://deid-worker:acl-pw-0123456789@127.0.0.1:{redis_server.port}/0"
    store = RedisPatientStore.from_settings(RedisSettings(url=url))
    await store.ping()
    res = await store.commit(P, "n1", [Release(hx("v", 1), "Martin", 4)], CAP)
    assert res.granted and await store.lookup(P, [hx("v", 1)]) == {hx("v", 1): "Martin"}
    assert await store.spent(P) == 4 and await store.mark_processed(P, hx("e"))
    assert await store.erase_patient(P) == 4
    ttl_store = RedisPatientStore(store.client, patient_ttl_days=1)
    await ttl_store.commit(P, "n2", [Release(hx("v", 2), "Petit")], CAP)
    with pytest.raises(NoPermissionError):
        await store.client.flushdb()
    await store.close()

    # an ACL missing one command the script needs: refused at once, as StoreUnavailable
    await redis_client.execute_command("ACL", "SETUSER", "deid-worker", "-hsetnx")
    sleeps: list[float] = []
    denied = fast_store(short_client(url), sleeps)
    with pytest.raises(StoreUnavailable, match="refused commit"):
        await denied.commit(P, "n3", [Release(hx("v", 3), "Roux")], CAP)
    assert sleeps == []
    await denied.close()
    await redis_client.execute_command("ACL", "DELUSER", "deid-worker")


class _ClosedOnce:
    """A client whose first HMGET meets a connection another task closed (redis-py's own
    connection code raising on the ``None`` stream), then answers from fakeredis."""

    def __init__(self, inner: object, error_from_redis: bool) -> None:
        self.inner, self.calls, self.error_from_redis = inner, 0, error_from_redis

    def register_script(self, script: str) -> object:
        return self.inner.register_script(script)  # type: ignore[attr-defined]

    async def hmget(self, *args: object) -> object:
        self.calls += 1
        if self.calls == 1:
            if self.error_from_redis:
                from redis.asyncio.connection import Connection

                conn = Connection()
                conn._writer = None  # what a topology refresh leaves behind
                await conn._send_packed_command([b"PING"])
            raise AttributeError("a bug of ours")
        return await self.inner.hmget(*args)  # type: ignore[attr-defined]


async def test_a_connection_closed_under_a_call_by_redis_py_is_retried() -> None:
    client = _ClosedOnce(fakeredis.FakeAsyncRedis(decode_responses=True), error_from_redis=True)
    store = fast_store(client)  # type: ignore[arg-type]
    assert await store.lookup(P, [hx("v", 1)]) == {}
    assert client.calls == 2


async def test_an_attribute_error_of_our_own_is_not_mistaken_for_a_closed_connection() -> None:
    client = _ClosedOnce(fakeredis.FakeAsyncRedis(decode_responses=True), error_from_redis=False)
    store = fast_store(client)  # type: ignore[arg-type]
    with pytest.raises(AttributeError):
        await store.lookup(P, [hx("v", 1)])
    assert client.calls == 1


class _ReplyLostOnce:
    """A client whose first ``EVALSHA`` runs on the server and then loses its reply, as a dropped
    connection does after Redis applied the script."""

    def __init__(self, inner: Redis) -> None:
        self.inner = inner
        self.evalshas = 0
        self.connection_pool = inner.connection_pool

    def register_script(self, script: str) -> object:
        from redis.commands.core import AsyncScript

        return AsyncScript(self, script)  # type: ignore[arg-type]

    async def evalsha(self, *args: object) -> object:
        reply = await self.inner.evalsha(*args)  # type: ignore[arg-type]  (NOSCRIPT raises here)
        self.evalshas += 1
        if self.evalshas == 1:
            from redis.exceptions import ConnectionError as RedisConnectionError

            raise RedisConnectionError("Connection closed by server.")
        return reply

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)


@pytest.mark.integration
async def test_a_retry_after_a_lost_reply_reports_its_own_charge_once_and_a_redelivery_stays_a_replay(
    redis_client: Redis,
) -> None:
    lossy = _ReplyLostOnce(redis_client)
    store = fast_store(lossy)  # type: ignore[arg-type]
    releases = [Release(hx("v", 1), "Durand", 250), Release(hx("v", 2), "Lyon", 0)]
    res = await store.commit(P, "ev-1", releases, CAP)
    assert lossy.evalshas == 2  # applied, reply lost, retried
    assert await redis_client.hlen(store.keys(P)[2]) == 1  # the first attempt did record the spend
    # the retry is the same commit: it reports the charge the ledger holds, and is not a replay
    assert (res.granted, res.replay, res.spent_micro, res.total_micro) == (True, False, 250, 250)
    assert res.surrogates == {hx("v", 1): "Durand", hx("v", 2): "Lyon"}
    assert await store.spent(P) == 250
    # another delivery of the same event (a new call) is a replay: nothing charged, first account
    again = await fast_store(redis_client).commit(P, "ev-1", [Release(hx("v", 1), "Other", 250)], CAP)
    assert (again.replay, again.spent_micro, again.recorded_spent_micro) == (True, 0, 250)
    assert again.surrogates == {hx("v", 1): "Durand"}
    assert await store.spent(P) == 250


class _FailingOverTwice:
    """A client whose first two ``HMGET`` fail as redis-py's cluster client fails while a master
    is down and its replica not yet promoted: these errors derive from ``RedisClusterException``,
    which is not a ``RedisError``."""

    def __init__(self, inner: Redis, errors: list[BaseException]) -> None:
        self.inner = inner
        self.errors = errors
        self.calls = 0
        self.connection_pool = inner.connection_pool

    def register_script(self, script: str) -> object:
        return self.inner.register_script(script)

    async def hmget(self, *args: object) -> object:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return await self.inner.hmget(*args)  # type: ignore[attr-defined]


async def test_the_cluster_clients_own_failover_errors_are_waited_out_not_raised_as_they_are() -> None:
    from redis.exceptions import RedisClusterException, SlotNotCoveredError

    # Seen in CI: a master killed mid-stream made every lookup of its patients raise
    # SlotNotCoveredError, which escaped the retry loop and dead-lettered those patients' notes.
    errors: list[BaseException] = [SlotNotCoveredError("Slot 7 is not covered by the cluster."),
                                   RedisClusterException("Redis Cluster cannot be connected.")]
    client = _FailingOverTwice(fakeredis.FakeAsyncRedis(decode_responses=True), errors)
    sleeps: list[float] = []
    store = fast_store(client, sleeps)  # type: ignore[arg-type]
    assert await store.lookup(P, [hx("v", 1)]) == {}
    assert client.calls == 3 and len(sleeps) == 2


async def test_a_cluster_client_error_that_lasts_becomes_store_unavailable() -> None:
    from redis.exceptions import SlotNotCoveredError

    errors: list[BaseException] = [SlotNotCoveredError("Slot 7 is not covered by the cluster.")] * 10
    client = _FailingOverTwice(fakeredis.FakeAsyncRedis(decode_responses=True), errors)
    store = fast_store(client, max_retries=3)  # type: ignore[arg-type]
    with pytest.raises(StoreUnavailable, match="SlotNotCoveredError"):
        await store.lookup(P, [hx("v", 1)])
    assert client.calls == 4


async def test_a_cluster_client_error_that_waiting_cannot_fix_is_not_retried() -> None:
    """Keys across slots or a node without cluster mode are a bug or a misconfiguration: one
    attempt, then StoreUnavailable, not minutes of retries."""
    from redis.exceptions import RedisClusterException

    errors: list[BaseException] = [RedisClusterException("Cluster mode is not enabled on this node")] * 5
    client = _FailingOverTwice(fakeredis.FakeAsyncRedis(decode_responses=True), errors)
    store = fast_store(client, max_retries=3)  # type: ignore[arg-type]
    with pytest.raises(StoreUnavailable, match="refused"):
        await store.lookup(P, [hx("v", 1)])
    assert client.calls == 1


@pytest.mark.integration
async def test_the_write_probe_fails_with_oom_while_ping_still_answers_then_recovers(
        redis_client: Redis) -> None:
    """Out of memory under noeviction: PING says PONG, every write is refused. The readiness probe
    must see it (issue 33), name the cause, and pass again once writes work."""
    store = RedisPatientStore(redis_client)
    probe = hx("probe", "oom")
    await store.probe_write(probe)
    before = await redis_client.config_get("maxmemory*")
    await redis_client.config_set("maxmemory-policy", "noeviction")
    await redis_client.config_set("maxmemory", "1")
    try:
        await store.ping()  # reads still answer: a PING-only readiness says ready
        with pytest.raises(StoreUnavailable) as err:
            await store.probe_write(probe)
        assert "OutOfMemoryError" in str(err.value) and probe not in str(err.value)
    finally:
        await redis_client.config_set("maxmemory", before["maxmemory"])
        await redis_client.config_set("maxmemory-policy", before["maxmemory-policy"])
    await store.probe_write(probe)
