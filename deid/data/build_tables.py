"""Rebuild the committed name lists (run by hand, never at install or run time).

    .venv/bin/python -m deid.data.build_tables

Input: Faker (MIT) ``fr_FR``, ``es_ES``, ``en_US`` person providers -> ``names.json`` (the surrogate
pools and the name lexicons); the first names of more Latin-script Faker locales, by gender ->
``given_genders.json`` (only to read the gender of an original first name the pools lack, such as
"Karim" in a French note). The address tables are built by ``deid.data.build_gazetteer``.
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


# Locales whose first names are written in Latin script and are common in French, Spanish and
# English notes' patients (French-speaking Belgium, Switzerland, Canada and Algeria among them).
GENDER_LOCALES = (
    "fr_FR", "fr_BE", "fr_CA", "fr_CH", "fr_DZ", "fr_QC", "es_ES", "es_AR", "es_CL", "es_CO", "es_MX",
    "en_US", "en_GB", "en_IE", "en_NZ", "en_IN", "en_PK", "en_KE", "en_NG",
    "de_DE", "de_AT", "de_CH", "it_IT", "pt_PT", "pt_BR", "nl_NL", "nl_BE", "pl_PL", "ro_RO", "tr_TR",
)


def _latin(name: str) -> bool:
    return all((ch.isalpha() and ord(ch) < 0x250) or ch in " -'" for ch in name)


def build_given_genders() -> None:
    """First names by gender over ``GENDER_LOCALES``, folded; a name given to both genders in any
    locale (Andrea, Dominique, Camille) is left out, so it says nothing."""
    import importlib

    seen: dict[str, set[str]] = {}
    for loc in GENDER_LOCALES:
        p: Any = importlib.import_module(f"faker.providers.person.{loc}").Provider
        for gender, attr in (("male", "first_names_male"), ("female", "first_names_female")):
            names = getattr(p, attr, ())
            for n in names.keys() if isinstance(names, dict) else names:
                if _latin(n) and " " not in n.strip():
                    seen.setdefault(_fold(n), set()).add(gender)
    out = {g: sorted(n for n, gs in seen.items() if gs == {g}) for g in ("male", "female")}
    (HERE / "given_genders.json").write_text(json.dumps(out, ensure_ascii=False, indent=0) + "\n",
                                             encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.parse_args()
    build_names()
    build_given_genders()


if __name__ == "__main__":
    main()
