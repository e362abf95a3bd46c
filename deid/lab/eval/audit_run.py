"""Runs a realistic corpus through a profile and audits every note (``deid audit``).

Each patient's notes go through the substitution engine in the order they were written, on one
store for the run, so the memo and the budget carry from note to note as in the worker.
"""

from __future__ import annotations

import asyncio
import csv
import gzip
import json
import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from importlib import resources

from deid.events import ModelInfo, RawNote
from deid.lab.corpora.realistic import Note
from deid.lab.eval.audit import NoteAudit, TownTable, align, broken_facts, fold, mention_leaks
from deid.labels import Label
from deid.settings import Settings
from deid.spans import Span, resolve
from deid.store.memory import InMemoryStore

LOCALE = {"FR": "fr-FR", "ES": "es-ES", "US": "en-US", "GB": "en-GB"}
FACT_KINDS = ("split_identity", "gender_flip", "date_order", "age_birth", "address", "clinical_value")
LEAK_KINDS = ("uncovered", "drawn_back")


@dataclass
class ProfileReport:
    profile: str
    audits: list[NoteAudit] = field(default_factory=list)

    @property
    def mentions(self) -> int:
        return sum(len(a.note.mentions) for a in self.audits)

    @property
    def leaked_mentions(self) -> int:
        return sum(len({(f.original, f.output) for f in a.leaks}) for a in self.audits)

    def leaks_per_1000(self) -> float:
        return 1000 * self.leaked_mentions / max(1, self.mentions)

    def fact_counts(self) -> Counter[str]:
        return Counter(f.kind for a in self.audits for f in a.facts)

    def by(self, key: str) -> dict[str, tuple[int, int, int, int]]:
        """Per language or note kind: notes, PHI mentions, leaked mentions, broken facts."""
        rows: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
        for a in self.audits:
            row = rows[str(getattr(a.note, key))]
            row[0] += 1
            row[1] += len(a.note.mentions)
            row[2] += len({(f.original, f.output) for f in a.leaks})
            row[3] += len(a.facts)
        return {k: (v[0], v[1], v[2], v[3]) for k, v in sorted(rows.items())}


def gold_spans(note: Note) -> list[Span]:
    return [Span(m.start, m.end, Label(m.label)) for m in note.mentions]


def audit_profile(notes: Sequence[Note], detected: Sequence[Sequence[Span]], profile: str, *,
                  seed: int = 0, settings: Settings | None = None) -> ProfileReport:
    """``notes[i]`` de-identified from ``detected[i]`` under ``profile``, audited."""
    from deid.substitution import build_substituter

    sub = build_substituter(settings or Settings(), InMemoryStore(), random.Random(seed), profile=profile)
    order = sorted(range(len(notes)),
                   key=lambda i: (notes[i].patient, notes[i].document_date, notes[i].note_id))
    genders = given_name_genders()
    towns = town_table()
    regions = towns.regions()
    report = ProfileReport(profile)

    async def run() -> None:
        by_patient: dict[str, list[NoteAudit]] = defaultdict(list)
        for i in order:
            note = notes[i]
            raw = RawNote(event_id=f"audit:{note.note_id}", patient_id=note.patient,
                          language=note.lang,  # type: ignore[arg-type]
                          document_date=date.fromisoformat(note.document_date), text=note.text,
                          locale=LOCALE[note.country])  # type: ignore[arg-type]
            out = (await sub.substitute([raw], [list(detected[i])], ModelInfo(name="audit", version="0")))[0]
            placed = [(s.start, s.end, s.label, s.strategy) for s in out.spans]
            resolved = [(s.start, s.end) for s in resolve(detected[i])]
            replaced = align(note.text, out.text, placed, resolved)
            audit = NoteAudit(note, out.text, replaced)
            for m in note.mentions:
                audit.leaks += mention_leaks(note.note_id, m, note.text, replaced, profile, regions)
            by_patient[note.patient].append(audit)
            report.audits.append(audit)
        for audits in by_patient.values():
            facts = broken_facts(audits, genders, towns)
            for a in audits:
                a.facts = [f for f in facts if f.note_id == a.note.note_id]

    asyncio.run(run())
    return report


_GENDERS: dict[str, str] | None = None
_TOWNS: TownTable | None = None


def given_name_genders() -> dict[str, str]:
    """Folded given name -> M, F, or U when both genders bear it (the project's name tables)."""
    global _GENDERS
    if _GENDERS is None:
        data = resources.files("deid.data")
        seen: dict[str, set[str]] = defaultdict(set)
        wide = json.loads(data.joinpath("given_genders.json").read_text(encoding="utf-8"))
        per_lang = json.loads(data.joinpath("names.json").read_text(encoding="utf-8"))
        tables = [wide, *per_lang.values()]
        for table in tables:
            for key, g in (("male", "M"), ("female", "F")):
                for name in table.get(key, []):
                    for w in fold(name).replace("-", " ").split():
                        seen[w].add(g)
        _GENDERS = {w: (next(iter(g)) if len(g) == 1 else "U") for w, g in seen.items()}
    return _GENDERS


def town_table() -> TownTable:
    """Towns with their postcodes (or postcode prefixes) per country, from the shipped gazetteers."""
    global _TOWNS
    if _TOWNS is None:
        rows: dict[str, list[tuple[str, set[str], set[str]]]] = {}
        data = resources.files("deid.data")
        for country, name in (("FR", "fr"), ("ES", "es"), ("US", "us"), ("GB", "gb")):
            with data.joinpath(f"gazetteer_{name}.csv.gz").open("rb") as raw, \
                    gzip.open(raw, "rt", encoding="utf-8") as fh:
                table = []
                for r in csv.DictReader(fh):
                    codes = {c for c in r["postcodes"].split(";") if c}
                    if not codes and country == "ES" and r.get("area"):
                        codes = {r["area"]}  # the province's two digits begin its postcodes
                    # (UK towns span several postcode areas, London a dozen: the town alone is checked)
                    admin = {fold(r["admin1_name"]), fold(r["admin2_name"]), fold(r["admin1_code"])}
                    table.append((fold(r["town"]).strip(), codes, admin))
                rows[country] = table
        _TOWNS = TownTable(rows)
    return _TOWNS
