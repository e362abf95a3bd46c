"""The chart's bridge limits (mllp.maxMessageBytes, maxConnections, idleTimeoutSeconds,
frameTimeoutSeconds) reach the bridge's settings, and its defaults are the bridge's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from deid.settings import MllpSettings, Settings

helm = pytest.importorskip("helm_python", reason="helm-python-sdk (dev extra) renders the chart")
yaml = pytest.importorskip("yaml")

CHART = Path(__file__).resolve().parents[2] / "helm" / "deid"
REQUIRED = {"hmac": {"existingSecret": "deid-hmac"}, "kafka": {"bootstrapServers": "kafka:9092"}}


def _mllp_settings(mllp_values: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> MllpSettings:
    with helm.Chart.load(CHART) as chart:
        values = {**REQUIRED, "mllp": {"enabled": True, **mllp_values}}
        files = chart.render(values, name="rel", namespace="deid")
    configmap = next(yaml.safe_load(text) for name, text in files.items() if name.endswith("configmap.yaml"))
    for name, value in configmap["data"].items():
        monkeypatch.setenv(name, value)
    return Settings().mllp


def test_the_chart_defaults_are_the_bridge_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _mllp_settings({}, monkeypatch) == MllpSettings()


def test_the_chart_values_reach_the_bridge_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    m = _mllp_settings({"maxMessageBytes": 1048576, "maxConnections": 16, "idleTimeoutSeconds": 2.5,
                        "frameTimeoutSeconds": 10}, monkeypatch)
    assert (m.max_message_bytes, m.max_connections, m.idle_timeout_s, m.frame_timeout_s) == (
        1_048_576, 16, 2.5, 10.0)
