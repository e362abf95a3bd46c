"""Dates and ages, rendered from one per-patient surrogate timeline (``deid.temporal.timeline``).

Strategies:
- ``dp-laplace`` and ``interval`` (the settings' ``date_strategy`` "dp" / "interval"): every
  date, birth date, relative expression ("il y a 3 ans") and partial date ("en mai") is a point
  of the patient's timeline, released with order kept and noise in its own unit; the first
  build's interval baseline (2022 paper) is replaced by this mechanism, which keeps order without
  choosing a noise bound from the true gap. A birth date is protected at the scale of years and
  becomes the patient's **birth anchor**: every age is then derived from the surrogate birth date
  and the surrogate note date (free: post-processing), so "née le ..., 68 ans" stays coherent.
  Without an anchor an age is noised in its own unit and memoized by value.
- ``shift``: one secret shift per patient, a whole number of weeks (i2b2 practice, the weak
  baseline: one known date undoes it; weekdays are kept); every date moves by it, partial ones
  too ("le 12/03", "en mai", "mardi": a true day beside shifted ones would date the note);
  durations and ages under 90 are kept as written (said in the event's ``kept_labels``), ages
  over 89 aggregated.
- ``safe-harbor``: HIPAA Safe Harbor: a date keeps its year only, a month or weekday without a
  year is removed, ages over 89 become "90+" and a birth date is removed when it says the patient
  is over 89 (against the note's date or any date of the note) or sits in a note with an age
  aggregated to "90+" (its year
  would give back the age); durations are kept (they are not elements of a date).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta

from deid.labels import Category, Label
from deid.privacy.mechanisms import laplace
from deid.spans import Span
from deid.store.base import CommitResult, PatientStore, Release
from deid.substitution.items import Item, NoteContext, placeholder
from deid.substitution.operators import Operator, claims, labels_of, register
from deid.temporal import expressions as tx
from deid.temporal.timeline import Point, Timeline, seal, unseal

SHIFT_MAX_DAYS = 365  # shift baseline: one draw of whole weeks in [-364, 364] \ {0} per patient
SAFE_HARBOR_AGE = 90  # HIPAA: ages over 89 are aggregated into one category
_SHIFT_VALUE = "\x1fdate-shift"
_BIRTH_ANCHOR = "\x1fbirth-anchor"
_BIRTHDAY = "\x1fbirthday"  # a surrogate day and month of birth, drawn before any birth year is known
_TIMELINE = ("dp-laplace", "interval")
_UNIT_RANK = {"day": 0, "week": 1, "month": 2, "year": 3}


@dataclass
class Mention:
    """A parsed DATE or AGE mention and, for a timeline point, the true day it stands for."""

    t: tx.Temporal
    day: date | None = None
    alone: bool = False  # a duration with no note date to place it: noised in its unit, by value


@dataclass
class Range:
    """A range written as one mention: its two ends, each an item and a point of its own."""

    ends: list[Item]


def _flat(items: Sequence[Item]) -> list[Item]:
    """The items with each range replaced by its two ends: what is drawn and charged."""
    out: list[Item] = []
    for it in items:
        out.extend(it.data.ends if isinstance(it.data, Range) else (it,))
    return out


@dataclass
class _State:
    """The patient's timeline as this batch knows it (shared by the patient's notes)."""

    timeline: Timeline
    by_key: dict[str, Point]


def _units_between(a: date, b: date, unit: str) -> int:
    """Whole ``unit``s from ``a`` to ``b`` as an age is counted (birthdays, month days)."""
    if unit == "year":
        return b.year - a.year - ((b.month, b.day) < (a.month, a.day))
    if unit == "month":
        return (b.year - a.year) * 12 + b.month - a.month - (b.day < a.day)
    days = (b - a).days
    return days // 7 if unit == "week" else days


def _day_value(day: int) -> str:
    return f"day:{date.fromordinal(day).isoformat()}"


def _fake_day(value: str | None) -> date | None:
    if value is None or not value.startswith("day:"):
        return None
    return date.fromisoformat(value[4:])


def patient_birth(ctx: NoteContext, memo: Mapping[str, str]) -> tuple[date, date] | None:
    """(true, surrogate) birth date of the patient when the timeline holds it (the history's, or
    drawn for this note; read by the operators that draw after this one, as a NIR's birth year
    and month); None otherwise. The true day never leaves the process."""
    anchor = memo.get(ctx.key(Label.BIRTH_DATE, _BIRTH_ANCHOR))
    if anchor is None:
        return None
    st: _State | None = ctx.shared.get("temporal.state")
    point = ctx.shared.get("temporal.pending", {}).get(anchor) or (st.by_key.get(anchor) if st else None)
    # the timeline's point holds both days; the birth date's own entry is only looked up by a
    # note that mentions it
    return (date.fromordinal(point.true), date.fromordinal(point.fake)) if point is not None else None


@register("temporal")
class TemporalOperator(Operator):
    name = "temporal"
    # an age has no interval of its own: it follows the birth date
    handles = (claims(labels_of(Category.DATE), {"dp-laplace", "interval", "shift", "safe-harbor"})
               | claims(labels_of(Category.AGE), {"dp-laplace", "shift", "safe-harbor"}))

    # ------------------------------------------------------------------------------- plan

    def plan(self, ctx: NoteContext, items: Sequence[Item]) -> None:
        ref = ctx.document_date
        anchor = self.anchor_key(ctx)
        for it in items:
            if it.label is Label.DATE and _born_before(ctx.note.text, it.span.start):
                # "né le", "DOB", "F. nac." before it: a birth date, whatever detection called it
                it.span = replace(it.span, label=Label.BIRTH_DATE)
            ends = self._range_ends(ctx, it, ref)
            if ends is None:
                self._plan_one(ctx, it, None, ref, anchor)
                continue
            for end in ends:
                self._plan_one(ctx, end, end.data, ref, anchor)
            if any(end.strategy == "placeholder" for end in ends):
                it.strategy = "placeholder"  # the whole range: no end is copied out unread
                continue
            it.data = Range(ends)
            it.extra_keys = tuple(k for end in ends for k in end.memo_keys())
        self._join_birth_days(_flat(items))
        if ref is not None and any(isinstance(it.data, Mention) and it.strategy in _TIMELINE
                                   and it.data.t.kind in ("relative", "age") for it in _flat(items)):
            # relative expressions and derived ages are read against the note's surrogate date
            where = Span(items[0].span.start, items[0].span.end, Label.DATE)  # never rendered
            ref_item = Item(where, "", "dp-laplace", key=ctx.key(Label.DATE, f"date:day:{ref}"),
                            costed=True, unit="day", data=Mention(tx.Temporal("date", "day", ctx.language, "",
                                                                              when=ref), ref))
            ctx.shared["temporal.ref"] = ref_item

    @staticmethod
    def _range_ends(ctx: NoteContext, it: Item, ref: date | None) -> list[Item] | None:
        """The two ends of a range written as one mention ("du 12/03/2024 au 15/03/2024",
        "12-15 March 2024"), each an item of its own with its parsed value; None for any other."""
        if it.label.category is Category.AGE or tx.parse(it.text, ctx.language, ref=ref,
                                                        order=ctx.date_order) is not None:
            return None
        ends = tx.parse_range(it.text, ctx.language, ref=ref, order=ctx.date_order)
        if ends is None:
            return None
        return [Item(Span(it.span.start + s, it.span.start + e, it.label), it.text[s:e], it.strategy, data=t)
                for s, e, t in ends]

    def _plan_one(self, ctx: NoteContext, it: Item, parsed: tx.Temporal | None, ref: date | None,
                  anchor: str) -> None:
        is_age = it.label.category is Category.AGE
        t = parsed or tx.parse(it.text, ctx.language, age=is_age, ref=ref, order=ctx.date_order)
        if t is None:  # not read whole: the placeholder, never the text
            it.strategy = "placeholder"
            return
        m = Mention(t)
        it.data = m
        if t.kind == "date" and t.when is not None and not _in_window(t.when, ref):
            # a typo year ("12/03/1024") is no point of the timeline: it would drag the patient's
            # real dates centuries away (issue 33)
            _count(ctx, "dates_out_of_window")
            it.strategy = "placeholder"
            return
        if it.strategy == "shift":
            if t.kind in ("date", "partial"):
                it.extra_keys = (ctx.key(Label.DATE, _SHIFT_VALUE),)
            return
        if it.strategy == "safe-harbor":
            if _aggregated(t):  # the note says "over 89": its birth year must not say by how much
                ctx.shared["temporal.over_89"] = True
            if t.kind == "date" and t.when is not None:  # a birth year is told "over 89" by any date
                ctx.shared.setdefault("temporal.days", []).append(t.when)
            return
        if t.kind == "age":
            it.key, it.costed, it.unit = ctx.key(Label.AGE, t.canonical()), True, t.unit
            it.extra_keys = (anchor,)
            return
        if it.label is Label.BIRTH_DATE and t.kind == "partial":
            # a birthday without its year ("née le 13/01") cannot be placed on the timeline
            # (it is decades back, not near the note): rendered from the patient's birth anchor
            it.extra_keys = (anchor, self.birthday_key(ctx))
            return
        m.day = tx.point_day(t, ref)
        if m.day is None and t.kind == "relative":  # no note date: a duration on its own
            m.alone = True
            it.key, it.costed, it.unit = ctx.key(Label.DATE, t.canonical()), True, t.unit
            return
        if m.day is None:  # a partial date ("en mai") in a note without a date
            it.strategy = "placeholder"
            return
        if not _in_window(m.day, ref):  # "il y a 200 ans"
            _count(ctx, "dates_out_of_window")
            it.strategy = "placeholder"
            return
        # a birth date has a key of its own: the same day first seen as a plain date (day-scale
        # noise) is re-drawn at the scale of years when it is known as a birth date
        birth = "birth-" if it.label is Label.BIRTH_DATE else ""  # keys are per category: a value of its own
        it.key = ctx.key(Label.DATE, birth + tx.point_canonical(t, m.day))
        it.costed = True
        # a birth date is the strongest quasi-identifier of a note: noise in years, not days
        it.unit = "year" if it.label is Label.BIRTH_DATE else t.unit
        it.extra_keys = (anchor,) if it.label is Label.BIRTH_DATE else ()

    @staticmethod
    def _join_birth_days(items: Sequence[Item]) -> None:
        """A day of the note's birth date also written as a plain date is the birth date again: one
        key, noised at the scale of years (not a second, day-scale release of the same day)."""
        births = {it.data.day: it for it in items if it.label is Label.BIRTH_DATE and it.key
                  and isinstance(it.data, Mention) and it.data.day is not None and it.data.t.unit == "day"}
        for it in items:
            if (it.label is Label.DATE and it.key and isinstance(it.data, Mention)
                    and it.data.t.kind == "date"
                    and it.data.t.unit == "day" and it.data.day in births):
                birth = births[it.data.day]
                it.key, it.unit, it.extra_keys = birth.key, birth.unit, birth.extra_keys

    def anchor_key(self, ctx: NoteContext) -> str:
        return ctx.key(Label.BIRTH_DATE, _BIRTH_ANCHOR)

    def birthday_key(self, ctx: NoteContext) -> str:
        return ctx.key(Label.BIRTH_DATE, _BIRTHDAY)

    def extra_lookups(self, ctx: NoteContext, items: Sequence[Item]) -> set[str]:
        ref = ctx.shared.get("temporal.ref")
        return {self.anchor_key(ctx), self.birthday_key(ctx)} | ({ref.key} if ref is not None else set())

    # ------------------------------------------------------------------------- the state

    def state(self, ctx: NoteContext) -> _State:
        st: _State | None = ctx.shared.get("temporal.state")
        if st is None:  # a note with no timeline read (tests calling operators directly)
            st = _State(Timeline(), {})
            ctx.shared["temporal.state"] = st
        return st

    async def prepare(self, store: PatientStore, ctxs: Sequence[NoteContext],
                      items: Sequence[Sequence[Item]]) -> None:
        """The patient's timeline from the store's sealed points: one read per patient and batch,
        shared by the batch's notes of the patient (only when one of them has a date or an age)."""
        if not ctxs or not any(items):
            return
        ctx = ctxs[0]
        sealed = await store.timeline(ctx.patient)
        by_key = {k: unseal(v, ctx.hasher.pad(ctx.patient, k)) for k, v in sealed.items()}
        state = _State(Timeline(by_key.values()), by_key)
        for c in ctxs:
            c.shared["temporal.state"] = state

    def _points(self, ctx: NoteContext, items: Sequence[Item], memo: Mapping[str, str]) -> list[Item]:
        anchor = self._anchor(ctx, items, memo)
        pts = [it for it in items if it.strategy in _TIMELINE and it.data.day is not None and it.key
               and not self._another_spelling(ctx, it, items, anchor)]
        ref = ctx.shared.get("temporal.ref")
        if ref is not None and self._needs_ref(ctx, items, memo):
            pts.append(ref)
        return pts

    def _another_spelling(self, ctx: NoteContext, it: Item, items: Sequence[Item],
                          anchor: str | None) -> bool:
        """A birth date that is not the anchor but falls in the anchor's year ("juin 1968" beside
        "30/06/1968"): the patient's birth date spelt again, rendered from the anchor. A birth date
        of another year is a relative's ("son fils, né le 09/06/2024"): a date of its own, never
        the patient's anchor (issue 29)."""
        if it.label is not Label.BIRTH_DATE or anchor is None or it.key == anchor:
            return False
        year = self._anchor_year(ctx, items, anchor)
        if year is None or it.data.day is None or it.data.day.year == year:
            return True
        it.unit = it.data.t.unit  # a relative's birth date: noised as the date it is, in its own unit
        return False

    def _spelt_again(self, ctx: NoteContext, item: Item, anchor: str) -> bool:
        point = self.state(ctx).by_key.get(anchor)
        m: Mention = item.data
        return point is None or m.day is None or date.fromordinal(point.true).year == m.day.year

    def _anchor_year(self, ctx: NoteContext, items: Sequence[Item], anchor: str) -> int | None:
        own = next((i for i in items if i.key == anchor and isinstance(i.data, Mention) and i.data.day), None)
        if own is not None:
            return own.data.day.year
        point = self.state(ctx).by_key.get(anchor)
        return date.fromordinal(point.true).year if point is not None else None

    def _needs_ref(self, ctx: NoteContext, items: Sequence[Item], memo: Mapping[str, str]) -> bool:
        """Whether the note's date is a point of its own: only when a rendered mention reads its
        surrogate (a relative expression on the timeline, an age derived from the birth anchor).
        An age released alone never shows it, and must not pay for it (issue 31)."""
        tl = [it for it in items if it.strategy in _TIMELINE and isinstance(it.data, Mention)]
        if any(it.data.t.kind == "relative" and not it.data.alone for it in tl):
            return True
        return any(it.data.t.kind == "age" for it in tl) and self._anchor(ctx, items, memo) is not None

    def _anchor(self, ctx: NoteContext, items: Sequence[Item], memo: Mapping[str, str]) -> str | None:
        """The memo key of the patient's birth date: remembered, or the first of this note."""
        known = memo.get(self.anchor_key(ctx))
        if known:
            return known
        births = [it for it in items if it.label is Label.BIRTH_DATE and it.strategy in _TIMELINE and it.key]
        return births[0].key if births else None

    # ---------------------------------------------------------------------- account, draw

    def new_costed(self, ctx: NoteContext, items: Sequence[Item], memo: Mapping[str, str]) -> dict[str, Item]:
        items = _flat(items)
        st = self.state(ctx)
        out: dict[str, Item] = {}
        days: set[date] = set()
        anchor = self._anchor(ctx, items, memo)
        for it in self._draw_order(ctx, items, memo):
            # two keys on one true day ("en 2024" in a note of 20 April 2024 stands at the note's
            # date) get one draw, the first one's: the other is free and takes no share of the budget;
            # a birth date is drawn at the scale of years even when its day has a surrogate already
            fresh = it.data.day not in days and st.timeline.fake_of(it.data.day.toordinal()) is None
            if it.key not in memo and (_redraw(it, anchor) or fresh):
                out.setdefault(it.key, it)
                days.add(it.data.day)
        for it in self._alone(ctx, items, memo):
            if it.key not in memo:
                out.setdefault(it.key, it)
        return out

    def _draw_order(self, ctx: NoteContext, items: Sequence[Item], memo: Mapping[str, str]) -> list[Item]:
        """The note's points in the order they are drawn (and charged): one per key, a day mentioned
        both as the birth date and as a date noised at the coarsest unit of its mentions (the birth
        date's years), not at whichever came last; precise points first, coarse ones (years, birth
        dates) then fit around them."""
        by_key: dict[str, Item] = {}
        for it in self._points(ctx, items, memo):
            if it.key not in by_key or _UNIT_RANK[it.unit] > _UNIT_RANK[by_key[it.key].unit]:
                by_key[it.key] = it
        return sorted(by_key.values(), key=lambda it: (_UNIT_RANK[it.unit], it.data.day))

    def _alone(self, ctx: NoteContext, items: Sequence[Item], memo: Mapping[str, str]) -> list[Item]:
        """Mentions noised on their own in their unit and memoized by value: durations of a note
        without a date, and ages when the patient has no birth date to derive them from.

        The release is a + Lap(1/eps) rounded, then floored at 1 of its unit: "Patient de 0 an",
        "0 mois", "il y a 0 ans" read as errors. The floor is post-processing of the noisy release
        (it reads the noisy value only, never the true one, so it costs nothing); a true 0 (rarely
        written) is therefore released as 1 or more."""
        no_anchor = self._anchor(ctx, items, memo) is None or ctx.document_date is None
        return [it for it in items if it.strategy in _TIMELINE and (
            it.data.alone or (it.data.t.kind == "age" and no_anchor))]

    def draw(self, ctx: NoteContext, items: Sequence[Item], memo: Mapping[str, str],
             eps: Mapping[str, float], cost: Mapping[str, int]) -> list[Release]:
        items = _flat(items)
        out: dict[str, Release] = {}
        rng = ctx.rng
        for it in items:  # the patient's secret shift (baseline), drawn once, free
            for k in it.extra_keys if it.strategy == "shift" else ():
                if k not in memo and k not in out:
                    out[k] = Release(k, str(_draw_shift(rng)), 0)
        anchor_key = self.anchor_key(ctx)
        anchor = self._anchor(ctx, items, memo)
        if anchor is not None and anchor_key not in memo:
            out[anchor_key] = Release(anchor_key, anchor, 0)
        birthday_key = self.birthday_key(ctx)
        if anchor is None and birthday_key not in memo and any(
                it.label is Label.BIRTH_DATE and not it.key and it.strategy in _TIMELINE for it in items):
            # a birthday with no year and no birth date known: a uniformly drawn day and month
            # (independent of the true one: free); the birth date drawn later keeps it
            day = date(2000, 1, 1) + timedelta(days=rng.randrange(366))
            out[birthday_key] = Release(birthday_key, f"birthday:{day.month:02d}-{day.day:02d}", 0)
        birthday = _birthday(memo.get(birthday_key))
        st = self.state(ctx)
        draft = Timeline(st.timeline.points)  # this note's draws; the shared one learns the committed
        pending: dict[str, Point] = {}
        for it in self._draw_order(ctx, items, memo):
            if it.key in memo or it.key in out:
                continue
            true = it.data.day.toordinal()
            redraw = _redraw(it, anchor)
            known = None if redraw else draft.fake_of(true)
            if known is not None:  # same day, same surrogate: free
                fake, paid = known, 0
            elif it.key in eps:
                fake, paid = draft.release(rng, true, eps[it.key], it.unit, redraw=redraw), cost[it.key]
                if it.key == anchor and birthday is not None:  # keep the birthday already shown
                    fake = _snap_to_birthday(fake, birthday, draft.room(true, past_same_day=redraw))
            else:
                continue  # not paid for: nothing is drawn, the mention renders as its placeholder
            point = Point(true, fake)
            draft.add(point, beside=redraw)
            pending[it.key] = point
            sealed = seal(point, ctx.hasher.pad(ctx.patient, it.key))
            out[it.key] = Release(it.key, _day_value(fake), paid, sealed)
        ctx.shared["temporal.pending"] = pending
        for it in self._alone(ctx, items, memo):
            if it.key in eps and it.key not in out and it.key not in memo:
                noisy = max(1, round(it.data.t.amount + laplace(rng, 1.0 / eps[it.key])))  # see _alone
                out[it.key] = Release(it.key, f"amount:{it.data.t.unit}:{noisy}", cost[it.key])
        return list(out.values())

    def committed(self, ctx: NoteContext, result: CommitResult) -> None:
        """Points the store kept join the patient's timeline (a racer's surrogate day wins)."""
        st = self.state(ctx)
        for key, point in ctx.shared.pop("temporal.pending", {}).items():
            fake = _fake_day(result.surrogates.get(key))
            if fake is not None:
                p = Point(point.true, fake.toordinal())
                st.timeline.add(p, beside=True)
                st.by_key[key] = p

    # ----------------------------------------------------------------------------- render

    def render(self, ctx: NoteContext, item: Item, memo: Mapping[str, str]) -> tuple[str, str] | None:
        if isinstance(item.data, Range):
            return self._range(ctx, item, memo)
        m: Mention = item.data
        if item.strategy == "shift":
            return self._shift(ctx, item, memo)
        if item.strategy == "safe-harbor":
            return self._safe_harbor(ctx, item)
        if m.t.kind == "age":
            return self._age(ctx, item, memo)
        if m.alone:
            return self._amount(item, memo)
        fake = _fake_day(memo.get(item.key))
        anchor = memo.get(self.anchor_key(ctx))
        if (item.label is Label.BIRTH_DATE and anchor and anchor != item.key
                and self._spelt_again(ctx, item, anchor)):
            # another spelling of the patient's birth date ("juin 1968" beside "30/06/1968"): one
            # surrogate birth date per patient, so it is rendered from the anchor (post-processing)
            point = self.state(ctx).by_key.get(anchor)
            fake = _fake_day(memo.get(anchor)) or (date.fromordinal(point.fake) if point else None)
        if fake is None and not item.key:  # a birthday without a year and no birth date known
            birthday = _birthday(memo.get(self.birthday_key(ctx)))
            if birthday is None:
                return placeholder(item.label), "placeholder"
            return tx.render_point(m.t, birthday, None), "random"
        if fake is None:
            return None
        ref = ctx.shared.get("temporal.ref")
        fake_ref = _fake_day(memo.get(ref.key)) if ref is not None else None
        if m.t.kind == "relative" and fake_ref is None:
            return None
        t = _century_safe(m.t, fake.year, fake_ref or ctx.document_date)
        return tx.render_point(t, fake, fake_ref), "dp-timeline"

    def _range(self, ctx: NoteContext, item: Item, memo: Mapping[str, str]) -> tuple[str, str] | None:
        """Both ends of a range, each from its own surrogate; an end that borrows its month or year
        from the other ("12" of "12-15 mars 2024") is written in full when its surrogate leaves
        them ("28 février 2024-2 mars 2024"). Either end refused: the whole range is refused."""
        ends: list[Item] = item.data.ends
        days = [self._surrogate_day(ctx, e, memo) for e in ends]
        out: list[str] = []
        pos, strategy = item.span.start, ""
        for i, e in enumerate(ends):
            t: tx.Temporal = e.data.t
            day, other = days[i], days[1 - i]
            if t.full and day is not None and other is not None and not _shares_borrowed(t, day, other):
                e = replace(e, data=replace(e.data, t=replace(t, template=_written_in_full(t))))
            got = self.render(ctx, e, memo)
            if got is None:
                return None
            text = got[0]
            if e.strategy == "safe-harbor":  # a year or a placeholder, between the end's own words
                text = t.template[: t.template.index("{")] + text + t.template[t.template.rindex("}") + 1 :]
            out += [ctx.note.text[pos : e.span.start], text]
            pos, strategy = e.span.end, got[1]
        out.append(ctx.note.text[pos : item.span.end])
        return "".join(out), strategy

    def _surrogate_day(self, ctx: NoteContext, it: Item, memo: Mapping[str, str]) -> date | None:
        """The surrogate day a range's end is written from (None where only a year is written)."""
        t: tx.Temporal = it.data.t
        if it.strategy in _TIMELINE:
            return _fake_day(memo.get(it.key))
        if it.strategy != "shift" or not it.extra_keys or it.extra_keys[0] not in memo:
            return None
        shift = timedelta(days=int(memo[it.extra_keys[0]]))
        try:
            if t.kind == "date" and t.when is not None:
                return t.when + shift
            if t.kind == "partial":
                return (tx.point_day(t, ctx.document_date) or _stand_in_day(t)) + shift
        except OverflowError:
            return None
        return None

    def _age(self, ctx: NoteContext, item: Item, memo: Mapping[str, str]) -> tuple[str, str] | None:
        t: tx.Temporal = item.data.t
        anchor = memo.get(self.anchor_key(ctx))
        ref = ctx.shared.get("temporal.ref")
        if anchor and ref is not None:
            birth = self.state(ctx).by_key.get(anchor)
            # the anchor's memo entry is looked up only by a note that spells the birth date the same
            # way; otherwise its surrogate day is the timeline point's (stored with the memo entry)
            fake_birth = _fake_day(memo.get(anchor)) or (date.fromordinal(birth.fake) if birth else None)
            fake_ref = _fake_day(memo.get(ref.key))
            if birth is None or fake_birth is None or fake_ref is None:
                return None
            true_birth = date.fromordinal(birth.true)
            moved = (_units_between(fake_birth, fake_ref, t.unit)
                     - _units_between(true_birth, ref.data.day, t.unit))
            return tx.render(replace(t, amount=max(0, t.amount + moved))), "dp-derived"
        return self._amount(item, memo)

    @staticmethod
    def _amount(item: Item, memo: Mapping[str, str]) -> tuple[str, str] | None:
        value = memo.get(item.key)
        if value is None or not value.startswith("amount:"):
            return None
        return tx.render(replace(item.data.t, amount=int(value.rsplit(":", 1)[1]))), "dp-laplace"

    def _shift(self, ctx: NoteContext, item: Item, memo: Mapping[str, str]) -> tuple[str, str]:
        t: tx.Temporal = item.data.t
        if t.kind == "date":
            shift = int(memo[item.extra_keys[0]])
            moved = tx.shifted(t, shift)
            ref = ctx.document_date
            ref = ref + timedelta(days=shift) if ref is not None else None
            return tx.render(_century_safe(moved, moved.when.year if moved.when else 0, ref)), "shift"
        if t.kind == "partial":  # "revue le 12/03", "en mai", "mardi": a date too, moved by the same shift
            day = tx.point_day(t, ctx.document_date) or _stand_in_day(t)
            return tx.render_point(t, day + timedelta(days=int(memo[item.extra_keys[0]])), None), "shift"
        if t.amount >= SAFE_HARBOR_AGE and (t.kind == "age" or (t.kind == "relative" and t.unit == "year")):
            # a "duration" of 90 years or more is an age over 89 the model took for a date
            # ("quatre-vingt-treize ans"): aggregated as the age would be
            return _over_89(t), "safe-harbor"
        ctx.shared.setdefault("kept_labels", set()).add(item.label.value)
        return item.text, "kept"

    def _safe_harbor(self, ctx: NoteContext, item: Item) -> tuple[str, str]:
        t: tx.Temporal = item.data.t
        ref = ctx.document_date
        if t.kind == "age":
            if _aggregated(t):
                return _over_89(t), "safe-harbor"
            ctx.shared.setdefault("kept_labels", set()).add(item.label.value)
            return item.text, "kept"
        if t.kind == "relative" and not (t.unit == "year" and t.amount >= SAFE_HARBOR_AGE):
            # a duration is not an element of a date; one of 90 years or more would tell an age
            # over 89 (a mislabelled age: "quatre-vingt-treize ans"), and goes below as no date
            ctx.shared.setdefault("kept_labels", set()).add(item.label.value)
            return item.text, "kept"
        if t.kind == "partial" or t.when is None:
            return placeholder(item.label), "safe-harbor"
        days = [d for d in (ref, *ctx.shared.get("temporal.days", ())) if d is not None]
        if item.label is Label.BIRTH_DATE and (ctx.shared.get("temporal.over_89") or any(
                _units_between(t.when, ref, "year") >= SAFE_HARBOR_AGE for ref in days)):
            # a birth year beside "90+ ans", or one that says "over 89" against the note's date or any
            # other date of the note: the year would give the age the aggregation hides. A birth
            # year or month is taken at its first day: the oldest the person can be.
            return placeholder(item.label), "safe-harbor"
        return f"{t.when.year:04d}", "safe-harbor"


