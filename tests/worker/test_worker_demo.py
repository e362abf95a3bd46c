"""``deid demo`` runs end to end by itself and leaves no process behind."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def test_demo_with_exit_after_prints_every_note_and_stops_its_services() -> None:
    # no secret given: the demo draws one for the run (there is no default secret)
    env = {k: v for k, v in os.environ.items() if k != "DEID_HMAC_SECRET"}
    env["DEID_MODEL__ENABLED"] = "false"
    proc = subprocess.run([sys.executable, "-m", "deid", "demo", "--notes", "4", "--patients", "2",
                           "--exit-after", "--delay", "0.05", "--timeout", "90"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=150, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    out = proc.stdout
    assert "4/4 notes de-identified." in out
    assert "secret: a random DEID_HMAC_SECRET drawn for this run" in out
    assert "Consistency: patient" in out
    assert "jeanne.lefebvre56@orange.fr" not in out
    ports = [int(p) for p in re.findall(r"(?:broker: .* on|store: redis-server on) 127\.0\.0\.1:(\d+)", out)]
    assert ports, out[:500]
    assert not [p for p in ports if listening(p)], "the demo left its broker or redis-server running"
