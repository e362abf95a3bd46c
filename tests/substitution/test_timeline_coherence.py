"""Whole notes read the way a reader checks them (issue 15): surrogate dates, ages and birth dates
of one patient must tell a coherent story, within a note and across the patient's notes.

A *reader* reads every output mention back (``deid.temporal.expressions.parse``, the parser, not
the mechanism) as an interval of days (a day; a whole month for "mars 2021"; a whole year for
"2019") and counts, over every pair of absolute dates of a patient (all notes together):
- reversed intervals: the true intervals are strictly ordered and the surrogates strictly the other
  way round;
- same-day pairs split: two day mentions of one true day with different surrogate days;
- ages that contradict the surrogate birth date: the age written differs by more than a year from
  every age the surrogate birth date allows at the surrogate note date;
- dates crossing the note date: strictly before the note's date and strictly after its surrogate
  (and the other way round);
- placeholders left: ``[DATE]``/``[AGE]`` in dp/shift output for a mention the parser can read;
- birth dates that disagree: two spellings of the patient's birth date ("30/06/1968", "juin 1968")
  whose surrogates do not overlap (one surrogate birth date per patient).
The surrogate note date is the memo entry of the note's date (dp: its timeline point; shift: the
patient's shift); it is what the note's relative expressions and derived ages were read against.
"""

from __future__ import annotations

import asyncio
import random
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

import pytest
from substitution_testkit import spans_of

import deid.lab.synth.generator as generator
from deid.events import DeidNote, ModelInfo, RawNote
from deid.labels import Category, Label
from deid.settings import PrivacySettings, Settings
from deid.spans import Span
from deid.store.keys import KeyHasher
from deid.store.memory import InMemoryStore
from deid.substitution.engine import Substituter
from deid.substitution.profiles import deidentify_text, profile_settings
from deid.substitution.temporal import _SHIFT_VALUE
from deid.temporal import expressions as tx

SECRET = b"timeline-coherence-test-secret-0123456789"
MODEL = ModelInfo(name="test", version="0")
ROOT = Path(__file__).resolve().parents[2]
INCOHERENCES = ("reversed", "same_day_split", "age_contradicts_birth", "crosses_note_date", "placeholder",
                "birth_dates_disagree")


# ----------------------------------------------------------------------------------- the reader


@dataclass
class Read:
    """One DATE/AGE mention of a note: its true and surrogate text, read."""

    label: Label
    true_text: str
    out_text: str
    true: tx.Temporal | None
    out: tx.Temporal | None


@dataclass
class NoteOut:
    ref: date | None  # the note's date
    fake_ref: date | None  # its surrogate (None when the note released none)
    reads: list[Read]


def _interval(t: tx.Temporal | None) -> tuple[date, date] | None:
    """The days an absolute date stands for, as a reader takes it."""
    if t is None or t.kind != "date" or t.when is None:
        return None
    w = t.when
    if t.unit == "day":
        return w, w
    if t.unit == "month":
        nxt = date(w.year + (w.month == 12), w.month % 12 + 1, 1)
        return date(w.year, w.month, 1), nxt - timedelta(days=1)
    if t.unit == "year":
        return date(w.year, 1, 1), date(w.year, 12, 31)
    return None


def _years(a: date, b: date) -> int:
    return b.year - a.year - ((b.month, b.day) < (a.month, a.day))


def _read_note(text: str, spans: list[Span], out: DeidNote, lang: str, order: str, ref: date | None,
               fake_ref: date | None) -> NoteOut:
    ins = sorted(spans, key=lambda s: s.start)
    outs = sorted(out.spans, key=lambda s: s.start)
    assert [s.label.value for s in ins] == [s.label for s in outs]
    reads = []
    for s, o in zip(ins, outs, strict=True):
        if s.label.category not in (Category.DATE, Category.AGE):
            continue
        is_age = s.label.category is Category.AGE
        true_text, out_text = text[s.start : s.end], out.text[o.start : o.end]
        true = tx.parse(true_text, lang, age=is_age, ref=ref, order=order)
        got = tx.parse(out_text, lang, age=is_age, ref=fake_ref or ref, order=order)
        reads.append(Read(s.label, true_text, out_text, true, got))
    return NoteOut(ref, fake_ref, reads)