def _stand_in_day(t: tx.Temporal) -> date:
    """A day with the month, day and month, or weekday of a partial date when the note has no date
    to place it: the shift moves it the same way (a leap year, so 29 February exists)."""
    if t.when is not None:
        return t.when  # day and month, in the year 2000
    if t.unit == "month":
        return date(2000, t.amount, 15)
    return date(2000, 1, 3) + timedelta(days=t.amount)  # 3 January 2000 was a Monday


def _birthday(value: str | None) -> date | None:
    if value is None or not value.startswith("birthday:"):
        return None
    month, day = value.removeprefix("birthday:").split("-")
    return date(2000, int(month), int(day))


def _snap_to_birthday(fake: int, birthday: date, room: tuple[int | None, int | None]) -> int:
    """The day with ``birthday``'s month and day nearest to ``fake`` inside ``room`` (``fake``
    itself when none fits): post-processing of the noisy release with public values only."""
    lo, hi = room
    near = date.fromordinal(fake)
    best: int | None = None
    for year in (near.year - 1, near.year, near.year + 1):
        try:
            cand = date(year, birthday.month, birthday.day).toordinal()
        except ValueError:
            cand = date(year, birthday.month, 28).toordinal()
        if (lo is None or cand >= lo) and (hi is None or cand <= hi) and (
                best is None or abs(cand - fake) < abs(best - fake)):
            best = cand
    return fake if best is None else best


