"""The operators of one mention at a time: placeholders, embedding neighbours, and the random
format-preserving surrogates of contacts and identifiers (a phone stays a phone of its shape, an
identifier keeps its length, separators and check digit). Two read what the operators before
them drew for the note: an e-mail address is built on its owner's surrogate names (the persons'
entries), a NIR encodes the surrogate birth date (the timeline's, once charged)."""

from __future__ import annotations

import re
from collections import ChainMap
from collections.abc import Mapping, MutableMapping, Sequence
from datetime import date
from typing import cast

from deid.labels import KEPT_BY_DEFAULT, Category, Label
from deid.neighbours.replace import DEFAULT_N as NEIGHBOURS_N
from deid.neighbours.replace import replace_tokens
from deid.store.base import PatientStore, Release
from deid.substitution.items import Item, NoteContext, placeholder
from deid.substitution.operators import Operator, claims, labels_of, register
from deid.substitution.persons import (
    initial_keys,
    initial_surrogate,
    name_word_keys,
    name_word_surrogate,
    new_initial,
    new_name_word,
)
from deid.substitution.temporal import TemporalOperator, patient_birth
from deid.surrogates import formats, identity
from deid.temporal import expressions as tx
from deid.temporal.lexicon import fold


class _Drawless(Operator):
    """An operator whose output needs no memo and no draw (deterministic, free)."""

    def plan(self, ctx: NoteContext, items: Sequence[Item]) -> None:
        return None

    def draw(self, ctx: NoteContext, items: Sequence[Item], memo: Mapping[str, str],
             eps: Mapping[str, float], cost: Mapping[str, int]) -> list[Release]:
        return []


@register("placeholder")
class PlaceholderOperator(_Drawless):
    """[PER], [DATE]...: deterministic, free, the safest readable output (Lange et al. 2020).

    A relative duration the detector took for a date ("in 3 months", "il y a 2 ans", "hace 2
    semanas") is kept as written, as ``random`` and ``safe-harbor`` keep it: no element of a date
    (HIPAA), and the note's date it would count from is itself a placeholder here. Anything with a
    day, a weekday, a month or a year stays a placeholder."""

    name = "placeholder"
    handles = claims(Label, {"placeholder"})

    def render(self, ctx: NoteContext, item: Item, memo: Mapping[str, str]) -> tuple[str, str]:
        if item.label is Label.DATE and is_duration(item.text, ctx.language):
            ctx.shared.setdefault("kept_labels", set()).add(item.label.value)
            return item.text, "kept"
        return placeholder(item.label), "placeholder"


def is_duration(text: str, language: str) -> bool:
    """A relative duration, and nothing else: an amount of a unit from or to the note's day, its
    direction or span said in words ("in 3 months", "il y a 2 ans"; a bare "93 ans" may be an age),
    and under 90 years (a longer one would tell an age over 89, which Safe Harbor aggregates)."""
    t = tx.parse(text, language)
    return (t is not None and t.kind == "relative" and tx.directed(text, language)
            and not (t.unit == "year" and t.amount >= 90))


@register("keep")
class KeepOperator(_Drawless):
    """A quasi-identifier a policy keeps in clear (the patient's sex, by default): the text as
    written, listed in the event's ``kept_labels`` so that no consumer takes it for a surrogate."""

    name = "keep"
    # only the labels a policy may keep (the patient's sex), never a direct identifier
    handles = claims(KEPT_BY_DEFAULT, {"keep"})

    def render(self, ctx: NoteContext, item: Item, memo: Mapping[str, str]) -> tuple[str, str]:
        ctx.shared.setdefault("kept_labels", set()).add(item.label.value)
        return item.text, "kept"


class _Memoized(Operator):
    """One random surrogate per (patient, category, normalized value), drawn once and memoized."""

    def plan(self, ctx: NoteContext, items: Sequence[Item]) -> None:
        for it in items:
            it.key = ctx.key(it.label, it.text)

    def draw(self, ctx: NoteContext, items: Sequence[Item], memo: Mapping[str, str],
             eps: Mapping[str, float], cost: Mapping[str, int]) -> list[Release]:
        out: dict[str, Release] = {}
        # entries an item adds beside its own value (an e-mail's new name words), seen by the next
        drawn: dict[str, str] = {}
        view = ChainMap(drawn, cast(MutableMapping[str, str], memo))  # read only: no copy per note
        for it in items:
            if it.key not in memo and it.key not in out:
                out[it.key] = Release(it.key, self.surrogate(ctx, it, view, drawn), 0)
        return [*out.values(), *(Release(k, v, 0) for k, v in drawn.items() if k not in memo)]

    def surrogate(self, ctx: NoteContext, it: Item, memo: Mapping[str, str], drawn: dict[str, str]) -> str:
        raise NotImplementedError


@register("neighbour")
class NeighbourOperator(_Memoized):
    """Every word to one of its embedding neighbours, digits redrawn (Friedrich et al. 2019)."""

    name = "neighbour"
    # word-level: any category but the temporal ones, whose values the timeline owns
    handles = claims(Label, {"neighbour"}) - claims(labels_of(Category.DATE, Category.AGE), {"neighbour"})

    def surrogate(self, ctx: NoteContext, it: Item, memo: Mapping[str, str], drawn: dict[str, str]) -> str:
        return replace_tokens(it.text, ctx.rng, NEIGHBOURS_N)

    def render(self, ctx: NoteContext, item: Item, memo: Mapping[str, str]) -> tuple[str, str]:
        return memo[item.key], "neighbour"


