"""Synthetic English clinical notes with gold PHI spans (US conventions), for evaluation and training.

Two kinds of note, written the way US nursing notes and discharge summaries are: "67 y/o M",
MRN / SSN / Medicare and insurance member ids after their labels, US phone numbers, month/day
dates without a year, two-digit years ('92, 3/4/92), names in capitals, in lower case and as
initials ("Dr. K. Lee", "dr smith"), hospital, unit and ward names ("St. Mary's Hospital", "5
West", "Ward 4B"), cities with their state. Every note also carries the things a detector must
leave alone: kinship words without a name ("daughter at bedside"), "@" written for "at", vital
signs and blood gases (88/46, 7.32/45/88), clock times, drugs and abbreviations in capitals.

Every identity is invented: names are drawn from the project's name lists, numbers at random.
Notes are written with inline markup ``[[surface|LABEL]]`` (``render`` / ``parse``), so that a
frozen set of them can be committed as text and read back with exact offsets.

``english_notes(n, seed)`` returns ``Document`` objects; the English dev set
(``deid.lab.eval.english``) was drawn once with seeds outside those any training run may use
(``TRAINING_SEEDS``): a training run must draw with a seed below ``DEV_SEED_BASE``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from functools import cache

from deid.labels import Label
from deid.spans import Document, Span

DEV_SEED_BASE = 1_000_000  # seeds at or above this are reserved for evaluation sets
TRAINING_SEEDS = range(0, DEV_SEED_BASE)

_MARK = re.compile(r"\[\[([^\[\]|]+)\|([A-Z_]+)\]\]")


def mark(surface: str, label: Label) -> str:
    return f"[[{surface}|{label.value}]]"


def parse(markup: str) -> tuple[str, tuple[Span, ...]]:
    """Plain text and gold spans of a marked-up note."""
    out: list[str] = []
    spans: list[Span] = []
    pos = length = 0
    for m in _MARK.finditer(markup):
        out.append(markup[pos : m.start()])
        length += m.start() - pos
        surface = m.group(1)
        spans.append(Span(length, length + len(surface), Label(m.group(2))))
        out.append(surface)
        length += len(surface)
        pos = m.end()
    out.append(markup[pos:])
    return "".join(out), tuple(spans)


@cache
def _names() -> dict[str, list[str]]:
    import json
    from importlib import resources

    data = json.loads(resources.files("deid.data").joinpath("names.json").read_text(encoding="utf-8"))
    en = data["en"]
    return {"male": list(en["male"]), "female": list(en["female"]), "last": list(en["last"])}


_CITIES = (("Springfield", "IL"), ("Fairview", "OH"), ("Madison", "WI"), ("Georgetown", "TX"),
           ("Salem", "OR"), ("Franklin", "TN"), ("Clinton", "IA"), ("Greenville", "SC"),
           ("Bristol", "CT"), ("Dover", "DE"), ("Arlington", "VA"), ("Ashland", "KY"),
           ("Burlington", "VT"), ("Manchester", "NH"), ("Oxford", "MS"), ("Riverside", "CA"))  # fmt: skip
_HOSPITAL_STEMS = ("St. Mary's", "Mercy", "Lakeside", "Good Samaritan", "Riverside", "St. Luke's",
                   "Northview", "Baptist Memorial", "Sacred Heart", "Cedar Valley", "Holy Cross",
                   "Memorial", "Providence", "Saint Joseph")  # fmt: skip
_HOSPITAL_KINDS = ("Hospital", "Medical Center", "General Hospital", "Regional Medical Center",
                   "Community Hospital", "Rehabilitation Center", "Nursing Home", "Clinic")  # fmt: skip
_WARDS = ("5 West", "7 North", "4 East", "Ward 4B", "Ward 12", "6 South", "Unit 3C", "9 West")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")  # fmt: skip


class _Note:
    """One identity and the surface forms the templates draw from."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        names = _names()
        self.female = rng.random() < 0.5
        self.first = rng.choice(names["female" if self.female else "male"])
        self.last = rng.choice(names["last"])
        self.relative = rng.choice(names["female"] + names["male"])
        self.doctor = rng.choice(names["last"])
        self.doctor_first = rng.choice(names["male"] + names["female"])
        self.nurse = rng.choice(names["female"] + names["male"])
        self.nurse_last = rng.choice(names["last"])
        self.age = rng.choice([rng.randint(19, 89), rng.randint(19, 89), rng.randint(90, 101)])
        self.city, self.state = rng.choice(_CITIES)
        self.hospital = f"{rng.choice(_HOSPITAL_STEMS)} {rng.choice(_HOSPITAL_KINDS)}"
        self.ward = rng.choice(_WARDS)
        self.year = rng.randint(2060, 2099) if rng.random() < 0.5 else rng.randint(1995, 2024)
        self.month = rng.randint(1, 12)
        self.day = rng.randint(1, 28)

    # names -------------------------------------------------------------------------------
    def patient(self) -> str:
        r = self.rng.random()
        if r < 0.3:
            s = f"{self.first} {self.last}"
        elif r < 0.5:
            s = f"{self.first} {self.last}".upper()
        elif r < 0.65:
            s = f"{self.first} {self.last}".lower()
        elif r < 0.8:
            s = f"{self.first[0]}. {self.last}"
        else:
            s = f"{self.last}, {self.first}"
        return mark(s, Label.PATIENT)

    def surname(self) -> str:
        r = self.rng.random()
        s = self.last if r < 0.5 else self.last.upper() if r < 0.75 else self.last.lower()
        return mark(s, Label.PATIENT)

    def doctor_ref(self) -> str:
        r = self.rng.random()
        if r < 0.3:
            return "Dr. " + mark(self.doctor, Label.STAFF)
        if r < 0.5:
            return "Dr. " + mark(f"{self.doctor_first[0]}. {self.doctor}", Label.STAFF)
        if r < 0.65:
            return "dr " + mark(self.doctor.lower(), Label.STAFF)
        if r < 0.8:
            return "DR. " + mark(self.doctor.upper(), Label.STAFF)
        return mark(f"{self.doctor_first} {self.doctor}", Label.STAFF) + ", MD"

    def nurse_ref(self) -> str:
        r = self.rng.random()
        if r < 0.4:
            return mark(f"{self.nurse} {self.nurse_last}", Label.STAFF) + ", RN"
        if r < 0.7:
            return mark(f"{self.nurse[0]}. {self.nurse_last}", Label.STAFF) + " RN"
        return mark(self.nurse.lower(), Label.STAFF) + " rn"

    def relative_ref(self) -> str:
        return mark(self.relative, Label.RELATIVE)

    # dates -------------------------------------------------------------------------------
    def date(self) -> str:
        rng, m, d, y = self.rng, self.month, self.day, self.year
        forms: list[Callable[[], str]] = [
            lambda: f"{m}/{d}",
            lambda: f"{m:02d}/{d:02d}/{y}",
            lambda: f"{m}/{d}/{y % 100:02d}",
            lambda: f"{_MONTHS[m - 1]} {d}",
            lambda: f"{_MONTHS[m - 1][:3]} {d}th",
            lambda: f"{_MONTHS[m - 1]} {d}, {y}",
            lambda: f"{y}-{m:02d}-{d:02d}",
        ]
        return mark(rng.choice(forms)(), Label.DATE)

    def birth(self) -> str:
        y = self.rng.randint(1925, 2005)
        s = self.rng.choice(
            [f"{self.month}/{self.day}/{y}", f"{self.month:02d}/{self.day:02d}/{y % 100:02d}"]
        )
        return mark(s, Label.BIRTH_DATE)

    def two_digit_year(self) -> str:
        return mark(f"'{self.rng.randint(70, 99)}", Label.DATE)

    # numbers -----------------------------------------------------------------------------
    def digits(self, n: int) -> str:
        return "".join(self.rng.choice("0123456789") for _ in range(n))

    def mrn(self) -> str:
        return mark(self.digits(self.rng.choice((7, 8, 9))), Label.ID_PATIENT)

    def ssn(self) -> str:
        return mark(f"{self.rng.randint(100, 899)}-{self.digits(2)}-{self.digits(4)}", Label.ID_SSN)

    def medicare(self) -> str:
        letters = "ACDEFGHJKMNPQRTUVWXY"
        c = self.rng.choice
        mbi = (
            f"{c('123456789')}{c(letters)}{c(letters + '0123456789')}{c('0123456789')}-"
            f"{c(letters)}{c(letters + '0123456789')}{c('0123456789')}-"
            f"{c(letters)}{c(letters)}{c('0123456789')}{c('0123456789')}"
        )
        return mark(mbi, Label.ID_SSN)

    def member_id(self) -> str:
        prefix = "".join(self.rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(3))
        return mark(prefix + self.digits(9), Label.ID_SSN)

    def account(self) -> str:
        return mark(self.digits(self.rng.choice((8, 10))), Label.ID_VISIT)

    def phone(self) -> str:
        a, b, c = self.rng.randint(201, 989), self.rng.randint(200, 989), self.digits(4)
        s = self.rng.choice([f"({a}) {b}-{c}", f"{a}-{b}-{c}", f"{a}.{b}.{c}"])
        return mark(s, Label.PHONE)

    def age_ref(self) -> str:
        a = self.age
        s = self.rng.choice([f"{a} y/o", f"{a}yo", f"{a}-year-old", f"{a} yo"])
        return mark(s, Label.AGE)

    def sex_ref(self) -> str:
        return mark(
            self.rng.choice(["F", "female", "woman"] if self.female else ["M", "male", "man"]), Label.SEX
        )

    def hospital_ref(self) -> str:
        return mark(self.hospital, Label.HOSPITAL)

    def ward_ref(self) -> str:
        return mark(self.ward, Label.LOCATION)

    def city_ref(self) -> str:
        return mark(self.city, Label.CITY) + ", " + mark(self.state, Label.LOCATION)


