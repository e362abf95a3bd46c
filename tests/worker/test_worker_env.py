"""The settings a worker subprocess gets from ``worker.env.worker_env`` (the worker tests' and the
benchmarks' one rendering) are the settings of the process that starts it."""

from __future__ import annotations

import os

import pytest
from worker_testkit import worker_settings

from deid.settings import Settings
from worker.env import worker_env


def _read_back(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Settings:
    """The settings a child process with only ``env`` for DEID_* variables would load."""
    for name in [n for n in os.environ if n.startswith("DEID_")]:
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return Settings()


@pytest.mark.parametrize("redis_url", [None, "redis://127.0.0.1:6390/0"])
def test_a_worker_process_reads_back_the_settings_its_parent_rendered(
    redis_url: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    parent = worker_settings("127.0.0.1:19092", "env", redis_url, max_events=5, max_wait_ms=70)
    child = _read_back(worker_env(parent), monkeypatch)
    kafka = {
        "bootstrap_servers",
        "consumer_group",
        "topic_raw_notes",
        "topic_deid_notes",
        "topic_dead_letter",
        "session_timeout_ms",
        "heartbeat_interval_ms",
        "rebalance_timeout_ms",
    }
    assert child.kafka.model_dump(include=kafka) == parent.kafka.model_dump(include=kafka)
    assert child.secret_bytes() == parent.secret_bytes()
    assert child.model.enabled is parent.model.enabled is False
    assert (child.batch.max_events, child.batch.max_wait_ms) == (5, 70)
    redis = {"url", "mode", "sentinels", "socket_timeout_s", "max_retries", "retry_backoff_max_s"}
    assert child.redis.model_dump(include=redis) == parent.redis.model_dump(include=redis)
    # several workers on one machine: each serves HTTP on a free local port
    assert (child.http.host, child.http.port) == ("127.0.0.1", 0)


def test_a_model_switched_on_in_the_parent_is_on_in_the_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    parent = worker_settings("127.0.0.1:19092", "env-model")
    parent.model.enabled = True
    assert _read_back(worker_env(parent), monkeypatch).model.enabled is True
