"""The substitution engine: memoized, budgeted surrogates for one batch of notes.

Per batch and patient: one ``store.lookup`` for every memo key of the patient's notes, then, note
by note, four steps: **draw** (each operator draws surrogates for the values the memo lacks),
**account** (the note's budget is split over its new costed values before anything is drawn),
**commit** (one atomic store call with ``spend_id = hasher.event(event_id)``) and **render**
(each mention from the memo, in its own shape). One commit per note, not per patient, because
the budget, the privacy account and replay detection are per event. Notes of one patient run in
order, so a value first seen in note 1 is a memo hit (free) in note 2.

A replay of an event renders byte-identical output: its values are all in the memo, so nothing
new is drawn and nothing is charged. A replay whose spans changed (a model upgrade) draws only
the values the memo lacks, and those are charged like any new value (``deid.store.base``).
Values refused at the patient's cap render as their placeholder: nothing true is released.

Dates are anchored at ``RawNote.document_date``, never the wall clock.
"""

from __future__ import annotations

import asyncio
import random
from collections import ChainMap, Counter
from collections.abc import Mapping, Sequence

from deid.events import DeidNote, ModelInfo, PrivacyAccount, RawNote, SubstitutedSpan
from deid.labels import Category, Label
from deid.privacy.budget import split_micro
from deid.render import Replacement, render
from deid.settings import Settings
from deid.spans import Span, resolve
from deid.store.base import MICRO, CommitResult, PatientStore, Release
from deid.store.keys import KeyHasher
from deid.substitution import persons, places, simple, temporal  # noqa: F401 - registers operators
from deid.substitution.items import Item, NoteContext, placeholder
from deid.substitution.operators import Operator, OperatorTable
from deid.substitution.strategies import strategy_of
from deid.surrogates import names

# The order operators draw in: places before persons (a street's town is known when an address
# is drawn), persons before the rest (an e-mail reuses its owner's surrogate name).
DRAW_ORDER = ("temporal", "places", "persons", "formats", "neighbour", "keep", "placeholder")


