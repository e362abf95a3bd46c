"""Place tables and the two place mechanisms: exponential mechanism (2023 paper) and
geo-indistinguishability snapped to the table (2022 paper baseline).

The substitution engine uses the address tables of ``deid.surrogates.gazetteer`` (one row per
town with its postcodes and units, candidate sets fixed per first-level unit). This module keeps
the paper's own BFC table for reproducing its example and the benchmark: its exponential
mechanism draws over the whole table, a candidate set fixed before the true place is seen (the
first build's "within 100 km, then the k nearest" depended on the true place, so no epsilon-d
bound held; ``radius_km`` and ``k`` are ignored).

Features are normalised to [0, 1] per column (population on a log scale: raw counts would put
every village at 0 next to Paris); the feature distance is the Euclidean distance divided by
sqrt(n_features), so U = 1 - d lies in [0, 1] and ΔU = 1 holds exactly.
"""

from __future__ import annotations

import csv
import io
import math
import random
from dataclasses import dataclass
from functools import cache
from importlib import resources

from deid.privacy.mechanisms import exponential_mechanism, planar_laplace
from deid.temporal.lexicon import fold


@dataclass(frozen=True, slots=True)
class Place:
    name: str
    lat: float
    lon: float
    features: tuple[float, ...]  # normalised to [0, 1]
    postcode: str = ""


def _key(name: str) -> str:
    f = fold(name).replace("-", " ").replace("'", " ")
    f = " ".join(f.split())
    return f.replace("saint ", "st ").replace("sainte ", "ste ")


def haversine_km(a: Place, b: Place) -> float:
    p1, p2 = math.radians(a.lat), math.radians(b.lat)
    dp, dl = p2 - p1, math.radians(b.lon - a.lon)
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371.0 * math.asin(min(1.0, math.sqrt(h)))


def feature_distance(a: Place, b: Place) -> float:
    n = len(a.features)
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a.features, b.features, strict=True)) / n) if n else 0.0


def _normalise(cols: list[list[float]]) -> list[list[float]]:
    out = []
    for col in cols:
        lo, hi = min(col), max(col)
        out.append([(v - lo) / (hi - lo) if hi > lo else 0.0 for v in col])
    return out


class PlaceTable:
    def __init__(self, places: list[Place]) -> None:
        if not places:
            raise ValueError("empty place table")
        self.places = places
        self._by_key: dict[str, int] = {}
        for i, p in enumerate(places):
            self._by_key.setdefault(_key(p.name), i)

    def find(self, name: str) -> Place | None:
        i = self._by_key.get(_key(name))
        return None if i is None else self.places[i]

    def nearest(self, lat: float, lon: float) -> Place:
        probe = Place("", lat, lon, ())
        return min(self.places, key=lambda p: haversine_km(probe, p))

    def candidates(self, origin: Place, radius_km: float = 0.0, k: int = 0) -> list[Place]:
        """The whole table: a candidate set that does not depend on ``origin``."""
        return self.places

    def exponential(
        self, rng: random.Random, origin: Place, epsilon: float, radius_km: float = 0.0, k: int = 0
    ) -> Place:
        cands = self.places
        utilities = [1.0 - feature_distance(origin, p) for p in cands]
        return cands[exponential_mechanism(rng, utilities, epsilon, 1.0)]

    def geo(self, rng: random.Random, origin: Place, epsilon_per_km: float) -> Place:
        dx, dy = planar_laplace(rng, epsilon_per_km)  # km east, km north
        lat = origin.lat + dy / 111.32
        lon = origin.lon + dx / (111.32 * max(math.cos(math.radians(origin.lat)), 1e-6))
        return self.nearest(lat, lon)

    def uniform(self, rng: random.Random, exclude: str = "") -> Place:
        """A draw for a place the table does not know: never the original text."""
        ex = _key(exclude)
        while True:
            p = self.places[rng.randrange(len(self.places))]
            if _key(p.name) != ex:
                return p


def _read(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


@cache
def bfc_table() -> PlaceTable:
    """The 2023 paper's table: communes of Bourgogne-Franche-Comté, features = population,
    cancer incidence, stroke."""
    raw = resources.files("deid.data").joinpath("places_bfc.csv").read_text(encoding="utf-8")
    rows = _read(raw)
    feats = _normalise([
        [math.log1p(float(r["overall population"])) for r in rows],
        [float(r["cancer incidence rate"]) for r in rows],
        [float(r["stroke"]) for r in rows],
    ])
    places = []
    for i, r in enumerate(rows):
        lat, lon = (float(x) for x in r["gps coordinates"].split(","))
        name = r["city"].title().replace(" Sur ", "-sur-").replace(" Les ", "-lès-").replace(" ", "-")
        places.append(Place(name, lat, lon, tuple(f[i] for f in feats), ""))
    return PlaceTable(places)


@cache
def country_table(lang: str) -> PlaceTable:
    """The address tables of the language's countries (``deid.surrogates.gazetteer``) as a
    ``PlaceTable``, feature = log population."""
    from deid.surrogates.gazetteer import gazetteer

    regions = {"fr": ("FR",), "es": ("ES",), "en": ("US", "GB")}[lang]
    towns = [t for r in regions for t in gazetteer(r).towns]
    feats = _normalise([[math.log1p(t.population) for t in towns]])
    return PlaceTable([
        Place(t.name, t.lat, t.lon, (feats[0][i],), t.postcodes[0] if t.postcodes else "")
        for i, t in enumerate(towns)
    ])


def tables_for(lang: str) -> list[PlaceTable]:
    """The tables of a note's language: the paper's richer BFC table first for French, then the
    national table. The last one is where unknown places are drawn from."""
    return [bfc_table(), country_table("fr")] if lang == "fr" else [country_table(lang)]


def lookup_tables(lang: str) -> list[PlaceTable]:
    """Where a mentioned place is looked up: the language's tables, then the others."""
    seen = tables_for(lang)
    for other in ("fr", "es", "en"):
        for t in tables_for(other):
            if all(t is not s for s in seen):
                seen.append(t)
    return seen
