"""Redis store: the production store, shared by every worker replica.

Layout (all keys of one patient share the hash tag ``{p:<patient>}``, hence one cluster slot, so
each script touches a single slot)::

    <prefix>:{p:<patient>}:memo     hash   value key -> surrogate
    <prefix>:{p:<patient>}:budget   string integer micro-epsilon spent
    <prefix>:{p:<patient>}:spends   hash   spend id -> "<spent>:<total>:<attempt>" of its first granted commit
    <prefix>:{p:<patient>}:events   set    event keys already processed
    <prefix>:{p:<patient>}:timeline hash   value key -> sealed timeline point of a date value

``patient`` and every value or event key are lowercase hex HMACs (``deid.store.keys.KeyHasher``); this
module refuses anything else, so a raw name or id can never become a Redis key or field by
mistake. One batch of one patient costs one round trip for ``lookup`` (HMGET) and one for
``commit`` (EVALSHA of ``lua/commit.lua``). See docs/STORE.md for the threat model.
"""

from __future__ import annotations

import asyncio
import random
import re
import secrets
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from importlib import resources
from typing import Any, TypeVar

from redis import exceptions as rexc

from deid.settings import RedisSettings
from deid.store.base import PROBE_TTL_S, CommitResult, PatientStore, Release, StoreUnavailable
from deid.store.checks import check_hex, check_release, check_spend_id
from deid.store.redis_client import ClusterScripts, RedisClient, RedisCluster, make_client

__all__ = ["RedisPatientStore", "check_hex", "check_release", "check_spend_id"]

T = TypeVar("T")

_PREFIX = re.compile(r"[A-Za-z0-9_.:-]{1,64}")  # no glob or hash-tag characters
_DAY_S = 86_400

# Failures worth waiting out: the server is down, restarting (LOADING), slow (timeouts), failing
# over (READONLY, MASTERDOWN), busy with a script, or full under noeviction (OOM).
# Raised by the cluster and sentinel clients while a master fails over (their messages do not
# always start with the server's error word).
_FAILOVER_ERRORS = (rexc.ClusterDownError, rexc.TryAgainError, rexc.MasterDownError, rexc.SlotNotCoveredError,
                    rexc.ReadOnlyError, rexc.BusyLoadingError, rexc.ClusterError)
_RETRYABLE_PREFIXES = ("BUSY", "LOADING", "MASTERDOWN", "READONLY", "TRYAGAIN", "CLUSTERDOWN", "OOM")
# The cluster client's own errors derive from ``RedisClusterException``, not ``RedisError``. While a
# master is down and its replica not yet promoted, its topology refresh raises these: a failover to
# wait out. Its other ones (keys across slots, cluster mode off, a missing key) are a bug or a
# misconfiguration that waiting cannot fix.
_CLUSTER_FAILOVER_MESSAGES = ("All slots are not covered", "Redis Cluster cannot be connected",
                              "No targets were found")


def _load_script(name: str) -> str:
    return resources.files("deid.store").joinpath("lua", name).read_text(encoding="utf-8")


def _closed_under_the_call(exc: BaseException) -> bool:
    """A connection closed by another task while this call used it: redis-py's cluster client
    disconnects every node's connections when it refreshes the topology after one command's
    timeout, and a concurrent command on one of them then fails inside redis-py's connection code
    with ``AttributeError``/``TypeError`` on the ``None`` stream (seen here under load with 3
    processes x 8 concurrent calls; redis-py 8.1, issue redis/redis-py#3546). Only errors raised
    from redis-py's own asyncio connection module qualify, so a bug of ours is never retried."""
    if not isinstance(exc, AttributeError | TypeError):
        return False
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return False
    return tb.tb_frame.f_code.co_filename.replace("\\", "/").endswith(_REDIS_CONNECTION_MODULE)


_REDIS_CONNECTION_MODULE = "redis/asyncio/connection.py"
_ERROR_WORD = re.compile(r"[A-Z]{2,16}")  # the server's error code: OOM, READONLY, MISCONF, NOPERM...


def _refusal(exc: BaseException) -> str:
    """What refused: redis-py's class for the server's error (``OutOfMemoryError`` for OOM,
    ``ReadOnlyError``), else for a bare ``ResponseError`` the server's error code (its first word):
    a name from a fixed set, never the rest of a message."""
    if type(exc) is rexc.ResponseError:
        word = str(exc).split(" ", 1)[0]
        if _ERROR_WORD.fullmatch(word):
            return word
    return type(exc).__name__


def _retryable(exc: BaseException) -> bool:
    if isinstance(exc, rexc.AuthenticationError | rexc.AuthorizationError):
        return False  # wrong credentials do not fix themselves
    if isinstance(exc, (rexc.ConnectionError, rexc.TimeoutError, OSError, *_FAILOVER_ERRORS)):
        return True
    if isinstance(exc, rexc.RedisClusterException):
        return isinstance(exc, rexc.SlotNotCoveredError) or str(exc).startswith(_CLUSTER_FAILOVER_MESSAGES)
    if isinstance(exc, rexc.ResponseError):
        return str(exc).upper().startswith(_RETRYABLE_PREFIXES)
    return False


