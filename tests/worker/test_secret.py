"""No default secret: the services refuse to start without DEID_HMAC_SECRET (>= 32 bytes), the
source holds no usable secret, and the command-line memo file needs a stable one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from deid.keys import KeyHasher
from deid.settings import MIN_SECRET_BYTES, SecretNotSet, Settings

ROOT = Path(__file__).resolve().parents[2]


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEID_")}
    return {**env, **extra}


def _deid(*args: str, env: dict[str, str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "deid", *args], env=env, cwd=ROOT, capture_output=True,
                          text=True, input=stdin, timeout=120)


@pytest.mark.parametrize("command", ["worker", "mllp"])
@pytest.mark.parametrize("secret", [None, "", "too-short-0123456789"])
def test_a_service_without_an_adequate_secret_exits_2_with_one_line_naming_the_setting(
        command: str, secret: str | None) -> None:
    env = _env() if secret is None else _env(DEID_HMAC_SECRET=secret)
    proc = _deid(command, env=env)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"deid {command}: error: DEID_HMAC_SECRET")
    assert str(MIN_SECRET_BYTES) in lines[0]
    assert proc.stdout == ""


def test_the_settings_have_no_default_secret_and_the_source_holds_none() -> None:
    assert Settings.model_fields["hmac_secret"].default is None
    with pytest.raises(SecretNotSet, match="DEID_HMAC_SECRET"):
        Settings.model_validate({}).require_secret()
    good = "9f2c41d0b7e85a63c1f04e9ad27b5c38e6a1d94f0b72c5e83a6d19f4b0c7e25a"
    assert Settings.model_validate({"hmac_secret": good}).require_secret() == good.encode()
    import deid.settings

    assert not hasattr(deid.settings, "DEV_HMAC_SECRET")
    assert "allow_dev_secret" not in Settings.model_fields
    leaked = [str(p.relative_to(ROOT)) for p in (ROOT / "deid").rglob("*.py")
              if "dev-only-secret" in p.read_text(encoding="utf-8")]
    assert not leaked


def test_without_a_secret_a_one_off_library_run_draws_a_random_one_per_process() -> None:
    code = ("from deid.settings import Settings; from deid.keys import KeyHasher; "
            "print(KeyHasher(Settings().secret_bytes()).patient('4471298'))")
    runs = {subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True,
                           check=True).stdout for _ in range(2)}
    assert len(runs) == 2  # two processes, two secrets: nothing recomputable from the source
    one, two = Settings.model_validate({}), Settings.model_validate({})
    assert KeyHasher(one.secret_bytes()).patient("p") == KeyHasher(two.secret_bytes()).patient("p")


def test_redact_with_a_memo_file_refuses_to_run_without_a_secret_in_one_line(tmp_path: Path) -> None:
    proc = _deid("redact", "--strategy", "random", "--store", str(tmp_path / "memo.db"), "-", env=_env(),
                 stdin="Le patient Jean Dupont, né le 12/03/1961.")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "DEID_HMAC_SECRET" in lines[0], proc.stderr
    assert not (tmp_path / "memo.db").exists()


def test_redact_with_a_memo_file_and_a_secret_is_consistent_across_runs(tmp_path: Path) -> None:
    env = _env(DEID_HMAC_SECRET="redact-memo-secret-0123456789abcdef0123456789")
    note = "Le patient Jean Dupont est suivi."
    outs = [_deid("redact", "--rules-only", "--strategy", "random", "--patient", "p1", "--store",
                  str(tmp_path / "memo.db"), "-", env=env, stdin=note) for _ in range(2)]
    assert [o.returncode for o in outs] == [0, 0], [o.stderr for o in outs]
    assert outs[0].stdout == outs[1].stdout


@pytest.mark.parametrize(("secret", "why"), [
    (" " * 32, "distinct characters"),
    ("s" * 40, "distinct characters"),
    ("dev-only-secret-change-me-0123456789", "published default"),
    ("abcdefghijklmnopqrstuvwxyzabcdefgh", "one class"),
    ("12345678901234567890123456789012", "distinct characters"),
])
def test_a_secret_that_does_not_look_random_is_refused_in_one_line(secret: str, why: str) -> None:
    with pytest.raises(SecretNotSet, match=why):
        Settings.model_validate({"hmac_secret": secret}).require_secret()
    proc = _deid("worker", env=_env(DEID_HMAC_SECRET=secret))
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "does not look random" in proc.stderr


def test_hex_and_base64_secrets_from_openssl_are_accepted() -> None:
    import base64
    import random

    rng = random.Random(7)  # 2,000 draws of each: a rule refusing one in a thousand would show
    for _ in range(2000):
        raw = rng.randbytes(32)
        for value in (raw.hex(), base64.b64encode(raw).decode()):
            assert Settings.model_validate({"hmac_secret": value}).require_secret() == value.encode()
