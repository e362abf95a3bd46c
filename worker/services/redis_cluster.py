"""Launch a real local Redis Cluster or a Sentinel-watched master/replica pair, on loopback free
ports: for the tests (the store, the worker processes, failovers) and for trying the modes.

Each node is a ``RedisServer`` (``worker.services.redis_server``: configuration in a 0600 file,
``noeviction``), with AOF on so that a node that comes back keeps its data. The cluster is made of
``masters`` masters with ``replicas_per_master`` replicas each, joined by
``redis-cli --cluster create``; ``cluster-node-timeout`` is short so that a killed master is
replaced by its replica within seconds. Sentinel runs as ``redis-server <conf> --sentinel``
(Debian's redis-server binary; no separate redis-sentinel package needed).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

from worker.services.redis_server import RedisServer, RedisServerError, find_binary, free_port


def find_cli() -> str:
    found = shutil.which("redis-cli")
    if found:
        return found
    if Path("/usr/bin/redis-cli").exists():
        return "/usr/bin/redis-cli"
    raise FileNotFoundError("redis-cli not found (Debian: apt-get install -y redis-tools)")


def _command(port: int, *args: str, timeout_s: float = 2.0) -> str:
    """One inline command to 127.0.0.1:port; the reply's text ('' when no answer)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout_s) as s:
            s.sendall(b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a.encode())
                                                           for a in args))
            data = b""
            deadline = time.monotonic() + timeout_s
            while time.monotonic() < deadline:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
                if data.startswith((b"+", b"-", b":")) and data.endswith(b"\r\n"):
                    break
                if data.startswith(b"$") and data.count(b"\r\n") >= 2:
                    break
                # arrays (SENTINEL get-master-addr-by-name): two bulk strings
                if data.startswith(b"*") and data.count(b"\r\n") >= 5:
                    break
            return data.decode(errors="replace")
    except OSError:
        return ""


def replication_caught_up(port: int, replicas: int) -> bool:
    """The master on ``port`` has ``replicas`` online replicas at its own replication offset."""
    info = _command(port, "INFO", "replication")
    fields = dict(line.split(":", 1) for line in info.split("\r\n") if ":" in line)
    offset = fields.get("master_repl_offset")
    slaves = [v for k, v in fields.items() if k.startswith("slave") and k[5:].isdigit()]
    if offset is None or len(slaves) < replicas:
        return False
    return all("state=online" in s and f"offset={offset}," in s for s in slaves)


class RedisClusterServers:
    """``masters`` x (1 + ``replicas_per_master``) cluster nodes on 127.0.0.1. Use as a context
    manager; ``url`` names one node (clients discover the others)."""

    def __init__(self, masters: int = 3, replicas_per_master: int = 1, node_timeout_ms: int = 1500,
                 start_timeout_s: float = 30.0) -> None:
        self.n_masters = masters
        self.replicas_per_master = replicas_per_master
        self.node_timeout_ms = node_timeout_ms
        self.start_timeout_s = start_timeout_s
        self.base_dir = Path(tempfile.mkdtemp(prefix="deid-redis-cluster-"))
        self.nodes: list[RedisServer] = []

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.nodes[0].port}/0"

    @property
    def urls(self) -> list[str]:
        return [n.url for n in self.nodes]

    def start(self) -> RedisClusterServers:
        binary = find_binary()
        cli = find_cli()
        total = self.n_masters * (1 + self.replicas_per_master)
        try:
            for i in range(total):
                node = RedisServer(port=free_port(), data_dir=self.base_dir / f"n{i}", appendonly=True,
                                   binary=binary, extra_config=[
                                       "cluster-enabled yes",
                                       # the bus port defaults to port + 10000, which may be taken
                                       # or above 65535: pick a free one (Redis >= 7.0)
                                       f"cluster-port {free_port()}",
                                       'cluster-config-file "nodes.conf"',
                                       f"cluster-node-timeout {self.node_timeout_ms}",
                                       # a replica takes over whatever its replication offset
                                       "cluster-replica-validity-factor 0",
                                   ])
                self.nodes.append(node.start())
            addrs = [f"127.0.0.1:{n.port}" for n in self.nodes]
            proc = subprocess.run(
                [cli, "--cluster", "create", *addrs, "--cluster-replicas", str(self.replicas_per_master),
                 "--cluster-yes"], capture_output=True, text=True, timeout=60, check=False)
            if proc.returncode != 0:
                raise RedisServerError("redis-cli --cluster create failed: "
                                       + (proc.stdout + proc.stderr)[-500:])
            self.wait_ok()
            self.wait_synced()
        except BaseException:
            self.stop()
            raise
        return self

    def wait_synced(self, timeout_s: float | None = None) -> None:
        """Until every master's replicas are online and caught up with its replication offset
        (a replica promoted before its first sync would take over with an empty dataset)."""
        deadline = time.monotonic() + (timeout_s or self.start_timeout_s)
        while time.monotonic() < deadline:
            if all(replication_caught_up(m.port, self.replicas_per_master) for m in self.masters()):
                return
            time.sleep(0.05)
        raise RedisServerError("the cluster's replicas did not catch up in time")

    def wait_ok(self, timeout_s: float | None = None) -> None:
        """Until every live node says cluster_state:ok with all 16384 slots served."""
        deadline = time.monotonic() + (timeout_s or self.start_timeout_s)
        while time.monotonic() < deadline:
            infos = [_command(n.port, "CLUSTER", "INFO") for n in self.nodes if n.running]
            if infos and all("cluster_state:ok" in i and "cluster_slots_ok:16384" in i for i in infos):
                return
            time.sleep(0.1)
        raise RedisServerError("the Redis Cluster did not reach cluster_state:ok in time")

    def masters(self) -> list[RedisServer]:
        return [n for n in self.nodes if n.running and "$6\r\nmaster" in _command(n.port, "ROLE")]

    def replica_of(self, master: RedisServer) -> RedisServer | None:
        for n in self.nodes:
            if n is master or not n.running:
                continue
            if f"master_port:{master.port}\r\n" in _command(n.port, "INFO", "replication"):
                return n
        return None

    def stop(self) -> None:
        for n in self.nodes:
            n.stop(remove_data=False)
        shutil.rmtree(self.base_dir, ignore_errors=True)

    def __enter__(self) -> RedisClusterServers:
        return self.start()

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


