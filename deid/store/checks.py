"""Argument checks shared by the stores that persist keys (Redis, local SQLite file).

Kept apart from the Redis adapter so that the local store never imports ``redis`` (layers: only
``deid/store/redis*.py`` may). Every check refuses anything that is not a keyed hash, and its
message never echoes the value (it could be a raw name or id passed by mistake).
"""

from __future__ import annotations

import re

from deid.store.base import Release

_HEX = re.compile(r"[0-9a-f]{16,128}")
_SPEND_ID = re.compile(r"[\x21-\x7e]{1,256}")  # printable ASCII, no spaces
_SEALED = re.compile(r"[0-9a-f]{16}:\d{1,7}")  # sealed true day : surrogate day ordinal


def check_hex(kind: str, value: str) -> None:
    """Refuse anything that is not a keyed hash; the message never echoes the value."""
    if not isinstance(value, str) or not _HEX.fullmatch(value):
        raise ValueError(f"{kind} must be a lowercase hex HMAC (deid.store.keys.KeyHasher), "
                         "got something else")


def check_spend_id(spend_id: str) -> None:
    if not isinstance(spend_id, str) or not _SPEND_ID.fullmatch(spend_id):
        raise ValueError("spend_id must be 1-256 printable ASCII characters without spaces")


def check_release(release: Release) -> None:
    check_hex("release key", release.key)
    if not isinstance(release.cost_micro, int) or release.cost_micro < 0:
        raise ValueError("cost_micro must be a non-negative integer")
    if release.timeline and not _SEALED.fullmatch(release.timeline):
        # a timeline point is a sealed number, never a date in clear
        raise ValueError("a timeline point must be a sealed day (16 hex) and a day number")
