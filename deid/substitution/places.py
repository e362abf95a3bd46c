"""Places and organisations as records.

Mentions of one address (a street, a postcode, a town, a region, a country that follow each other
with only punctuation or line breaks between them) form a group, rendered from one row of the
feed's address table (``deid.surrogates.gazetteer``): the town, its real postcode, its department
or county, its region or state and its country exist together. The group's memo entry is keyed by
the true town (canonical name), so "21000", "Dijon" and "DIJON" of one patient share it in every
note. The true town goes through the place mechanism of the settings (exponential mechanism over
the fixed candidate set of its first-level unit, merged with its nearest units when it has fewer
than ``gazetteer.MIN_TOWNS`` towns, planar Laplace, or uniform); a group with no town the tables
know is drawn uniformly from the feed's table (free: it depends on nothing true). Under Safe Harbor
a US ZIP code keeps its first three digits, or "000" for a restricted area (``privacy.safe_harbor``),
and the town of its address is drawn among the table's towns of those three digits, so that the
two agree ("Boston, MA 021**" -> "Cambridge, MA 021**"), when the area has ``MIN_ZIP3_TOWNS``
(else among the towns of its state).

A hospital or organisation is one unit: its kind words ("CHU", "Clinique", "Hospital
Universitario", "General Hospital") are kept, its town is replaced by a town large enough for the
kind ("CHU de Dijon" -> "CHU de Besançon"), with the French "de"/"d'"/"du" agreeing, and a person
or saint in its name by a drawn one ("Hôpital Bichat" -> "Hôpital Moreau").
"""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from deid.labels import Category, Label
from deid.privacy.safe_harbor import is_us_zip, zip3
from deid.rules.postcodes import POSTCODE_SHAPE
from deid.store.base import Release
from deid.substitution.items import Item, NoteContext
from deid.substitution.operators import Operator, claims, labels_of, register
from deid.substitution.strategies import chosen_strategy
from deid.surrogates import formats, names
from deid.surrogates import gazetteer as gz
from deid.temporal.lexicon import fold

_GAP = re.compile(r"^[\s,;:()/–\-]*$")
# The fewest towns of the table a three-digit ZIP area needs before a Safe Harbor town is drawn
# among them. The drawn town adds to the three digits (which the rule lets the note keep) only
# that the true town is not the drawn one: each other town of the area goes from 1/n to at most
# 1/(n - 1). With one or two towns that "not" would all but name the true one, so a smaller area
# gets a town of its state (in the state, not in the area), and "000" or an area the table has no
# town of a town of the whole table, as before. The choice reads the released digits only, never
# the true town.
MIN_ZIP3_TOWNS = 5
_GROUPED = (Label.CITY, Label.POSTCODE, Label.LOCATION, Label.COUNTRY, Label.STREET)


def _is_postcode(it: Item) -> bool:
    """A place mention written as a postcode, whatever label it carries: the model calls "SW1A 2AA"
    or "41013" a place, and a town name must not replace it."""
    return it.label is Label.POSTCODE or (
        it.label in (Label.CITY, Label.LOCATION) and POSTCODE_SHAPE.fullmatch(it.text.strip()) is not None
    )


