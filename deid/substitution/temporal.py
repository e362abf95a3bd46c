"""Dates and ages (placeholder port of the first build; replaced by the per-patient timeline)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date

from deid.labels import Category, Label
from deid.privacy.mechanisms import BoundedLaplace, laplace_metric
from deid.store.base import Release
from deid.substitution.items import Item, NoteContext
from deid.substitution.operators import Operator, register
from deid.temporal import expressions as tx

INTERVAL_BOUNDS_DAYS = (61, 660, 36_000)
SHIFT_MAX_DAYS = 365
_SHIFT_VALUE = "\x1fdate-shift"


def interval_bound(days: int) -> int:
    for b in INTERVAL_BOUNDS_DAYS:
        if days <= b:
            return b
    return INTERVAL_BOUNDS_DAYS[-1]


@register("temporal")
class TemporalOperator(Operator):
    name = "temporal"
    handles = frozenset({"dp-laplace", "interval", "shift", "safe-harbor"})

    def plan(self, ctx: NoteContext, items: Sequence[Item]) -> None:
        for it in items:
            cat = it.label.category
            t = tx.parse(it.text, ctx.language, age=cat is Category.AGE, ref=ctx.document_date)
            if t is None or (t.kind == "date" and ctx.document_date is None):
                it.strategy = "placeholder"
                continue
            it.data = t
            if it.strategy == "shift":
                it.extra_keys = (ctx.key(Label.DATE, _SHIFT_VALUE),)
                continue
            if it.strategy == "interval" and t.kind != "date":
                it.strategy = "dp-laplace"
            it.key = ctx.key(it.label, t.canonical())
            it.costed = True
            it.unit = t.unit

    def draw(self, ctx: NoteContext, items: Sequence[Item], memo: Mapping[str, str],
             eps: Mapping[str, float], cost: Mapping[str, int]) -> list[Release]:
        out: dict[str, Release] = {}
        for it in items:
            if it.strategy == "shift" and it.extra_keys[0] not in memo and it.extra_keys[0] not in out:
                d = ctx.rng.randint(1, SHIFT_MAX_DAYS) * ctx.rng.choice((-1, 1))
                out[it.extra_keys[0]] = Release(it.extra_keys[0], str(d), 0)
        ivals = [it for it in items if it.strategy == "interval" and it.key in eps]
        if ivals:
            assert ctx.document_date is not None
            for k, v in self._intervals(ctx, ivals, ctx.document_date, eps).items():
                out[k] = Release(k, v, cost[k])
        for it in items:
            if it.strategy == "dp-laplace" and it.key in eps and it.key not in out:
                t = it.data
                noisy = round(laplace_metric(ctx.rng, tx.offset(t, ctx.document_date), eps[it.key]))
                value = tx.with_offset(t, ctx.document_date, noisy).canonical()
                out[it.key] = Release(it.key, value, cost[it.key])
        return list(out.values())

    def _intervals(self, ctx: NoteContext, items: list[Item], ref: date,
                   eps: Mapping[str, float]) -> dict[str, str]:
        out: dict[str, str] = {}
        dated = sorted({it.key: it for it in items}.values(), key=lambda it: tx.offset_days(it.data, ref))
        after = [it for it in dated if tx.offset_days(it.data, ref) >= 0]
        before = [it for it in reversed(dated) if tx.offset_days(it.data, ref) < 0]
        for chain, sign in ((after, 1), (before, -1)):
            prev_true, prev_new = 0, 0
            for it in chain:
                true = abs(tx.offset_days(it.data, ref))
                gap = true - prev_true
                mech = BoundedLaplace(eps[it.key], 0, interval_bound(gap), 1)
                prev_new += round(mech.release(ctx.rng, gap))
                prev_true = true
                out[it.key] = tx.with_offset_days(it.data, ref, sign * prev_new).canonical()
        return out

    def render(self, ctx: NoteContext, item: Item, memo: Mapping[str, str]) -> tuple[str, str] | None:
        if item.strategy == "shift":
            return tx.render(tx.shifted(item.data, int(memo[item.extra_keys[0]]))), "shift"
        if item.key not in memo:
            return None
        return tx.render(tx.from_canonical(item.data, memo[item.key])), item.strategy
