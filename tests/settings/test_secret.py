"""No default secret: the services refuse to start without DEID_HMAC_SECRET (>= 32 bytes that look
random: issue 33), the source holds no usable secret, and the command-line memo file needs a stable
one."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from deid.settings import MIN_SECRET_BYTES, SecretNotSet, Settings
from deid.store.keys import KeyHasher

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
    code = ("from deid.settings import Settings; from deid.store.keys import KeyHasher; "
            "print(KeyHasher(Settings().secret_bytes()).patient('4471298'))")
    runs = {subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True,
                           check=True).stdout for _ in range(2)}
    assert len(runs) == 2  # two processes, two secrets: nothing recomputable from the source
    one, two = Settings.model_validate({}), Settings.model_validate({})
    assert KeyHasher(one.secret_bytes()).patient("p") == KeyHasher(two.secret_bytes()).patient("p")


def test_redact_with_a_memo_file_refuses_to_run_without_a_secret_in_one_line(tmp_path: Path) -> None:
    proc = _deid("redact", "--profile", "random", "--store", str(tmp_path / "memo.db"), "-", env=_env(),
                 stdin="Le patient Jean Dupont, né le 12/03/1961.")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "DEID_HMAC_SECRET" in lines[0], proc.stderr
    assert not (tmp_path / "memo.db").exists()


def test_redact_with_a_memo_file_and_a_secret_is_consistent_across_runs(tmp_path: Path) -> None:
    env = _env(DEID_HMAC_SECRET="redact-memo-secret-0123456789abcdef0123456789")
    note = "Le patient Jean Dupont est suivi."
    outs = [_deid("redact", "--rules-only", "--profile", "random", "--patient", "p1", "--store",
                  str(tmp_path / "memo.db"), "-", env=env, stdin=note) for _ in range(2)]
    assert [o.returncode for o in outs] == [0, 0], [o.stderr for o in outs]
    assert outs[0].stdout == outs[1].stdout


# Issue 33: a secret must look random. Each rule with a value it alone refuses; the 12- to
# 15-distinct values were accepted before (the former floor was 12 distinct characters).
@pytest.mark.parametrize(("secret", "why"), [
    (" " * 32, "1 distinct characters, at least 16"),
    ("s" * 40, "1 distinct characters, at least 16"),
    ("é" * 16, "1 distinct characters, at least 16"),  # 32 bytes of UTF-8, one character
    ("aB3$xY7!kL9#" * 3, "12 distinct characters, at least 16"),  # four classes, 36 bytes
    ("Ab1-Cd2_Ef3.Gh4" * 3, "15 distinct characters, at least 16"),
    (("0123456789abcde" * 5)[:64], "15 distinct characters, at least 16 are required; a hex string"),
    ("12345678901234567890123456789012", "10 distinct characters"),
    ("dev-only-secret-change-me-0123456789", "a published default"),
    ("abcdefghijklmnopqrstuvwxyzabcdefgh", "one class of character only"),
    ("ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGH", "one class of character only"),
    ("!@#$%^&*()_+-=[]{};:,.<>/?~|!@#$%^&*", "one class of character only"),
])
def test_a_secret_that_does_not_look_random_is_refused_with_its_rule(secret: str, why: str) -> None:
    with pytest.raises(SecretNotSet, match=re.escape(why)) as refused:
        Settings.model_validate({"hmac_secret": secret}).require_secret()
    message = str(refused.value)
    assert "\n" not in message and message.startswith("DEID_HMAC_SECRET does not look random")
    assert secret not in message  # the refusal never prints the secret
    assert "openssl rand -base64 32" in message


@pytest.mark.parametrize("command", ["worker", "mllp"])
def test_a_service_with_a_secret_that_does_not_look_random_exits_2_in_one_line(command: str) -> None:
    proc = _deid(command, env=_env(DEID_HMAC_SECRET="aB3$xY7!kL9#" * 3))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"deid {command}: error: DEID_HMAC_SECRET does not look random (12 distinct")
    assert proc.stdout == ""


def test_a_secret_of_32_bytes_counts_bytes_and_distinct_characters_apart() -> None:
    # 16 distinct two-byte characters in two classes: 32 bytes, 16 characters, accepted
    greek = "αβγδεζηθΑΒΓΔΕΖΗΘ"
    assert len(greek.encode()) == 32
    assert Settings.model_validate({"hmac_secret": greek}).require_secret() == greek.encode()
    with pytest.raises(SecretNotSet, match="too short \\(30 bytes\\)"):
        Settings.model_validate({"hmac_secret": greek[:15]}).require_secret()


def test_base64_and_urlsafe_secrets_are_accepted() -> None:
    import base64
    import random

    rng = random.Random(7)  # 2,000 draws of each: a rule refusing one in a thousand would show
    for _ in range(2000):
        raw = rng.randbytes(32)
        for value in (base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode().rstrip("=")):
            assert Settings.model_validate({"hmac_secret": value}).require_secret() == value.encode()


def test_a_hex_secret_passes_only_with_all_sixteen_digits_about_three_draws_in_four() -> None:
    """The cost of the 16-distinct rule, stated: P(64 random hex digits hold all 16) = 0.765
    (coupon collector, exact). 4,000 draws, seed 7: the standard error is 0.0067, the tolerance
    0.03 (4.5 of them)."""
    import random

    rng = random.Random(7)
    accepted = 0
    for _ in range(4000):
        value = rng.randbytes(32).hex()
        try:
            Settings.model_validate({"hmac_secret": value}).require_secret()
            accepted += 1
            assert len(set(value)) == 16
        except SecretNotSet as exc:
            assert len(set(value)) < 16 and "use base64" in str(exc)
    assert abs(accepted / 4000 - 0.765) < 0.03


def test_no_code_draws_a_hex_hmac_secret() -> None:
    """The demo, the benchmarks and the per-process secret draw base64 (``token_urlsafe``): a hex
    draw would make `deid demo` refuse its own secret about one run in four."""
    sources = [*ROOT.glob("deid/**/*.py"), *ROOT.glob("worker/**/*.py"), *ROOT.glob("bench/**/*.py")]
    hex_secret = re.compile(r"(SecretStr|HMAC_SECRET|_process_secret)[^\n]*token_hex")
    drawing = [str(p.relative_to(ROOT)) for p in sources if hex_secret.search(p.read_text(encoding="utf-8"))]
    assert drawing == []
    for _ in range(2000):
        value = secrets.token_urlsafe(32)
        assert Settings.model_validate({"hmac_secret": value}).require_secret() == value.encode()
