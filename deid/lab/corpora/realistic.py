"""The independent corpus of realistic notes: its markup, its facts, its frozen split.

Writers (who never read the code) write notes in a plain-text markup, one file per writer
(``corpora/realistic/raw/wNN.txt``)::

    ### NOTE w03-007
    patient: w03-p02
    lang: fr
    country: FR
    kind: nursing_transmissions
    author_role: night nurse
    date: 2024-03-15
    hard_cases: given name alone; pain score 4/10
    people: p1=patient F; p2=staff M; p3=relative F daughter of p1
    ---
    Mme [[DURAND|PATIENT:p1]] [[Paulette|PATIENT:p1]], née le [[02/05/1941|BIRTH_DATE:1941-05-02]] ...

A mention is ``[[surface|LABEL]]`` or ``[[surface|LABEL:ref]]``: a person's ref is the person id
declared on the ``people`` line (one id per person across all notes of one patient); a date's
ref is its true value (``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``); an age's ref its years; a
place's ref the id of the address it belongs to (``a1``). ``check`` validates a file; ``build``
turns every file into ``notes.jsonl`` (text, character spans, people, split).

The split is by patient, from a keyed hash of the patient id, fixed once (``SPLIT_SALT``): adding
notes never moves an existing patient between train, dev and test.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

LABELS = frozenset({
    "PATIENT", "STAFF", "RELATIVE", "PERSON",
    "DATE", "BIRTH_DATE", "AGE",
    "STREET", "CITY", "POSTCODE", "COUNTRY", "LOCATION",
    "HOSPITAL", "ORG",
    "PHONE", "FAX", "EMAIL", "URL", "IP",
    "ID_PATIENT", "ID_VISIT", "ID_SSN", "ID_NATIONAL", "ID_STAFF", "IBAN", "ID",
    "PROFESSION",
})
PERSON_LABELS = frozenset({"PATIENT", "STAFF", "RELATIVE", "PERSON"})
DATE_LABELS = frozenset({"DATE", "BIRTH_DATE"})
PLACE_LABELS = frozenset({"STREET", "CITY", "POSTCODE", "COUNTRY", "LOCATION"})
ROLES = frozenset({"patient", "staff", "relative", "other"})
LANGS = frozenset({"fr", "es", "en"})
COUNTRIES = frozenset({"FR", "ES", "US", "GB"})
HEADER_KEYS = ("patient", "lang", "country", "kind", "author_role", "date", "hard_cases", "people")
SPLIT_SALT = b"realistic-corpus-split-2026-11-26"
SPLITS = ("train", "dev", "test")

_MENTION = re.compile(r"\[\[([^\[\]|]+)\|([A-Z_]+)(?::([^\[\]|]*))?\]\]")
_PARTIAL_DATE = re.compile(r"\d{4}(?:-\d{2}(?:-\d{2})?)?")
_PERSON_DECL = re.compile(r"\s*(p\d+)\s*=\s*(\w+)\s+([MFU])\b\s*(.*)")


class MarkupError(ValueError):
    """A note of the corpus is not in the markup this module reads."""


@dataclass(frozen=True)
class Person:
    role: str  # patient, staff, relative, other
    gender: str  # M, F, U (unknown / not said)
    note: str = ""  # kinship or function, free text ("daughter of p1", "cardiologist")


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    label: str
    text: str
    ref: str = ""


@dataclass
class Note:
    note_id: str
    patient: str
    lang: str
    country: str
    kind: str
    author_role: str
    document_date: str
    hard_cases: str
    people: dict[str, Person]
    text: str
    mentions: list[Mention] = field(default_factory=list)
    writer: str = ""
    split: str = ""

    def to_json(self) -> dict[str, object]:
        row = asdict(self)
        row["entities"] = row.pop("mentions")
        return row


def parse_file(path: Path) -> list[Note]:
    """Every note of one writer's file; ``MarkupError`` names the first fault with its line."""
    lines = path.read_text(encoding="utf-8").splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("### NOTE")]
    if not starts:
        raise MarkupError(f"{path}: no '### NOTE' line")
    if any(line.strip() for line in lines[: starts[0]]):
        raise MarkupError(f"{path}:1: text before the first '### NOTE' line")
    notes = []
    for k, first in enumerate(starts):
        last = starts[k + 1] if k + 1 < len(starts) else len(lines)
        notes.append(_parse_note(path, lines, first, last))
    _check_patients(path, notes)
    return notes


