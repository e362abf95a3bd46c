"""The Redis client of the store, from ``RedisSettings``: one server, a Redis Cluster, or the
master behind Sentinel (``settings.redis.mode``). Part of the Redis adapter: with
``deid/store/redis.py`` the only library modules that import ``redis``.

Every mode gets the same client behaviour: decoded responses, the socket timeout as connect
timeout too, and **no retries of its own** (``Retry(NoBackoff(), 0)``): ``RedisPatientStore`` owns
the retry policy (bounded, jittered, then ``StoreUnavailable`` = back-pressure).

- cluster: ``redis.asyncio.RedisCluster``; a command that meets a dead node marks the topology
  stale and the next call (our retry) re-reads it from a live node, so after a failover the
  promoted replica is found; ``CLUSTERDOWN``/``TRYAGAIN`` are retried like a restart.
- sentinel: ``Sentinel.master_for``; every new connection asks the sentinels for the current
  master, and a ``READONLY`` reply (an old master demoted) drops the pool's connections.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any
from urllib.parse import unquote, urlsplit

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError
from redis.exceptions import TimeoutError as RedisTimeoutError

from deid.settings import RedisSettings

RedisClient = Redis | RedisCluster


def _common(settings: RedisSettings) -> dict[str, Any]:
    return {
        "socket_timeout": settings.socket_timeout_s,
        "socket_connect_timeout": settings.socket_timeout_s,
        "decode_responses": True,
        # Retries are ours (bounded, then StoreUnavailable), not the client's.
        "retry": Retry(NoBackoff(), 0),
    }


def _tls(settings: RedisSettings, url: str | None) -> dict[str, Any]:
    if settings.ssl_ca_certs is None:
        return {}
    if not (url or "").startswith("rediss://"):
        raise ValueError("redis.ssl_ca_certs needs a rediss:// URL")
    return {"ssl_ca_certs": str(settings.ssl_ca_certs)}


def parse_sentinels(text: str | None) -> list[tuple[str, int]]:
    """``"h1:26379,h2:26379"`` -> ``[("h1", 26379), ("h2", 26379)]``."""
    out: list[tuple[str, int]] = []
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        host, sep, port = item.rpartition(":")
        if not sep or not host or not port.isdigit():
            raise ValueError("redis.sentinels must be host:port[,host:port...]")
        out.append((host.strip("[]"), int(port)))
    if not out:
        raise ValueError("redis.mode=sentinel needs redis.sentinels (host:port[,host:port...])")
    return out


def make_client(settings: RedisSettings) -> RedisClient:
    """A client for ``settings.mode``; no connection is made here."""
    if settings.mode == "sentinel":
        return _sentinel_master(settings)
    if not settings.url:
        raise ValueError("settings.redis.url is not set")
    kwargs = {**_common(settings), **_tls(settings, settings.url)}
    if settings.mode == "cluster":
        # Coverage of every slot is required: a patient whose slot has no master waits (retried,
        # then back-pressure) rather than being served by a node that does not own it.
        return RedisCluster.from_url(settings.url, require_full_coverage=True, **kwargs)
    return Redis.from_url(settings.url, health_check_interval=30, **kwargs)


def _sentinel_master(settings: RedisSettings) -> Redis:
    kwargs = _common(settings)
    if settings.url:
        parts = urlsplit(settings.url)
        if parts.scheme not in ("redis", "rediss"):
            raise ValueError("redis.url must be redis:// or rediss:// (with mode=sentinel: credentials only)")
        if parts.username:
            kwargs["username"] = unquote(parts.username)
        if parts.password:
            kwargs["password"] = unquote(parts.password)
        db = parts.path.lstrip("/")
        if db:
            kwargs["db"] = int(db)
        if parts.scheme == "rediss":
            kwargs["ssl"] = True
        kwargs.update(_tls(settings, settings.url))
    elif settings.ssl_ca_certs is not None:
        raise ValueError("redis.ssl_ca_certs needs a rediss:// URL")
    sentinel_kwargs: dict[str, Any] = {"socket_timeout": settings.socket_timeout_s,
                                       "socket_connect_timeout": settings.socket_timeout_s}
    if settings.sentinel_password is not None:
        sentinel_kwargs["password"] = settings.sentinel_password.get_secret_value()
    sentinel = Sentinel(parse_sentinels(settings.sentinels), sentinel_kwargs=sentinel_kwargs, **kwargs)
    return sentinel.master_for(settings.sentinel_master, redis_class=Redis, **kwargs)


def _direct_kwargs(kw: dict[str, Any]) -> dict[str, Any]:
    """A cluster node's credentials, timeouts and TLS settings, for a plain client to it."""
    keep = {"username", "password", "socket_timeout", "socket_connect_timeout", "decode_responses"}
    out = {k: v for k, v in kw.items() if k in keep or k.startswith("ssl_")}
    if getattr(kw.get("connection_class"), "__name__", "") == "SSLConnection":
        out["ssl"] = True
    return out


