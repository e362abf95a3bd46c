"""No PHI in any log line at any level: the real `deid worker` and `deid mllp` processes run at
DEBUG against a real broker and redis-server, receive notes and HL7 messages full of planted
identities (good ones, rejected ones, dead-lettered ones), then lose their broker for a while;
every line they wrote is searched for every planted value. The broker outage also checks that
client-library errors are rate-limited (a few lines, the rest counted in /metrics)."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import orjson
import pytest
from worker_testkit import TEST_SECRET, consume, produce, worker_env, worker_settings

from deid.events import RawNote
from worker.mllp_client import MllpClient, ack_code
from worker.samples import PATIENTS, phi_values, sample_notes
from worker.services.broker import TansuBroker, create_topics, free_port, wait_for_port

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
PROC = Path(__file__).resolve().parent / "worker_proc.py"
HL7_SAMPLES = ROOT / "tests" / "hl7" / "samples"


def sample(name: str) -> bytes:
    return (HL7_SAMPLES / name).read_bytes()

# What the HL7 sample carries in PID, NK1, PV1... (tests/hl7/samples/oru_r01_fr.hl7)
HL7_PHI = ["DUPONT", "Jean-Pierre", "19850314", "12 rue des Lilas", "1850375123456", "0612345678",
           "jp.dupont@example.fr", "8812345", "ROUSSEAU", "0478123456", "DUPONT-LEGRAND", "0698765432"]


def planted() -> list[str]:
    values = set(HL7_PHI)
    for p in PATIENTS:
        values |= set(phi_values(p)) | {p.patient_id, p.first, p.last, p.birth}
    return sorted(v for v in values if len(v) >= 4)


@pytest.fixture
def own_broker() -> TansuBroker:
    b = TansuBroker().start()
    yield b  # type: ignore[misc]
    b.stop()


async def test_worker_and_bridge_at_debug_log_no_planted_value_and_no_error_flood(
        own_broker: TansuBroker, redis_server: object, tmp_path: Path) -> None:
    bootstrap = own_broker.bootstrap_servers
    s = worker_settings(bootstrap, "phi-logs", redis_url=redis_server.url)  # type: ignore[attr-defined]
    hl7_topic = "rawhl7-phi-logs"
    k = s.kafka
    await create_topics(bootstrap, [k.topic_raw_notes, hl7_topic], 1)
    await create_topics(bootstrap, [k.topic_deid_notes, k.topic_dead_letter], 1)
    env = {**os.environ, **worker_env(s), "DEID_LOG_LEVEL": "DEBUG", "DEID_KAFKA__TOPIC_RAW_HL7": hl7_topic,
           "DEID_HMAC_SECRET": TEST_SECRET, "DEID_BATCH__MAX_TEXT_CHARS": "5000"}
    worker_log, bridge_log = tmp_path / "worker.log", tmp_path / "bridge.log"
    port = free_port()
    procs = []
    try:
        with open(worker_log, "wb") as wl, open(bridge_log, "wb") as bl:
            procs.append(subprocess.Popen([sys.executable, str(PROC)], cwd=ROOT, env=env, stdout=wl,
                                          stderr=subprocess.STDOUT))
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "deid", "mllp", "--host", "127.0.0.1", "--port", str(port),
                 "--bootstrap-servers", bootstrap, "--topic", hl7_topic], cwd=ROOT, env=env, stdout=bl,
                stderr=subprocess.STDOUT))
        assert await asyncio.to_thread(wait_for_port, "127.0.0.1", port, 30.0), bridge_log.read_text()
        # HL7: a good message (AA), one the worker would dead-letter (AR at the edge), a broken one
        good = sample("oru_r01_fr.hl7")
        long_id = good.replace(b"|MSG00001|", b"|" + b"C" * 300 + b"|")
        async with await MllpClient.connect("127.0.0.1", port) as client:
            assert ack_code(await client.send(good)) == "AA"
            assert ack_code(await client.send(long_id)) == "AR"
            assert ack_code(await client.send(sample("bad_no_patient_id.hl7"))) == "AR"
        # JSON: good notes, and bad ones whose PHI sits in an unknown field name, a value, a text
        notes = sample_notes(6, patients=4)
        p = PATIENTS[0]
        bad = [
            (b"k", orjson.dumps({"event_id": "bad-1", "patient_id": p.patient_id, "text": "t",
                                 f"{p.first}_{p.last}": p.phone})),
            (b"k", orjson.dumps({"event_id": "bad-2", "patient_id": p.patient_id, "text": "t",
                                 "document_date": f"{p.first} {p.birth}"})),
            (b"k", orjson.dumps({"event_id": "bad-3", "patient_id": p.patient_id,
                                 "text": f"{p.first} {p.last} " * 2000})),
            (b"k", b'{"event_id": "bad-4", "patient_id": "' + p.last.encode() + b'", "text": '),
        ]
        items: list[RawNote | tuple[bytes | None, bytes | None]] = [*notes, *bad]
        await produce(bootstrap, k.topic_raw_notes, items)
        out = await consume(bootstrap, k.topic_deid_notes, 7, timeout_s=90)
        dlq = await consume(bootstrap, k.topic_dead_letter, 4, timeout_s=30)
        assert len(out) == 7 and len(dlq) == 4, worker_log.read_text()[-3000:]
        http_port = int(re.findall(r"http on port (\d+)", worker_log.read_text())[0])
        # The broker goes away for a while: aiokafka would log dozens of errors per second.
        lines_before = len(worker_log.read_text().splitlines())
        own_broker.stop()
        await asyncio.sleep(8.0)
        outage = worker_log.read_text().splitlines()[lines_before:]
        url = f"http://127.0.0.1:{http_port}/metrics"
        metrics = await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=5).read().decode())
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        codes = []
        for proc in procs:
            try:
                codes.append(proc.wait(30))
            except subprocess.TimeoutExpired:
                proc.kill()
                codes.append(proc.wait())
    logs = {name: path.read_text(errors="replace") for name, path in
            (("worker", worker_log), ("bridge", bridge_log))}
    assert codes == [0, 0], logs  # SIGTERM with the broker gone still exits cleanly
    assert "DEBUG deid" in logs["worker"] and "DEBUG deid" in logs["bridge"], "not run at DEBUG"
    assert "RULES ONLY" in logs["worker"]
    for name, text in logs.items():
        lines = text.splitlines()
        assert lines, name
        for value in planted():
            hits = [line for line in lines if value in line]
            assert not hits, f"{name} log carries a planted value: {hits[:1]}"
    client_lines = [line for line in outage if " aiokafka" in line]
    assert len(client_lines) <= 15, "\n".join(client_lines[:20])
    counted = sum(float(v) for v in re.findall(
        r'deid_client_log_records_total\{level="(?:error|warning)",source="aiokafka"\} (\S+)', metrics))
    assert counted >= len(client_lines)