def audit(notes: list[NoteOut], birth_slack_days: int = 0) -> Counter[str]:
    """The reader's counts of incoherences over one patient's notes (see the module doc).
    ``birth_slack_days``: how far apart two spellings of the birth date may be (the shift baseline
    moves a month-precision date by its first day, so "juin" may land a month off the day's shift)."""
    bad: Counter[str] = Counter()
    dates = []
    for n in notes:
        for r in n.reads:
            if r.true is not None and "[" in r.out_text:
                bad["placeholder"] += 1
            ti, oi = _interval(r.true), _interval(r.out)
            if ti is not None and r.out is not None and oi is None:
                bad["unreadable"] += 1
            if ti is None or oi is None:
                continue
            dates.append((ti, oi, r.true.unit if r.true else ""))
            ref, fake = n.ref, n.fake_ref
            if ref is not None and fake is not None and (
                    (ti[1] < ref and oi[0] > fake) or (ti[0] > ref and oi[1] < fake)):
                bad["crosses_note_date"] += 1
        births = [r for r in n.reads if r.label is Label.BIRTH_DATE and _interval(r.out) is not None]
        ages = [r for r in n.reads if r.label.category is Category.AGE and r.out is not None
                and r.out.kind == "age" and r.out.unit == "year"]
        if births and n.fake_ref is not None:
            lo_b, hi_b = _interval(births[0].out)  # type: ignore[misc]
            allowed = range(_years(hi_b, n.fake_ref) - 1, _years(lo_b, n.fake_ref) + 2)
            for a in ages:  # "90+ ans" (Safe Harbor aggregation) says "at least 90"
                n_years = a.out.amount  # type: ignore[union-attr]
                ok = allowed.stop - 1 >= n_years if "+" in a.out_text else n_years in allowed
                bad["age_contradicts_birth"] += not ok
    births_all = [_interval(r.out) for n in notes for r in n.reads if r.label is Label.BIRTH_DATE]
    known = [b for b in births_all if b is not None]
    slack = timedelta(days=birth_slack_days)
    bad["birth_dates_disagree"] += sum(a[1] + slack < b[0] or b[1] + slack < a[0]
                                       for i, a in enumerate(known) for b in known[i + 1 :])
    for i, (ta, oa, ua) in enumerate(dates):
        for tb, ob, ub in dates[i + 1 :]:
            if (ta[1] < tb[0] and oa[0] > ob[1]) or (tb[1] < ta[0] and ob[0] > oa[1]):
                bad["reversed"] += 1
            if ua == ub == "day" and ta == tb and oa != ob:
                bad["same_day_split"] += 1
    return bad


def _fake_ref(store: InMemoryStore, hasher: KeyHasher, patient_id: str, ref: date | None,
              strategy: str) -> date | None:
    """The note date's surrogate from the patient's memo (dp: its point; shift: date + shift)."""
    if ref is None:
        return None
    patient = hasher.patient(patient_id)
    memo = store._get(patient).memo
    if strategy == "random":
        shift = memo.get(hasher.value(patient, Label.DATE, _SHIFT_VALUE))
        return None if shift is None else ref + timedelta(days=int(shift))
    value = memo.get(hasher.value(patient, Label.DATE, f"date:day:{ref.isoformat()}"))
    return None if value is None else date.fromisoformat(value.removeprefix("day:"))


def _run_series(strategy: str, series: list[list[tuple[str, list[Span], date, str]]], seed: int,
                lang: str = "fr", locale: str | None = None, eps_per_note: float = 1.0) -> list[Counter[str]]:
    """Each patient's notes, in order, through one engine and one store (several ``substitute``
    calls: one per note, so later notes find earlier values memoized); one audit per patient."""
    store = InMemoryStore()
    hasher = KeyHasher(SECRET)
    base = Settings(privacy=PrivacySettings(epsilon_per_note=eps_per_note, patient_cap=1e6))
    sub = Substituter(store, hasher, profile_settings(base, strategy), random.Random(seed))
    order = "mdy" if locale == "en-US" else "dmy"
    audits = []
    for p, notes in enumerate(series):
        read = []
        for text, spans, ref, event in notes:
            raw = RawNote(event_id=event, patient_id=f"patient-{p}", language=lang, document_date=ref,  # type: ignore[arg-type]
                          text=text, locale=locale)
            out = asyncio.run(sub.substitute([raw], [spans], MODEL))[0]
            fake_ref = _fake_ref(store, hasher, f"patient-{p}", ref, strategy)
            read.append(_read_note(text, spans, out, lang, order, ref, fake_ref))
        audits.append(audit(read, birth_slack_days=31 if strategy == "random" else 0))
    return audits


