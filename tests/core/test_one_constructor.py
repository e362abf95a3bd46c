"""Issue 34: one constructor of the detector and of the pipeline (the commands lay their flags over
the settings and call it), one "no model" warning, the secret rule in the settings and the keyed
hasher built in one place, and settings that did nothing refused instead of ignored."""

from __future__ import annotations

import argparse
import ast
import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

import deid.pipeline
from deid.cli import CliError
from deid.cli._detector import detector_from_args, detector_settings
from deid.settings import PrivacySettings, Settings

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = sorted([*(ROOT / "deid").rglob("*.py"), *(ROOT / "worker").rglob("*.py")])
SECRET = "kq3-Zr8vT1xPw0LmN5bYc7Hs2DgF4jAe9Uo6"


def _calls(name: str) -> list[str]:
    """Where the product calls ``name(...)`` (as a bare name or an attribute)."""
    found = []
    for path in PRODUCT:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                f = node.func
                called = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
                if called == name:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def _defines(name: str) -> list[str]:
    return [str(p.relative_to(ROOT)) for p in PRODUCT
            for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
            if isinstance(node, ast.FunctionDef) and node.name == name]


def test_the_detector_and_the_substitution_engine_have_one_constructor_each() -> None:
    assert _defines("build_detector") == ["deid/pipeline.py"]
    assert _defines("build_pipeline") == ["deid/pipeline.py"]
    # the engine is built from settings in one function, which the pipeline and the one-note
    # entry of the command line both call
    assert [c.split(":")[0] for c in _calls("Substituter")] == ["deid/substitution/profiles.py"]


def test_a_keyed_hasher_is_built_from_settings_in_one_place() -> None:
    assert _calls("KeyHasher") == []  # every product use goes through KeyHasher.from_settings
    users = {c.split(":")[0] for c in _calls("from_settings")}
    assert {"deid/substitution/profiles.py", "worker/mllp.py"} <= users


def test_the_secret_rule_lives_in_the_settings_and_each_service_checks_it_once_at_its_start() -> None:
    assert sorted(c.split(":")[0] for c in _calls("require_secret")) == [
        "deid/store/factory.py",  # a memo file kept between runs
        "worker/main.py",  # the worker's serve
        "worker/mllp.py",  # the MLLP bridge's serve
    ]
    assert {c.split(":")[0] for c in _calls("secret_weakness")} == {"deid/settings.py"}


@pytest.mark.parametrize(("flags", "model"), [
    ({"rules_only": True}, {"enabled": False}),
    ({"model": Path("/m"), "backend": "onnx", "min_phi_prob": 0.2},
     {"enabled": True, "path": Path("/m"), "backend": "onnx", "min_phi_prob": 0.2}),
    ({}, {"enabled": True, "path": None, "backend": "auto", "min_phi_prob": "model"}),
])
def test_a_command_lays_its_flags_over_the_settings_and_calls_the_one_constructor(
        flags: dict[str, Any], model: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    for var in ("PATH", "BACKEND", "MIN_PHI_PROB", "ENABLED"):
        monkeypatch.delenv(f"DEID_MODEL__{var}", raising=False)
    seen: list[Settings] = []
    monkeypatch.setattr(deid.pipeline, "build_detector", lambda s: seen.append(s) or "detector")
    assert detector_from_args(argparse.Namespace(**flags)) == "detector"
    (settings,) = seen
    assert {k: getattr(settings.model, k) for k in model} == model
    warned = capsys.readouterr().err
    assert (warned == f"WARNING: {deid.pipeline.RULES_ONLY_WARNING}\n") is (not model["enabled"])


def test_the_command_line_decides_whether_the_model_runs_not_the_workers_switch(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEID_MODEL__ENABLED", "false")
    assert detector_settings(argparse.Namespace(rules_only=False)).model.enabled is True
    with pytest.raises(CliError, match="exclude each other"):
        detector_settings(argparse.Namespace(rules_only=True, model=Path("m")))


def test_the_worker_refuses_a_missing_model_in_one_line(tmp_path: Path) -> None:
    from worker.main import ConfigError, serve

    settings = Settings.model_validate({"hmac_secret": SECRET, "model": {"path": str(tmp_path / "none")}})
    with pytest.raises(ConfigError, match=r"^no model at .*none \(expected a token-classification"):
        asyncio.run(serve(settings, install_signals=False))


@pytest.mark.parametrize("removed", ["place_radius_km", "place_k"])
def test_a_removed_privacy_setting_is_refused_naming_it(removed: str) -> None:
    refusal = f"privacy.{removed} removed .* unset DEID_PRIVACY__{removed.upper()}"
    with pytest.raises(ValidationError, match=refusal):
        Settings.model_validate({"privacy": {removed: 5}})
    assert removed not in PrivacySettings.model_fields
    Settings.model_validate({"privacy": {"epsilon_per_note": 2.0}})  # the others still load


def test_the_worker_started_with_a_removed_setting_exits_2_in_one_line() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEID_")}
    env |= {"DEID_HMAC_SECRET": SECRET, "DEID_PRIVACY__PLACE_K": "10"}
    proc = subprocess.run([sys.executable, "-m", "deid", "worker"], cwd=ROOT, capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("deid worker: error: invalid settings in the environment: privacy")
    assert "DEID_PRIVACY__PLACE_K" in line
