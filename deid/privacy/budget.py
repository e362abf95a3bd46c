"""Splitting one note's budget over its distinct new noisy releases, in integer micro-epsilon.

The split happens after duplicates are removed and after memo hits are taken out (a memoized
value is post-processing of an earlier release and costs nothing); the reference code split
before removing duplicates, which wastes budget and mis-states the guarantee.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from deid.store.base import MICRO


def split_micro(
    total_epsilon: float, categories: Sequence[str], weights: Mapping[str, float] | None = None
) -> list[int]:
    """Per-release cost in micro-epsilon for releases of the given categories (one entry per
    distinct value). Uniform unless ``weights`` names categories (missing ones weigh 1). The sum
    never exceeds ``total_epsilon`` (costs are floored)."""
    if not categories:
        return []
    if total_epsilon <= 0:
        raise ValueError("the per-note epsilon must be positive")
    w = [max(float((weights or {}).get(c, 1.0)), 0.0) for c in categories]
    if sum(w) <= 0:
        w = [1.0] * len(categories)
    total_micro = int(total_epsilon * MICRO)
    s = sum(w)
    return [max(1, int(total_micro * x / s)) if x > 0 else 1 for x in w]


def epsilon_of(micro: int) -> float:
    return micro / MICRO