def _century_safe(t: tx.Temporal, year: int, ref: date | None) -> tx.Temporal:
    """``t`` with a four-digit year when its two-digit year would be read back in another century
    (a surrogate birth date in 1913 written "13" reads as 2013 in a 2015 note): the reader resolves
    two-digit years against the note's date (``expressions._two_digit_year``)."""
    if "{YY}" in t.template and tx._two_digit_year(year % 100, ref) != year:
        return replace(t, template=t.template.replace("{YY}", "{YYYY}"))
    return t


def _aggregated(t: tx.Temporal) -> bool:
    """An age Safe Harbor aggregates into "90+"."""
    return t.kind == "age" and t.unit == "year" and t.amount >= SAFE_HARBOR_AGE


def _over_89(t: tx.Temporal) -> str:
    """"92 ans", "quatre-vingt-douze ans" -> "90+ ans": the Safe Harbor category, in the mention's
    own words (a number written out is written "90+" too: "quatre-vingt-dix+" reads as nothing)."""
    template = re.sub(r"\{N10\}(?:['’]?s)?|\{(?:N|W|Wc)\}", f"{SAFE_HARBOR_AGE}+", t.template, count=1)
    return tx.render(replace(t, template=template, amount=SAFE_HARBOR_AGE))


def _redraw(it: Item, anchor: str | None) -> bool:
    """The patient's birth date: drawn at the scale of years under its own key, never the surrogate
    its day got as a plain date (a memo of day-scale noise would be kept for life, issue 31)."""
    return it.label is Label.BIRTH_DATE and anchor is not None and it.key == anchor and it.unit == "year"