# Words that say what kind of organisation a name is: kept verbatim.
_ORG_WORDS = {
    "chu",
    "chru",
    "chr",
    "ch",
    "chi",
    "chs",
    "ghu",
    "gh",
    "centre",
    "center",
    "centro",
    "hospitalier",
    "hospitaliere",
    "hospitalario",
    "universitaire",
    "universitario",
    "universitaria",
    "university",
    "regional",
    "régional",
    "general",
    "hôpital",
    "hopital",
    "hospital",
    "hospitales",
    "hospices",
    "civils",
    "clinique",
    "polyclinique",
    "clinica",
    "clínica",
    "clinic",
    "clinico",
    "clínico",
    "ehpad",
    "maison",
    "institut",
    "instituto",
    "institute",
    "de",
    "du",
    "des",
    "d'",
    "la",
    "le",
    "les",
    "del",
    "of",
    "the",
    "santé",
    "sante",
    "salud",
    "health",
    "medical",
    "médical",
    "privé",
    "prive",
    "privado",
    "complejo",
    "residencia",
    "résidence",
    "cabinet",
    "laboratoire",
    "laboratoires",
    "pharmacie",
    "farmacia",
    "infirmary",
    "royal",
    "memorial",
    "community",
    "children's",
    "enfants",
    "niños",
    "mère",
    "infantil",
    "materno",
    "et",
    "y",
    "and",
    "médico",
    "medico",
    "service",
    "servicio",
    "unidad",
    "unité",
    "mutualiste",
}
# A town named right after (or, in English, right before) a hospital's kind words is the
# hospital's town: "(CHU de [Dijon])", "[Boston] General Hospital".
_HOSP_BEFORE = re.compile(
    r"(?i)\b(chu|chru|chr|chi|ch|centre hospitalier(?: universitaire| r[ée]gional)?|h[ôo]pital|"
    r"hospital(?: universitario| general(?: universitario)?| cl[íi]nico)?|clinique|cl[íi]nica|polyclinique|"
    r"hospices civils)\s+(?:de\s+|d['’]|du\s+|des\s+|del\s+)?$"
)
_HOSP_AFTER = re.compile(r"(?i)^\s+(general hospital|medical center|university hospital|hospital|clinic)\b")
_ARTICLES = frozenset({"la", "le", "les", "el", "los", "las", "the"})
_SAINT = re.compile(r"^(saint|sainte|st|ste|san|santa|santo|sant)\b[-. ]*", re.I)
_BIG = ("chu", "chru", "universit", "clinico", "university", "chr ")


@dataclass
class PlaceMention:
    region: str  # the table the group's records come from
    origin: int | None  # the true town's row, when a table knows it
    role: str  # town, postcode, admin1, admin1_code, admin2, admin2_code, country
    elision: str = ""
    exclude: str = ""
    zip3: bool = False  # a US ZIP code under Safe Harbor: its first three digits, or 000
    zip3_area: str = ""  # the three digits the group's ZIP code is rendered with, if it has one
    zip3_state: str = ""  # the state the group names beside that ZIP code (kept by Safe Harbor)


@dataclass
class OrgMention:
    region: str
    before: str  # text kept before the town or name (connector removed)
    after: str  # text kept after it ("'s Hospital", "General Hospital", "Clinic")
    town: str  # the true town in the name ("" when the name holds none)
    min_population: int = 0
    saint: str = ""  # "Saint-" kept before a replaced saint's name
    joined: bool = False  # a French "de/d'/du" went before the town: rewritten for the surrogate
    middle: str = ""  # the replaced name as written (case template)
    possessive: str = ""  # "'s" after the replaced name
    elision: str = ""  # French: what the kept text before the town asks of it ("de " -> a consonant)


def _min_population(kind: str) -> int:
    """How large a town a hospital of this kind needs: a university hospital a city."""
    if any(b in kind + " " for b in _BIG):
        return 100_000
    return 15_000 if re.search(r"hospital|hospitalier|\bch\b|general", kind) else 5_000


def _groups(items: Sequence[Item], text: str) -> list[list[Item]]:
    out: list[list[Item]] = []
    for it in sorted(items, key=lambda i: i.span.start):
        if it.label not in _GROUPED:
            continue
        if (
            out
            and _GAP.match(text[out[-1][-1].span.end : it.span.start])
            and text[out[-1][-1].span.end : it.span.start].count("\n") <= 2
        ):
            out[-1].append(it)
        else:
            out.append([it])
    return out


def _admin1_hint(group: Sequence[Item], region: str) -> str:
    """A state or region the group names (its first-level code): it picks among homonyms."""
    hint = ""
    for it in group:
        for r in gz.lookup_order(region):
            g = gz.gazetteer(r)
            if it.label in (Label.LOCATION, Label.COUNTRY, Label.CITY) and g.admin_kind(it.text):
                hint = hint or g.admin1.get(fold(it.text.strip().rstrip(".")), "")
                break
    return hint