def _nursing(n: _Note) -> list[str]:
    r = n.rng
    head = [
        f"NURSING NOTE {n.date()} 0700-1900\nPt: {n.patient()}  MRN: {n.mrn()}",
        f"Nursing progress note, {n.ward_ref()}. Pt {n.patient()} is a {n.age_ref()} {n.sex_ref()} "
        f"admitted {n.date()} with CHF exacerbation.",
    ]
    body = [
        "Neuro: A&Ox3, follows commands. Family at bedside, daughter asking questions re: plan.",
        "CV: HR 88-102 ST, BP 88/46 -> 104/60 after 500cc NS bolus @ 0400.",
        "Resp: on 4L NC, sats 94%. ABG 7.32/45/88 at 14:30, repeat in am.",
        "ID: Tmax 101.2, cultures sent. Vanco and Zosyn started @ 10:00.",
        "GI: NPO after MN for TEE; pt @ rest, tolerating sips.",
        f"Social: lives with wife in {n.city_ref()}; {n.relative_ref()} (son) can be reached at {n.phone()}.",
        f"Spoke with {n.doctor_ref()} re: Lasix 40mg IV, will recheck lytes at 1600.",
        f"Pt states she was dx with DM in {n.two_digit_year()}, on Lantus 20 units qhs.",
        f"Transferred to {n.ward_ref()} from {n.hospital_ref()} ED on {n.date()}.",
        f"Ins: Medicare ID {n.medicare()}; secondary BCBS member ID: {n.member_id()}.",
        f"Plan discussed with pt and family, questions answered. Dtr {n.relative_ref()} updated by phone.",
        f"Last BM {n.date()}. Skin intact, turned q2h. Fall risk, bed alarm on.",
        "Mother and sister visited this afternoon; pt tearful, SW consult placed.",
        "K 3.2 repleted with 40 mEq KCl PO x1, Mg 1.8. CXR with small bilat effusions.",
    ]
    tail = [f"{n.nurse_ref()}", f"-- {n.nurse_ref()} {n.date()} 18:45"]
    return [r.choice(head), *r.sample(body, r.randint(5, 9)), r.choice(tail)]


