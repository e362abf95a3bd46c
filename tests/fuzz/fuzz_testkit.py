"""Helpers of the fuzz tests (a uniquely named module: test directories are not packages)."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import TypeVar

from hypothesis import event, settings
from hypothesis.control import currently_in_test_context

T = TypeVar("T")

FUZZ_PROFILE = "deid-fuzz"  # registered by this directory's conftest.py


def budget(share: float = 1.0) -> settings:
    """The directory's profile, with ``share`` of its examples (a test whose examples are costly
    takes fewer; at least one)."""
    base = settings.get_profile(FUZZ_PROFILE)
    return settings(base, max_examples=max(1, round(base.max_examples * share)))


def outcome(label: str) -> None:
    """Count ``label`` in hypothesis's statistics (``--hypothesis-show-statistics``: how often each
    answer came, i.e. which paths the inputs reached); a no-op outside a property test."""
    if currently_in_test_context():
        event(f"outcome: {label}")


class TooSlow(AssertionError):
    pass


def within(fn: Callable[[], T], *, size: int, base_s: float, per_unit_s: float, tries: int = 3) -> T:
    """``fn()``, failing when it took more than ``base_s + per_unit_s * size`` seconds of this
    thread's CPU time: a bound linear in the input's size. CPU time, not wall time, so that other
    processes on a loaded machine do not count; the bound is generous (tens of times the measured
    cost), so only a super-linear path or a hang-like stall trips it. The garbage collector is
    paused meanwhile: a full collection of the test process's heap is not the input's cost.
    A run over the bound is timed again, up to ``tries`` runs in all, and fails only when every
    run is over it: on a shared machine a neighbour's load still slows this thread's CPU time
    (caches, frequency, a virtual machine's stolen time), once by 4 % over the bound of a rule run
    that takes a third of it alone; a super-linear path is over it every time.
    First calls (imports, tables loaded once) belong in a warm-up before."""
    limit = base_s + per_unit_s * size
    spent = float("inf")
    for _ in range(tries):
        collecting = gc.isenabled()
        gc.disable()
        try:
            start = time.thread_time()
            result = fn()
            spent = min(spent, time.thread_time() - start)
        finally:
            if collecting:
                gc.enable()
        if spent <= limit:
            return result
    raise TooSlow(f"{spent:.3f} s of CPU for an input of {size} units, bound {limit:.3f} s "
                  f"(least of {tries} runs)")


def best_of(fn: Callable[[], object], tries: int = 3) -> float:
    """The least CPU time of ``tries`` runs of ``fn``, the garbage collector paused meanwhile (a
    full collection of the test process's heap, which the suite has grown, is not ``fn``'s cost)."""
    best = float("inf")
    collecting = gc.isenabled()
    gc.disable()
    try:
        for _ in range(tries):
            start = time.thread_time()
            fn()
            best = min(best, time.thread_time() - start)
    finally:
        if collecting:
            gc.enable()
    return best


def growth(small: Callable[[], object], large: Callable[[], object], *, limit: float,
           rounds: int = 3, floor_s: float = 1e-3) -> float:
    """How many times ``large`` costs ``small`` in CPU time: the least time of each over the rounds
    so far, ``small``'s at least ``floor_s``. A round is timed again, up to ``rounds``, while the
    ratio is over ``limit``: the least time of each size is the run other work disturbed least, so
    one disturbed run of either size does not decide (a busy CI machine once read 25 for a run of
    1.5 ms), while a super-linear cost stays over the limit in every round."""
    least_small = least_large = float("inf")
    ratio = float("inf")
    for _ in range(rounds):
        least_small = min(least_small, best_of(small))
        least_large = min(least_large, best_of(large))
        ratio = least_large / max(least_small, floor_s)
        if ratio <= limit:
            break
    return ratio