def _anchor(group: Sequence[Item], region: str, hint: str) -> tuple[tuple[str, int] | None, Item | None]:
    """The group's town as (table, row) and the mention that names it: a town first, then a
    postcode; (None, None) when no table knows any."""
    for it in sorted(group, key=lambda i: i.label is not Label.CITY or _is_postcode(i)):
        if it.label not in (Label.CITY, Label.LOCATION, Label.POSTCODE):
            continue
        # a postcode is read in the feed's own table only: "51092" is a French department in a
        # French note, never the Spanish province 51 (Ceuta)
        for r in [region] if _is_postcode(it) else gz.lookup_order(region):
            idx = _row_of(gz.gazetteer(r), it, hint)
            if idx is not None:
                return (r, idx), it
    return None, None


def _row_of(g: gz.Gazetteer, it: Item, hint: str) -> int | None:
    """The row of the table ``g`` that the mention names, if any."""
    if _is_postcode(it):
        found = g.find_postcode(it.text)
        return found[0] if found else None
    if it.label is Label.LOCATION and g.admin_kind(it.text):
        return None
    return g.find_in(it.text, hint) if hint else g.find(it.text)


def _group_key(ctx: NoteContext, group: Sequence[Item], anchor: tuple[str, int] | None) -> str:
    """The memo key the group's places share: the true town's canonical name when a table knows
    it, else the first place's text; "" for a group of countries only."""
    places = [it for it in group if it.label is not Label.STREET]
    if anchor is not None:
        r, idx = anchor
        return ctx.key(Label.CITY, f"\x1fplace\x1f{r}\x1f{gz.gazetteer(r).towns[idx].name}")
    if any(it.label is not Label.COUNTRY for it in places):
        first = next(it for it in places if it.label is not Label.COUNTRY)
        return ctx.key(first.label, f"\x1fplace\x1f{first.text}")
    return ""


def _set_roles(ctx: NoteContext, group: Sequence[Item], key: str, anchor: tuple[str, int] | None,
               anchor_item: Item | None, region: str) -> None:
    """Each mention's key and its role in the group's drawn record; a street, a foreign country
    or a group with no key is memoized on its own text."""
    rg = anchor[0] if anchor else region
    g = gz.gazetteer(rg)
    places = [it for it in group if it.label is not Label.STREET]
    lead = anchor_item or next((it for it in places if it.label is Label.CITY), None)
    text = ctx.note.text
    elision = (
        gz.elision_of(text[max(0, lead.span.start - 6) : lead.span.start], ctx.language) if lead else ""
    )
    # where the group's town starts: the first town or the mention a table knows, whichever comes
    # first ("Jacmel, Haiti", "Upper Snoddington, Wessex LS1 4AP": a place after a town no table
    # knows is still its region, never a second copy of the town)
    first_town = next((i for i in places if i.label is Label.CITY), None)
    town_start = min((t.span.start for t in (anchor_item, first_town) if t is not None), default=sys.maxsize)
    for it in group:
        if (
            it.label is Label.STREET
            or not key
            or (it.label is Label.COUNTRY and not gz.is_own_country(it.text, rg))
        ):
            it.key = ctx.key(it.label, it.text)
            feed = gz.region_of(ctx.language, ctx.region)
            if it.label is Label.COUNTRY and gz.is_own_country(it.text, feed):
                ctx.shared.setdefault("kept_labels", set()).add(Label.COUNTRY.value)  # kept alone (_other)
            continue
        role = _role(ctx, g, it, anchor_item, town_start)
        it.key = key
        it.data = PlaceMention(
            rg, anchor[1] if anchor else None, role, elision, it.text if it.label is Label.CITY else "",
            zip3=(role == "postcode" and it.strategy == "safe-harbor" and rg == "US"
                  and is_us_zip(it.text)),
        )