def _parse_note(path: Path, lines: list[str], first: int, last: int) -> Note:
    where = f"{path}:{first + 1}"
    note_id = lines[first][len("### NOTE"):].strip()
    if not re.fullmatch(r"w\d{2}-\d{3}", note_id):
        raise MarkupError(f"{where}: note id {note_id!r} is not like 'w03-007'")
    try:
        sep = next(i for i in range(first + 1, last) if lines[i].strip() == "---")
    except StopIteration:
        raise MarkupError(f"{where}: no '---' line between the header and the text") from None
    header: dict[str, str] = {}
    for i in range(first + 1, sep):
        if not lines[i].strip():
            continue
        key, colon, value = lines[i].partition(":")
        key = key.strip()
        if not colon or key not in HEADER_KEYS:
            raise MarkupError(f"{path}:{i + 1}: unknown header line (keys: {', '.join(HEADER_KEYS)})")
        header[key] = value.strip()
    missing = [k for k in HEADER_KEYS if k not in header and k != "hard_cases"]
    if missing:
        raise MarkupError(f"{where}: header lacks {', '.join(missing)}")
    if header["lang"] not in LANGS:
        raise MarkupError(f"{where}: lang must be one of {sorted(LANGS)}")
    if header["country"] not in COUNTRIES:
        raise MarkupError(f"{where}: country must be one of {sorted(COUNTRIES)}")
    try:
        date.fromisoformat(header["date"])
    except ValueError:
        raise MarkupError(f"{where}: date must be the document's date as YYYY-MM-DD") from None
    people = _parse_people(header["people"], where)
    body = "\n".join(lines[sep + 1 : last]).strip("\n").rstrip()
    text, mentions = _parse_body(body, people, where)
    return Note(
        note_id=note_id, patient=header["patient"], lang=header["lang"],
        country=header["country"], kind=header["kind"], author_role=header["author_role"],
        document_date=header["date"], hard_cases=header.get("hard_cases", ""), people=people,
        text=text, mentions=mentions, writer=note_id.split("-")[0],
    )


def _parse_people(value: str, where: str) -> dict[str, Person]:
    people: dict[str, Person] = {}
    if value.strip() in {"", "-", "none"}:
        return people
    for part in value.split(";"):
        if not part.strip():
            continue
        m = _PERSON_DECL.fullmatch(part)
        if m is None or m.group(2) not in ROLES:
            raise MarkupError(
                f"{where}: people entry {part.strip()!r} is not like 'p1=patient F' "
                f"(roles: {', '.join(sorted(ROLES))}; gender M, F or U)"
            )
        people[m.group(1)] = Person(m.group(2), m.group(3), m.group(4).strip())
    return people


def _parse_body(body: str, people: dict[str, Person], where: str) -> tuple[str, list[Mention]]:
    out: list[str] = []
    mentions: list[Mention] = []
    pos = 0
    length = 0
    for m in _MENTION.finditer(body):
        plain = body[pos : m.start()]
        out.append(plain)
        length += len(plain)
        surface, label, ref = m.group(1), m.group(2), (m.group(3) or "").strip()
        _check_mention(surface, label, ref, people, where)
        mentions.append(Mention(length, length + len(surface), label, surface, ref))
        out.append(surface)
        length += len(surface)
        pos = m.end()
    out.append(body[pos:])
    text = "".join(out)
    for token in ("[[", "]]"):
        if token in text:
            line = text[: text.index(token)].count("\n") + 1
            raise MarkupError(f"{where}: text line {line}: unbalanced or malformed '{token}' mention")
    if not mentions:
        raise MarkupError(f"{where}: the note marks no PHI")
    return text, mentions


def _check_mention(surface: str, label: str, ref: str, people: dict[str, Person], where: str) -> None:
    shown = f"[[{surface}|{label}{':' + ref if ref else ''}]]"
    if label not in LABELS:
        raise MarkupError(f"{where}: {shown}: unknown label (labels: {', '.join(sorted(LABELS))})")
    if surface != surface.strip() or not surface.strip():
        raise MarkupError(f"{where}: {shown}: a mention starts and ends on a visible character")
    if label in PERSON_LABELS and ref not in people:
        raise MarkupError(f"{where}: {shown}: a person mention needs the id of a person on the people line")
    if label in DATE_LABELS and ref and not _PARTIAL_DATE.fullmatch(ref):
        raise MarkupError(f"{where}: {shown}: a date's ref is YYYY, YYYY-MM or YYYY-MM-DD")
    if label == "BIRTH_DATE" and not ref:
        raise MarkupError(f"{where}: {shown}: a birth date needs its true value as ref")
    if label == "AGE" and ref and not re.fullmatch(r"\d{1,3}", ref):
        raise MarkupError(f"{where}: {shown}: an age's ref is its number of years")


