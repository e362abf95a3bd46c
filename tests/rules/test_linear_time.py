"""Every rule runs in time linear in the note (issue 33, "every pattern linear").

Python's ``re`` holds the GIL while it matches, so no timeout can stop a pattern that backtracks
quadratically: 100k characters of "a-" blocked the worker for ~48 s. Each input below repeats a
piece that some pattern repeats (a separator, a word shape, a label before its value) up to 10k
and 100k characters, and the time at 100k may be at most ``MAX_RATIO`` times the time at 10k
(least times over several runs; linear is ×10, quadratic ×100). The whole rule detector runs on
the shapes every pattern meets (``SHAPES``) in every language, timing each recognizer inside it,
so that a failure names the recognizer; each recognizer also runs alone on the shapes its own
patterns repeat (``RECOGNIZER_SHAPES``).

Two kinds of input: a piece repeated ("a-a-a-..."), and a cue followed by a long run and an end
that fails the match ("MRN" then 100k spaces then "x", ``after``). The first catches a pattern
that repeats ``+`` or ``*`` over characters where another attempt may start ("a-a-a-": each "-"
may open a name), so that each start rescans the run; the second catches two repeats side by side
over the same characters ("\\s*:?\\s*"), which split one run in every way. The fixes: bound the
repeat, make it possessive, or anchor it.
"""

from __future__ import annotations

import gc
import math
import re
import time
from collections.abc import Callable

import pytest

from deid.protocols import Recognizer
from deid.rules import RuleDetector, build_recognizers, registered
from deid.spans import Span

LANGUAGES = ("fr", "es", "en")
SMALL, LARGE = 10_000, 100_000
# Ten times the input: a quadratic pattern takes about 100 times as long, a linear one 10, and so
# does one that finds a mention every few characters ("Dr. Dr. ...", "1y 1y ..."), since every step
# after the patterns keeps its spans in text order and merges them in one pass (short ages once
# sorted a hash-ordered set of theirs, n log n: x12-13). 15 is the figure: half again over
# linear for a busy machine (x17 for "Dr. " once in a full-suite run, when each try's 100k time
# went over its own 10k time; now the least times of all tries are compared, see super_linear).
MAX_RATIO = 15
# Times under a millisecond are noise at this scale: a ratio is taken against 1 ms at least.
FLOOR_S = 1e-3
# Above this at 10k, a quadratic pattern would take minutes at 100k: 5k is timed too, and a
# pattern that grows already super-linearly from 5k to 10k fails without the 100k run.
PROBE_ABOVE_S = 0.1
# What ten times the input costs a linear pattern.
LINEAR = 10
# The linear scan that tells what the machine makes of a longer text (``control_ratio``).
CONTROL = re.compile(r"\w+|\W+")
# Tries of a near miss (a ratio over the limit but within twice it).
TRIES = 5
DETECTOR = "RuleDetector (all recognizers)"

# A shape is a piece to repeat, or (cue, piece, end): the cue, the piece repeated, the end.
Shape = str | tuple[str, str, str]


def after(cue: str, run: str = " ", end: str = "x") -> tuple[str, str, str]:
    """``cue`` followed by a long ``run`` of one piece, then ``end``."""
    return (cue, run, end)


# Shapes every pattern meets: separators, digits with separators, words in each case, titles.
SHAPES = ("a-", "a:", "- ", ". ", "/", "1/1/", "12 12 ", "a.a.", "Aa Aa ", "-", "@", "(", " ", "\n", "Dr. ")