class ClusterScripts:
    """The store's Lua scripts on a Redis Cluster: loaded on every master before the first
    ``EVALSHA``, and on the node that answers ``NOSCRIPT`` (a promoted replica has an empty script
    cache); a master of the cached topology found dead has the client re-read the topology.
    redis-py's own fallback (``Script.__call__``: NOSCRIPT -> SCRIPT LOAD -> EVALSHA), hit by
    concurrent calls, broke the cluster client's connections here (redis 8.1: "Connection closed
    by server" on every node, so applied commits lost their replies)."""

    def __init__(self, client: RedisCluster) -> None:
        self._client = client
        self._lock = asyncio.Lock()
        self._scripts: dict[str, str] = {}  # sha -> source
        self._loaded = False

    def wrap(self, script: Any) -> ClusterScript:
        """A drop-in for a ``register_script`` object: ``await s(keys=..., args=...)``."""
        self._scripts[script.sha] = script.script
        return ClusterScript(self, script.sha)

    async def ensure_loaded(self) -> None:
        if self._loaded:
            return
        async with self._lock:
            if not self._loaded:
                await self._client.initialize()
                try:
                    for node in self._client.get_primaries():
                        await self._load_on(node)
                except (RedisConnectionError, RedisTimeoutError, OSError):
                    # A master of the cached topology is gone. The cluster client re-reads the
                    # topology only after one of its own commands fails, never after this direct
                    # connection does: without this the store retried the dead master forever,
                    # long after its replica took over (seen in CI).
                    await self._client.aclose()
                    raise
                self._loaded = True

    async def _load_on(self, node: Any) -> None:
        """Every script on one node, through one plain connection apart from the cluster client's
        pools: a multi-node SCRIPT LOAD through the cluster client, concurrent with other
        commands, dropped their connections (redis 8.1)."""
        direct = Redis(host=node.host, port=int(node.port), **_direct_kwargs(node.connection_kwargs))
        try:
            for source in self._scripts.values():
                await direct.script_load(source)
        finally:
            await direct.aclose()

    async def evalsha(self, sha: str, keys: Sequence[Any], args: Sequence[Any]) -> Any:
        await self.ensure_loaded()
        try:
            return await self._client.evalsha(sha, len(keys), *keys, *args)
        except NoScriptError as exc:
            # a promoted replica has an empty script cache: load there, the node that said so
            node = getattr(exc, "connection", None)
            if node is not None and hasattr(node, "connection_kwargs"):
                await self._load_on(node)
            else:
                self._loaded = False
                await self.ensure_loaded()
            return await self._client.evalsha(sha, len(keys), *keys, *args)


class ClusterScript:
    def __init__(self, scripts: ClusterScripts, sha: str) -> None:
        self._scripts = scripts
        self.sha = sha

    async def __call__(self, keys: Sequence[Any] = (), args: Sequence[Any] = ()) -> Any:
        return await self._scripts.evalsha(self.sha, keys, args)
