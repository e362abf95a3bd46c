"""Store fixtures: a real redis-server started for the session, and the contract's implementations."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import fakeredis
import pytest
from redis.asyncio import Redis

from deid.store.base import PatientStore
from deid.store.local import LocalFileStore
from deid.store.memory import InMemoryStore
from deid.store.redis import RedisPatientStore
from worker.services.redis_server import RedisServer


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """One real server for the session (no persistence); each test flushes it first."""
    with RedisServer() as server:
        yield server


async def _redis_client(url: str) -> Redis:
    return Redis.from_url(url, decode_responses=True, socket_timeout=2.0, socket_connect_timeout=2.0)


@pytest.fixture
async def redis_client(redis_server: RedisServer) -> AsyncIterator[Redis]:
    client = await _redis_client(redis_server.url)
    await client.flushdb()
    yield client
    await client.aclose()


STORE_KINDS = [
    "memory",
    "local",
    "fakeredis",
    pytest.param("redis", marks=pytest.mark.integration),
]


@pytest.fixture(params=STORE_KINDS)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[PatientStore]:
    """Every implementation of the PatientStore contract."""
    kind = request.param
    s: PatientStore
    if kind == "memory":
        s = InMemoryStore()
    elif kind == "local":
        s = LocalFileStore(tmp_path / "store.sqlite")
    elif kind == "fakeredis":
        s = RedisPatientStore(fakeredis.FakeAsyncRedis(decode_responses=True))
    else:
        server: RedisServer = request.getfixturevalue("redis_server")
        client = await _redis_client(server.url)
        await client.flushdb()
        s = RedisPatientStore(client)
    yield s
    await s.close()
