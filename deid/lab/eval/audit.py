"""The audit of de-identified notes against a corpus's gold: leaks first, then broken facts.

A **leak** is a gold PHI mention whose letters or digits survive in the output: copied through
(no replacement covers them) or drawn back (a surrogate that holds a word of the person's name, or
the whole value), unless the profile keeps that part on purpose (``deid.lab.eval.keeps``).

A **broken fact** is what a reader of the surrogate note would find false:
- ``split_identity``: one word of one person's name rendered two ways (in one note or across the
  patient's notes);
- ``gender_flip``: a given name of a known gender rendered as a name of the other gender;
- ``date_order``: two dates of the patient's notes whose surrogates are out of the true order (or
  one true date rendered as two different dates);
- ``age_birth``: a surrogate age that does not agree with the surrogate birth date;
- ``address``: a surrogate town and postcode that do not exist together;
- ``clinical_value``: a number outside every gold span changed by the output.

Everything here reads the input, the output and where each replacement sits: nothing of the
detector or the substitution engine, so a fault there cannot hide itself. Dates are read with a
small parser of its own.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

from deid.lab.corpora.realistic import DATE_LABELS, PERSON_LABELS, Mention, Note
from deid.lab.eval.keeps import kept


@dataclass(frozen=True)
class Replaced:
    """One replacement: its place in the input and in the output, and what it wrote."""

    start: int
    end: int
    out_start: int
    out_end: int
    label: str
    strategy: str
    surrogate: str


@dataclass(frozen=True)
class Finding:
    note_id: str
    kind: str  # a leak ("uncovered", "drawn_back", "kept") or a broken fact
    label: str
    original: str
    output: str
    detail: str = ""


@dataclass
class NoteAudit:
    note: Note
    output: str
    replaced: list[Replaced]
    leaks: list[Finding] = field(default_factory=list)
    facts: list[Finding] = field(default_factory=list)


# ----------------------------------------------------------------------------------- alignment

def align(text: str, output: str, placed: Sequence[tuple[int, int, str, str]],
          replaced_spans: Sequence[tuple[int, int]] | None = None) -> list[Replaced]:
    """Where each placed output span ``(out_start, out_end, label, strategy)`` came from.

    ``replaced_spans``: the input extents the substitution replaced, when known; they are used
    if the output is exactly the input with each of them replaced in turn. Otherwise the text
    between two replacements is copied unchanged, so each copied piece is found again in the
    input after the previous one (the first starts at 0 and the last ends at the end).
    ``ValueError`` when the output is not the input with those replacements.
    """
    if replaced_spans is not None and len(replaced_spans) == len(placed):
        hinted = _align_on(text, output, placed, replaced_spans)
        if hinted is not None:
            return hinted
    result: list[Replaced] = []
    pos = 0  # input position after the previous replacement
    qpos = 0
    bounds = [*placed, (len(output), len(output), "", "")]
    for k, (qs, qe, label, strategy) in enumerate(bounds):
        piece = output[qpos:qs]
        if k == 0:
            if not text.startswith(piece):
                raise ValueError("the output does not start as the input does")
            found = 0
        elif k == len(bounds) - 1:
            found = len(text) - len(piece)
            if found < pos + 1 or text[found:] != piece:
                raise ValueError("the output does not end as the input does")
        else:
            found = text.find(piece, pos + 1) if piece else pos + 1
            if found < 0:
                raise ValueError("a copied piece of the output is not in the input")
        if k > 0:
            prev = result[-1]
            result[-1] = Replaced(prev.start, found, prev.out_start, prev.out_end, prev.label,
                                  prev.strategy, prev.surrogate)
        if k < len(bounds) - 1:
            start = found + len(piece)
            result.append(Replaced(start, start, qs, qe, label, strategy, output[qs:qe]))
            pos = start
        qpos = qe
    return result


def _align_on(text: str, output: str, placed: Sequence[tuple[int, int, str, str]],
              spans: Sequence[tuple[int, int]]) -> list[Replaced] | None:
    out: list[Replaced] = []
    pos = qpos = 0
    for (qs, qe, label, strategy), (s, e) in zip(placed, sorted(spans), strict=True):
        if s < pos or text[pos:s] != output[qpos:qs]:
            return None
        out.append(Replaced(s, e, qs, qe, label, strategy, output[qs:qe]))
        pos, qpos = e, qe
    return out if text[pos:] == output[qpos:] else None


def to_output(pos: int, replaced: Sequence[Replaced]) -> int:
    """Where input offset ``pos`` (outside every replacement) sits in the output."""
    shift = 0
    for r in replaced:
        if r.end <= pos:
            shift += (r.out_end - r.out_start) - (r.end - r.start)
    return pos + shift


def output_region(text: str, replaced: Sequence[Replaced], start: int, end: int) -> tuple[str, str]:
    """What ``text[start:end]`` became: (the output there, the input characters copied through)."""
    out: list[str] = []
    copied: list[str] = []
    pos = start
    for r in replaced:
        if r.end <= start or r.start >= end:
            continue
        if r.start > pos:
            out.append(text[pos : r.start])
            copied.append(text[pos : r.start])
        out.append(r.surrogate)
        pos = max(pos, r.end)
    if pos < end:
        out.append(text[pos:end])
        copied.append(text[pos:end])
    return "".join(out), " ".join(copied)


# --------------------------------------------------------------------------------------- leaks

def fold(s: str) -> str:
    """Case, accents and compatibility forms folded (what a reader would call the same word)."""
    s = unicodedata.normalize("NFKD", s)
    return "".join(c for c in s if not unicodedata.combining(c)).casefold()


_WORD = re.compile(r"[^\W_]+")
_YEAR = re.compile(r"(?<!\d)(1[89]\d\d|20\d\d)(?!\d)")
_WEEKDAYS = {
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    "lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche",
    "lunes", "martes", "miercoles", "jueves", "viernes", "sabado", "domingo",
}


def words(s: str) -> list[str]:
    return _WORD.findall(fold(s))


# Words inside a gold mention that identify no one on their own: titles, the kind of institution,
# of street or of unit, words around a date, a preposition and the unit of an age ("in [DATE]",
# "[AGE] weeks", "semana del [DATE]", "cabinet infirmier [ORG]"). They may stay ("Hôpital [PER]",
# "last [DATE]", "[LOC] Rd"); the words that name (the person, the town, the street's own name) may not.
_GENERIC_TEXT = """
mr mrs ms miss dr dra drs mme mlle m pr prof sr sra srta dna don dona md rn np pa do phd mx
monsieur madame docteur doctor doctora professeur senor senora sir hopital hospital hospitalier
hospitaliere hospitaliers hospitalario hospitalaria hospitales hospitaux universitaire
universitario universitaria university clinique clinica clinic centre center centro medical
medico medica medicale health care sante salud general regional memorial community nhs
foundation trust surgery practice cabinet consultorio ambulatorio residence residencia ehpad
home nursing maison de du des la le les el los las y e et and of the l d a st saint ste san
santa chu ch chru chi hu hcl ap hp aphp groupe grupo institut instituto service servicio rue
avenue av avda boulevard bd place chemin route allee impasse quai cours calle c plaza paseo
carretera camino road rd street lane ln drive way court ct ave blvd terrace close crescent apt
apartment unit suite flat floor piso bajo izq izda izquierda dcha drcha derecha puerta escalera
esc bat batiment appt appartement etage bloc portal no n num last next this past mid early late
night morning evening afternoon weekend week semaine semana dernier derniere prochain prochaine
pasado pasada proximo proxima noche manana tarde soir matin nuit fin debut end beginning
finales principios mediados comienzos imagerie radiologie laboratoire biologie analyses imaging
radiology laboratory lab associates rehab rehabilitation
in on at del al au aux en por para pour sur
day days week weeks month months year years jour jours semaines mois an ans annee annees dia dias
semanas mes meses ano anos
infirmier infirmiers infirmiere infirmieres ssiad had mayores maiores meddygfa feddygfa pharmacie
pharmacy farmacia
"""
GENERIC_WORDS = frozenset(_GENERIC_TEXT.split())


# A relative duration written out: a count of units before or after its preposition ("3 weeks ago",
# "for 2 days", "il y a 2 ans", "depuis 3 semaines", "hace 3 meses"), the count in digits or a word.
_DURATION = re.compile(
    r"(?:(?:for|over|since|in|il y a|depuis|pendant|hace|desde hace|durante)\s+)?"
    r"(?:\d{1,3}|[a-z]+(?:-[a-z]+)?)\s+"
    r"(?:days?|weeks?|months?|years?|hours?|jours?|semaines?|mois|ans?|annees?|heures?|"
    r"dias?|semanas?|mes|meses|anos?|horas?)(?:\s+(?:ago|before|earlier|later|plus tot|antes))?")

_NAME_FRAME = frozenset({
    "mr", "mrs", "ms", "miss", "dr", "dra", "mme", "mlle", "m", "pr", "sr", "sra", "md", "monsieur",
    "madame", "docteur", "doctor", "senor", "senora", "don", "dona", "de", "del", "la", "le", "los",
    "las", "van", "von", "der", "da", "di", "du", "des", "y", "e", "nee", "ne", "epouse", "ep", "veuve",
    "vve", "born",
    # familiar family titles before a given name ("Mamie Blanche", "Maman Vicky"), kept by the
    # substitution as titles are (deid.surrogates.identity), and credentials after a name ("DO")
    "mamie", "mamy", "meme", "papi", "papy", "pepe", "maman", "do",
})


def _allowed(mention: Mention, part: str, profile: str, regions: frozenset[str] = frozenset()) -> bool:
    """Whether ``part`` (a folded word or digit run of the mention) is kept on purpose."""
    if part in GENERIC_WORDS and mention.label not in PERSON_LABELS | {"EMAIL"}:
        return True
    if part in _NAME_FRAME and mention.label in PERSON_LABELS:
        return True  # a title, a particle or a married-name marker names no one on its own
    keeps = kept(profile, mention.label)
    if "state" in keeps and (mention.label == "COUNTRY" or fold(mention.text).strip() in regions):
        return True  # a region, state, province or county as a whole; not a neighbourhood
    if "age<90" in keeps and mention.ref.isdigit() and int(mention.ref) < 90:
        return True
    if "age<90" in keeps and mention.label == "AGE" and part in ("90", "90s"):
        return True  # Safe Harbor's "90 or older" writes 90 ("90+"): the category, not the age
    if "year" in keeps and _YEAR.fullmatch(part) and mention.ref.startswith(part):
        return True
    if "zip3" in keeps and part.isdigit() and len(part) == 5:
        return False  # the whole ZIP is never kept; its first three digits are checked below
    if "duration" in keeps and mention.label == "DATE" and _DURATION.fullmatch(fold(mention.text).strip()):
        return True  # "3 weeks ago", "il y a 2 ans": no element of a date
    return "weekday" in keeps and part in _WEEKDAYS


def mention_leaks(note_id: str, m: Mention, text: str, replaced: Sequence[Replaced],
                  profile: str, regions: frozenset[str] = frozenset()) -> list[Finding]:
    """The leaks of one gold mention; ``regions``: folded names of regions, states, provinces
    and counties (what the ``state`` keep allows)."""
    out, copied = output_region(text, replaced, m.start, m.end)
    found: list[Finding] = []
    survived = [w for w in words(copied) if not _allowed(m, w, profile, regions)]
    if survived:
        found.append(Finding(note_id, "uncovered", m.label, m.text, out, " ".join(survived)))
    if not any(r.start < m.end and m.start < r.end for r in replaced):
        return found  # nothing replaced: every word is already counted as uncovered
    drawn = set(words(out)) - set(words(copied))
    if m.label in PERSON_LABELS or profile == "placeholder":  # a placeholder holds no word of it
        back = [w for w in words(m.text) if len(w) >= 2 and w in drawn]
    elif m.label == "EMAIL":
        back = [w for w in words(m.text.split("@")[0]) if len(w) >= 3 and w in drawn]
    else:
        whole = "".join(words(m.text))
        back = [whole] if whole and whole == "".join(words(out)) and len(whole) >= 2 else []
        if back and all(_allowed(m, w, profile, regions) for w in words(m.text)):
            back = []  # every word kept on purpose ("last Friday" where weekdays are kept)
    back = [w for w in back if not _allowed(m, w, profile, regions)]
    if "zip3" in kept(profile, m.label):
        digits = "".join(c for c in out if c.isdigit())
        back += [digits] if len(digits) >= 4 and digits == "".join(c for c in m.text if c.isdigit()) else []
    if back:
        found.append(Finding(note_id, "drawn_back", m.label, m.text, out, " ".join(back)))
    return found


# --------------------------------------------------------------------------------- dates read

_MONTHS: dict[str, int] = {}
for _names in (
    "january february march april may june july august september october november december",
    "janvier fevrier mars avril mai juin juillet aout septembre octobre novembre decembre",
    "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre",
):
    for _i, _n in enumerate(_names.split(), 1):
        _MONTHS[_n] = _i
        _MONTHS.setdefault(_n[:3], _i)
_MONTHS["sept"] = 9
_MONTHS["setiembre"] = 9
_MON = "|".join(sorted(_MONTHS, key=len, reverse=True))
_NUMERIC = re.compile(r"(?<!\d)(\d{1,4})([/.\-])(\d{1,2})\2(\d{2,4})(?!\d)")
_DAY_MONTH = re.compile(rf"(?<!\d)(\d{{1,2}})(?:er|st|nd|rd|th|º)?\.?\s+(?:de\s+)?({_MON})\.?,?\s+"
                        rf"(?:de\s+|del\s+)?(\d{{4}})")
_MONTH_DAY = re.compile(rf"\b({_MON})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})")


def read_date(s: str, order: str, pivot: int = 2050) -> date | None:
    """A full date (day, month, year) written in ``s``, or None; ``order`` is "dmy" or "mdy"; a
    two-digit year is the latest year not after ``pivot`` (the note's year) that ends so."""
    f = fold(s)
    try:
        m = _NUMERIC.search(f)
        if m:
            a, b, c = int(m.group(1)), int(m.group(3)), m.group(4)
            if len(m.group(1)) == 4:
                return date(a, b, int(c))
            year = int(c) if len(c) == 4 else 2000 + int(c) if 2000 + int(c) <= pivot else 1900 + int(c)
            day, month = (b, a) if order == "mdy" else (a, b)
            return date(year, month, day)
        m = _DAY_MONTH.search(f)
        if m:
            return date(int(m.group(3)), _MONTHS[m.group(2)], int(m.group(1)))
        m = _MONTH_DAY.search(f)
        if m:
            return date(int(m.group(3)), _MONTHS[m.group(1)], int(m.group(2)))
    except ValueError:
        return None
    return None


def full_day(ref: str) -> date | None:
    try:
        return date.fromisoformat(ref) if len(ref) == 10 else None
    except ValueError:
        return None


# ------------------------------------------------------------------------------- broken facts

_FOUR_DIGIT_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")


def output_pivot(a: NoteAudit) -> int:
    """A two-digit year of the output is read as its reader reads it: in the century of the latest
    four-digit year the output's dates write (a timeline moved past the true note's year), else the
    note's; a street number or a volume elsewhere in the output is no year."""
    years = [int(y) for m in a.note.mentions if m.label in DATE_LABELS
             for y in _FOUR_DIGIT_YEAR.findall(output_region(a.note.text, a.replaced, m.start, m.end)[0])]
    return max([*years, int(a.note.document_date[:4])]) + 1


@dataclass
class _Seen:
    note_id: str
    mention: Mention
    output: str


def broken_facts(audits: Sequence[NoteAudit], genders: dict[str, str],
                 towns: TownTable | None) -> list[Finding]:
    """The broken facts of one patient's notes (in the order they were written)."""
    found: list[Finding] = []
    persons: dict[str, list[_Seen]] = defaultdict(list)
    dates: list[tuple[date, date, _Seen]] = []
    for a in audits:
        order = "mdy" if a.note.country == "US" else "dmy"
        pivot = int(a.note.document_date[:4]) + 1
        out_pivot = output_pivot(a)
        for m in a.note.mentions:
            out = output_region(a.note.text, a.replaced, m.start, m.end)[0]
            seen = _Seen(a.note.note_id, m, out)
            if m.label in PERSON_LABELS:
                persons[m.ref].append(seen)
            true = full_day(m.ref) if m.label in DATE_LABELS else None
            if true is not None and read_date(m.text, order, pivot) == true:
                got = read_date(out, order, out_pivot)
                if got is not None and out != m.text:
                    dates.append((true, got, seen))
        found += _ages(a, order, out_pivot)
        found += _clinical_values(a)
        if towns is not None:
            found += _addresses(a, towns)
    for pid, mentions in persons.items():
        gender = audits[-1].note.people.get(pid) or next(
            (a.note.people[pid] for a in audits if pid in a.note.people), None)
        found += _identities(mentions, gender.gender if gender else "U", genders)
    found += _date_order(dates)
    return found


def _identities(seen: list[_Seen], gender: str, genders: dict[str, str]) -> list[Finding]:
    """Each word of a person's name always becomes the same word (paired by position within
    mentions of as many words as their output); a given name keeps its gender."""
    renders: dict[str, dict[str, _Seen]] = defaultdict(dict)
    found: list[Finding] = []
    for s in seen:
        src, out = words(s.mention.text), words(s.output)
        if not out or any(c in s.output for c in "[]"):
            continue  # a placeholder: nothing to compare
        if len(src) != len(out):
            continue
        for w, o in zip(src, out, strict=True):
            if len(w) >= 2:
                renders[w].setdefault(o, s)
            if gender in "MF" and genders.get(w) == gender and genders.get(o) not in (None, gender, "U"):
                found.append(Finding(s.note_id, "gender_flip", s.mention.label, s.mention.text, s.output,
                                     f"{w} ({gender}) -> {o} ({genders.get(o)})"))
    for w, outs in renders.items():
        if len(outs) > 1:
            first = next(iter(outs.values()))
            found.append(Finding(first.note_id, "split_identity", first.mention.label, w,
                                 " / ".join(outs),
                                 "notes " + ", ".join(sorted({s.note_id for s in outs.values()}))))
    return found


def _date_order(dates: list[tuple[date, date, _Seen]]) -> list[Finding]:
    found: list[Finding] = []
    for i, (t1, o1, s1) in enumerate(dates):
        for t2, o2, s2 in dates[i + 1 :]:
            if (t1 < t2 and not o1 <= o2) or (t1 > t2 and not o1 >= o2) or (t1 == t2 and o1 != o2):
                found.append(Finding(s2.note_id, "date_order", s2.mention.label,
                                     f"{s1.mention.text} / {s2.mention.text}", f"{s1.output} / {s2.output}",
                                     f"true {t1} / {t2}, output {o1} / {o2}"))
    return found


def _years(born: date, on: date) -> int:
    return on.year - born.year - ((on.month, on.day) < (born.month, born.day))


def _ages(a: NoteAudit, order: str, out_pivot: int) -> list[Finding]:
    """An age in years agrees with the birth date of the same note, both as written and as
    rendered, when the gold itself agrees (one birth date, the note's own date)."""
    births = [m for m in a.note.mentions if m.label == "BIRTH_DATE" and full_day(m.ref)]
    ages = [m for m in a.note.mentions if m.label == "AGE" and m.ref.isdigit()]
    if len({m.ref for m in births}) != 1 or not ages:
        return []
    born = full_day(births[0].ref)
    doc = date.fromisoformat(a.note.document_date)
    assert born is not None
    out_birth = read_date(output_region(a.note.text, a.replaced, births[0].start, births[0].end)[0], order,
                          doc.year + 1)
    if out_birth is None:
        return []
    # the reader counts the surrogate age on the note's surrogate date, where the note writes its date
    out_doc = next((d for m in a.note.mentions if m.label == "DATE" and m.ref == a.note.document_date
                    and (d := read_date(output_region(a.note.text, a.replaced, m.start, m.end)[0], order,
                                        out_pivot)) is not None), doc)
    found = []
    for m in ages:
        if abs(_years(born, doc) - int(m.ref)) > 0:
            continue  # a relative's age, or an age at another time
        out = output_region(a.note.text, a.replaced, m.start, m.end)[0]
        digits = re.findall(r"\d+", out)
        if len(digits) != 1 or "+" in out or re.search(r"mois|mes|month|sem|week|d[íi]a|day|jour", out, re.I):
            continue  # "90+": Safe Harbor's aggregate; an age in months or weeks is not in years
        want = _years(out_birth, out_doc)
        if abs(int(digits[0]) - want) > 1:
            found.append(Finding(a.note.note_id, "age_birth", "AGE", m.text, out,
                                 f"surrogate birth date {out_birth} gives {want} on {out_doc}"))
    return found


_NUMBER = re.compile(r"\d+(?:[.,/:]\d+)*")
# the sorting office's number of a French postal address ("35033 Rennes Cedex 9"): part of the
# address the gold marks as town and postcode, no clinical number (issue 29)
_CEDEX_BEFORE = re.compile(r"\bcedex[ \t]*$", re.IGNORECASE)


def _clinical_values(a: NoteAudit) -> list[Finding]:
    """A number outside every gold mention that a replacement changed."""
    gold = [(m.start, m.end) for m in a.note.mentions]
    found = []
    for n in _NUMBER.finditer(a.note.text):
        if any(s < n.end() and n.start() < e for s, e in gold):
            continue
        if _CEDEX_BEFORE.search(a.note.text, max(0, n.start() - 8), n.start()):
            continue
        for r in a.replaced:
            if r.start < n.end() and n.start() < r.end and r.surrogate != a.note.text[r.start : r.end]:
                found.append(Finding(a.note.note_id, "clinical_value", r.label, a.note.text[r.start : r.end],
                                     r.surrogate, f"number {n.group()} at {n.start()}"))
                break
    return found


class TownTable:
    """Which town, postcode and region names exist together, per country (from a place table)."""

    def __init__(self, rows: dict[str, list[tuple[str, set[str], set[str]]]]) -> None:
        self._rows = rows  # country -> [(folded town, postcodes or prefixes, folded admin names)]

    def regions(self) -> frozenset[str]:
        """Folded names and codes of every region, state, province and county of the tables."""
        return frozenset(a for rows in self._rows.values() for _, _, admin in rows for a in admin if a)

    def exists(self, country: str, town: str, postcode: str | None) -> bool | None:
        rows = self._rows.get(country)
        if not rows:
            return None
        matches = [r for r in rows if r[0] == fold(town).strip()]
        if not matches:
            return False
        if not postcode:
            return True
        code = postcode.replace(" ", "").upper()
        if "*" in code:  # a ZIP generalised to its first digits ("021**"): any town under them fits
            head = code.split("*", 1)[0]
            if head == "000":
                return True  # Safe Harbor's restricted area: the digits name no place to contradict
            return any(not codes or any(c.startswith(head) for c in codes) for _, codes, _ in matches)
        return any(not codes or code in codes or any(code.startswith(c) for c in codes if len(c) < 5)
                   for _, codes, _ in matches)


def _addresses(a: NoteAudit, towns: TownTable) -> list[Finding]:
    groups: dict[str, dict[str, str]] = defaultdict(dict)
    sources: dict[str, dict[str, tuple[int, ...]]] = defaultdict(dict)
    for m in a.note.mentions:
        if m.ref and m.label in ("CITY", "POSTCODE"):
            out = output_region(a.note.text, a.replaced, m.start, m.end)[0]
            if "[" not in out:
                groups[m.ref][m.label] = out
                sources[m.ref][m.label] = tuple(i for i, r in enumerate(a.replaced)
                                                if r.start < m.end and m.start < r.end)
    found = []
    for ref, parts in groups.items():
        if "CITY" not in parts or not any(c.isalpha() for c in parts["CITY"]):
            continue  # the town was replaced with its postcode as one span: nothing to look up
        if "POSTCODE" in parts and sources[ref]["POSTCODE"] == sources[ref]["CITY"]:
            parts = {"CITY": parts["CITY"]}  # one replacement wrote both: the town is checked alone
        ok = towns.exists(a.note.country, parts["CITY"], parts.get("POSTCODE"))
        if ok is False:
            found.append(Finding(a.note.note_id, "address", "CITY", "", " ".join(parts.values()),
                                 "no such town and postcode together"))
    return found