class SentinelServers:
    """A master, ``replicas`` replicas and ``sentinels`` sentinels watching it under
    ``master_name``; a killed master is replaced within a few seconds (``down_after_ms``)."""

    def __init__(self, master_name: str = "deid", replicas: int = 1, sentinels: int = 1,
                 down_after_ms: int = 1000, failover_timeout_ms: int = 5000) -> None:
        self.master_name = master_name
        self.n_replicas = replicas
        self.n_sentinels = sentinels
        self.down_after_ms = down_after_ms
        self.failover_timeout_ms = failover_timeout_ms
        self.base_dir = Path(tempfile.mkdtemp(prefix="deid-redis-sentinel-"))
        self.servers: list[RedisServer] = []
        self.sentinel_ports: list[int] = []
        self._sentinel_procs: list[subprocess.Popen[bytes]] = []

    @property
    def sentinels(self) -> str:
        """The ``redis.sentinels`` setting: ``127.0.0.1:p1,127.0.0.1:p2``."""
        return ",".join(f"127.0.0.1:{p}" for p in self.sentinel_ports)

    def master_port(self) -> int | None:
        reply = _command(self.sentinel_ports[0], "SENTINEL", "get-master-addr-by-name", self.master_name)
        parts = reply.split("\r\n")
        return int(parts[4]) if len(parts) > 4 and parts[4].isdigit() else None

    def server_on(self, port: int) -> RedisServer:
        return next(s for s in self.servers if s.port == port)

    def start(self) -> SentinelServers:
        binary = find_binary()
        try:
            master = RedisServer(port=free_port(), data_dir=self.base_dir / "m", appendonly=True,
                                 binary=binary).start()
            self.servers.append(master)
            for i in range(self.n_replicas):
                self.servers.append(RedisServer(
                    port=free_port(), data_dir=self.base_dir / f"r{i}", appendonly=True, binary=binary,
                    extra_config=[f"replicaof 127.0.0.1 {master.port}"]).start())
            for i in range(self.n_sentinels):
                port = free_port()
                d = self.base_dir / f"s{i}"
                d.mkdir(mode=0o700)
                conf = d / "sentinel.conf"
                quorum = self.n_sentinels // 2 + 1
                conf.write_text("\n".join([
                    "bind 127.0.0.1", f"port {port}", f'dir "{d}"', 'logfile "sentinel.log"',
                    f"sentinel monitor {self.master_name} 127.0.0.1 {master.port} {quorum}",
                    f"sentinel down-after-milliseconds {self.master_name} {self.down_after_ms}",
                    f"sentinel failover-timeout {self.master_name} {self.failover_timeout_ms}",
                    f"sentinel parallel-syncs {self.master_name} 1", ""]), encoding="utf-8")
                os.chmod(conf, 0o600)
                self._sentinel_procs.append(subprocess.Popen(
                    [binary, str(conf), "--sentinel"], stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=d))
                self.sentinel_ports.append(port)
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                if all(_command(p, "PING").startswith("+PONG") for p in self.sentinel_ports) and \
                        self.master_port() == master.port and self._replicas_synced(master):
                    return self
                time.sleep(0.1)
            raise RedisServerError("sentinel did not start watching the master in time")
        except BaseException:
            self.stop()
            raise

    def _replicas_synced(self, master: RedisServer) -> bool:
        return replication_caught_up(master.port, self.n_replicas)

    def wait_synced(self, timeout_s: float = 20.0) -> None:
        port = self.master_port()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if port is not None and replication_caught_up(port, self.n_replicas):
                return
            time.sleep(0.05)
        raise RedisServerError("the replicas did not catch up in time")

    def wait_master_changed(self, old_port: int, timeout_s: float = 30.0) -> int:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            port = self.master_port()
            if port is not None and port != old_port:
                return port
            time.sleep(0.1)
        raise RedisServerError("sentinel did not fail over in time")

    def stop(self) -> None:
        for p in self._sentinel_procs:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        for s in self.servers:
            s.stop(remove_data=False)
        shutil.rmtree(self.base_dir, ignore_errors=True)

    def __enter__(self) -> SentinelServers:
        return self.start()

    def __exit__(self, et: type[BaseException] | None, e: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
