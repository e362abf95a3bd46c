"""Places and organisations: cities through the exponential mechanism (2023 paper) or planar
Laplace snapped to the table (2022 baseline); streets, postcodes, countries and organisations
random. Cities are drawn first so that a postcode of the same note follows its surrogate city.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from deid.labels import Category, Label
from deid.store.base import Release
from deid.substitution.items import Item, NoteContext, placeholder
from deid.substitution.operators import Operator, register
from deid.surrogates import formats, names, places


def _find_place(text: str, lang: str) -> tuple[places.PlaceTable, places.Place] | None:
    for table in places.lookup_tables(lang):
        p = table.find(text)
        if p is not None:
            return table, p
    return None


def _place_value(p: places.Place) -> str:
    if not p.postcode:  # BFC entries: take the accented name and postcode of the national table
        q = places.country_table("fr").find(p.name)
        if q is not None:
            return f"{q.name}|{q.postcode}"
    return f"{p.name}|{p.postcode}"


@register("places")
class PlaceOperator(Operator):
    name = "places"
    handles = frozenset({"random", "exponential", "geo"})

    def plan(self, ctx: NoteContext, items: Sequence[Item]) -> None:
        for it in items:
            it.key = ctx.key(it.label, it.text)
            if it.label is Label.CITY and it.strategy in ("exponential", "geo"):
                it.costed = _find_place(it.text, ctx.language) is not None
                it.unit = "feature" if it.strategy == "exponential" else "km"
                if not it.costed:  # an unknown place is drawn uniformly from the table
                    it.strategy = "random"

    def draw(self, ctx: NoteContext, items: Sequence[Item], memo: Mapping[str, str],
             eps: Mapping[str, float], cost: Mapping[str, int]) -> list[Release]:
        out: dict[str, Release] = {}
        city_postcode = ""
        lang, rng, p = ctx.language, ctx.rng, ctx.settings.privacy
        for it in sorted(items, key=lambda it: it.label is not Label.CITY):
            if it.key in memo or it.key in out:
                if it.label is Label.CITY:
                    city_postcode = (memo.get(it.key) or out[it.key].surrogate).partition("|")[2]
                continue
            if it.costed:
                if it.key not in eps:
                    continue  # not paid for: nothing may be drawn
                found = _find_place(it.text, lang)
                assert found is not None
                table, origin = found
                chosen = (table.geo(rng, origin, eps[it.key]) if it.strategy == "geo"
                          else table.exponential(rng, origin, eps[it.key], p.place_radius_km, p.place_k))
                value = _place_value(chosen)
                out[it.key] = Release(it.key, value, cost[it.key])
            else:
                value = self._random(ctx, it, city_postcode)
                out[it.key] = Release(it.key, value, 0)
            if it.label is Label.CITY:
                city_postcode = value.partition("|")[2]
        return list(out.values())

    def _random(self, ctx: NoteContext, it: Item, city_postcode: str) -> str:
        lab, lang, text, rng = it.label, ctx.language, it.text, ctx.rng
        if lab is Label.STREET:
            return formats.street(rng, lang, text)
        if lab is Label.POSTCODE:
            return formats.postcode(rng, text, city_postcode)
        if lab is Label.COUNTRY:
            return formats.country(rng, lang, text)
        if lab in (Label.CITY, Label.LOCATION):
            return _place_value(places.tables_for(lang)[-1].uniform(rng, text))
        if lab.category is Category.ORG:
            city = places.tables_for(lang)[-1].uniform(rng).name
            return formats.organisation(rng, lang, city, names.draw_last(rng, lang))
        return placeholder(lab)

    def render(self, ctx: NoteContext, item: Item, memo: Mapping[str, str]) -> tuple[str, str] | None:
        if item.key not in memo:
            return None
        value = memo[item.key]
        if item.label in (Label.CITY, Label.LOCATION):
            return names.match_case(item.text, value.split("|", 1)[0]), item.strategy
        if item.label is Label.POSTCODE:
            a = [c for c in item.text if c.isalnum()]
            b = [c for c in value if c.isalnum()]
            return (formats.reshape(item.text, "".join(b)) if len(a) == len(b) else value), "random"
        return value, "random"
