"""The substitution engine: memoized, budgeted surrogates for one batch of notes.

Per batch and patient: one ``store.lookup`` for every memo key of the patient's notes, then one
``store.commit`` *per note* with ``spend_id = hasher.event(event_id)``. One commit per note (not
per patient) because the budget, the privacy account and replay detection are per event: a
redelivered event is recognised by its own spend id even when it arrives batched with new notes
of the same patient, and a refusal only hits the note that crossed the cap. Notes of one patient
are handled in order so that a value first seen in note 1 is a memo hit (free) in note 2.

A replay spends nothing and renders byte-identical output: a granted commit stored every
surrogate, so the replay finds them all in the memo; a refused commit stored no costed value and
recorded no spend, so the replay is refused again and gets the same fallback.

Dates are durations from ``RawNote.document_date``, never the wall clock. A note without a
document date renders its absolute dates as the ``[DATE]`` placeholder (deterministic, free);
relative expressions ("il y a 10 ans") and ages need no reference and are noised as usual.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from deid.events import DeidNote, ModelInfo, PrivacyAccount, RawNote, SubstitutedSpan
from deid.keys import KeyHasher
from deid.labels import Category, Label
from deid.merge import resolve
from deid.neighbours.replace import DEFAULT_N as NEIGHBOURS_N
from deid.neighbours.replace import replace_tokens
from deid.privacy.budget import split_micro
from deid.privacy.mechanisms import BoundedLaplace, laplace_metric
from deid.render import Replacement, render
from deid.settings import Settings
from deid.spans import Span
from deid.store.base import MICRO, PatientStore, Release
from deid.store.memory import InMemoryStore
from deid.surrogates import formats, names, places
from deid.surrogates.registry import resolve_strategy
from deid.temporal import expressions as tx

INTERVAL_BOUNDS_DAYS = (61, 660, 36_000)  # short / medium / long amplitude categories (2022 paper)
SHIFT_MAX_DAYS = 365  # uniform shift baseline: one draw in [-365, 365] \ {0} per patient
_SHIFT_VALUE = "\x1fdate-shift"


def interval_bound(days: int) -> int:
    for b in INTERVAL_BOUNDS_DAYS:
        if days <= b:
            return b
    return INTERVAL_BOUNDS_DAYS[-1]


@dataclass
class _Item:
    """One mention to substitute."""

    span: Span
    text: str
    strategy: str
    key: str = ""
    costed: bool = False
    extra_key: str = ""  # surname memo (names) or the patient's shift (shift strategy)
    temporal: tx.Temporal | None = None
    fallback: str = ""  # rendered when a costed release is refused


def _placeholder(label: Label) -> str:
    return f"[{label.category.value}]"


def _merge_overlaps(spans: Sequence[Span]) -> list[Span]:
    """Overlapping spans become their union (a partial replacement would leak the rest)."""
    return resolve(spans)


class Substituter:
    def __init__(
        self,
        store: PatientStore,
        hasher: KeyHasher,
        settings: Settings,
        rng: random.Random,
        *,
        shift_max_days: int = SHIFT_MAX_DAYS,
    ) -> None:
        if shift_max_days < 1:
            raise ValueError("shift_max_days must be at least 1")
        self._shift_max = shift_max_days
        self._store = store
        self._hasher = hasher
        self._settings = settings
        self._p = settings.privacy
        self._rng = rng
        self._cap = round(self._p.patient_cap * MICRO)
        for label in Label:  # a bad strategy configuration fails at start, not on the first note
            resolve_strategy(label, settings)

    # ------------------------------------------------------------------------------ public

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

    # ----------------------------------------------------------------------------- planning

    def _plan(self, patient: str, note: RawNote, note_spans: Sequence[Span]) -> list[_Item]:
        items = []
        for s in _merge_overlaps(note_spans):
            text = note.text[s.start : s.end]
            strategy = resolve_strategy(s.label, self._settings)
            it = _Item(s, text, strategy)
            cat = s.label.category
            if strategy == "placeholder":
                items.append(it)
                continue
            if cat in (Category.DATE, Category.AGE):
                t = tx.parse(text, note.language, age=cat is Category.AGE, ref=note.document_date)
                if t is None or (t.kind == "date" and note.document_date is None):
                    it.strategy = "placeholder"
                    items.append(it)
                    continue
                it.temporal = t
                if strategy == "shift":
                    it.extra_key = self._hasher.value(patient, Label.DATE, _SHIFT_VALUE)
                    items.append(it)
                    continue
                if strategy == "interval" and t.kind != "date":
                    it.strategy = "dp-laplace"  # durations have no chronology to keep
                it.key = self._hasher.value(patient, s.label, t.canonical())
                it.costed = True
                it.fallback = (tx.generalize(t) if self._p.exhausted_fallback == "generalize" else None) \
                    or _placeholder(s.label)
            elif s.label is Label.CITY and strategy in ("exponential", "geo"):
                it.key = self._hasher.value(patient, s.label, text)
                it.costed = self._find_place(text, note.language) is not None
                it.fallback = _placeholder(s.label)
            else:
                it.key = self._hasher.value(patient, s.label, text)
                if cat is Category.PER and strategy != "neighbour":
                    parts = names.split_name(text)
                    if parts.last and parts.first:
                        it.extra_key = self._hasher.value(patient, s.label, parts.last)
            items.append(it)
        return items

    # --------------------------------------------------------------------------------- draw

    def _find_place(self, text: str, lang: str) -> tuple[places.PlaceTable, places.Place] | None:
        for table in places.lookup_tables(lang):
            p = table.find(text)
            if p is not None:
                return table, p
        return None

    def _place_value(self, p: places.Place, lang: str) -> str:
        if not p.postcode:  # BFC entries: take the accented name and postcode of the national table
            q = places.country_table("fr").find(p.name)
            if q is not None:
                return f"{q.name}|{q.postcode}"
        return f"{p.name}|{p.postcode}"

    def _draw_place(self, it: _Item, lang: str, eps: float) -> str:
        found = self._find_place(it.text, lang)
        if found is None:
            return self._place_value(places.tables_for(lang)[-1].uniform(self._rng, it.text), lang)
        table, origin = found
        if it.strategy == "geo":
            return self._place_value(table.geo(self._rng, origin, eps), lang)
        return self._place_value(
            table.exponential(self._rng, origin, eps, self._p.place_radius_km, self._p.place_k), lang)

    def _draw_temporal(self, it: _Item, ref: date | None, eps: float) -> str:
        t = it.temporal
        assert t is not None
        v = tx.offset(t, ref)
        noisy = round(laplace_metric(self._rng, v, eps))
        return tx.with_offset(t, ref, noisy).canonical()

    def _draw_intervals(self, items: list[_Item], ref: date, eps: dict[str, float]) -> dict[str, str]:
        """Interval baseline: noise each gap between consecutive dates (bounded Laplace, 1 day
        sensitivity, bounds by the gap's amplitude category), rebuilt outward from the reference
        date so that the order of the dates is kept.

        As in the 2022 paper, the category (61 / 660 / 36,000 days) is chosen from the true gap,
        which is itself a small data-dependent disclosure; dates memoized from earlier notes keep
        their surrogate and are not re-chained, so order across notes is not guaranteed."""
        out: dict[str, str] = {}
        dated = sorted({it.key: it for it in items}.values(), key=lambda it: tx.offset_days(it.temporal, ref))
        after = [it for it in dated if tx.offset_days(it.temporal, ref) >= 0]
        before = [it for it in reversed(dated) if tx.offset_days(it.temporal, ref) < 0]
        for chain, sign in ((after, 1), (before, -1)):
            prev_true, prev_new = 0, 0
            for it in chain:
                true = abs(tx.offset_days(it.temporal, ref))
                gap = true - prev_true
                mech = BoundedLaplace(eps[it.key], 0, interval_bound(gap), 1)
                prev_new += round(mech.release(self._rng, gap))
                prev_true = true
                assert it.temporal is not None
                out[it.key] = tx.with_offset_days(it.temporal, ref, sign * prev_new).canonical()
        return out

    def _draw_random(self, it: _Item, note: RawNote, memo: dict[str, str], city_postcode: str,
                     avoid: frozenset[str] = frozenset()) -> str:
        """A surrogate for ``it``; names are drawn outside ``avoid`` (the note's own name words)."""
        lab, lang, text, rng = it.span.label, note.language, it.text, self._rng
        cat = lab.category
        if it.strategy == "neighbour":  # every word to an embedding neighbour, digits redrawn
            return replace_tokens(text, rng, NEIGHBOURS_N)
        if cat is Category.PER:
            parts = names.split_name(text)
            gender = names.gender_of(parts.first) or names.gender_of_title(parts.title)
            last = ""
            if parts.last:
                known = memo.get(it.extra_key) if it.extra_key else None
                last = known.split("|", 1)[1] if known else names.draw_last(rng, lang, parts.last, avoid)
            first = names.draw_first(rng, lang, gender, avoid) if parts.first else ""
            return f"{first}|{last}"
        if cat is Category.TEL:
            return formats.phone_digits(rng, text)
        if lab is Label.EMAIL:
            return formats.email(rng, text, names.draw_first(rng, lang, None, avoid),
                                 names.draw_last(rng, lang, avoid=avoid))
        if lab is Label.URL:
            return formats.url(rng, text)
        if lab is Label.IP:
            return formats.ip(rng, text)
        if cat is Category.QID:
            return formats.identifier(rng, text)
        if lab is Label.STREET:
            return formats.street(rng, lang, text)
        if lab is Label.POSTCODE:
            return formats.postcode(rng, text, city_postcode)
        if lab is Label.COUNTRY:
            return formats.country(rng, lang, text)
        if lab in (Label.CITY, Label.LOCATION):
            return self._place_value(places.tables_for(lang)[-1].uniform(rng, text), lang)
        if cat is Category.ORG:
            city = places.tables_for(lang)[-1].uniform(rng).name
            return formats.organisation(rng, lang, city, names.draw_last(rng, lang))
        if lab is Label.PROFESSION:
            return formats.profession(rng, lang)
        return _placeholder(lab)

    # ------------------------------------------------------------------------------- render

    def _render(self, it: _Item, value: str) -> str:
        cat = it.span.label.category
        if it.strategy == "neighbour":
            return value
        if it.temporal is not None:
            return tx.render(tx.from_canonical(it.temporal, value))
        if cat is Category.PER:
            first, _, last = value.partition("|")
            return names.render_name(names.split_name(it.text), first, last)
        if cat is Category.TEL:
            return formats.render_phone(it.text, value)
        if it.span.label in (Label.CITY, Label.LOCATION):
            return names.match_case(it.text, value.split("|", 1)[0])
        if cat is Category.QID or it.span.label is Label.POSTCODE:
            a, b = [c for c in it.text if c.isalnum()], [c for c in value if c.isalnum()]
            return formats.reshape(it.text, "".join(b)) if len(a) == len(b) else value
        return value

    # ------------------------------------------------------------------------------ patient

    async def _patient(
        self, patient: str, notes: list[RawNote], spans: list[Sequence[Span]], model: ModelInfo
    ) -> list[DeidNote]:
        plans = [self._plan(patient, n, s) for n, s in zip(notes, spans, strict=True)]
        keys = sorted({k for plan in plans for it in plan for k in (it.key, it.extra_key) if k})
        memo = await self._store.lookup(patient, keys) if keys else {}
        return [await self._note(patient, note, plan, memo, model)
                for note, plan in zip(notes, plans, strict=True)]

    async def _note(
        self, patient: str, note: RawNote, plan: list[_Item], memo: dict[str, str], model: ModelInfo
    ) -> DeidNote:
        releases: dict[str, Release] = {}
        new_costed: dict[str, _Item] = {it.key: it for it in plan if it.costed and it.key not in memo}
        cats = [it.span.label.category.value for it in new_costed.values()]
        micro = split_micro(self._p.epsilon_per_note, cats,
                            self._p.category_weights) if new_costed else []
        cost = dict(zip(new_costed, micro, strict=True))
        eps = {k: c / MICRO for k, c in cost.items()}

        # the patient's shift (shift baseline), drawn once and memoized for free
        for it in plan:
            if it.strategy == "shift" and it.extra_key not in memo and it.extra_key not in releases:
                d = self._rng.randint(1, self._shift_max) * self._rng.choice((-1, 1))
                releases[it.extra_key] = Release(it.extra_key, str(d), 0)

        interval_items = [it for it in new_costed.values() if it.strategy == "interval"]
        if interval_items:
            assert note.document_date is not None
            for k, v in self._draw_intervals(interval_items, note.document_date, eps).items():
                releases[k] = Release(k, v, cost[k])
        city_postcode = ""
        avoid = names.name_words(it.text for it in plan if it.span.label.category is Category.PER)
        # cities first so that a postcode can follow the surrogate city of the same note
        for it in sorted(plan, key=lambda it: it.span.label is not Label.CITY):
            if not it.key or it.key in memo or it.key in releases or it.strategy == "placeholder":
                continue
            if it.costed and it.strategy in ("dp-laplace",):
                releases[it.key] = Release(it.key, self._draw_temporal(it, note.document_date, eps[it.key]),
                                           cost[it.key])
            elif it.span.label is Label.CITY and it.strategy in ("exponential", "geo"):
                value = self._draw_place(it, note.language, eps.get(it.key, 1.0))
                releases[it.key] = Release(it.key, value, cost.get(it.key, 0))
            elif not it.costed:
                value = self._draw_random(it, note, {**memo, **{k: r.surrogate for k, r in releases.items()}},
                                          city_postcode, avoid)
                releases[it.key] = Release(it.key, value, 0)
                if it.extra_key and it.extra_key not in memo and it.extra_key not in releases:
                    releases[it.extra_key] = Release(it.extra_key, "|" + value.split("|", 1)[1], 0)
            if it.span.label is Label.CITY and it.key in releases:
                city_postcode = releases[it.key].surrogate.partition("|")[2]

        result = await self._store.commit(patient, self._hasher.event(note.event_id), list(releases.values()),
                                          self._cap)
        memo.update(result.surrogates)

        reps: list[Replacement] = []
        fallbacks = 0
        for it in plan:
            if it.strategy == "placeholder":
                reps.append(Replacement(it.span.start, it.span.end, it.span.label,
                                        _placeholder(it.span.label),
                                        "placeholder"))
                continue
            if it.strategy == "shift":
                assert it.temporal is not None
                shift = int(memo[it.extra_key])
                reps.append(Replacement(it.span.start, it.span.end, it.span.label,
                                        tx.render(tx.shifted(it.temporal, shift)), "shift"))
                continue
            if it.key not in memo:  # refused: over the patient's cap
                fallbacks += 1
                reps.append(Replacement(it.span.start, it.span.end, it.span.label, it.fallback,
                                        f"fallback-{self._p.exhausted_fallback}"))
                continue
            # an unknown place was drawn uniformly from the table, not by the mechanism
            strategy = "random" if not it.costed and it.strategy in ("exponential", "geo") else it.strategy
            reps.append(Replacement(it.span.start, it.span.end, it.span.label, self._render(it, memo[it.key]),
                                    strategy))
        text, placed = render(note.text, reps)
        return DeidNote(
            event_id=note.event_id,
            patient_pseudonym=patient,
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
        )


def _first(recorded: int | None, current: int) -> int:
    return current if recorded is None else recorded


# ------------------------------------------------------------------------------ sync entry

_MODES: dict[str, dict[str, str]] = {
    # ages are kept under "random" as in the i2b2 practice the shift baseline models
    "dp": {},
    "random": {"DATE": "shift", "AGE": "shift", "CITY": "random"},
    "placeholder": {c.value: "placeholder" for c in Category},
}


def deidentify_text(
    text: str,
    spans: Sequence[Span],
    language: str = "fr",
    document_date: date | None = None,
    *,
    strategy: str = "dp",
    rng: random.Random | None = None,
    store: PatientStore | None = None,
    settings: Settings | None = None,
    patient_id: str = "local",
    event_id: str = "local",
) -> DeidNote:
    """Substitute one text synchronously (CLI ``deid redact --strategy dp|random|placeholder``).

    ``strategy`` picks a mode: "dp" (the settings' DP strategies), "random" (random surrogates,
    dates shifted, no privacy budget) or "placeholder". Not for use inside a running event loop.
    """
    if strategy not in _MODES:
        raise ValueError(f"unknown strategy {strategy!r}; choose one of {sorted(_MODES)}")
    base = settings or Settings()
    merged = {**_MODES[strategy], **base.strategies} if strategy == "dp" else _MODES[strategy]
    cfg = base.model_copy(update={"strategies": merged})
    sub = Substituter(store or InMemoryStore(), KeyHasher(cfg.secret_bytes()), cfg,
                      rng or random.SystemRandom())
    note = RawNote(event_id=event_id, patient_id=patient_id, language=language,  # type: ignore[arg-type]
                   document_date=document_date, text=text)
    return asyncio.run(sub.substitute([note], [list(spans)], ModelInfo(name="given", version="0")))[0]