# What each recognizer's own patterns repeat (their cues, separators and value shapes), by the
# language whose patterns repeat it; "*": shapes for the patterns of every language, timed once.
RECOGNIZER_SHAPES: dict[str, dict[str, tuple[Shape, ...]]] = {
    "labelled_id": {
        "*": ("NHC 1 ", "IPP: 1-", "1 - ", "n° ", after("MRN"), after("NHC :", "\t"), after("Nº")),
    },
    "nir": {"*": ("1 ", "1.", "2A")},
    "dni": {"*": ("1-", "X-", "1A")},
    "uk_health_number": {"en": ("123 ", "1 ", "NHS 1", "CHI No ", after("NHS"), after("CHI:"),
                                after("CHI No"))},
    "phone_extension": {"*": ("ext ", "bleep 1-", "pgr 12", after("ext."), after("pager", " ", "1"))},
    "iban": {"*": ("FR76", "A1B2 ", "A")},
    "email": {"*": ("a%", "%", "a@", "a@a.", "-a", "email:", after("a@", "a.", ""))},
    "url": {"*": ("http://", "www.a-", "www.a.", after("http://", ".", ""))},
    "ip": {"*": ("1.", "1:", "::")},
    "phone": {
        "fr": ("0 1 ", "01 ", "+33 "),
        "es": ("6 ", "+34 ", "34-"),
        "en": ("1-", "(1) ", "+1 ", after("tel")),
    },
    "nir_unkeyed": {"fr": ("1 ", "1.", "1-")},
    "date": {
        "*": ("1-1-", "2020 - ", "et al. ", after("DOB")),
        "fr": ("1 mars ", after("le"), "du 1 au ", after("du 1"), "1/2 ", after("1/"), "lun 1 ",
               after("lun"), "1, ", "1 et ", after("1 et"), "1-", after("1 -")),
        "es": ("3 de ", after("3 de"), "el 1/1 ", "TARDE 1/1 ", "1 al ", after("1 al"), after("el"),
               "jue 1/1 ", after("jue"), "dic-2", "1, ", "1 y ", after("1 y")),
        "en": ("Feb 1 ", after("Feb 1"), "Feb 1 - ", after("Feb 1 to"), "resumed 1/1 ", after("resumed"),
               "Mon 1 ", after("Sat"), "Feb 1, ", "1 and ", after("Feb 1 and"), "1-", "1 to ",
               after("1 -"), after("1-2")),
    },
    "relative_date": {
        "fr": ("il y a ", after("il y a")),
        "es": ("hace ", after("hace")),
        "en": ("in the last ", after("in the last")),
    },
    "age": {
        "fr": ("1 ans ", "âgé de ", after("homme")),
        "es": ("edad: ", "a los ", after("mujer")),
        "en": ("1-year-", after("aged"), after("age:"), "age 1 years 1 ", "age at a ", after("age at a"),
               after("aged 1 years")),
    },
    "short_age": {
        "*": ("sister (", after("sister"), after("1/1/2000")),
        "fr": (after("mort à"), after("1 a")),
        "es": ("1 a. ", after("1 a")),
        "en": ("1y ", after("d. at"), after("AGE"), "(now 1", "(a, now 1 ", after("(now"), after("(a,"),
               "son (now 1 ", "(DOB a, now 1 ", after("(DOB"), after("(DOB a,")),
    },
    "sex": {
        "fr": ("sexe : ", after("homme")),
        "es": ("varón de ", after("sexo"), after("varón")),
        "en": ("male ", after("sex"), after("male")),
    },
    "weekday": {
        "fr": ("depuis lundi ", after("depuis lundi"), after("lundi"), "visite lundi ", after("visite")),
        "es": ("desde el lunes ", after("desde el lunes"), after("el pasado"), "el lunes a ",
               after("el lunes", " a")),
        "en": ("last Monday ", after("last Monday"), after("since Mon"), after("Monday"), "consult Mon ",
               after("consult"), "Sat ", after("Sat"), "GP Mon ", "f/u Mon ", after("f/u"), "Fri run ",
               after("Fri"), "Fri  ", "1/1 (Sun) ", "1/1 (", "1.1.1 ("),
    },
    "street": {"fr": ("12 rue ", "Rue ", "de ", "l'", "Rue de ", "A-", after("12 rue"), after("Rue"),
                      "12 rue Aa, bât. B ", "lieu-dit Aa ", after("lieu-dit"), "CS 12 ", after("CS 12")),
               "en": ("12 Aa Aa St ", "Aa Rd ", "12 Aa Pl Apt 1 ", after("12 Aa"), "Aa, Aa ", "\nAa, ",
                      "Aa Aa County ", after("Aa", " ", "AB1 1AB"))},
    "hospital": {
        "fr": ("CHU ", "CHU DE ", "L'", "AA ", "AA-", after("CHU"), "Hôpital aaique et ", "Clinique Aa de ",
               "Centre Aa-", "EHPAD Les Aa, ", after("Hôpital"), after("EHPAD Aa", " ", ",")),
        "es": ("HOSPITAL UNIVERSITARIO ", after("HOSPITAL"), "Residencia Aa de ", after("Residencia")),
        "en": ("Hospital ", after("Hospital")),
    },
    "hospital_name": {"en": ("Aa ", "Aa SNF ", after("Aa Skilled"),
                             "Aa Hospital ", "St. ", "A-", "Aa & ", "Aa and ", "NHS Aaaa ",
                             after("Aa"), after("Aa Aa Aa"), "St Aa's ", "AA AA CARE - AA ", "Aa Center ",
                             after("AA CARE -"))},
    "facility": {"en": ("Johns ", "Saint ", "St. ", "Royal ", "Queen Elizabeth ", "at Grady ",
                        "Aa Hospital (AH) ", "JHH ", "Grady Memorial Hospital ", after("at"),
                        after("Johns", " ", "Hopkins"), "Aa Hospital (Aa) ", after("Aa Hospital ("))},
    "hospital_acronym": {
        "fr": ("CHIC ", after("transféré au")),
        "es": ("HUVR ", after("trasladado al")),
        "en": ("BRMC ", after("transferred to the"), "AB no ", after("AB no"), "Ward a, ", after("Ward"),
               "AB ED ", after("AB"), after("d/c from"), "ED at ", after("A&E at")),
    },
    "accession": {"*": ("S24-", "S24-1", "A1-", after("S24-"))},
    "serial_or_lot": {"*": ("SN ", "lot 1", "SN 1-", after("SN"), after("serial no."),
                            after("plate", " ", "1"))},
    "care_structure": {
        "fr": ("MSP Aa ", "MSP de ", "Aa-", after("MSP"), after("HOSPICES CIVILS DE")),
        "es": ("CS Aa ", "CS de la ", after("CS")),
    },
    "sign_off_initials": {"*": ("a\nAB\n", "AB\n", "\n", after("a\nAB"), after("a\nAB ", " ", "x"))},
    "staff_by_role": {
        "*": ("Aa (", "Aa (RN) ", "RN (Aa) ", after("Sitter ("), after("Aa")),
        "fr": ("AS Aa ", "AS : ", after("AS"), "Aa IDE ", "Aa IDE nuit ", "Aa IDE nuit\n", after("Aa IDE")),
        "es": ("TCAE Aa ", after("TCAE"), "Aa TCAE tarde ", "Aa TCAE tarde\n", after("Aa TCAE"),
               "Aa - enfermera - noche\n", "Aa enfermera ", after("Aa - enfermera -")),
    },
    "postcode": {
        "fr": ("75013 Aa ", "Aa-", after("CP"), after("75013")),
        "es": ("28034 Aa ", after("código postal")),
        "en": ("MA 12345 ", "A1 1AA ", after("zip")),
    },
    "profession": {
        "fr": ("ex-", "ancienne a-", after("ancien"), "A ancienne ", "HTA ancien ", after("retraité ("),
               "(40 ans, ", "est une ",
               "travaille a ", after("travaille"), after("40 ans ,"), "cariste chez Aa ",
               after("cariste chez")),
        "es": ("ex-", after("trabaja como"), "fue un ", "(40 años, ", after("40 años ,"), "albañil en Aa ",
               after("albañil en")),
        "en": ("former a-", after("retired"), after("works as a"), "40 yo F, ", after("40 yo"), "is a ",
               after("is"), "(40, ", "teacher at Aa ", after("teacher at"), "Aa teacher ", "(teacher ",
               after("works"), after("works part-time")),
    },
    "town": {"fr": ("75013 Aa ", "Aa-", "Aa, le 1 ", "Dr Aa, Aa ", after("Dr"), after("Aa", " ", ", le"),
                    after("75013"), "Aa de la ")},
    "organisation": {
        "fr": ("Mairie de Aa-", "Pompes Funèbres Aa ", after("Mairie de"), after("UDAF", " ", "de")),
        "es": ("Ajuntament de Aa ", "Funeraria Aa de ", after("Concello de"), after("Funeraria")),
        "en": ("Aa Ltd ", "Aa Aa Pharmacy ", "of Pharmacy ", after("Aa", " ", "Ltd"), "Age UK ",
               "works at Aa ", "works as a a at Aa ", after("works as a"), after("works at")),
    },
    "nickname": {
        "en": ('goes by "', "Aa, as he ", after("goes by"), after("known as"), '("Aa") ', after('("'),
               "Aa Aa ", after("Aa", " ", "as he signs")),
        "fr": ("dit Aa ", after("surnommée"), "Aa Aa "),
        "es": ("alias Aa ", after("conocido como"), "Aa Aa "),
    },
    "kin_name": {"fr": ("fille (", "fille aînée ", "(fille, Aa ", after("fille"), after("fille (Aa")),
                 "es": ("hija (", "hija, ", "(hija, Aa ", after("hija,"), after("hija (Aa"), "hija a (1 "),
                 "en": ("son a ", "son aa (1", "son a b (1) ", after("son a"), after("son aa", " ", "("))},
    "given_name": {"*": ("Élodie ", "Marie-", after("Élodie"))},
    "signature_initials": {
        "*": ("AB/cd ", "Ref ", "\nAB/cd", after("Ref"), after("typed by"), after("\nAB/cd"), "PA (AB) ",
              "IDE : AB ", after("IDE :"), "| INIT\n| ab  ", "1 | ", "INIT  Sig\n", "ab  ",
              "lun 1/1 1h00 — ab\n", "1/1 - ", "1/1 ", "lun "),
        "en": ("typed 1/1/24  AB/ml ", "typed ", after("typed 1/1/24  AB/ml")),
    },
    "us_ids": {"en": ("MBI-", "medicare-", "Medicare ID ", "A1-", after("Medicare ID"), after("MBI"))},
    "us_phone": {"en": ("1-", "(1) ", "+1 ")},
    "us_date": {"en": ("on 1/1 ", "- 1/1 ", "'1", "1-Mar-", "dictated 1/1 ", after("on"), after("-- 1/1"))},
    "titled_name": {"en": ("dr a ", "MR. AA ", "Aa-", "Dr Aa-", after("Dr."))},
    "us_places": {"en": ("A-", "-A", "St. ", "Aa, ", "Ward 1 ", "Aa-", after("Ward"), "Aa, ID ", "Aa, ID 1 ",
                         after("Aa, ID"), after("Aa, ID", " ", "1"))},
    "en_names": {
        "en": ("A-", "-a", "Aa-", "Pt Aa ", "name: ", "son Aa ", "Aa (", "- Aa ", "\na ", after("name:"),
               after("Pt"), after("-"), after("\na")),
    },
}


