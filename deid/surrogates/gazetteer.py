"""Address tables: towns with what exists together with them (postcodes, department / province /
county, region / community / state / nation, country), one table per feed region (FR, ES, US, GB).

A surrogate place is one row of a table, so a postcode, a town, a region and a country rendered
from it exist together. The place mechanism (``exponential_distribution``) is the exponential
mechanism of Tchouka et al. 2023 over a candidate set fixed before the true place is seen: the
towns of the true town's first-level unit (a fixed partition of the public table), with the
distance of coordinates and size inside the utility (``docs/PRIVACY.md``, "Places"). A unit with
fewer than ``MIN_TOWNS`` towns (Washington DC, Ceuta, Melilla: one each; Alaska: 17) is merged with
its nearest unit, again until every mechanism unit has ``MIN_TOWNS`` towns: with one town the
mechanism released the true town with certainty.
"""

from __future__ import annotations

import csv
import gzip
import io
import math
import random
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

from deid.temporal.lexicon import fold

REGIONS = ("FR", "ES", "US", "GB")
COUNTRY = {"FR": "France", "ES": "España", "US": "United States", "GB": "United Kingdom"}
COUNTRY_ALIASES = {
    "FR": ("france", "republique francaise"),
    "ES": ("espana", "spain", "espagne", "reino de espana"),
    "US": (
        "usa",
        "u.s.a.",
        "us",
        "u.s.",
        "united states",
        "united states of america",
        "etats unis",
        "estados unidos",
    ),
    "GB": ("uk", "u.k.", "united kingdom", "great britain", "britain", "royaume uni", "reino unido"),
}
_ARTICLE = re.compile(r"^(le|la|les|l)\b", re.I)
_ARRONDISSEMENT = re.compile(
    r"^(paris|lyon|marseille)\s*[- ]?\s*(\d{1,2})\s*(?:e|er|eme|ème|è)?(?:\s*arr(?:ondissement|\.)?)?$"
)
_VOWELS = set("aeiouyh")

# The fewest towns a candidate set of the place mechanism may have. With n candidates and any
# distances in [0, 1], the true town is drawn with probability at most 1 / (1 + (n - 1) e^(-eps/2)):
# 8 % at eps = 1 for n = 20, where one town gave 100 % and Alaska's 17 gave about 6 % at the
# default per-value epsilon. Units below it are merged with their nearest unit (by the centroid of
# their towns: a function of the public table alone, fixed before any note is read).
MIN_TOWNS = 20


@dataclass(frozen=True, slots=True)
class Town:
    name: str
    postcodes: tuple[str, ...]
    admin2_code: str
    admin2_name: str
    admin1_code: str
    admin1_name: str
    lat: float
    lon: float
    population: int
    area: str  # GB postcode area (letters), ES province prefix (digits)


def town_key(name: str) -> str:
    """Folded comparison form: accents, hyphens, apostrophes, "Saint"/"St" and arrondissements
    ("Lyon 07", "Paris 13e": the same city to a reader) do not matter."""
    f = fold(name).replace("-", " ").replace("'", " ").replace("’", " ").replace(".", " ")
    f = " ".join(f.split())
    m = _ARRONDISSEMENT.match(f)
    if m:
        f = m.group(1)
    f = re.sub(r"\b(saint|st)\b", "st", f)
    f = re.sub(r"\b(sainte|ste)\b", "ste", f)
    return f


_CEDEX = re.compile(r"\s+cedex(?:\s+\d{1,2})?\s*$", re.IGNORECASE)