def _discharge(n: _Note) -> list[str]:
    r = n.rng
    head = [
        f"DISCHARGE SUMMARY\n{n.hospital_ref()}\nName: {n.patient()}\n"
        f"MRN: {n.mrn()}   Acct #: {n.account()}\n"
        f"DOB: {n.birth()}   SSN: {n.ssn()}\nAdmission Date: {n.date()}   Discharge Date: {n.date()}",
        f"Discharge Summary - {n.patient()} (MRN {n.mrn()})\nAttending: {n.doctor_ref()}\n"
        f"Date of admission: {n.date()}",
    ]
    body = [
        f"HPI: {n.surname()} is a {n.age_ref()} {n.sex_ref()} with h/o HTN, DM2 and CAD s/p CABG in "
        f"{n.two_digit_year()} who presented to {n.hospital_ref()} with 3 days of SOB.",
        f"Hospital course: admitted to {n.ward_ref()}, diuresed with IV Lasix, "
        f"Cr peaked at 1.9 on {n.date()}.",
        f"Echo {n.date()}: EF 35%, mod MR. Cardiology ({n.doctor_ref()}) "
        "recommended metoprolol 25 mg BID.",
        "Labs on discharge: Na 136, K 4.1, BUN/Cr 32/1.4, Hgb 10.2, INR 2.3.",
        "Vitals at discharge: T 98.6, HR 76, BP 118/72, RR 16, SpO2 96% RA.",
        f"Follow-up: {n.doctor_ref()}, cardiology clinic, in 2 weeks; call {n.phone()} to schedule.",
        f"PCP: {n.doctor_ref()}, {n.hospital_ref()}, tel {n.phone()}.",
        "Disposition: home with VNA; wife and daughter to assist with meds.",
        f"Insurance: Medicare {n.medicare()}, supplemental policy # {n.member_id()}.",
        f"Code status: Full. Health care proxy is {n.relative_ref()} (daughter), phone {n.phone()}.",
        f"Pt lives in {n.city_ref()} with his family and was independent in ADLs until {n.date()}.",
        "Discharge meds: ASA 81 mg daily, Lipitor 40 mg qhs, Coumadin 5 mg as directed.",
    ]
    tail = [
        f"Dictated by: {n.doctor_ref()}  {n.date()}",
        f"Electronically signed {n.doctor_ref()} {n.date()} 16:20",
    ]
    return [r.choice(head), *r.sample(body, r.randint(5, 9)), r.choice(tail)]


def english_markup(n: int, seed: int) -> list[str]:
    """``n`` marked-up notes drawn with ``seed`` (half nursing notes, half discharge summaries)."""
    rng = random.Random(seed)
    notes = []
    for i in range(n):
        note = _Note(rng)
        parts = _nursing(note) if i % 2 == 0 else _discharge(note)
        notes.append("\n".join(parts))
    return notes


def english_notes(n: int, seed: int, prefix: str = "en-synth") -> list[Document]:
    """``n`` synthetic English notes as documents with gold spans."""
    out = []
    for i, markup in enumerate(english_markup(n, seed)):
        text, spans = parse(markup)
        out.append(Document(f"{prefix}-{seed}-{i}", text, "en", spans))
    return out
