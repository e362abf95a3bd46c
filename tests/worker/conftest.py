from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from worker.services.broker import TansuBroker


@pytest.fixture(scope="module")
def broker() -> Iterator[TansuBroker]:
    with TansuBroker() as b:
        yield b


@pytest.fixture(scope="module")
def redis_server() -> Iterator[object]:
    if shutil.which("redis-server") is None and not Path("/usr/bin/redis-server").exists():
        pytest.skip("redis-server is not installed")
    from worker.services.redis_server import RedisServer

    with RedisServer(appendonly=True, appendfsync="always") as server:
        yield server