def _role(ctx: NoteContext, g: gz.Gazetteer, it: Item, anchor_item: Item | None, town_start: int) -> str:
    """What part of the drawn record a place mention of the group renders."""
    if _is_postcode(it):
        return "postcode"
    if it.label is Label.COUNTRY:
        ctx.shared.setdefault("kept_labels", set()).add(Label.COUNTRY.value)
        return "country"  # the feed's own country: left as written, and said so
    if it.label in (Label.LOCATION, Label.CITY) and it is not anchor_item:
        # "MA" tagged as a city is still a state; a place the table cannot name written
        # after the address's town ("Leeds LS1 4AP, West Yorkshire") is its county or region
        after_town = it.label is Label.LOCATION and it.span.start > town_start
        return g.admin_kind(it.text) or ("admin2" if after_town else "town")
    return "town"


def _set_zip3_area(group: Sequence[Item], key: str, hint: str) -> None:
    """"Boston, MA [021**]": the group's town is drawn among the towns of those three digits."""
    areas = {zip3(it.text)[:3] for it in group if isinstance(it.data, PlaceMention) and it.data.zip3}
    if len(areas) == 1:
        for it in group:
            if isinstance(it.data, PlaceMention) and it.key == key:
                it.data.zip3_area, it.data.zip3_state = next(iter(areas)), hint


def _set_mechanism(group: Sequence[Item], anchor_item: Item | None, city_strategy: str) -> None:
    """Only the town a table knows goes through the place mechanism (costed); the rest is random."""
    for it in group:
        if it is not anchor_item and it.strategy in ("exponential", "geo"):
            it.strategy = "random"
    if anchor_item is not None and city_strategy in ("exponential", "geo"):
        anchor_item.strategy = city_strategy
        anchor_item.costed = True
        anchor_item.unit = "feature" if city_strategy == "exponential" else "km"


def _town_in_org(text: str, words: Sequence[re.Match[str]],
                 g: gz.Gazetteer) -> tuple[int, int, str, int] | None:
    """(start, end, town, row) of the longest run of words of an organisation's name that is a
    town of the feed's table ("San Carlos" is no Californian town in a Spanish hospital's name)."""
    best: tuple[int, int, str, int] | None = None
    for a in range(len(words)):
        for b in range(len(words), a, -1):
            s, e = words[a].start(), words[b - 1].end()
            cand = text[s:e]
            if len(cand) < 3 or all(fold(w.group()) in _ORG_WORDS for w in words[a:b]):
                continue
            head = text[:s]
            if a > 0 and fold(words[a - 1].group()) not in _ORG_WORDS | {"d", "l"}:  # d'Auxerre
                continue  # "John Radcliffe Hospital": a person's name, not the town Radcliffe
            if re.search(r"\d\s*(de|of)?\s*$", head):
                continue  # "12 de Octubre" is a date
            if _SAINT.match(cand) and not re.search(r"(?i)(\b(de|du|des|del|of)\s+|['’])$", head):
                continue  # "Hôpital Saint-Louis", "Hospital Clínico San Carlos": a saint
            idx = g.find(cand)
            if idx is None and re.search(r"(?i)\b(du|des)\s+$", head):  # "du Mans": Le Mans
                art = "Le " if head.rstrip().lower().endswith("du") else "Les "
                idx = g.find(art + cand)
            if idx is not None and (best is None or (e - s) > (best[1] - best[0])):
                best = (s, e, cand, idx)
    return best


