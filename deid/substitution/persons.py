"""Person names: a random name of the note's language, memoized per patient.

Family ties follow Tchouka et al. 2022: a full name is looked up whole; its surname has an entry
of its own, so a relative with the same surname shares its surrogate surname. A name drawn for a
note is never one of that note's own name words (``names.name_words``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from deid.store.base import Release
from deid.substitution.items import Item, NoteContext
from deid.substitution.operators import Operator, register
from deid.surrogates import names


@register("persons")
class PersonOperator(Operator):
    name = "persons"
    handles = frozenset({"random"})

    def plan(self, ctx: NoteContext, items: Sequence[Item]) -> None:
        for it in items:
            it.key = ctx.key(it.label, it.text)
            parts = names.split_name(it.text)
            it.data = parts
            if parts.last and parts.first:
                it.extra_keys = (ctx.key(it.label, parts.last),)

    def draw(self, ctx: NoteContext, items: Sequence[Item], memo: Mapping[str, str],
             eps: Mapping[str, float], cost: Mapping[str, int]) -> list[Release]:
        out: dict[str, Release] = {}
        avoid = names.name_words(it.text for it in items)
        lang, rng = ctx.language, ctx.rng
        for it in items:
            if it.key in memo or it.key in out:
                continue
            parts: names.NameParts = it.data
            gender = names.gender_of(parts.first) or names.gender_of_title(parts.title)
            last = ""
            if parts.last:
                surname_key = it.extra_keys[0] if it.extra_keys else ""
                known = memo.get(surname_key) or (out[surname_key].surrogate if surname_key in out else None)
                last = known.split("|", 1)[1] if known else names.draw_last(rng, lang, parts.last, avoid)
            first = names.draw_first(rng, lang, gender, avoid) if parts.first else ""
            out[it.key] = Release(it.key, f"{first}|{last}", 0)
            for k in it.extra_keys:
                if k not in memo and k not in out:
                    out[k] = Release(k, f"|{last}", 0)
        return list(out.values())

    def render(self, ctx: NoteContext, item: Item, memo: Mapping[str, str]) -> tuple[str, str]:
        first, _, last = memo[item.key].partition("|")
        return names.render_name(item.data, first, last), "random"