def _draw_shift(rng: random.Random) -> int:
    """The shift baseline's secret: a whole number of weeks (so a weekday stays the weekday it was,
    as the profile claims), 1 to SHIFT_MAX_DAYS // 7 weeks, either way; never 0."""
    return rng.randint(1, max(1, SHIFT_MAX_DAYS // 7)) * 7 * rng.choice((-1, 1))


_BORN = re.compile(
    r"(?:\bn[ée]e?s?(?:\s*\(e\))?\s+le|\bborn(?:\s+on)?|\bd\.?\s?o\.?\s?b\.?|\bdate\s+of\s+birth|\bbirth\s*date"
    r"|\bdate\s+de\s+naissance|\bd\.?d\.?n\.?|\bf\.\s*(?:de\s+)?nac\.?|\bfecha\s+de\s+nacimiento"
    r"|\bnacid[oa]s?\s+el|\bnac\.)\s*[:\-]?\s*(?:le\s+|el\s+|on\s+|the\s+)?$",
    re.IGNORECASE)


def _born_before(text: str, start: int) -> bool:
    """Whether the words right before a date say it is a birth date ("né le", "born on", "DOB:",
    "F. nac.", "date of birth:")."""
    return _BORN.search(text[max(0, start - 40) : start]) is not None


WINDOW_FIRST = date(1850, 1, 1)  # no patient's date of the text is older
WINDOW_YEARS_AHEAD = 30  # nor later than the note's date by more than this
WINDOW_LAST_WITHOUT_REF = date(2199, 12, 31)  # with no note's date, the window's end


def _in_window(day: date, ref: date | None) -> bool:
    """Whether a date of the text may be a timeline point: between 1850 and the note's date + 30
    years (issue 33). A typo year ("12/03/1024") outside is the placeholder, and counted."""
    if ref is None:
        last = WINDOW_LAST_WITHOUT_REF
    else:
        try:
            last = ref.replace(year=ref.year + WINDOW_YEARS_AHEAD)
        except ValueError:  # 29 February
            last = ref.replace(year=ref.year + WINDOW_YEARS_AHEAD, day=28)
    return WINDOW_FIRST <= day <= last


def _count(ctx: NoteContext, what: str) -> None:
    """A count the engine adds to ``Substituter.stats`` (the worker exports it as a metric)."""
    stats: Counter[str] = ctx.shared.setdefault("stats", Counter())
    stats[what] += 1


def _shares_borrowed(t: tx.Temporal, day: date, other: date) -> bool:
    """Whether a range end's surrogate ``day`` has the month and year it borrows from the other end."""
    shows_year = any(k in t.template for k in ("{YYYY}", "{YY}"))
    full_year = any(k in t.full for k in ("{YYYY}", "{YY}"))
    shows_month = re.search(r"\{(?:M|MM|MON\w*|Mon\w*|mon\w*)\}", t.template) is not None
    same_year = shows_year or not full_year or day.year == other.year
    return same_year and (shows_month or day.month == other.month)


def _written_in_full(t: tx.Temporal) -> str:
    """The template of a range's end with its full form between its own leading and trailing words."""
    return t.template[: t.template.index("{")] + t.full + t.template[t.template.rindex("}") + 1 :]