@register("places")
class PlaceOperator(Operator):
    name = "places"
    # a place mechanism or Safe Harbor needs an address table: organisations are only random
    handles = (claims(labels_of(Category.LOC), {"random", "exponential", "geo", "safe-harbor"})
               | claims(labels_of(Category.ORG), {"random"}))

    # ------------------------------------------------------------------------------- plan

    def plan(self, ctx: NoteContext, items: Sequence[Item]) -> None:
        region = gz.region_of(ctx.language, ctx.region)
        text = ctx.note.text
        # the group's town goes through the cities' mechanism, whichever mention anchors it
        city_strategy = chosen_strategy(Label.CITY, ctx.settings)
        for group in _groups(items, text):
            self._plan_group(ctx, group, region, city_strategy)
        # one surrogate town for "à Auxerre" and "près d'Auxerre": a name that fits every context
        needs: dict[str, set[str]] = {}
        for it in items:
            if isinstance(it.data, PlaceMention) and it.data.role == "town":
                before = text[max(0, it.span.start - 6) : it.span.start]
                needs.setdefault(it.key, set()).add(gz.elision_of(before, ctx.language))
        for it in items:
            if isinstance(it.data, PlaceMention) and it.key in needs:
                got = needs[it.key]
                it.data.elision = next((e for e in ("vowel", "consonant", "fr") if e in got), it.data.elision)
        for it in items:
            if it.label.category is Category.ORG:
                self._plan_org(ctx, it, region)
            elif it.label not in _GROUPED:
                it.key = ctx.key(it.label, it.text)

    def _plan_group(self, ctx: NoteContext, group: list[Item], region: str, city_strategy: str) -> None:
        """One address: its anchor (the town a table knows), one memo key for its places, each
        mention's role in the drawn record, then the mechanism of its town."""
        if len(group) == 1 and group[0].label is Label.CITY and self._hospital_town(ctx, group[0], region):
            return
        hint = _admin1_hint(group, region)
        anchor, anchor_item = _anchor(group, region, hint)
        key = _group_key(ctx, group, anchor)
        _set_roles(ctx, group, key, anchor, anchor_item, region)
        _set_zip3_area(group, key, hint)
        _set_mechanism(group, anchor_item, city_strategy)

    def _hospital_town(self, ctx: NoteContext, it: Item, region: str) -> bool:
        """A town mention that names a hospital ("CHU de [Dijon]") is replaced like the town of a
        hospital name: by a town large enough for the kind."""
        text = ctx.note.text
        m = _HOSP_BEFORE.search(text[max(0, it.span.start - 40) : it.span.start])
        m2 = _HOSP_AFTER.match(text[it.span.end : it.span.end + 30])
        if (m is None and m2 is None) or gz.gazetteer(region).find(it.text) is None:
            return False
        kind = fold((m.group(0) if m else "") + " " + (m2.group(0) if m2 else ""))
        minimum = _min_population(kind)
        # "CHU de [Dijon]": the "de" stays in the text, so the surrogate must take it ("de
        # Argenteuil" and "de Le Havre" are wrong); the context is part of the key
        elision = gz.elision_of(text[max(0, it.span.start - 6) : it.span.start], ctx.language)
        it.key = ctx.key(Label.HOSPITAL,
                         f"\x1fhospital-town\x1f{region}\x1f{fold(it.text)}\x1f{minimum}\x1f{elision}")
        it.data = OrgMention(region, "", "", it.text, minimum, elision=elision)
        if it.strategy in ("exponential", "geo"):
            it.strategy = "random"
        return True

    def _plan_org(self, ctx: NoteContext, it: Item, region: str) -> None:
        text = it.text
        words = list(re.finditer(r"[^\W\d_]+(?:-[^\W\d_]+)*", text))
        best = _town_in_org(text, words, gz.gazetteer(region))
        kind = fold(text)
        if best is not None:
            s, e, town, _ = best
            before = re.sub(r"(?i)\b(de|du|des|del)\s+$|\b[dD]['’]$", "", text[:s])
            minimum = _min_population(kind)
            it.key = ctx.key(Label.HOSPITAL, f"\x1fhospital-town\x1f{region}\x1f{fold(town)}\x1f{minimum}")
            it.data = OrgMention(region, before, text[e:], town, minimum, joined=before != text[:s])
            return
        # no town: keep the kind words before and after, replace the name between them (a
        # person's, a saint's, a state's: "Massachusetts General Hospital", "St Mary's Hospital")
        lead = 0
        for w in words:
            if fold(w.group()) not in _ORG_WORDS:
                break
            lead = w.end()
        # an article right before the name belongs to it ("Hospital Universitario La Paz" ->
        # "Hospital Universitario Vargas", not "... La Vargas")
        kept = [w for w in words if w.end() <= lead]
        if kept and fold(kept[-1].group()) in _ARTICLES and len(kept) < len(words):
            lead = kept[-1].start()
        trail = len(text)
        for w in reversed(words):
            if w.start() < lead or fold(w.group()) not in _ORG_WORDS:
                break
            trail = w.start()
        middle = text[lead:trail]
        pre = middle[: len(middle) - len(middle.lstrip())]
        post = middle[len(middle.rstrip()) :]
        core = middle.strip()
        poss = ""
        m_poss = re.search(r"['’]s$", core)
        if m_poss:
            core, poss = core[: m_poss.start()], core[m_poss.start() :]
        m = _SAINT.match(core)
        saint = core[: m.end()] if m and len(core) > m.end() else ""
        it.key = ctx.key(it.label, text)
        it.data = OrgMention(
            region,
            text[:lead] + pre,
            post + text[trail:],
            "",
            0,
            saint,
            middle=core[len(saint) :],
            possessive=poss,
        )

    # ------------------------------------------------------------------------------- draw

    def draw(
        self,
        ctx: NoteContext,
        items: Sequence[Item],
        memo: Mapping[str, str],
        eps: Mapping[str, float],
        cost: Mapping[str, int],
    ) -> list[Release]:
        out: dict[str, Release] = {}
        rng = ctx.rng
        costed_keys = {it.key for it in items if it.costed}
        avoid = ctx.name_words  # the note's person and organisation words
        areas: dict[str, tuple[str, str]] = {}
        for it in items:  # a group that names its state says it for every group of that town
            if isinstance(it.data, PlaceMention) and it.data.zip3_area and not areas.get(it.key, ("", ""))[1]:
                areas[it.key] = (it.data.zip3_area, it.data.zip3_state)
        for it in sorted(items, key=lambda i: not i.costed):
            if not it.key or it.key in memo or it.key in out:
                continue
            d = it.data
            if isinstance(d, PlaceMention):
                g = gz.gazetteer(d.region)
                if it.costed:
                    if it.key not in eps:
                        continue  # not paid for: nothing may be drawn
                    assert d.origin is not None
                    i = (
                        g.geo(rng, d.origin, eps[it.key], d.elision)
                        if it.strategy == "geo"
                        else g.exponential(rng, d.origin, eps[it.key], d.elision)
                    )
                    out[it.key] = Release(it.key, g.record(rng, i), cost[it.key])
                elif it.key not in costed_keys:
                    exclude = g.towns[d.origin].name if d.origin is not None else d.exclude
                    near = _zip3_town(rng, g, *areas.get(it.key, ("", "")), exclude)
                    drawn = near if near is not None else g.uniform(rng, exclude, elision=d.elision)
                    out[it.key] = Release(it.key, g.record(rng, drawn), 0)
            elif isinstance(d, OrgMention):
                out[it.key] = Release(it.key, self._org(ctx, it, d, avoid), 0)
            else:
                out[it.key] = Release(it.key, self._other(ctx, it), 0)
        return list(out.values())

    def _org(self, ctx: NoteContext, it: Item, d: OrgMention, avoid: frozenset[str]) -> str:
        rng, lang = ctx.rng, ctx.language
        if d.town:
            g = gz.gazetteer(d.region)
            return g.record(rng, g.uniform(rng, d.town, d.min_population, d.elision))
        if d.saint:
            return names.draw_first(
                rng, lang, "female" if fold(d.saint).startswith(("sainte", "ste", "santa")) else "male", avoid
            )
        if not d.before.strip() and not d.after.strip():  # no kind word: a name of the language's kind
            town = gz.gazetteer(gz.region_of(lang, ctx.region))
            return formats.organisation(
                rng, lang, town.towns[town.uniform(rng)].name, names.draw_last(rng, lang, "", avoid)
            )
        return names.draw_last(rng, lang, "", avoid)

    def _other(self, ctx: NoteContext, it: Item) -> str:
        lab, lang, text, rng = it.label, ctx.language, it.text, ctx.rng
        if lab is Label.STREET:
            return formats.street(rng, lang, text)
        if lab is Label.COUNTRY:
            if gz.is_own_country(text, gz.region_of(lang, ctx.region)):
                # the feed's own country alone ("in US since 1979"), as in an address: left as
                # written (a whole nation names no one; another would change the story), said so
                # at plan time (``_set_roles``) for every note, memoized or not
                return text
            return formats.country(rng, lang, text)
        return f"[{lab.category.value}]"

    # ----------------------------------------------------------------------------- render

    def render(self, ctx: NoteContext, item: Item, memo: Mapping[str, str]) -> tuple[str, str] | None:
        if item.key not in memo:
            return None
        value = memo[item.key]
        d = item.data
        if isinstance(d, PlaceMention):
            if d.zip3:  # Safe Harbor's own rule for ZIP codes: nothing drawn, the digits cut
                return zip3(item.text), "safe-harbor"
            rec = gz.PlaceRecord.parse(value)
            if rec is None:
                return None
            return _render_place(item.text, d.role, rec), item.strategy
        if isinstance(d, OrgMention):
            if d.town:
                rec = gz.PlaceRecord.parse(value)
                if rec is None:
                    return None
                town = names.match_case(d.town, rec.town)
                body = gz.with_connector(town, ctx.language) if d.joined else town
                return d.before + body + d.after, "random"
            if not d.middle and not d.saint:
                return item.text, "random"  # only kind words ("CHU", "la clinique"): nothing to hide
            if not d.before.strip() and not d.after.strip() and not d.saint:
                return value, "random"  # no kind word: a whole surrogate organisation
            return d.before + d.saint + names.match_case(
                d.middle or "X", value
            ) + d.possessive + d.after, "random"
        return value, "random"


