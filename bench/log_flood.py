"""How many log lines a broker outage costs: a real `deid worker` (tests' gazetteer detector,
in-memory store) against the embedded broker, which is then stopped for OUTAGE_S seconds.

    .venv/bin/python bench/log_flood.py [OUTAGE_S]

Prints the lines the worker wrote during the outage, and the client-library records counted and
suppressed by the rate limit (worker/logs.py), read from /metrics.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "worker"))

from worker_testkit import worker_env, worker_settings  # noqa: E402

from worker.services.broker import TansuBroker, create_topics  # noqa: E402


def main() -> None:
    outage_s = float(sys.argv[1]) if len(sys.argv) > 1 else 30.0
    broker = TansuBroker().start()
    s = worker_settings(broker.bootstrap_servers, "flood")
    k = s.kafka
    asyncio.run(create_topics(broker.bootstrap_servers, [k.topic_raw_notes, k.topic_deid_notes,
                                                         k.topic_dead_letter]))
    log_path = Path(tempfile.mkstemp(prefix="deid-flood-", suffix=".log")[1])
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([sys.executable, str(ROOT / "tests" / "worker" / "worker_proc.py")],
                                env={**os.environ, **worker_env(s)}, stdout=log, stderr=subprocess.STDOUT)
    try:
        while "http on port" not in log_path.read_text():
            time.sleep(0.2)
        port = re.findall(r"http on port (\d+)", log_path.read_text())[0]
        before = len(log_path.read_text().splitlines())
        broker.stop()
        time.sleep(outage_s)
        lines = log_path.read_text().splitlines()[before:]
        metrics = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    finally:
        proc.terminate()
        proc.wait(30)
    print(f"broker stopped {outage_s:.0f} s: {len(lines)} log lines written "
          f"({sum(' aiokafka' in line for line in lines)} from aiokafka)")
    for line in metrics.splitlines():
        if line.startswith(("deid_client_log_records_total", "deid_client_log_records_suppressed_total",
                            "deid_broker_")):
            print(line)


if __name__ == "__main__":
    main()
