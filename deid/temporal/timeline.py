"""One patient's surrogate timeline: true days mapped to surrogate days, order kept.

Every date, birth date, relative expression ("il y a 3 ans") and partial date ("en mai") of a
patient is a *point*: a true day (the midpoint of its period for a month or a year) and the
surrogate day released for it. A new point is released by the bounded Laplace mechanism
(Holohan et al. 2018) centred on its true day, on the interval that lies strictly between the
surrogates of its true neighbours; so

- **order is kept by construction**, within a note and across the patient's notes (what is
  released beyond the noisy days: the order of the patient's dates);
- **same day, same surrogate**: a true day already on the timeline is reused (free);
- **each release depends on its own true day only** (not on a neighbour's true value, as in the
  2022 paper's chained gaps, where moving one date moves two gaps): a point of unit ``u`` is
  eps-d-private for d = distance in ``u`` (days, weeks, months or years), given the order and
  the surrogates already released. The noise of an interval is the difference of two such draws.

The sensitivity is one unit of the expression (365.25 days for a year-unit point such as a birth
date, protected at the scale of years). With no neighbour, the mechanism is the plain Laplace
mechanism; with one, the open side is bounded ``OPEN_SIDE_DAYS`` away from the neighbour.

True days are never stored in clear: ``seal`` masks a day with a 64-bit pad derived from the
deployment secret (``KeyHasher.pad``), one pad per point.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Iterable
from dataclasses import dataclass

from deid.privacy.mechanisms import BoundedLaplace, laplace

UNIT_DAYS: dict[str, float] = {"day": 1.0, "week": 7.0, "month": 30.4375, "year": 365.25}
OPEN_SIDE_DAYS = 36_525  # a point with one neighbour may still move up to a century on its open side
_MOD = 1 << 64


@dataclass(frozen=True, slots=True, order=True)
class Point:
    true: int  # proleptic Gregorian ordinal of the true day
    fake: int  # ordinal of its surrogate day


def seal(point: Point, pad: int) -> str:
    """The stored form of a point: the true day under a one-time pad, then the surrogate day."""
    return f"{(point.true + pad) % _MOD:016x}:{point.fake}"


def unseal(sealed: str, pad: int) -> Point:
    masked, _, fake = sealed.partition(":")
    return Point((int(masked, 16) - pad) % _MOD, int(fake))


class Timeline:
    """The points of one patient, sorted by true day, then surrogate day.

    A true day has one point, except a birth date re-drawn at the scale of years after its day was
    released as a plain date (``release(..., redraw=True)``): both points stay, sorted by their
    surrogates, so a new point's room lies beyond both (the order holds with each)."""

    def __init__(self, points: Iterable[Point] = ()) -> None:
        self._points: list[Point] = sorted(set(points))

    def __len__(self) -> int:
        return len(self._points)

    @property
    def points(self) -> list[Point]:
        return list(self._points)

    def fake_of(self, true: int) -> int | None:
        i = bisect.bisect_left(self._points, Point(true, -(1 << 62)))
        if i < len(self._points) and self._points[i].true == true:
            return self._points[i].fake
        return None

    def add(self, point: Point, *, beside: bool = False) -> None:
        """Add a new point; ``beside``: also when its true day has a point already (a re-drawn
        birth date)."""
        if self.fake_of(point.true) is None or (beside and point not in self._points):
            bisect.insort(self._points, point)

    def room(self, true: int, *, past_same_day: bool = False) -> tuple[int | None, int | None]:
        """The surrogate days a new point at ``true`` may take (inclusive; None: open side):
        strictly between its neighbours' surrogates, or touching them when no day is left.
        ``past_same_day``: the neighbours are the points of other true days only."""
        i = bisect.bisect_left(self._points, Point(true, -(1 << 62)))
        j = bisect.bisect_right(self._points, Point(true, 1 << 62)) if past_same_day else i
        pred = self._points[i - 1] if i > 0 else None
        succ = self._points[j] if j < len(self._points) else None
        lo = pred.fake + 1 if pred else None
        hi = succ.fake - 1 if succ else None
        if lo is not None and hi is not None and lo > hi:
            lo, hi = hi + 1, hi + 1  # no day left between them: the successor's own day (a tie)
        return lo, hi

    def release(self, rng: random.Random, true: int, epsilon: float, unit: str, *,
                redraw: bool = False) -> int:
        """A surrogate day for a new true day (see the module doc); the caller adds the point.
        ``redraw``: a fresh draw even when the true day has a surrogate already (a birth date
        known as a plain date first: its day-scale surrogate is not kept for it)."""
        known = None if redraw else self.fake_of(true)
        if known is not None:
            return known
        delta = UNIT_DAYS[unit]
        lo, hi = self.room(true, past_same_day=redraw)
        if lo is None and hi is None:
            return round(true + laplace(rng, delta / epsilon))
        lo = lo if lo is not None else hi - OPEN_SIDE_DAYS  # type: ignore[operator]
        hi = hi if hi is not None else lo + OPEN_SIDE_DAYS
        if lo >= hi:
            return lo
        return min(max(round(BoundedLaplace(epsilon, lo, hi, delta).release(rng, true)), lo), hi)