class Substituter:
    def __init__(self, store: PatientStore, hasher: KeyHasher, settings: Settings,
                 rng: random.Random) -> None:
        self._store = store
        self._hasher = hasher
        self._settings = settings
        self._p = settings.privacy
        self._rng = rng
        self._cap = round(self._p.patient_cap * MICRO)
        table = OperatorTable.of_registered()
        self._ops: dict[str, Operator] = table.by_name
        # each label's strategy and operator, from the operators' own ``handles``; a bad strategy
        # configuration fails here, at start, not on the first note
        self._route: dict[Label, tuple[str, str]] = {}
        for label in Label:
            strategy = strategy_of(label, settings, table)
            self._route[label] = strategy, table.operator(label, strategy).name
        # counts of what substitution met, for the worker's metrics (no PHI: names of events only),
        # e.g. "dates_out_of_window": a date of the text outside 1850 .. note date + 30 years
        self.stats: Counter[str] = Counter()

    async def substitute(
        self, notes: Sequence[RawNote], spans: Sequence[Sequence[Span]], model: ModelInfo
    ) -> list[DeidNote]:
        if len(notes) != len(spans):
            raise ValueError("one span list per note")
        by_patient: dict[str, list[int]] = {}
        for i, n in enumerate(notes):
            by_patient.setdefault(self._hasher.patient(n.patient_id), []).append(i)
        results: dict[int, DeidNote] = {}

        async def run(patient: str, idx: list[int]) -> None:
            outs = await self._patient(patient, [notes[i] for i in idx], [spans[i] for i in idx], model)
            results.update(zip(idx, outs, strict=True))

        # Patients run concurrently (their store round trips overlap). With a store that never
        # suspends (in-memory) they run in batch order, so a seeded generator is reproducible.
        await asyncio.gather(*(run(p, idx) for p, idx in by_patient.items()))
        return [results[i] for i in range(len(notes))]

    # --------------------------------------------------------------------------------- plan

    def _context(self, patient: str, note: RawNote) -> NoteContext:
        locale = (note.locale or self._settings.locales.get(note.language)
                  or {"fr": "fr-FR", "es": "es-ES", "en": "en-US"}[note.language])
        order = note.date_order or self._settings.date_orders.get(locale) or (
            "mdy" if locale == "en-US" else "dmy")
        return NoteContext(note, patient, self._hasher, self._settings, self._rng,
                           date_order=order, region=locale.split("-")[1])

    def _plan(self, ctx: NoteContext, note_spans: Sequence[Span]) -> dict[str, list[Item]]:
        """The note's mentions (overlaps merged: a partial replacement would leak the rest),
        grouped by the operator that runs them, each planned."""
        groups: dict[str, list[Item]] = {name: [] for name in DRAW_ORDER}
        for s in resolve(note_spans):
            strategy, operator = self._route[s.label]
            groups[operator].append(Item(s, ctx.note.text[s.start : s.end], strategy))
        named = (Category.PER, Category.ORG)
        ctx.name_words = names.name_words(
            it.text for items in groups.values() for it in items if it.label.category in named)
        for name in DRAW_ORDER:
            self._ops[name].plan(ctx, groups[name])
            # an operator may give up on a mention it cannot read (a date with no reference)
            moved = [it for it in groups[name] if it.strategy == "placeholder" and name != "placeholder"]
            if moved:
                groups[name] = [it for it in groups[name] if it.strategy != "placeholder"]
                groups["placeholder"].extend(moved)
        return groups

    async def _patient(
        self, patient: str, notes: list[RawNote], spans: list[Sequence[Span]], model: ModelInfo
    ) -> list[DeidNote]:
        ctxs = [self._context(patient, n) for n in notes]
        plans = [self._plan(c, s) for c, s in zip(ctxs, spans, strict=True)]
        keys: set[str] = set()
        for ctx, plan in zip(ctxs, plans, strict=True):
            for name, items in plan.items():
                keys.update(k for it in items for k in it.memo_keys())
                keys.update(self._ops[name].extra_lookups(ctx, items))
        memo = await self._store.lookup(patient, sorted(keys)) if keys else {}
        for name in DRAW_ORDER:  # per-patient state an operator reads once per batch (the timeline)
            await self._ops[name].prepare(self._store, ctxs, [plan[name] for plan in plans])
        return [await self._note(ctx, plan, memo, model) for ctx, plan in zip(ctxs, plans, strict=True)]

    # ------------------------------------------------------------------------ account, draw

    def _account(self, ctx: NoteContext, plan: Mapping[str, list[Item]],
                 memo: Mapping[str, str]) -> tuple[dict[str, int], dict[str, float]]:
        """The note's budget split over its distinct new costed values (memo hits are free:
        post-processing of an earlier release). Returns micro-epsilon and epsilon per key."""
        new: dict[str, Item] = {}
        for name in DRAW_ORDER:
            new.update(self._ops[name].new_costed(ctx, plan[name], memo))
        if not new:
            return {}, {}
        micro = split_micro(self._p.epsilon_per_note, [it.label.category.value for it in new.values()],
                            self._p.category_weights)
        cost = dict(zip(new, micro, strict=True))
        return cost, {k: c / MICRO for k, c in cost.items()}

    def _draw(self, ctx: NoteContext, plan: Mapping[str, list[Item]], memo: dict[str, str],
              cost: Mapping[str, int], eps: Mapping[str, float]) -> list[Release]:
        releases: dict[str, Release] = {}
        drawn: dict[str, str] = {}
        view = ChainMap(drawn, memo)  # a patient's memo can be large: no copy per note
        for name in DRAW_ORDER:
            for r in self._ops[name].draw(ctx, plan[name], view, eps, cost):
                if r.key not in view:
                    releases[r.key] = r
                    drawn[r.key] = r.surrogate  # later operators see this note's earlier draws
        return list(releases.values())

    # ------------------------------------------------------------------------------- render

    def _render(self, ctx: NoteContext, plan: Mapping[str, list[Item]],
                memo: Mapping[str, str]) -> tuple[list[Replacement], int]:
        reps: list[Replacement] = []
        fallbacks = 0
        for name in DRAW_ORDER:
            for it in plan[name]:
                got = self._ops[name].render(ctx, it, memo)
                if got is None:  # refused at the patient's cap: the placeholder, nothing true
                    fallbacks += 1
                    got = (placeholder(it.label), "fallback-placeholder")
                reps.append(Replacement(it.span.start, it.span.end, it.label, got[0], got[1]))
        return reps, fallbacks

    async def _note(self, ctx: NoteContext, plan: dict[str, list[Item]], memo: dict[str, str],
                    model: ModelInfo) -> DeidNote:
        cost, eps = self._account(ctx, plan, memo)
        releases = self._draw(ctx, plan, memo, cost, eps)
        spend_id = self._hasher.event(ctx.note.event_id)
        result = await self._store.commit(ctx.patient, spend_id, releases, self._cap)
        memo.update(result.surrogates)
        for name in DRAW_ORDER:
            self._ops[name].committed(ctx, result)
        reps, fallbacks = self._render(ctx, plan, memo)
        self.stats.update(ctx.shared.get("stats", ()))
        return self._event(ctx, reps, result, fallbacks, model)

    def _event(self, ctx: NoteContext, reps: list[Replacement], result: CommitResult, fallbacks: int,
               model: ModelInfo) -> DeidNote:
        note = ctx.note
        text, placed = render(note.text, reps)
        return DeidNote(
            event_id=note.event_id,
            patient_pseudonym=ctx.patient,
            document_pseudonym=self._hasher.document(note.document_id) if note.document_id else None,
            note_type=note.note_type,
            language=note.language,
            text=text,
            spans=[SubstitutedSpan(start=p.start, end=p.end, label=p.label.value, strategy=p.strategy)
                   for p in placed],
            privacy=PrivacyAccount(
                # a replay publishes the account its first commit recorded: byte-identical output
                epsilon_spent=_first(result.recorded_spent_micro, result.spent_micro) / MICRO,
                patient_epsilon_total=_first(result.recorded_total_micro, result.total_micro) / MICRO,
                patient_epsilon_cap=self._p.patient_cap,
                exhausted=fallbacks > 0,
                fallback_count=fallbacks,
            ),
            model=model,
            kept_labels=sorted(ctx.shared.get("kept_labels", ())),
        )


def _first(recorded: int | None, current: int) -> int:
    return current if recorded is None else recorded
