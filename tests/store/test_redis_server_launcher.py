"""The redis-server launcher used by the tests, the benchmark and the worker's embedded default."""

from __future__ import annotations

import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from store_testkit import hx

from deid.settings import RedisSettings
from deid.store.base import Release
from deid.store.redis import RedisPatientStore
from worker.services.redis_server import RedisServer


@pytest.mark.integration
def test_password_stays_out_of_the_command_line_and_the_config_is_private() -> None:
    with RedisServer(password="hunter2-long-password") as server:
        cmdline = Path(f"/proc/{server.pid}/cmdline").read_bytes()
        assert b"hunter2" not in cmdline
        conf = server.data_dir / "redis.conf"
        assert stat.S_IMODE(conf.stat().st_mode) == 0o600
        assert "noeviction" in conf.read_text()
        data_dir = server.data_dir
    assert not data_dir.exists()  # a temporary directory goes with the server


@pytest.mark.integration
def test_a_given_data_directory_is_kept_after_stop(tmp_path: Path) -> None:
    with RedisServer(data_dir=tmp_path / "r", appendonly=True):
        pass
    assert (tmp_path / "r" / "redis.conf").exists()


def _make_certs(d: Path) -> tuple[Path, Path, Path]:
    def ssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True)

    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    ssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "1", "-subj", "/CN=test-ca")
    ssl("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1")
    (d / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    ssl(
        "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "server.crt", "-days", "1", "-extfile", "san.ext",
    )  # fmt: skip
    return d / "ca.crt", d / "server.crt", d / "server.key"


@pytest.mark.integration
@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
async def test_tls_with_a_private_ca_and_password_from_settings(tmp_path: Path) -> None:
    ca, cert, key = _make_certs(tmp_path)
    with RedisServer(password="pw-123456", tls_cert_file=cert, tls_key_file=key, tls_ca_file=ca) as server:
        assert server.url.startswith("rediss://:pw-123456@")
        store = RedisPatientStore.from_settings(RedisSettings(url=server.url, ssl_ca_certs=ca))
        p = hx("patient")
        res = await store.commit(p, "n1", [Release(hx("v"), "Martin", 3)], 10)
        assert res.granted and await store.lookup(p, [hx("v")]) == {hx("v"): "Martin"}
        await store.close()

        # a client that does not trust the CA cannot talk to it
        untrusted = Redis.from_url(server.url, socket_timeout=1.0)
        with pytest.raises(RedisConnectionError, match=r"(?i)certificate"):
            await untrusted.ping()
        await untrusted.aclose()
