"""Helpers shared by the store tests (imported by name: tests/ has no __init__ files)."""

from __future__ import annotations

import hashlib


def hx(*parts: object) -> str:
    """A stand-in for a KeyHasher output: 32 lowercase hex characters."""
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:32]