class RedisPatientStore(PatientStore):
    """``PatientStore`` on Redis with bounded retries and exponential backoff.

    When Redis does not answer after ``max_retries`` retries, ``StoreUnavailable`` is raised: the
    caller must pause (back-pressure), never continue without the memo. Errors that waiting cannot
    fix (wrong credentials, an ACL denial) raise it at once, so callers handle one exception type;
    only invalid arguments raise ``ValueError``. Retrying a ``commit`` is
    safe: if a lost reply had in fact been applied, the retry finds the call's own attempt token
    recorded with the spend id and answers what that attempt did, so nothing is charged twice, the
    surrogates are the same and the charge is reported once.
    """

    def __init__(
        self,
        client: RedisClient,
        *,
        key_prefix: str = "deid",
        patient_ttl_days: int = 0,
        max_retries: int = 5,
        retry_backoff_s: float = 0.1,
        retry_backoff_max_s: float = 5.0,
        rng: random.Random | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        if not _PREFIX.fullmatch(key_prefix):
            raise ValueError("key_prefix must be 1-64 characters among A-Z a-z 0-9 _ . : -")
        if patient_ttl_days < 0 or max_retries < 0:
            raise ValueError("patient_ttl_days and max_retries must be >= 0")
        self._client = client
        self._prefix = key_prefix
        self._ttl_s = patient_ttl_days * _DAY_S
        self._max_retries = max_retries
        self._backoff_s = retry_backoff_s
        self._backoff_max_s = retry_backoff_max_s
        # Jitter only spreads replicas' retries apart; it needs no secure generator.
        self._rng = rng or random.Random()
        self._sleep = sleep
        self._commit = client.register_script(_load_script("commit.lua"))
        self._mark = client.register_script(_load_script("mark.lua"))
        self._erase = client.register_script(_load_script("erase.lua"))

    @classmethod
    def from_settings(cls, settings: RedisSettings, *, rng: random.Random | None = None) -> RedisPatientStore:
        """Client for ``settings.mode``: one server at ``settings.url`` (``redis://`` or
        ``rediss://``, password in the URL), a Redis Cluster reached through any node, or the
        master behind Sentinel (``deid.store.redis_client``)."""
        client = make_client(settings)
        store = cls(
            client,
            key_prefix=settings.key_prefix,
            patient_ttl_days=settings.patient_ttl_days,
            max_retries=settings.max_retries,
            retry_backoff_s=settings.retry_backoff_s,
            retry_backoff_max_s=settings.retry_backoff_max_s,
            rng=rng,
        )
        if isinstance(client, RedisCluster):
            scripts = ClusterScripts(client)
            # same call signature as the registered scripts: ``await s(keys=..., args=...)``
            wrapped: Any = [scripts.wrap(s) for s in (store._commit, store._mark, store._erase)]
            store._commit, store._mark, store._erase = wrapped
        return store

    @property
    def client(self) -> RedisClient:
        return self._client

    def keys(self, patient: str) -> list[str]:
        """The patient's five keys: memo, budget, spends, events, timeline (the scripts' KEYS order)."""
        check_hex("patient", patient)
        base = f"{self._prefix}:{{p:{patient}}}"
        return [f"{base}:memo", f"{base}:budget", f"{base}:spends", f"{base}:events", f"{base}:timeline"]

    def backoff_delay(self, attempt: int) -> float:
        """Delay before retry ``attempt`` (0-based): exponential, capped, with equal jitter."""
        delay = min(self._backoff_max_s, self._backoff_s * (2**attempt))
        return delay / 2 + self._rng.random() * delay / 2

    async def _run(self, op: str, call: Callable[[], Awaitable[T]]) -> T:
        last = "no attempt"
        for attempt in range(self._max_retries + 1):
            try:
                return await call()
            except (rexc.AuthenticationError, rexc.AuthorizationError) as exc:
                raise StoreUnavailable(f"Redis refused the credentials during {op}") from exc
            except (AttributeError, TypeError) as exc:
                if not _closed_under_the_call(exc):
                    raise
                last = "ConnectionClosed"
            except (rexc.RedisError, rexc.RedisClusterException, OSError) as exc:
                if not _retryable(exc):  # ACL denial, wrong key type...: waiting will not help
                    raise StoreUnavailable(f"Redis refused {op} ({type(exc).__name__})") from exc
                last = type(exc).__name__
            if attempt < self._max_retries:
                await self._sleep(self.backoff_delay(attempt))
        raise StoreUnavailable(
            f"Redis unavailable during {op} after {self._max_retries + 1} attempts ({last})"
        )

    async def lookup(self, patient: str, keys: Sequence[str]) -> dict[str, str]:
        memo = self.keys(patient)[0]
        wanted = list(dict.fromkeys(keys))
        for k in wanted:
            check_hex("value key", k)
        if not wanted:
            return {}
        values = await self._run("lookup", lambda: self._client.hmget(memo, wanted))
        return {k: str(v) for k, v in zip(wanted, values, strict=True) if v is not None}

    async def commit(
        self, patient: str, spend_id: str, releases: Sequence[Release], cap_micro: int
    ) -> CommitResult:
        keys = self.keys(patient)
        check_spend_id(spend_id)
        if not isinstance(cap_micro, int) or cap_micro < 0:
            raise ValueError("cap_micro must be a non-negative integer")
        # One token per call, the same across its retries: a retry after a lost reply whose first
        # attempt was applied is recognised as that commit (it reports what it charged), not as
        # a replay of another delivery (which would report nothing charged while the ledger grew).
        attempt = secrets.token_hex(8)
        args: list[str | int] = [cap_micro, spend_id, self._ttl_s, attempt]
        for r in releases:
            check_release(r)
            args += [r.key, r.surrogate, r.cost_micro, r.timeline]
        granted, spent_now, total, replay, values, rec_spent, rec_total = await self._run(
            "commit", lambda: self._commit(keys=keys, args=args)
        )
        surrogates: dict[str, str] = {}
        refused: set[str] = set()
        for r, v in zip(releases, values, strict=True):
            if v is None:
                refused.add(r.key)
            else:
                surrogates[r.key] = v
        return CommitResult(
            surrogates=surrogates,
            granted=bool(granted),
            spent_micro=int(spent_now),
            total_micro=int(total),
            replay=bool(replay),
            refused_keys=frozenset(refused),
            recorded_spent_micro=int(rec_spent),
            recorded_total_micro=int(rec_total),
        )

    async def timeline(self, patient: str) -> dict[str, str]:
        key = self.keys(patient)[4]
        found = await self._run("timeline", lambda: self._client.hgetall(key))
        return {str(k): str(v) for k, v in found.items()}

    async def spent(self, patient: str) -> int:
        budget = self.keys(patient)[1]
        value = await self._run("spent", lambda: self._client.get(budget))
        return int(value or 0)

    async def mark_processed(self, patient: str, event_key: str) -> bool:
        keys = self.keys(patient)
        check_hex("event key", event_key)
        added = await self._run(
            "mark_processed", lambda: self._mark(keys=keys, args=[event_key, self._ttl_s])
        )
        return bool(added)

    async def erase_patient(self, patient: str) -> int:
        keys = self.keys(patient)
        return int(await self._run("erase_patient", lambda: self._erase(keys=keys)))

    async def ping(self) -> None:
        """Readiness probe: raises ``StoreUnavailable`` when Redis does not answer."""
        await self._run("ping", lambda: self._client.ping())

    async def probe_write(self, probe_key: str) -> None:
        """``SET <prefix>:probe:<probe_key> 1 EX PROBE_TTL_S``, once: outside every patient's hash
        tag (``purge_prefix`` and ``erase_patient`` never see it; it expires by itself). A full
        server under ``noeviction`` answers OOM here while PING still says PONG."""
        check_hex("probe key", probe_key)
        key = f"{self._prefix}:probe:{probe_key}"
        try:
            await self._client.set(key, "1", ex=PROBE_TTL_S)
        except rexc.ResponseError as exc:
            raise StoreUnavailable(f"Redis refused probe_write ({_refusal(exc)})") from exc
        except (rexc.RedisError, rexc.RedisClusterException, OSError) as exc:
            raise StoreUnavailable(f"Redis unavailable during probe_write ({type(exc).__name__})") from exc

    async def purge_prefix(self, key_prefix: str, *, batch: int = 500) -> int:
        """Delete every patient key under ``key_prefix`` (an old keyspace after a secret rotation).

        Scans with SCAN (no blocking KEYS) and unlinks in batches; returns the number of keys removed.
        Keys under a longer prefix (``deid:e2`` when purging ``deid``) are not matched.
        """
        if not _PREFIX.fullmatch(key_prefix):
            raise ValueError("key_prefix must be 1-64 characters among A-Z a-z 0-9 _ . : -")
        pattern = f"{key_prefix}:{{p:*"

        async def scan() -> list[str]:
            return [k async for k in self._client.scan_iter(match=pattern, count=batch)]

        found = await self._run("purge_prefix", scan)
        removed = 0
        for i in range(0, len(found), batch):
            chunk = found[i : i + batch]
            removed += int(await self._run("purge_prefix", partial(self._client.unlink, *chunk)))
        return removed

    async def close(self) -> None:
        await self._client.aclose()