def _check_patients(path: Path, notes: list[Note]) -> None:
    """One patient keeps one set of people across notes: an id means one person everywhere."""
    seen: dict[tuple[str, str], Person] = {}
    ids: set[str] = set()
    for note in notes:
        if note.note_id in ids:
            raise MarkupError(f"{path}: note id {note.note_id} appears twice")
        ids.add(note.note_id)
        for pid, person in note.people.items():
            key = (note.patient, pid)
            before = seen.setdefault(key, person)
            if (before.role, before.gender) != (person.role, person.gender):
                raise MarkupError(
                    f"{path}: {note.note_id}: {pid} of patient {note.patient} changes role or gender"
                )


def split_of(patient: str) -> str:
    """``train`` (50 %), ``dev`` (25 %) or ``test`` (25 %), fixed by the patient id alone."""
    bucket = hashlib.blake2b(patient.encode(), key=SPLIT_SALT, digest_size=4).digest()[0] % 4
    return {0: "train", 1: "train", 2: "dev", 3: "test"}[bucket]


def build(raw_dir: Path) -> list[Note]:
    notes: list[Note] = []
    for path in sorted(raw_dir.glob("w*.txt")):
        notes.extend(parse_file(path))
    for note in notes:
        note.split = split_of(note.patient)
    return notes


def write_jsonl(notes: Iterable[Note], out: Path) -> None:
    with out.open("w", encoding="utf-8") as fh:
        for note in notes:
            fh.write(json.dumps(note.to_json(), ensure_ascii=False) + "\n")


def read_jsonl(path: Path) -> list[Note]:
    notes = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        people = {k: Person(**v) for k, v in row.pop("people").items()}
        mentions = [Mention(**m) for m in row.pop("entities")]
        notes.append(Note(people=people, mentions=mentions, **row))
    return notes


def agreement(first: Iterable[Note], second: Iterable[Note]) -> dict[str, float]:
    """Span agreement of a second annotation with the first, on the notes both annotated: F1 of
    exact spans (any label), of exact spans with their label, and of overlapping spans."""
    by_id = {n.note_id: n for n in first}
    exact_a: set[tuple[str, int, int]] = set()
    exact_b: set[tuple[str, int, int]] = set()
    label_a: set[tuple[str, int, int, str]] = set()
    label_b: set[tuple[str, int, int, str]] = set()
    hit_a = hit_b = total_a = total_b = 0
    for n2 in second:
        n1 = by_id[n2.note_id]
        if n1.text != n2.text:
            raise MarkupError(f"{n2.note_id}: the second annotation changed the text")
        exact_a |= {(n1.note_id, m.start, m.end) for m in n1.mentions}
        exact_b |= {(n2.note_id, m.start, m.end) for m in n2.mentions}
        label_a |= {(n1.note_id, m.start, m.end, m.label) for m in n1.mentions}
        label_b |= {(n2.note_id, m.start, m.end, m.label) for m in n2.mentions}
        for mine, other in ((n1.mentions, n2.mentions), (n2.mentions, n1.mentions)):
            hits = sum(any(o.start < m.end and m.start < o.end for o in other) for m in mine)
            if mine is n1.mentions:
                hit_a, total_a = hit_a + hits, total_a + len(mine)
            else:
                hit_b, total_b = hit_b + hits, total_b + len(mine)

    def f1(a: set[Any], b: set[Any]) -> float:
        return 2 * len(a & b) / (len(a) + len(b)) if a or b else 1.0

    r, p = hit_a / max(1, total_a), hit_b / max(1, total_b)
    return {"notes": float(len({k[0] for k in exact_b})), "mentions_first": float(len(exact_a)),
            "mentions_second": float(len(exact_b)), "exact_f1": f1(exact_a, exact_b),
            "exact_label_f1": f1(label_a, label_b), "overlap_f1": 2 * p * r / (p + r) if p + r else 0.0}


def _summary(notes: list[Note]) -> str:
    spans = sum(len(n.mentions) for n in notes)
    patients = len({n.patient for n in notes})
    return f"{len(notes)} notes, {patients} patients, {spans} PHI mentions"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 2 or args[0] not in {"check", "build", "agree"}:
        print("usage: python -m deid.lab.corpora.realistic check FILE... | build RAW_DIR OUT.jsonl"
              " | agree RAW_DIR SECOND_FILE", file=sys.stderr)
        return 2
    try:
        if args[0] == "check":
            for name in args[1:]:
                print(f"{name}: ok, {_summary(parse_file(Path(name)))}")
        elif args[0] == "agree":
            scores = agreement(build(Path(args[1])), parse_file(Path(args[2])))
            print(" ".join(f"{k} {v:.3f}" if k.endswith("f1") else f"{k} {v:.0f}" for k, v in scores.items()))
        else:
            notes = build(Path(args[1]))
            write_jsonl(notes, Path(args[2]))
            print(f"{args[2]}: {_summary(notes)}")
    except (MarkupError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