def _total(audits: list[Counter[str]]) -> Counter[str]:
    out: Counter[str] = Counter()
    for a in audits:
        out.update(a)
    return out


# -------------------------------------------------------------------- synthetic French patients


@pytest.fixture(scope="module")
def french_series() -> list[list[tuple[str, list[Span], date, str]]]:
    """30 synthetic patients (``deid.lab.synth``) of 3 notes each; the note date of each note is the
    date the generator wrote it for (recorded through its ``_note``)."""
    seen: dict[str, date] = {}
    real = generator._note

    def recording(rng, pt, when, kind, doc_id):  # type: ignore[no-untyped-def]
        seen[doc_id] = when
        return real(rng, pt, when, kind, doc_id)

    generator._note = recording  # type: ignore[assignment]
    try:
        series = generator.generate_patient_series(30, notes_per_patient=3, seed=15)
    finally:
        generator._note = real  # type: ignore[assignment]
    return [[(d.text, list(d.spans), seen[d.doc_id], d.doc_id) for d in docs] for docs in series]


@pytest.mark.parametrize(("strategy", "eps"), [("dp", 1.0), ("dp", 0.1), ("random", 1.0)])
def test_synthetic_longitudinal_patients_read_coherently(french_series, strategy, eps):
    """0 reversed intervals, 0 same-day pairs split, 0 ages off the surrogate birth date by more
    than a year, 0 dates crossing the note date, 0 placeholders for readable mentions, across the
    three notes of each of 30 patients; and the checks did see material (many date pairs)."""
    audits = _run_series(strategy, french_series, seed=3, eps_per_note=eps)
    total = _total(audits)
    checked = (*INCOHERENCES, "unreadable")
    assert {k: total[k] for k in checked} == dict.fromkeys(checked, 0)


def test_the_reader_counts_what_it_should():
    """The audit itself can fail: a hand-made incoherent output is counted on every check."""
    def t(text: str, age: bool = False) -> tx.Temporal | None:
        return tx.parse(text, "fr", age=age, ref=date(2024, 3, 6))

    reads = [
        Read(Label.BIRTH_DATE, "14/02/1956", "14/02/1970", t("14/02/1956"), t("14/02/1970")),
        Read(Label.AGE, "68 ans", "68 ans", t("68 ans", True), t("68 ans", True)),
        Read(Label.DATE, "02/03/2024", "09/03/2024", t("02/03/2024"), t("09/03/2024")),
        Read(Label.DATE, "05/03/2024", "01/03/2024", t("05/03/2024"), t("01/03/2024")),
        Read(Label.DATE, "2 mars 2024", "3 mars 2024", t("2 mars 2024"), t("3 mars 2024")),
        Read(Label.DATE, "en mai", "[DATE]", t("en mai"), None),
        Read(Label.BIRTH_DATE, "février 1956", "mai 1971", t("février 1956"), t("mai 1971")),
    ]
    bad = audit([NoteOut(date(2024, 3, 6), date(2024, 3, 7), reads)])
    assert bad["birth_dates_disagree"] == 1
    assert bad["reversed"] == 2 and bad["same_day_split"] == 1 and bad["age_contradicts_birth"] == 1
    assert bad["crosses_note_date"] == 1 and bad["placeholder"] == 1


# ----------------------------------------------------------- hand-written Spanish and English notes




ES_NOTES = [
    ("Paciente nacida el 14/02/1956, de 68 años. Ingresó el 2 de marzo de 2024 y recibió el alta el "
     "05/03/2024. Operada hace tres años. Control el 15/04/2024.",
     [("14/02/1956", Label.BIRTH_DATE), ("68 años", Label.AGE), ("2 de marzo de 2024", Label.DATE),
      ("05/03/2024", Label.DATE), ("hace tres años", Label.DATE), ("15/04/2024", Label.DATE)],
     date(2024, 3, 6)),
    ("Control del 15/04/2024. Paciente de 68 años (nacida el 14/02/1956), hospitalizada del 02/03/2024 "
     "al 5 de marzo de 2024; cayó el pasado martes. Nueva revisión en junio de 2024.",
     [("15/04/2024", Label.DATE), ("68 años", Label.AGE), ("14/02/1956", Label.BIRTH_DATE),
      ("02/03/2024", Label.DATE), ("5 de marzo de 2024", Label.DATE), ("el pasado martes", Label.DATE),
      ("junio de 2024", Label.DATE)],
     date(2024, 4, 15)),
]

