"""Launch a real ``redis-server`` on loopback: for tests, benchmarks and the worker's embedded default.

The configuration (password included) is written to a 0600 file in the data directory instead of
the command line, so it does not show in ``ps``. Persistence is explicit: ``appendonly=True``
(the production setting, with ``appendfsync``) and/or RDB ``save`` rules; ``maxmemory-policy`` is
``noeviction`` because an evicted memo entry would silently break a patient's consistency.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Literal

DEFAULT_BINARY = "/usr/bin/redis-server"


def free_port(host: str = "127.0.0.1") -> int:
    """A port that was free a moment ago (the server start retries if someone takes it meanwhile)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def find_binary() -> str:
    found = shutil.which("redis-server")
    if found:
        return found
    if Path(DEFAULT_BINARY).exists():
        return DEFAULT_BINARY
    raise FileNotFoundError("redis-server not found (Debian: apt-get install -y redis-server)")


class RedisServerError(RuntimeError):
    pass


class RedisServer:
    """One ``redis-server`` process bound to 127.0.0.1.

    ``data_dir=None`` uses a fresh temporary directory, removed by ``stop()``; a given directory is
    kept (the embedded worker's persistent memo). ``restart()`` keeps the port and the directory, so
    data survives when persistence is on. Usable as a context manager.
    """

    def __init__(
        self,
        *,
        port: int | None = None,
        host: str = "127.0.0.1",
        data_dir: Path | str | None = None,
        appendonly: bool = False,
        appendfsync: Literal["always", "everysec", "no"] = "everysec",
        save: str = "",
        password: str | None = None,
        maxmemory: str | None = None,
        tls_cert_file: Path | str | None = None,
        tls_key_file: Path | str | None = None,
        tls_ca_file: Path | str | None = None,
        binary: str | None = None,
        extra_config: Sequence[str] = (),
        start_timeout_s: float = 10.0,
    ) -> None:
        self.host = host
        self.port = port or free_port(host)
        self._fixed_port = port is not None
        self._own_dir = data_dir is None
        self.data_dir = (
            Path(data_dir) if data_dir is not None else Path(tempfile.mkdtemp(prefix="deid-redis-"))
        )
        self.appendonly = appendonly
        self.appendfsync = appendfsync
        self.save = save
        self.password = password
        self.maxmemory = maxmemory
        # TLS: the server then listens with TLS only, on ``port``, and ``url`` is rediss://.
        self.tls_cert_file = tls_cert_file
        self.tls_key_file = tls_key_file
        self.tls_ca_file = tls_ca_file
        self.binary = binary or find_binary()
        self.extra_config = list(extra_config)
        self.start_timeout_s = start_timeout_s
        self._proc: subprocess.Popen[bytes] | None = None

    # -- addresses ---------------------------------------------------------------------------------
    @property
    def tls(self) -> bool:
        return self.tls_cert_file is not None

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        scheme = "rediss" if self.tls else "redis"
        return f"{scheme}://{auth}{self.host}:{self.port}/0"

    @property
    def pid(self) -> int:
        if self._proc is None:
            raise RedisServerError("redis-server is not running")
        return self._proc.pid

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    # -- lifecycle ---------------------------------------------------------------------------------
    def _write_config(self) -> Path:
        lines = [
            f"bind {self.host}",
            *([f"port {self.port}"] if not self.tls else ["port 0", f"tls-port {self.port}"]),
            "protected-mode yes",
            "daemonize no",
            f'dir "{self.data_dir}"',
            'logfile "redis.log"',
            f"appendonly {'yes' if self.appendonly else 'no'}",
            f"appendfsync {self.appendfsync}",
            f'save "{self.save}"',
            "maxmemory-policy noeviction",
        ]
        if self.maxmemory:
            lines.append(f"maxmemory {self.maxmemory}")
        if self.password:
            lines.append(f'requirepass "{self.password}"')
        if self.tls:
            lines += [
                f'tls-cert-file "{self.tls_cert_file}"',
                f'tls-key-file "{self.tls_key_file}"',
                "tls-auth-clients no",
            ]
            if self.tls_ca_file:
                lines.append(f'tls-ca-cert-file "{self.tls_ca_file}"')
        lines += self.extra_config
        path = self.data_dir / "redis.conf"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def start(self) -> RedisServer:
        if self.running:
            return self
        self.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        attempts = 1 if self._fixed_port else 3
        for attempt in range(attempts):
            conf = self._write_config()
            self._proc = subprocess.Popen(
                [self.binary, str(conf)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd=self.data_dir,
            )
            if self._wait_ready():
                return self
            self._kill()
            if attempt + 1 < attempts:  # the free port was taken meanwhile: pick another
                self.port = free_port(self.host)
        raise RedisServerError(
            f"redis-server did not start on port {self.port}; see {self.data_dir}/redis.log"
        )

    def _ping(self) -> bool:
        try:
            with self._connect() as s:
                cmd = b""
                if self.password:
                    pw = self.password.encode()
                    cmd += b"*2\r\n$4\r\nAUTH\r\n$%d\r\n%s\r\n" % (len(pw), pw)
                cmd += b"*1\r\n$4\r\nPING\r\n"
                s.sendall(cmd)
                data = b""
                while b"PONG" not in data and b"-" not in data:
                    chunk = s.recv(256)
                    if not chunk:
                        return False
                    data += chunk
                return b"+PONG" in data
        except OSError:
            return False

    def _connect(self) -> socket.socket:
        raw = socket.create_connection((self.host, self.port), timeout=0.5)
        if not self.tls:
            return raw
        ctx = ssl.create_default_context(cafile=str(self.tls_ca_file) if self.tls_ca_file else None)
        if not self.tls_ca_file:
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
        return ctx.wrap_socket(raw, server_hostname=self.host)

    def _wait_ready(self) -> bool:
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            if self._proc is None or self._proc.poll() is not None:
                return False
            if self._ping():  # answers -LOADING while replaying the AOF: keep waiting
                return True
            time.sleep(0.02)
        return False

    def _kill(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait(timeout=10)
        self._proc = None

    def stop(self, *, crash: bool = False, remove_data: bool | None = None) -> None:
        """Stop the server: SIGTERM (AOF flushed, RDB saved if ``save`` rules exist) or SIGKILL.

        A temporary data directory is removed unless ``remove_data=False``; a given one is kept
        unless ``remove_data=True``.
        """
        if self._proc is not None and self._proc.poll() is None:
            os.kill(self._proc.pid, signal.SIGCONT)  # a paused server could not act on SIGTERM
            if crash:
                self._kill()
            else:
                self._proc.send_signal(signal.SIGTERM)
                try:
                    self._proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    self._kill()
        self._proc = None
        if remove_data if remove_data is not None else self._own_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def restart(self, *, crash: bool = False) -> RedisServer:
        """Stop and start again on the same port and directory (data survives if persisted)."""
        self.stop(crash=crash, remove_data=False)
        self._fixed_port = True
        return self.start()

    def pause(self) -> None:
        """Freeze the process (SIGSTOP): clients see a slow server that times out."""
        os.kill(self.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.kill(self.pid, signal.SIGCONT)

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