def _zip3_town(rng: random.Random, g: gz.Gazetteer, area: str, state: str, exclude: str) -> int | None:
    """A town drawn uniformly among the table's towns of the three-digit ZIP area, never the
    excluded (true) one; for an area with fewer than ``MIN_ZIP3_TOWNS`` towns, among the towns of
    the one state they lie in, else of the state the address names (Safe Harbor keeps the state,
    and the three digits already say it); None for no area, "000" (a restricted area names no
    place) or no such state (the whole table, as any other place)."""
    pool: Sequence[int] = g.by_zip3().get(area, ()) if area and area != "000" else ()
    states = {g.towns[i].admin1_code for i in pool}
    if len(pool) < MIN_ZIP3_TOWNS and area != "000":
        in_state = states.pop() if len(states) == 1 else state
        pool = g.blocks.get(in_state, []) if in_state else []
    if len(pool) < MIN_ZIP3_TOWNS:  # sizes of the public table only: the truth decides nothing here
        return None
    ex = gz.town_key(exclude) if exclude else ""
    return rng.choice([i for i in pool if g.keys[i] != ex])


def _render_place(original: str, role: str, rec: gz.PlaceRecord) -> str:
    if role == "postcode":
        a = [c for c in original if c.isalnum()]
        b = [c for c in rec.postcode if c.isalnum()]
        return formats.reshape(original, "".join(b)) if len(a) == len(b) else rec.postcode
    if role == "country":
        return original  # the same country: the row is in the mentioned country's table
    value = {
        "admin1": rec.admin1_name,
        "admin1_code": rec.admin1_code,
        "admin2": rec.admin2_name or rec.admin1_name,  # a table without counties names the nation
        "admin2_code": rec.admin2_code,
    }.get(role, rec.town)
    return names.match_case(original, value or rec.town)