EN_NOTES = [  # month first (en-US)
    ("Ms. Roe, born 02/14/1956, 68 years old, was admitted 3/2/2024 and discharged 03/05/2024. "
     "Surgery 3 years ago. Follow-up on April 15, 2024.",
     [("02/14/1956", Label.BIRTH_DATE), ("68 years old", Label.AGE), ("3/2/2024", Label.DATE),
      ("03/05/2024", Label.DATE), ("3 years ago", Label.DATE), ("April 15, 2024", Label.DATE)],
     date(2024, 3, 6)),
    ("Seen 04/15/2024. Born 02/14/1956, 68-year-old woman admitted 3/2/2024 to 3/5/2024. She fell "
     "last Tuesday. Next visit in 2 weeks, then in August 2024.",
     [("04/15/2024", Label.DATE), ("02/14/1956", Label.BIRTH_DATE), ("68-year-old", Label.AGE),
      ("3/2/2024", Label.DATE), ("3/5/2024", Label.DATE), ("last Tuesday", Label.DATE),
      ("in 2 weeks", Label.DATE), ("August 2024", Label.DATE)],
     date(2024, 4, 15)),
]


def _hand_series(notes: list[tuple[str, list[tuple[str, Label]], date]], n: int, tag: str
                 ) -> list[list[tuple[str, list[Span], date, str]]]:
    """``n`` patients who all have these notes (each patient draws its own surrogates)."""
    one = [(text, spans_of(text, marks), day, f"{tag}-{j}") for j, (text, marks, day) in enumerate(notes)]
    return [[(text, spans, day, f"{event}-{p}") for text, spans, day, event in one] for p in range(n)]


@pytest.mark.parametrize("strategy", ["dp", "random"])
@pytest.mark.parametrize(("lang", "locale", "notes"), [("es", "es-ES", ES_NOTES), ("en", "en-US", EN_NOTES)])
def test_hand_written_spanish_and_us_english_patients_read_coherently(strategy, lang, locale, notes):
    """Two notes per patient, 40 patients: the same counts are all 0, and every mention (partial
    and relative dates included) is rendered, never a placeholder."""
    audits = _run_series(strategy, _hand_series(notes, 40, lang), seed=5, lang=lang, locale=locale)
    total = _total(audits)
    checked = (*INCOHERENCES, "unreadable")
    assert {k: total[k] for k in checked} == dict.fromkeys(checked, 0)


# ---------------------------------------------------------------- the "Done when" note

DONE_FR = ("Mme Jeanne Martin, née le 14/02/1956, 68 ans, hospitalisée du 02/03/2024 au 05/03/2024. "
           "Contrôle le 15/04/2024.")
DONE_FR_MARKS = [("14/02/1956", Label.BIRTH_DATE), ("68 ans", Label.AGE), ("02/03/2024", Label.DATE),
                 ("05/03/2024", Label.DATE), ("15/04/2024", Label.DATE)]
DONE_EN = "Mrs. Jane Roe, born 02/14/1956, 68 years old, admitted 3/2/2024 to 3/5/2024. Follow-up 04/15/2024."
DONE_EN_MARKS = [("02/14/1956", Label.BIRTH_DATE), ("68 years old", Label.AGE), ("3/2/2024", Label.DATE),
                 ("3/5/2024", Label.DATE), ("04/15/2024", Label.DATE)]
NOTE_DAY = date(2024, 3, 6)


def _numeric_dates(text: str, order: str) -> list[date]:
    out = []
    for a, b, y in re.findall(r"(\d{1,2})/(\d{1,2})/(\d{4})", text):
        d, m = (int(b), int(a)) if order == "mdy" else (int(a), int(b))
        out.append(date(int(y), m, d))
    return out


def _done_when_checks(text: str, order: str) -> tuple[bool, date]:
    """The reader of the "Done when" note: stay, then follow-up in order (not before), the age
    within a year of what the surrogate birth date gives at the note's (about) date. Returns
    (coherent, surrogate birth date)."""
    birth, admit, out_day, follow = _numeric_dates(text, order)
    age = int(re.search(r"(\d+) (?:ans|years)", text)[1])  # type: ignore[index]
    # the note's surrogate date lies between the discharge and the follow-up (order is kept)
    ages = range(_years(birth, out_day) - 1, _years(birth, follow) + 2)
    return admit <= out_day <= follow and birth < admit and age in ages, birth