_LOCAL_LETTERS = re.compile(r"[^\W\d_]+")  # the letter runs of an e-mail's local part


@register("formats")
class FormatOperator(_Memoized):
    """Phones, e-mails, URLs, IPs, identifiers, professions: random and format-preserving."""

    name = "formats"
    handles = claims(labels_of(Category.TEL, Category.REF, Category.QID, Category.OTHER), {"random"})

    def plan(self, ctx: NoteContext, items: Sequence[Item]) -> None:
        super().plan(ctx, items)
        for it in items:
            if it.label is Label.EMAIL:  # its owner's surrogate name, if the note names them
                pieces = _LOCAL_LETTERS.findall(it.text.rpartition("@")[0])
                words = [p for p in pieces if len(p) > 1]
                glued = [(w[0], w[1:]) for w in words if len(w) > 2]  # "jwhitaker": an initial glued
                alone = [(c, w) for c in pieces if len(c) == 1 for w in words]  # "c.rousseau"
                keys = [k for w in [*words, *(w for _, w in glued)] for k in name_word_keys(ctx, w)]
                keys += [k for c, w in [*glued, *alone] for k in initial_keys(ctx, c, w)]
                it.extra_keys = tuple(dict.fromkeys(keys))

    def surrogate(self, ctx: NoteContext, it: Item, memo: Mapping[str, str], drawn: dict[str, str]) -> str:
        lab, lang, text, rng = it.label, ctx.language, it.text, ctx.rng
        cat = lab.category
        if cat is Category.TEL:
            if not any(c.isdigit() for c in text):  # a word the detector called a phone: no digit to
                return formats.identifier(rng, text)  # draw, so every letter is drawn instead
            return formats.phone_digits(rng, text)
        if lab is Label.EMAIL:
            return self._email(ctx, text, memo, drawn)
        if lab is Label.URL:
            return formats.url(rng, text)
        if lab is Label.IP:
            return formats.ip(rng, text)
        if cat is Category.QID:  # no true value in it: a NIR's birth digits are set at render
            return formats.identifier(rng, text)
        if lab is Label.PROFESSION:
            return formats.profession(rng, lang)
        return placeholder(lab)

    @staticmethod
    def _email(ctx: NoteContext, text: str, memo: Mapping[str, str], drawn: dict[str, str]) -> str:
        """The address on its owner's surrogate names: a name word the note or the history knows
        renders as it does there; a new one becomes a name entry of the patient (``drawn``), so
        that "florinda.solano" before any note names Florinda Solano and "Florinda Solano" after
        it render one person."""
        avoid = {fold(v) for v in memo.values() if "|" not in v}

        def name(word: str) -> str:
            got = name_word_surrogate(ctx, word, memo)
            if got is None:
                key, got = new_name_word(ctx, word, avoid)
                drawn[key] = got
            return got

        def known(word: str) -> bool:
            return name_word_surrogate(ctx, word, memo) is not None

        def glued(word: str) -> bool:
            """ "jwhitaker": an initial and a surname the note, the history or the lists know."""
            rest = word[1:]
            if known(word) or identity.is_given(word) or identity.is_surname(word):
                return False
            return known(rest) or identity.is_surname(rest)

        def initial(letter: str, surname: str) -> str:
            got = initial_surrogate(ctx, letter, surname, memo)
            if got is None:
                key, got = new_initial(ctx, letter, surname, avoid)
                drawn[key] = got
            return got

        return formats.email(ctx.rng, text, name, glued=glued, initial=initial)

    def render(self, ctx: NoteContext, item: Item, memo: Mapping[str, str]) -> tuple[str, str]:
        value, cat = memo[item.key], item.label.category
        if cat is Category.TEL:
            if not any(c.isdigit() for c in item.text):
                return _reshaped(item.text, value), "random"
            return formats.render_phone(item.text, value), "random"
        if cat is Category.QID:
            if formats.is_nir(item.text):
                value = formats.nir_with_birth(item.text, value, _charged_birth(ctx, memo))
            return _reshaped(item.text, value), "random"
        return value, "random"

    async def prepare(self, store: PatientStore, ctxs: Sequence[NoteContext],
                      items: Sequence[Sequence[Item]]) -> None:
        """A NIR renders from the patient's charged birth date: a note without any date (so
        without the timeline read) reads it here, once per batch and patient."""
        if ctxs and "temporal.state" not in ctxs[0].shared and any(
                it.label.category is Category.QID and formats.is_nir(it.text) for its in items for it in its):
            await TemporalOperator().prepare(store, ctxs, items)


def _charged_birth(ctx: NoteContext, memo: Mapping[str, str]) -> tuple[date, date] | None:
    """(true, surrogate) birth date of the patient if its release was charged and stored: read
    after the note's commit (the engine's ``committed`` step has moved the note's accepted draws
    into the timeline and dropped the rest), never from this note's pending, uncharged draws. A
    birth date refused at the cap is None (issue 31: a NIR printed the refused draw's year)."""
    if ctx.shared.get("temporal.pending"):
        return None  # render before the commit is learned: nothing pending counts as charged
    return patient_birth(ctx, memo)


def _reshaped(original: str, value: str) -> str:
    """``value`` in the separators and case of ``original`` when both have as many characters."""
    a, b = [c for c in original if c.isalnum()], [c for c in value if c.isalnum()]
    return formats.reshape(original, "".join(b)) if len(a) == len(b) else value