def repeated(shape: Shape, length: int) -> str:
    """``length`` characters of ``shape``."""
    cue, piece, end = ("", shape, "") if isinstance(shape, str) else shape
    n = length - len(cue) - len(end)
    return cue + (piece * (n // len(piece) + 1))[:n] + end


class _Timed:
    """A recognizer that adds up the time its ``find`` takes."""

    def __init__(self, inner: Recognizer) -> None:
        self.inner = inner
        self.name = inner.name
        self.elapsed = 0.0

    def find(self, text: str, language: str) -> list[Span]:
        start = time.thread_time()
        try:
            return self.inner.find(text, language)
        finally:
            self.elapsed += time.thread_time() - start


Run = Callable[[str], dict[str, float]]


def detector_run(language: str) -> Run:
    """One run of the whole detector: its time and each recognizer's within it."""
    timed = [_Timed(r) for r in build_recognizers()]
    detector = RuleDetector(recognizers=timed)

    def run(text: str) -> dict[str, float]:
        for r in timed:
            r.elapsed = 0.0
        start = time.thread_time()
        detector.find(text, language)
        times = {DETECTOR: time.thread_time() - start}
        times.update({r.name: r.elapsed for r in timed})
        return times

    return run


def recognizer_run(name: str, language: str) -> Run:
    (recognizer,) = build_recognizers([name])

    def run(text: str) -> dict[str, float]:
        start = time.thread_time()
        recognizer.find(text, language)
        return {name: time.thread_time() - start}

    return run


def best(run: Run, text: str, tries: int) -> dict[str, float]:
    """Per name, the least time over ``tries`` runs (garbage collection off while timing)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        runs = [run(text) for _ in range(tries)]
    finally:
        if was_enabled:
            gc.enable()
    return {name: min(r[name] for r in runs) for name in runs[0]}


def _exponent(before: float, after: float) -> float:
    """How the time grew over a doubling of the input (1: linearly, 2: quadratically)."""
    return math.log2(max(after, FLOOR_S) / max(before, FLOOR_S))


def _steep(before: float, after: float) -> bool:
    return _exponent(before, after) > 1.4


def super_linear(run: Run, shape: Shape) -> list[str]:
    """What grows more than ``MAX_RATIO`` times from 10k to 100k characters of ``shape``.

    Each try times 10k (best of three) then 100k (best of two), in thread CPU time (a thread that
    another test left running costs this one nothing). A name's ratio is its least time at 100k
    over its least time at 10k, over the tries so far: the least time of each size is the run that
    other work disturbed least, so a disturbed 100k run is outweighed by any undisturbed one, and a
    disturbed 10k run (which would lower the ratio of its own try) cannot hide a quadratic pattern.
    A near miss (within twice the limit) is timed again, up to ``TRIES`` tries: other work on the
    machine slows a try, not a quadratic pattern."""
    small_text, large_text = repeated(shape, SMALL), repeated(shape, LARGE)
    first = best(run, small_text, tries=1)
    if max(first.values()) > PROBE_ABOVE_S:
        # A slow start: a quadratic pattern would hold the test for minutes at 100k. Take the
        # growth exponent from 5k to 10k and stop here if 100k would be over twice the limit; a
        # steep probe is timed again, best of three at each size, before it condemns (one
        # disturbed 10k run on a loaded machine read "exponent 2.4" for a linear pattern)
        half_text = repeated(shape, SMALL // 2)
        failed: list[str] = []
        for tries in (1, 3):
            half = best(run, half_text, tries=tries)
            if tries > 1:
                first = best(run, small_text, tries=tries)
            failed = []
            if max(first.values()) <= PROBE_ABOVE_S:
                break  # timed again, the start is not slow (one disturbed run was): measure in full
            steep = [name for name, t in first.items()
                     if _steep(half[name], t) and t * (LARGE / SMALL) ** _exponent(half[name], t)
                     > 2 * MAX_RATIO * max(t, FLOOR_S)]
            if steep:
                # a steep start is confirmed on twice the length (20k, affordable even for a
                # quadratic pattern): the step from 5k to 10k alone read "exponent 1.57" for the
                # whole detector on "Dr. " in a full-suite run, a shape it reads linearly
                double = best(run, repeated(shape, 2 * SMALL), tries=tries)
                steep = [name for name in steep if _steep(first[name], double[name])]
            failed = [f"{name}: {half[name] * 1000:.1f} ms at 5k, {first[name] * 1000:.1f} ms at 10k, "
                      f"growth exponent {_exponent(half[name], first[name]):.2f}; stopped there"
                      for name in steep]
            if not failed:
                break
        if failed:
            return failed
    small: dict[str, float] = {}  # name: least time at 10k so far
    large: dict[str, float] = {}  # name: least time at 100k so far
    for _ in range(TRIES):
        for least, text, tries in ((small, small_text, 3), (large, large_text, 2)):
            for name, t in best(run, text, tries).items():
                least[name] = min(t, least.get(name, t))
        worst = max(large[name] / max(small[name], FLOOR_S) for name in large)
        if worst <= MAX_RATIO or worst > 2 * MAX_RATIO:
            break
    ratios = {name: large[name] / max(small[name], FLOOR_S) for name in large}
    near = [name for name, ratio in ratios.items() if MAX_RATIO < ratio <= 2 * MAX_RATIO]
    if near:
        # A near miss that held over every try is measured once more on texts twice as long (20k
        # and 200k, best of three each): a super-linear pattern grows by more than the limit there
        # too, while one process's disturbed timings (seen on a loaded box: x15.6-20.7 for a
        # pattern that reads x10 in the next process) do not follow the input to another size
        again_small = best(run, repeated(shape, 2 * SMALL), tries=3)
        again_large = best(run, repeated(shape, 2 * LARGE), tries=3)
        # What the machine makes of a linear cost on these texts now (caches shared with a
        # neighbour's load make any scan of 100k cost more than ten times one of 10k): a near miss
        # is read against it, never by more than half again (a quadratic pattern's x100 stays far
        # over the limit). Two CI runs read x16.0 for patterns at x8.8-10.0 alone, every try.
        machine = max(1.0, min(control_ratio(small_text, large_text), MAX_RATIO / LINEAR))
        for name in near:
            again = again_large[name] / max(again_small[name], FLOOR_S)
            ratios[name] = min(ratios[name], again) / machine
    return [f"{name}: {small[name] * 1000:.1f} ms at 10k, {large[name] * 1000:.1f} ms at 100k (×{ratio:.1f})"
            for name, ratio in ratios.items() if ratio > MAX_RATIO]


def control_ratio(small_text: str, large_text: str) -> float:
    """How many times a linear scan (one regex over every character) costs on ``large_text`` what it
    costs on ``small_text``, as a multiple of the lengths' ratio: 1.0 on a quiet machine."""
    def scan(text: str) -> dict[str, float]:
        start = time.thread_time()
        CONTROL.findall(text)
        return {"control": time.thread_time() - start}
    small, large = best(scan, small_text, 3)["control"], best(scan, large_text, 3)["control"]
    return (large / max(small, FLOOR_S / 10)) / (len(large_text) / len(small_text))


def language_of(name: str) -> str:
    """The language to time the "*" shapes of ``name`` in: any runs the patterns under ``ANY``,
    and one with patterns of its own runs those too."""
    (recognizer,) = build_recognizers([name])
    patterns = getattr(recognizer, "patterns", {})
    return next((lang for lang in LANGUAGES if lang in patterns), LANGUAGES[0])


def test_every_recognizer_has_shapes_of_its_own() -> None:
    missing = set(registered()) - set(RECOGNIZER_SHAPES)
    assert not missing, f"add what the patterns of {sorted(missing)} repeat to RECOGNIZER_SHAPES"
    assert set(RECOGNIZER_SHAPES) <= set(registered())
    assert all(set(shapes) <= {"*", *LANGUAGES} for shapes in RECOGNIZER_SHAPES.values())


@pytest.mark.parametrize("shape", SHAPES, ids=repr)
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_rule_detector_is_linear(language: str, shape: str) -> None:
    failed = super_linear(detector_run(language), shape)
    # A recognizer's share of the detector's time is also timed amid every other recognizer's
    # spans (memory the caches no longer hold at 100k): one over the limit there is timed alone on
    # the same text before it condemns; the detector's own total is never excused.
    failed = [f for f in failed if f.startswith(f"{DETECTOR}:")
              or super_linear(recognizer_run(f.split(":", 1)[0], language), shape)]
    assert not failed, f"{language}, {shape!r} repeated: " + "; ".join(failed)


@pytest.mark.parametrize(
    ("name", "language", "shape"),
    [
        (name, language_of(name) if key == "*" else key, shape)
        for name, by_language in sorted(RECOGNIZER_SHAPES.items())
        for key, shapes in by_language.items()
        for shape in shapes
    ],
    ids=lambda v: v if isinstance(v, str) and v.isidentifier() else repr(v),
)
def test_each_recognizer_is_linear_on_what_its_patterns_repeat(name: str, language: str,
                                                                shape: Shape) -> None:
    failed = super_linear(recognizer_run(name, language), shape)
    assert not failed, f"{language}, {shape!r} repeated: " + "; ".join(failed)


# What the bounded and possessive rewrites still find (issue 33): the longest real words under
# the bounds (a 42-character hyphenated surname, a 64-character e-mail local part) and blanks of
# any length between a label and its value. Each was found the same way before the rewrite.
@pytest.mark.parametrize(("name", "language", "text", "expected"), [
    ("en_names", "en", "Discharge Summary - Lawson, Dominique (MRN 8948213)", ["Lawson, Dominique"]),
    ("en_names", "en", "Admission note - Wolfeschlegelsteinhausenbergerdorff (DOB 3/4/1950)",
     ["Wolfeschlegelsteinhausenbergerdorff"]),
    ("en_names", "en", "Transfer: Hubert Blaine-Wolfeschlegelsteinhausenbergerdorff (MRN 11)",
     ["Hubert Blaine-Wolfeschlegelsteinhausenbergerdorff"]),
    ("us_places", "en", "Seen at Wilkes-Barre General Hospital and St. Mary's Hospital.",
     ["Wilkes-Barre General Hospital", "St. Mary's Hospital"]),
    ("us_places", "en", "Transferred from Saint-Jean-de-Luz Regional Hospital yesterday.",
     ["Saint-Jean-de-Luz Regional Hospital"]),
    ("us_ids", "en", "Medicare ID 1EG4-TE5-MK73; BCBS member ID:   XYZ123456789.",
     ["1EG4-TE5-MK73", "XYZ123456789"]),
    ("us_ids", "en", "Medicare ID:\t 1EG4-TE5-MK73, Policy #  ABCDEFGHIJKLMNOPQRSTUVWXYZ-ABC12345",
     ["1EG4-TE5-MK73", "ABCDEFGHIJKLMNOPQRSTUVWXYZ-ABC12345"]),
    ("us_date", "en", "Cr peaked at 1.9 on   8/18, seen since: 9/2.", ["8/18", "9/2"]),
    ("age", "en", "aged   40, age:  72", ["40", "72"]),
    ("postcode", "en", "zip:   02115, zip code 02115-1234", ["02115", "02115-1234"]),
    ("postcode", "es", "código postal:  28034 Madrid; C.P. 28034", ["28034", "28034"]),
    ("postcode", "fr", "code postal :  75013 Paris, CP75002", ["75013", "75002"]),
    ("email", "en", "Contact: first.last+tag%relay@example.com or x@y.org",
     ["first.last+tag%relay@example.com", "x@y.org"]),
    ("email", "en", f"Email {'0123456789' * 6}0123@example.com", [f"{'0123456789' * 6}0123@example.com"]),
    ("labelled_id", "fr", "MRN :   8012939402, NHC:\t1234567, Nº  Col 28/12345, IPP est 12345678",
     ["8012939402", "1234567", "28/12345", "12345678"]),
    ("labelled_id", "es", "Nº Col. 282812345", ["282812345"]),
    ("signature_initials", "en", "Our ref:  HK/mlg\nRef - JKL/mno\nTranscribed by :  dkw\n",
     ["HK", "mlg", "JKL", "mno", "dkw"]),
    ("signature_initials", "en", "RBL/mpg  12/03/2024\nAB/cd\nXY/zz - typed\n",
     ["RBL", "mpg", "AB", "cd", "XY", "zz"]),
    ("weekday", "en", "started last Monday, since Monday the 3rd, on Fri 12, until Wed.", ["Monday", "Wed"]),
    ("weekday", "fr", "depuis lundi 12, depuis lundi, jusqu'au mardi soir", ["lundi", "mardi"]),
    ("weekday", "es", "desde el lunes 3, desde el lunes, hasta el martes", ["lunes", "martes"]),
])  # fmt: skip
def test_the_linear_patterns_find_what_they_found(name: str, language: str, text: str,
                                                  expected: list[str]) -> None:  # fmt: skip
    assert [text[s.start : s.end] for s in RuleDetector([name]).find(text, language)] == expected


# The check itself, on made-up timings (a deliberately quadratic "pattern" must fail it, a linear
# one whose 5k run was disturbed must pass it)
def _timed(cost: Callable[[int], float]) -> Run:
    return lambda text: {"made-up": cost(len(text))}


@pytest.mark.parametrize("per_10k", [0.2, 0.01])  # a slow start (the probe's path) and a fast one
def test_the_check_condemns_a_quadratic_pattern(per_10k: float) -> None:
    failed = super_linear(_timed(lambda n: per_10k * (n / SMALL) ** 2), "a-")
    assert failed and failed[0].startswith("made-up:")


def test_the_check_passes_a_linear_pattern_whose_short_run_was_disturbed() -> None:
    def cost(n: int) -> float:
        return 0.04 if n < SMALL else 0.15 * n / SMALL  # 5k read too fast: "exponent 1.9" from 5k to 10k

    assert super_linear(_timed(cost), "a-") == []


def test_the_check_condemns_a_pattern_growing_as_n_to_the_1_4_whatever_the_machine_reads() -> None:
    # x25 over ten times the input: a near miss, read against the machine's linear scan, which may
    # excuse half again at most (25 / 1.5 = 16.7 > 15), so it fails on a quiet machine and a busy one
    failed = super_linear(_timed(lambda n: 0.001 * (n / SMALL) ** 1.4), "a-")
    assert failed and failed[0].startswith("made-up:")
