"""Rebuild the committed name lists (run by hand, never at install or run time).

    .venv/bin/python -m deid.data.build_tables

Input: Faker (MIT) ``fr_FR``, ``es_ES``, ``en_US`` person providers -> ``names.json``. The address
tables are built by ``deid.data.build_gazetteer``.
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.parse_args()
    build_names()


if __name__ == "__main__":
    main()