class Gazetteer:
    """One region's table. Coordinates and log population are normalised to [0, 1] with the
    table's own bounds (public constants, never the true place)."""

    def __init__(self, region: str, towns: list[Town], min_towns: int = MIN_TOWNS) -> None:
        if not towns:
            raise ValueError("empty gazetteer")
        self.region = region
        self.min_towns = min_towns
        self.towns = towns
        lats = [t.lat for t in towns]
        lons = [t.lon for t in towns]
        pops = [math.log1p(t.population) for t in towns]

        def norm(v: float, lo: float, hi: float) -> float:
            return (v - lo) / (hi - lo) if hi > lo else 0.0

        bounds = [(min(c), max(c)) for c in (lats, lons, pops)]
        self.vectors = np.array(
            [[norm(v, *b) for v, b in zip((t.lat, t.lon, p), bounds, strict=True)]
             for t, p in zip(towns, pops, strict=True)],
            dtype=np.float64,
        )
        self.keys = [town_key(t.name) for t in towns]
        # computed once from the public table, shared by every draw: tuples, so no caller can
        # change the mechanism for the notes after it
        self._pools: dict[tuple[int, str], tuple[int, ...]] = {}
        self._candidates: dict[tuple[str, str], tuple[int, ...]] = {}
        self.by_name: dict[str, int] = {}
        self.by_postcode: dict[str, list[int]] = {}
        self.blocks: dict[str, list[int]] = {}
        self.admin1: dict[str, str] = {}  # folded name or code -> admin1 code
        self.admin2: dict[str, str] = {}
        for i, t in enumerate(towns):  # rows come by decreasing population: the first name wins
            self.by_name.setdefault(town_key(t.name), i)
            for pc in t.postcodes:
                self.by_postcode.setdefault(pc, []).append(i)
            self.blocks.setdefault(t.admin1_code, []).append(i)
            for k in (t.admin1_name,) + ((t.admin1_code,) if region != "FR" else ()):
                if k:
                    self.admin1.setdefault(fold(k), t.admin1_code)
            for k in (t.admin2_name,) + ((t.admin2_code,) if region != "FR" else ()):
                if k:
                    self.admin2.setdefault(fold(k), t.admin2_name)
        # first-level unit -> its mechanism unit (itself, or the merged group it belongs to)
        self.mechanism_unit, self.mechanism_blocks = _merge_small_units(towns, self.blocks, min_towns)

    # ------------------------------------------------------------------------------ lookups

    def find(self, text: str) -> int | None:
        found = self.by_name.get(town_key(text))
        if found is None and self.region == "FR":
            # "REIMS Cedex", "Rennes CEDEX 9": the French postal suffix of a business address
            bare = _CEDEX.sub("", text).strip()
            if bare != text.strip():
                found = self.by_name.get(town_key(bare))
        return found

    def find_postcode(self, text: str) -> list[int]:
        raw = text.strip().upper()
        digits = re.sub(r"\D", "", raw)
        if self.region in ("FR", "US"):
            if len(digits) < 5:
                return []
            found = self.by_postcode.get(digits[:5], [])
            if not found and self.region == "FR":
                # a CEDEX or business code ("51092 REIMS Cedex") names no town of the table: its
                # first two digits are still its department (rows by decreasing population)
                found = [i for i, t in enumerate(self.towns) if t.admin2_code == digits[:2]][:1]
            return found
        if self.region == "ES":
            return [i for i in self.blocks_by_area().get(digits[:2], [])] if len(digits) == 5 else []
        m = re.match(r"^([A-Z]{1,2})\d", raw)
        return self.blocks_by_area().get(m.group(1), []) if m else []

    @cache  # noqa: B019 - one table per region, kept for the process
    def by_zip3(self) -> dict[str, tuple[int, ...]]:
        """The towns with a postcode of each three-digit area ("021" -> Boston, Cambridge, ...):
        where a town lies for a reader of a US ZIP code cut to its first three digits."""
        out: dict[str, list[int]] = {}
        for i, t in enumerate(self.towns):
            for area in dict.fromkeys(pc[:3] for pc in t.postcodes if len(pc) == 5 and pc.isdigit()):
                out.setdefault(area, []).append(i)
        return {k: tuple(v) for k, v in out.items()}

    @cache  # noqa: B019 - one table per region, kept for the process
    def blocks_by_area(self) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for i, t in enumerate(self.towns):
            if t.area:
                out.setdefault(t.area, []).append(i)
        return out

    def admin_kind(self, text: str) -> str | None:
        """ "admin1", "admin1_code", "admin2" or "admin2_code" when ``text`` names a unit of the table."""
        f = fold(text.strip().rstrip("."))
        if f in self.admin1:
            return "admin1_code" if f == fold(self.admin1[f]) else "admin1"
        if f in self.admin2:
            return "admin2_code" if f.isdigit() else "admin2"
        return None

    def find_in(self, text: str, admin1: str) -> int | None:
        """The town named ``text`` in the unit ``admin1`` (homonyms: Springfield, MA), else
        the most populous one."""
        k = town_key(text)
        for i in self.blocks.get(admin1, []):
            if self.keys[i] == k:
                return i
        return self.find(text)

    # --------------------------------------------------------------------------- mechanisms

    def distances(self, i: int, others: Sequence[int]) -> np.ndarray:
        """Euclidean distance of normalised (lat, lon, log population), divided by sqrt(3), from
        town ``i`` to each of ``others``: in [0, 1], a metric."""
        diff = self.vectors[np.asarray(others, dtype=np.int64)] - self.vectors[i]
        return np.asarray(np.sqrt((diff * diff).sum(axis=1) / diff.shape[1]))

    def distance(self, i: int, j: int) -> float:
        return float(self.distances(i, [j])[0])

    def candidates(self, origin: int, elision: str = "") -> tuple[int, ...]:
        """The fixed candidate set of ``origin``: every town of its mechanism unit (its
        first-level unit, or the group that unit was merged into: a partition of the public
        table chosen before any note is read), less the names a French context could not take
        (an article-initial name, or the other elision class) unless that leaves fewer than
        ``min_towns`` (then the grammar gives way: "de Auxerre" rather than a certain release)."""
        unit = self.mechanism_unit[self.towns[origin].admin1_code]
        key = (unit, elision)
        if key not in self._candidates:  # a function of the public table alone: computed once
            block = self.mechanism_blocks[unit]
            fits = tuple(i for i in block if _fits(self.towns[i].name, elision))
            enough = bool(fits) and len(fits) >= min(self.min_towns, len(block))
            self._candidates[key] = fits if enough else tuple(block)
        return self._candidates[key]

    def exponential_distribution(
        self, origin: int, epsilon: float, elision: str = ""
    ) -> tuple[tuple[int, ...], list[float]]:
        """P[i | origin] ∝ exp(eps · (1 - d(origin, i)) / (2 ΔU)), ΔU = 1, over the fixed candidates."""
        from deid.privacy.mechanisms import exponential_weights

        cands = self.candidates(origin, elision)
        return cands, exponential_weights((1.0 - self.distances(origin, cands)).tolist(), epsilon, 1.0)

    def exponential(self, rng: random.Random, origin: int, epsilon: float, elision: str = "") -> int:
        cands, probs = self.exponential_distribution(origin, epsilon, elision)
        return rng.choices(cands, weights=probs, k=1)[0]

    def geo(self, rng: random.Random, origin: int, epsilon_per_km: float, elision: str = "") -> int:
        """Planar Laplace noise snapped to the nearest town of the whole table (the 2022 baseline)."""
        from deid.privacy.mechanisms import planar_laplace

        o = self.towns[origin]
        dx, dy = planar_laplace(rng, epsilon_per_km)
        lat = o.lat + dy / 111.32
        lon = o.lon + dx / (111.32 * max(math.cos(math.radians(o.lat)), 1e-6))
        pool = self._pool(0, elision) or list(range(len(self.towns)))
        return min(pool, key=lambda i: _km(lat, lon, self.towns[i].lat, self.towns[i].lon))

    def uniform(
        self, rng: random.Random, exclude: str = "", min_population: int = 0, elision: str = ""
    ) -> int:
        """A town drawn uniformly from the whole table (free: it depends on nothing true), never
        the excluded one."""
        ex = town_key(exclude) if exclude else ""
        pool = self._pool(min_population, elision) or list(range(len(self.towns)))
        for _ in range(64):
            i = rng.choice(pool)
            if not ex or self.keys[i] != ex:
                return i
        return rng.choice([i for i in pool if self.keys[i] != ex] or pool)

    def _pool(self, min_population: int, elision: str) -> tuple[int, ...]:
        k = (min_population, elision)
        if k not in self._pools:
            self._pools[k] = tuple(
                i
                for i, t in enumerate(self.towns)
                if t.population >= min_population and _fits(t.name, elision)
            )
        return self._pools[k]

    # ------------------------------------------------------------------------------ records

    def record(self, rng: random.Random, i: int) -> str:
        """The memo value of a surrogate place: the row's fields, with the row's main postcode (a
        real one for FR and US; for ES the province prefix and for GB the postcode area are real,
        the rest of the code drawn)."""
        t = self.towns[i]
        if t.postcodes:
            pc = t.postcodes[0]  # the main one (a city's first arrondissement)
        elif self.region == "ES":
            pc = t.area + (
                f"0{rng.randint(1, 50):02d}" if t.population > 100_000 else f"{rng.randint(1, 99):02d}0"
            )
        elif self.region == "GB":
            pc = (
                f"{t.area}{rng.randint(1, 20)} {rng.randint(1, 9)}{rng.choice('ABDEFGHJLNPQRSTUWXYZ')}"
                f"{rng.choice('ABDEFGHJLNPQRSTUWXYZ')}"
            )
        else:
            pc = "".join(rng.choice(string.digits) for _ in range(5))
        return "|".join((self.region, t.name, pc, t.admin2_code, t.admin2_name, t.admin1_code, t.admin1_name))


