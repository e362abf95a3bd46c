"""The hand-written messages of samples/ (a uniquely named module: test dirs are not packages)."""

from __future__ import annotations

from pathlib import Path

SAMPLES = Path(__file__).parent / "samples"


def sample(name: str) -> bytes:
    return (SAMPLES / name).read_bytes()


def hostile_components(n: int = 3_900_000) -> bytes:
    """The message of issue 33: the French ORU plus an OBX whose OBX-5 holds ``n`` component
    separators (3.7 MiB with the default)."""
    return sample("oru_r01_fr.hl7").rstrip(b"\r") + b"\rOBX|9|TX|||" + b"^" * n + b"\r"
