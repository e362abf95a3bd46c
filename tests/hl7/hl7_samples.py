"""The hand-written messages of samples/ (a uniquely named module: test dirs are not packages)."""

from __future__ import annotations

from pathlib import Path

SAMPLES = Path(__file__).parent / "samples"


def sample(name: str) -> bytes:
    return (SAMPLES / name).read_bytes()