@dataclass(frozen=True, slots=True)
class PlaceRecord:
    region: str
    town: str
    postcode: str
    admin2_code: str
    admin2_name: str
    admin1_code: str
    admin1_name: str

    @classmethod
    def parse(cls, value: str) -> PlaceRecord | None:
        parts = value.split("|")
        return cls(*parts) if len(parts) == 7 else None

    @property
    def country(self) -> str:
        return COUNTRY.get(self.region, "")


def _merge_small_units(
    towns: Sequence[Town], blocks: dict[str, list[int]], min_towns: int
) -> tuple[dict[str, str], dict[str, tuple[int, ...]]]:
    """(first-level unit -> mechanism unit, mechanism unit -> its towns): the smallest unit under
    ``min_towns`` joins the unit whose centroid is nearest to its own, until none is under it (or
    one unit is left). The merged group is named by its units' codes joined with "+"."""
    groups: dict[str, list[int]] = {code: list(idx) for code, idx in blocks.items()}
    members: dict[str, list[str]] = {code: [code] for code in blocks}

    def centroid(idx: list[int]) -> tuple[float, float]:
        return (sum(towns[i].lat for i in idx) / len(idx), sum(towns[i].lon for i in idx) / len(idx))

    while len(groups) > 1:
        small = min(groups, key=lambda c: (len(groups[c]), c))
        if len(groups[small]) >= min_towns:
            break
        here = centroid(groups[small])
        target = min((c for c in groups if c != small),
                     key=lambda c: (_km(*here, *centroid(groups[c])), c))
        merged = "+".join(sorted(members[target] + members[small]))
        groups[merged] = groups.pop(target) + groups.pop(small)
        members[merged] = members.pop(target) + members.pop(small)
    unit_of = {code: name for name, codes in members.items() for code in codes}
    return unit_of, {name: tuple(sorted(idx)) for name, idx in groups.items()}