@pytest.mark.parametrize(("text", "marks", "lang", "locale", "order", "true_birth"), [
    (DONE_FR, DONE_FR_MARKS, "fr", None, "dmy", "14/02/1956"),
    (DONE_EN, DONE_EN_MARKS, "en", "en-US", "mdy", "02/14/1956"),
])
def test_done_when_repeated_dp_runs_keep_order_age_and_move_the_birth_date(text, marks, lang, locale, order,
                                                                             true_birth):
    """50 independent dp runs (fresh memo each, like repeated ``deid redact --profile dp``): every
    run coherent; the birth date released unchanged in at most 5 runs (1 in 10)."""
    spans = spans_of(text, marks)
    unchanged = 0
    for seed in range(50):
        out = deidentify_text(text, spans, lang, NOTE_DAY, profile="dp", rng=random.Random(1000 + seed),
                              locale=locale)
        assert "[" not in out.text, out.text
        ok, _ = _done_when_checks(out.text, order)
        assert ok, out.text
        unchanged += true_birth in out.text
    assert unchanged <= 5


@pytest.mark.parametrize(("text", "lang", "order", "true_birth"), [
    (DONE_FR, "fr", "dmy", "14/02/1956"),
    (DONE_EN, "en", "mdy", "02/14/1956"),
])
def test_done_when_through_the_command_line(tmp_path: Path, text, lang, order, true_birth):
    """One ``deid redact --profile dp --rules-only`` run per language (seeded): the rule detector
    finds the dates and the age, and the printed note passes the same reader."""
    note = tmp_path / "note.txt"
    note.write_text(text + "\n", encoding="utf-8")
    cmd = [sys.executable, "-m", "deid", "redact", "--profile", "dp", "--date", NOTE_DAY.isoformat(),
           "--rules-only", "--lang", lang, "--seed", "11", str(note)]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert res.returncode == 0, res.stderr[-2000:]
    printed = res.stdout.strip()
    assert "[DATE]" not in printed and "[AGE]" not in printed, printed
    assert len(_numeric_dates(printed, order)) == 4, printed
    ok, _ = _done_when_checks(printed, order)
    assert ok, printed
    assert true_birth not in printed


# ------------------------------------------------ regressions found by the reader (issue 15)


def test_a_patients_later_notes_derive_ages_and_birth_spellings_from_the_one_surrogate_birth_date():
    """Note 1 gives the birth date in full; note 2 spells it "juin 1968"; note 3 gives only the age.
    Every age is rendered (no [AGE]: the first build rendered one when the note did not repeat the
    birth date in the same spelling), the month of note 2 contains note 1's surrogate birth day (one
    surrogate birth date per patient), and the reader finds no incoherence."""
    notes = [
        ("Née le 30/06/1968, 48 ans, vue le 09/06/2017.", [("30/06/1968", Label.BIRTH_DATE),
                                                          ("48 ans", Label.AGE), ("09/06/2017", Label.DATE)],
         date(2017, 6, 9)),
        ("DDN juin 1968, 49 ans, revue le 25/07/2017.",
         [("juin 1968", Label.BIRTH_DATE), ("49 ans", Label.AGE), ("25/07/2017", Label.DATE)],
         date(2017, 7, 25)),
        ("Patiente de 49 ans, revue le 12/11/2017.", [("49 ans", Label.AGE), ("12/11/2017", Label.DATE)],
         date(2017, 11, 12)),
    ]
    series = _hand_series(notes, 30, "birth")
    for strategy in ("dp", "random"):
        audits = _run_series(strategy, series, seed=9)
        total = _total(audits)
        checked = (*INCOHERENCES, "unreadable")
        assert {k: total[k] for k in checked} == dict.fromkeys(checked, 0), strategy


def test_two_digit_surrogate_years_are_read_back_in_the_right_century():
    """A birth date written "29/6/31" in a 2015 note, with noise of decades (eps 0.1 per note):
    a surrogate year that two digits would put in the wrong century ("13" for 1913 reads 2013) is
    written with four digits, so the age beside it agrees (100 patients)."""
    text = "Née le 29/6/31, 84 ans, vue le 20/11/15."
    notes = [(text, [("29/6/31", Label.BIRTH_DATE), ("84 ans", Label.AGE), ("20/11/15", Label.DATE)],
              date(2015, 11, 20))]
    audits = _run_series("dp", _hand_series(notes, 100, "yy"), seed=13, eps_per_note=0.1)
    total = _total(audits)
    checked = (*INCOHERENCES, "unreadable")
    assert {k: total[k] for k in checked} == dict.fromkeys(checked, 0)
