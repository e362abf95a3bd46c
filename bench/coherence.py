"""Coherence benchmark: do surrogates keep one identity per person and real place sets?

Synthetic longitudinal patients in French, Spanish and English (US and UK feeds) with their
spouse, child and doctor and their address (``deid.lab.synth.people``: titles and kinship words in or
before the span, "SMITH, MARY" cut into two spans, "Sra. Martínez García", "Doña Pilar",
initials, a relative's e-mail address built on their names) are substituted note by note
on one store per run (as the worker does), under each profile. Every mention carries
its shape (``"Mme {G} {S1:upper}"``), so the surrogate's given name, surnames and initial are
read back from the output with a regular expression built from that shape, not with the code
under test. Reported, target 0 for each:

- ``split_identities``: persons whose mentions (across notes) render more than one given name,
  first surname or second surname, or an initial that is not the given name's;
- ``gender_flips``: mentions whose surrogate given name is in the other gender's list of the
  language (and not in the person's);
- ``shape_breaks``: mentions whose output no longer has the mention's shape (a title or kinship
  word eaten, a double surname collapsed, a name vanished), or whose initial now reads as a
  title (French "M. Lebreton" is Monsieur Lebreton, Spanish "D. Rivero" Don Rivero);
- ``broken_family_links``: a child or spouse whose surrogate surnames do not follow the
  patient's (Spanish: child = father's first + mother's first);
- ``impossible_place_sets``: addresses whose town, postcode and state / department / nation exist
  together in no row of the feed's shipped table;
- ``split_places``: addresses rendered as different towns in two notes of the patient.

    .venv/bin/python bench/coherence.py --families 25 --notes 3 --seeds 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import random
import re
import time
from collections import defaultdict
from dataclasses import asdict, dataclass

from deid.events import ModelInfo, RawNote
from deid.lab.synth.people import Address, Family, SynthNote, generate_families, mail_word, reads_as_title
from deid.settings import Settings
from deid.store.memory import InMemoryStore
from deid.substitution import build_substituter
from deid.surrogates import gazetteer as gz
from deid.surrogates import names
from deid.temporal.lexicon import fold

MODEL = ModelInfo(name="gold", version="0")


@dataclass
class Figures:
    profile: str
    patients: int = 0
    notes: int = 0
    persons: int = 0
    person_mentions: int = 0
    addresses: int = 0
    split_identities: int = 0
    gender_flips: int = 0
    shape_breaks: int = 0
    broken_family_links: int = 0
    impossible_place_sets: int = 0
    split_places: int = 0
    kept_originals: int = 0
    seconds: float = 0.0


def shape_regex(shape: str) -> re.Pattern[str]:
    out, pos = "", 0
    for m in re.finditer(r"\{(\w+)(?::\w+)?\}", shape):
        out += re.escape(shape[pos : m.start()])
        slot = m.group(1)
        out += f"(?P<{slot}>[^\\W\\d_])" if slot == "I" else f"(?P<{slot}>[^\\W\\d_][\\w'’-]*)"
        pos = m.end()
    return re.compile(out + re.escape(shape[pos:]) + "$")


def gender_lists(lang: str) -> dict[str, set[str]]:
    lists = names.name_lists()[lang]
    return {g: {fold(n) for n in lists[g]} for g in ("male", "female")}


def place_ok(a: Address, got: dict[str, str]) -> bool:
    table = gz.gazetteer(a.region)
    town, pc, admin = got.get("town", ""), got.get("postcode", ""), got.get("admin", "")
    for t in table.towns:
        if t.name != town:
            continue
        if a.region in ("FR", "US") and pc not in t.postcodes:
            continue
        if a.region == "ES" and pc[:2] != t.admin2_code:
            continue
        if a.region == "GB" and not re.match(rf"{t.area}\d", pc):
            continue
        want = {"FR": t.admin2_name, "US": t.admin1_code, "GB": t.admin1_name, "ES": ""}[a.region]
        if a.admin and admin != want:
            continue
        return True
    return False


async def run_profile(profile: str, families: list[tuple[Family, list[SynthNote]]], seed: int) -> Figures:
    f = Figures(profile)
    sub = build_substituter(Settings(), InMemoryStore(), random.Random(seed), profile=profile)
    t0 = time.perf_counter()
    for fi, (fam, notes) in enumerate(families):
        f.patients += 1
        values: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        towns: set[str] = set()
        lists = gender_lists(fam.language)
        for ni, n in enumerate(notes):
            raw = RawNote(
                event_id=f"{seed}-{fi}-{ni}",
                patient_id=f"pat-{seed}-{fi}",
                language=n.language,  # type: ignore[arg-type]
                document_date=n.document_date,
                text=n.text,
                locale=n.locale,
            )  # type: ignore[arg-type]
            [out] = await sub.substitute([raw], [n.spans], MODEL)
            f.notes += 1
            got = [out.text[s.start : s.end] for s in sorted(out.spans, key=lambda s: s.start)]
            place: dict[str, str] = {}
            for m, text in zip(n.mentions, got, strict=True):
                if m.kind == "address":
                    place[m.part] = text
                    continue
                f.person_mentions += 1
                match = shape_regex(m.shape).match(text)
                if not match or (match.groupdict().get("I") and reads_as_title(fam.language, match["I"])):
                    f.shape_breaks += 1
                    continue
                who = fam.people[m.ref]
                for slot, v in match.groupdict().items():
                    values[m.ref][slot].add(mail_word(v))  # one spelling for "Le Goff" and "legoff"
                g = match.groupdict().get("G")
                if g:
                    other = "male" if who.gender == "female" else "female"
                    if fold(g) in lists[other] and fold(g) not in lists[who.gender]:
                        f.gender_flips += 1
                    if mail_word(g) == mail_word(who.given):
                        f.kept_originals += 1
                if match.groupdict().get("S1") and mail_word(match["S1"]) == mail_word(who.surnames[0]):
                    f.kept_originals += 1
            f.addresses += 1
            if not place_ok(fam.address, place):
                f.impossible_place_sets += 1
            towns.add(place.get("town", ""))
        f.split_places += len(towns) > 1
        f.persons += len({m.ref for n in notes for m in n.mentions if m.kind == "person"})
        for slots in values.values():
            split = any(len(slots[s]) > 1 for s in ("G", "S1", "S2"))
            if slots.get("I") and slots.get("G") and {g[:1] for g in slots["G"]} != slots["I"]:
                split = True
            f.split_identities += split

        def one(pid: str, slot: str, values: dict[str, dict[str, set[str]]] = values) -> str | None:
            vs = values.get(pid, {}).get(slot, set())
            return next(iter(vs)) if len(vs) == 1 else None

        p, s, c = fam.patient.pid, fam.spouse.pid, fam.child.pid
        if fam.language == "es":
            father, mother = (p, s) if fam.patient.gender == "male" else (s, p)
            links = [(c, "S1", father, "S1"), (c, "S2", mother, "S1")]
        else:
            links = [(s, "S1", p, "S1"), (c, "S1", p, "S1")]
        for a, sa, b, sb in links:
            if one(a, sa) is not None and one(b, sb) is not None and one(a, sa) != one(b, sb):
                f.broken_family_links += 1
    f.seconds = round(time.perf_counter() - t0, 2)
    return f


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--families", type=int, default=25, help="families per feed locale (fr-FR, es-ES, en-US, en-GB)"
    )
    ap.add_argument("--notes", type=int, default=3, help="notes per patient")
    ap.add_argument("--seeds", type=int, default=3, help="independent runs (data and draws)")
    ap.add_argument("--profiles", "--modes", dest="profiles", default="dp,random",
                    help="profiles to run, comma-separated (--modes: former name)")
    ap.add_argument("--json", default="", help="write the figures there too")
    args = ap.parse_args()
    rows = []
    for seed in range(args.seeds):
        fams = generate_families(args.families, args.notes, seed)
        for profile in args.profiles.split(","):
            rows.append(asdict(asyncio.run(run_profile(profile, fams, seed))) | {"seed": seed})
    total: dict[str, dict[str, float]] = {}
    for r in rows:
        t = total.setdefault(r["profile"], defaultdict(float))  # type: ignore[arg-type]
        for k, v in r.items():
            if isinstance(v, int | float) and k != "seed":
                t[k] += v
    report = {
        "machine": f"{platform.machine()} {platform.python_version()}",
        "args": vars(args),
        "totals": {m: dict(v) for m, v in total.items()},
        "runs": rows,
    }
    print(json.dumps(report["totals"], indent=1))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(report, fh, indent=1)


if __name__ == "__main__":
    main()
