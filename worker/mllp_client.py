"""A minimal MLLP client: send a framed message, read the framed ACK (tests, smoke checks)."""

from __future__ import annotations

import asyncio
import contextlib
import ssl

from worker.mllp import FrameReader, frame


class MllpClient:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self._deframer = FrameReader()
        self._pending: list[bytes] = []

    @classmethod
    async def connect(cls, host: str, port: int, *, tls: ssl.SSLContext | None = None,
                      timeout_s: float = 10.0) -> MllpClient:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port, ssl=tls), timeout_s)
        return cls(reader, writer)

    async def send_raw(self, data: bytes) -> None:
        """Write bytes as they are (no framing): for tests of bad framing."""
        self._writer.write(data)
        await self._writer.drain()

    async def read_ack(self, timeout_s: float = 30.0) -> bytes:
        """The next framed reply; raises ``TimeoutError`` or ``ConnectionError``."""
        async def _next() -> bytes:
            while not self._pending:
                data = await self._reader.read(65536)
                if not data:
                    raise ConnectionError("the MLLP peer closed the connection")
                self._pending.extend(f.payload for f in self._deframer.feed(data) if f.error is None)
            return self._pending.pop(0)

        return await asyncio.wait_for(_next(), timeout_s)

    async def send(self, payload: bytes, timeout_s: float = 30.0) -> bytes:
        """Frame and send one message; returns its ACK (framing stripped)."""
        await self.send_raw(frame(payload))
        return await self.read_ack(timeout_s)

    async def close(self) -> None:
        self._writer.close()
        with contextlib.suppress(ConnectionError, ssl.SSLError):
            await self._writer.wait_closed()

    async def __aenter__(self) -> MllpClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


async def send_message(host: str, port: int, payload: bytes, *, tls: ssl.SSLContext | None = None,
                       timeout_s: float = 30.0) -> bytes:
    """One message on a fresh connection; returns the ACK."""
    client = await MllpClient.connect(host, port, tls=tls, timeout_s=timeout_s)
    async with client:
        return await client.send(payload, timeout_s)


def ack_code(ack: bytes) -> str:
    """MSA-1 of an ACK ('AA', 'AE', 'AR'; '' if none)."""
    for seg in ack.replace(b"\n", b"\r").split(b"\r"):
        if seg.startswith(b"MSA"):
            fields = seg.split(seg[3:4]) if len(seg) > 3 else []
            return fields[1].decode("ascii", "replace") if len(fields) > 1 else ""
    return ""