def _km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371.0 * math.asin(min(1.0, math.sqrt(h)))


def _fits(name: str, elision: str) -> bool:
    """French contexts: "à Le Mans" and "de Auxerre" are wrong, "d'Besançon" too."""
    if not elision:
        return True
    if _ARTICLE.match(fold(name)) and (
        name[1:2] in (" ", "'", "’") or name[2:3] in (" ", "'", "’") or name[3:4] == " "
    ):
        return False
    initial = fold(name)[:1]
    if elision == "vowel":
        return initial in _VOWELS
    if elision == "consonant":
        return initial not in _VOWELS
    return True


def elision_of(before: str, lang: str) -> str:
    """What the text just before a French place name asks of a surrogate name: "vowel" after an
    elided article or preposition (d', l'), "consonant" after "de", "fr" otherwise in French (no
    article-initial names), "" elsewhere."""
    if lang != "fr":
        return ""
    tail = before[-4:].casefold()
    if re.search(r"\b[dl]['’]$", tail):
        return "vowel"
    if re.search(r"\bde\s$", before[-4:].casefold()):
        return "consonant"
    return "fr"


@cache
def gazetteer(region: str) -> Gazetteer:
    blob = resources.files("deid.data").joinpath(f"gazetteer_{region.lower()}.csv.gz").read_bytes()
    rows = list(csv.DictReader(io.StringIO(gzip.decompress(blob).decode("utf-8"))))
    return Gazetteer(
        region,
        [
            Town(
                r["town"],
                tuple(p for p in r["postcodes"].split(";") if p),
                r["admin2_code"],
                r["admin2_name"],
                r["admin1_code"],
                r["admin1_name"],
                float(r["lat"]),
                float(r["lon"]),
                int(r["population"]),
                r["area"],
            )
            for r in rows
        ],
    )


def region_of(lang: str, region: str) -> str:
    if region in REGIONS:
        return region
    return {"fr": "FR", "es": "ES", "en": "US"}.get(lang, "FR")


def lookup_order(region: str) -> list[str]:
    """The feed's table first, then the others (a French note about a patient born in Madrid)."""
    return [region] + [r for r in REGIONS if r != region]


def is_own_country(text: str, region: str) -> bool:
    return fold(text.strip()).rstrip(".") in {a.rstrip(".") for a in COUNTRY_ALIASES.get(region, ())} or fold(
        text.strip()
    ) == fold(COUNTRY.get(region, "\0"))


def connector(town: str, lang: str) -> str:
    """The French "de" that goes before ``town``: d', du, des, de."""
    if lang != "fr":
        return "de "
    f = fold(town)
    if f.startswith("le "):
        return "du "
    if f.startswith("les "):
        return "des "
    return "d'" if f[:1] in _VOWELS else "de "


def with_connector(town: str, lang: str) -> str:
    c = connector(town, lang)
    if c in ("du ", "des "):
        return c + town.split(" ", 1)[1]
    return c + town
