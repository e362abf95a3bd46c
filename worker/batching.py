"""How many records make one batch: a count, a time window (in the loop) and a token budget.

Tokens are estimated from characters (XLM-R pieces average ~3.5-4 characters on French clinical
text), which is enough to keep the NER stage's batch under its budget without tokenizing twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

CHARS_PER_TOKEN = 3.5


class HasValue(Protocol):
    @property
    def value(self) -> bytes | None: ...


def estimate_tokens(text_or_bytes: str | bytes | None) -> int:
    if not text_or_bytes:
        return 1
    return int(len(text_or_bytes) / CHARS_PER_TOKEN) + 2


def split_by_budget(records: Sequence[HasValue], max_events: int, max_tokens: int) -> int:
    """How many leading records fit: at least one, at most ``max_events``, and no more tokens than
    ``max_tokens`` (a single oversized record still goes alone; the detector windows it)."""
    total = 0
    for i, rec in enumerate(records[:max_events]):
        total += estimate_tokens(rec.value)
        if total > max_tokens and i > 0:
            return i
    return min(len(records), max_events)
