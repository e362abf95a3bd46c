"""Worker subprocesses against a real broker and a real redis-server: a consumer group of two,
kill -9 and restart, a Redis restart mid-stream."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from worker_testkit import consume, produce, worker_env, worker_settings

from deid.events import DeidNote
from deid.settings import Settings
from worker.samples import sample_notes
from worker.services.broker import TansuBroker, create_topics

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
PROC = Path(__file__).resolve().parent / "worker_proc.py"


class Workers:
    def __init__(self, settings: Settings, tmp: Path, detect_delay_s: float = 0.0) -> None:
        self.env = {**os.environ, **worker_env(settings), "DEID_TEST_DETECT_DELAY_S": str(detect_delay_s)}
        self.tmp = tmp
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self) -> subprocess.Popen[bytes]:
        log = open(self.tmp / f"worker-{len(self.procs)}.log", "wb")  # noqa: SIM115
        p = subprocess.Popen([sys.executable, str(PROC)], cwd=ROOT, env=self.env, stdout=log,
                             stderr=subprocess.STDOUT)
        self.procs.append(p)
        return p

    def stop_all(self) -> list[int]:
        """SIGTERM every live worker; their exit codes (-9 for one killed by the test)."""
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        codes = []
        for p in self.procs:
            try:
                codes.append(p.wait(20))
            except subprocess.TimeoutExpired:
                p.kill()
                codes.append(p.wait())
        return codes

    def logs(self) -> str:
        return "\n".join(f.read_text(errors="replace")[-3000:] for f in sorted(self.tmp.glob("worker-*.log")))


@pytest.fixture
def workers(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[list[Workers]]:
    made: list[Workers] = []
    yield made
    for w in made:
        w.stop_all()


def surrogates_by_patient(records: list[bytes]) -> dict[tuple[str, str], set[str]]:
    """(patient pseudonym, label) -> surrogate strings seen; every planted value of a sample patient
    appears once per label kind per note, so consistency means one surrogate per label and patient
    (dates excepted: the notes carry several different dates)."""
    seen: dict[tuple[str, str], set[str]] = {}
    for value in records:
        note = DeidNote.model_validate_json(value)
        for sp in note.spans:
            if sp.label in ("PHONE", "EMAIL", "ID_PATIENT", "STREET"):
                seen.setdefault((note.patient_pseudonym, sp.label), set()).add(note.text[sp.start:sp.end])
    return seen


def assert_complete_and_identical(records: list[bytes], event_ids: list[str]) -> None:
    """Every note has an output; any duplicate is byte-identical to the first."""
    by_id: dict[str, set[bytes]] = {}
    for value in records:
        by_id.setdefault(orjson.loads(value)["event_id"], set()).add(value)
    assert sorted(by_id) == sorted(event_ids), "some notes have no output"
    assert all(len(v) == 1 for v in by_id.values()), "a duplicate differs from the first output"


async def setup_topics(broker: TansuBroker, s: Settings, partitions: int) -> None:
    await create_topics(broker.bootstrap_servers, [s.kafka.topic_raw_notes], partitions)
    await create_topics(broker.bootstrap_servers, [s.kafka.topic_deid_notes, s.kafka.topic_dead_letter], 1)


async def test_two_workers_in_one_group_give_a_patient_the_same_surrogates_in_every_note(
        broker: TansuBroker, redis_server: object, workers: list[Workers], tmp_path: Path) -> None:
    s = worker_settings(broker.bootstrap_servers, "pair", redis_url=redis_server.url)  # type: ignore[attr-defined]
    await setup_topics(broker, s, partitions=4)
    w = Workers(s, tmp_path)
    workers.append(w)
    w.start()
    w.start()
    notes = sample_notes(24, patients=4)
    await produce(broker.bootstrap_servers, s.kafka.topic_raw_notes, notes)
    out = await consume(broker.bootstrap_servers, s.kafka.topic_deid_notes, 24, timeout_s=90)
    assert len(out) >= 24, w.logs()
    values = [r.value for r in out]
    assert_complete_and_identical(values, [n.event_id for n in notes])
    seen = surrogates_by_patient(values)
    assert len({p for p, _ in seen}) == 4
    assert all(len(v) == 1 for v in seen.values()), seen
    # SIGTERM: each drains, commits, leaves the group and exits 0.
    assert w.stop_all() == [0, 0], w.logs()
    assert w.logs().count("worker stopped after") == 2
    for log in sorted(tmp_path.glob("worker-*.log")):
        assert re.search(r"assigned [1-9]", log.read_text()), "each worker should have had partitions"
    # Everything was committed before they exited: a fresh member of the group re-emits nothing.
    w.start()
    third = tmp_path / "worker-2.log"
    deadline = time.monotonic() + 40
    while not re.search(r"assigned [1-9]", third.read_text()) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert re.search(r"assigned [1-9]", third.read_text()), w.logs()
    again = await consume(broker.bootstrap_servers, s.kafka.topic_deid_notes, 25, timeout_s=2.0)
    assert len(again) == 24


async def test_kill_9_mid_stream_then_restart_loses_no_note_and_duplicates_are_identical(
        broker: TansuBroker, redis_server: object, workers: list[Workers], tmp_path: Path) -> None:
    s = worker_settings(broker.bootstrap_servers, "kill", redis_url=redis_server.url,  # type: ignore[attr-defined]
                        max_events=2)
    await setup_topics(broker, s, partitions=2)
    w = Workers(s, tmp_path, detect_delay_s=0.15)
    workers.append(w)
    first = w.start()
    notes = sample_notes(40, patients=3)
    await produce(broker.bootstrap_servers, s.kafka.topic_raw_notes, notes)
    some = await consume(broker.bootstrap_servers, s.kafka.topic_deid_notes, 4, timeout_s=60)
    assert some, w.logs()
    first.send_signal(signal.SIGKILL)
    first.wait()
    done = await consume(broker.bootstrap_servers, s.kafka.topic_deid_notes, 40, timeout_s=1)
    assert len({DeidNote.model_validate_json(r.value).event_id for r in done}) < 40, "killed too late"
    w.start()
    out = await consume(broker.bootstrap_servers, s.kafka.topic_deid_notes, 40, timeout_s=90, settle_s=1.0)
    assert_complete_and_identical([r.value for r in out], [n.event_id for n in notes])
    seen = surrogates_by_patient([r.value for r in out])
    assert all(len(v) == 1 for v in seen.values())


async def test_redis_restart_mid_stream_loses_no_note_and_keeps_surrogates_consistent(
        broker: TansuBroker, redis_server: object, workers: list[Workers], tmp_path: Path) -> None:
    s = worker_settings(broker.bootstrap_servers, "redis", redis_url=redis_server.url,  # type: ignore[attr-defined]
                        max_events=2)
    await setup_topics(broker, s, partitions=2)
    w = Workers(s, tmp_path, detect_delay_s=0.05)
    workers.append(w)
    w.start()
    notes = sample_notes(30, patients=3)
    await produce(broker.bootstrap_servers, s.kafka.topic_raw_notes, notes[:15])
    before = await consume(broker.bootstrap_servers, s.kafka.topic_deid_notes, 3, timeout_s=60)
    assert before, w.logs()
    redis_server.stop(remove_data=False)  # type: ignore[attr-defined]
    await produce(broker.bootstrap_servers, s.kafka.topic_raw_notes, notes[15:])
    time.sleep(1.5)  # the worker meets the outage and backs off
    redis_server.start()  # type: ignore[attr-defined]  # same port and directory: the AOF replays
    out = await consume(broker.bootstrap_servers, s.kafka.topic_deid_notes, 30, timeout_s=90, settle_s=0.5)
    assert_complete_and_identical([r.value for r in out], [n.event_id for n in notes])
    seen = surrogates_by_patient([r.value for r in out])
    assert all(len(v) == 1 for v in seen.values()), seen


@pytest.fixture
def redis_cluster() -> Iterator[object]:
    """A Redis Cluster of this test alone (three masters, one replica each): one master dies."""
    if shutil.which("redis-cli") is None and not Path("/usr/bin/redis-cli").exists():
        pytest.skip("redis-cli (redis-tools) is not installed")
    from worker.services.redis_cluster import RedisClusterServers

    with RedisClusterServers(masters=3, replicas_per_master=1) as cluster:
        yield cluster


async def test_two_workers_on_a_redis_cluster_survive_a_master_failover_mid_stream(
        broker: TansuBroker, redis_cluster: object, workers: list[Workers], tmp_path: Path) -> None:
    """Two workers in one group share a Redis Cluster; one master is killed -9 mid-stream and its
    replica takes over: every note comes out, duplicates are byte-identical, and each patient
    keeps one surrogate per value across workers and across the failover."""
    cluster = redis_cluster
    s = worker_settings(broker.bootstrap_servers, "cluster", redis_url=cluster.url,  # type: ignore[attr-defined]
                        max_events=2)
    s.redis.mode = "cluster"
    await setup_topics(broker, s, partitions=2)
    w = Workers(s, tmp_path, detect_delay_s=0.1)
    workers.append(w)
    w.start()
    w.start()
    notes = sample_notes(40, patients=4)
    await produce(broker.bootstrap_servers, s.kafka.topic_raw_notes, notes[:20])
    before = await consume(broker.bootstrap_servers, s.kafka.topic_deid_notes, 6, timeout_s=90)
    assert before, w.logs()
    await asyncio.to_thread(cluster.wait_synced, 10.0)  # type: ignore[attr-defined]
    victim = cluster.masters()[0]  # type: ignore[attr-defined]
    victim.stop(crash=True, remove_data=False)
    await produce(broker.bootstrap_servers, s.kafka.topic_raw_notes, notes[20:])
    out = await consume(broker.bootstrap_servers, s.kafka.topic_deid_notes, 40, timeout_s=120, settle_s=1.0)
    # A failover is waited out, never a reason to dead-letter (CI once dead-lettered the notes of
    # the patients whose slot was on the killed master: the cluster client's own errors escaped).
    dead = await consume(broker.bootstrap_servers, s.kafka.topic_dead_letter, 1, timeout_s=2)
    assert not dead, [orjson.loads(r.value).get("reason") for r in dead]
    try:
        assert_complete_and_identical([r.value for r in out], [n.event_id for n in notes])
    except AssertionError as exc:  # the workers' logs say what the store answered
        raise AssertionError(f"{exc}\n{w.logs()}") from None
    seen = surrogates_by_patient([r.value for r in out])
    assert len({p for p, _ in seen}) == 4
    assert all(len(v) == 1 for v in seen.values()), seen
    assert w.stop_all() == [0, 0], w.logs()
