"""The locale of a note that does not name one, read from its text (issue 29).

French and Spanish notes have one supported locale each (fr-FR, es-ES); an English note is en-US
or en-GB, and the two differ in what substitution does with it: the order numeric dates are read
and written in, and the country surrogate places are drawn from. A UK letter read as en-US gets
its 05/11/2024 read as 11 May and its towns moved to the United States.

``read_english_locale`` weighs conventions that hold in English clinical writing generally, never
the words of any corpus note: numeric dates that can only be day first (13-31 before a month) or
only month first; UK postcodes against US ZIP codes after a state; NHS numbers (3-3-4 digits with
their mod-11 check digit) against SSN-shaped numbers; UK against US telephone formats; British
against American spellings and drug names; the units of laboratory values; the vocabulary of
each health system; titles with or without a full stop. Each clue counts with diminishing returns
(a hundred dates are not a hundred times one), and the text decides only when one side leads by
``MARGIN``: otherwise the reading is ``None`` and the configured default stands.

Pure: no I/O, no logging. A clue's ``name`` is a kind of evidence ("NHS number"), never a value
of the note, so it may be shown to a user or logged.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from deid.events import RawNote
from deid.settings import Settings

Locale = Literal["fr-FR", "es-ES", "en-US", "en-GB"]
LOCALES: tuple[Locale, ...] = ("fr-FR", "es-ES", "en-US", "en-GB")
# The locale of a language when neither the event, nor the feed's settings, nor the text say.
DEFAULT_LOCALES: dict[str, Locale] = {"fr": "fr-FR", "es": "es-ES", "en": "en-US"}

GB: Locale = "en-GB"
US: Locale = "en-US"

# Points by which one side must lead for the text to decide: one strong clue (a day-first date,
# a postcode, an NHS number: 3 points) decides alone; two weak ones (a spelling and a title
# style) do not.
MARGIN = 2.5
# Characters read: a note's conventions show in its first pages; bounds the work on a huge note.
MAX_CHARS = 100_000


@dataclass(frozen=True)
class Clue:
    """One kind of evidence found in a text: ``count`` occurrences worth ``weight`` each, with
    diminishing returns."""

    name: str  # a kind of evidence ("day-first dates"), never a value of the note
    locale: Locale
    weight: float
    count: int

    @property
    def points(self) -> float:
        return self.weight * (1.0 + math.log2(self.count))


@dataclass(frozen=True)
class LocaleReading:
    """What the text of an English note says about its locale."""

    locale: Locale | None  # None: too little evidence, or evidence both ways
    gb: float  # points for en-GB
    us: float  # points for en-US
    clues: tuple[Clue, ...]

    @property
    def margin(self) -> float:
        """Points of en-GB over en-US (negative: the text leans US)."""
        return self.gb - self.us

    def reasons(self, limit: int = 3) -> list[str]:
        """The names of the clues for the decided locale, strongest first (empty when undecided)."""
        won = sorted((c for c in self.clues if c.locale == self.locale), key=lambda c: (-c.weight, -c.points))
        return [c.name for c in won[:limit]]


# ----------------------------------------------------------------------------- numeric dates

# d/m/y or m/d/y with the same separator twice and a year; a yearless "15/10" is a score or a
# ratio as often as a date and says nothing here.
_NUMERIC_DATE = re.compile(r"(?<![\w/.-])(\d{1,2})([/.-])(\d{1,2})\2(\d{4}|\d{2})(?![\w/-]|\.\d)")


def _numeric_dates(text: str) -> tuple[int, int]:
    """(day-first only, month-first only) numeric dates of ``text``: 13-31 before a month number
    can only be a day, and 13-31 after one only a day too."""
    day_first = month_first = 0
    for m in _NUMERIC_DATE.finditer(text):
        a, b = int(m.group(1)), int(m.group(3))
        if 13 <= a <= 31 and 1 <= b <= 12:
            day_first += 1
        elif 13 <= b <= 31 and 1 <= a <= 12:
            month_first += 1
    return day_first, month_first


_MONTH = (r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
          r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)")
# "12 March 2024", "3rd Jan 2023": the British order; "March 12, 2024": the American one (the
# comma before the year is what the US style guides prescribe and British ones do not).
_DAY_MONTH_YEAR = re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}\.?,?\s+\d{{4}}\b")
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,\s*\d{{4}}\b")

# ------------------------------------------------------------------------ numbers and codes

# The UK postcode format (GOV.UK Bulk Data Transfer: additional validation, the "official"
# pattern), upper case as it is written on letters; the space is optional there, required here
# for the shorter shapes that a lab code or a drug strength could take.
_UK_POSTCODE = re.compile(
    r"\b(?:GIR ?0AA|(?:[A-PR-UWYZ](?:\d{1,2}|[A-HK-Y]\d{1,2}|\d[A-HJKPSTUW]|[A-HK-Y]\d[ABEHMNPRV-Y]))"
    r" [0-9][ABD-HJLNP-UW-Z]{2})\b")
_US_STATES = (
    "AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|"
    "NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|PR")
# A ZIP code after a state's postal abbreviation ("Austin, TX 78701", "IL 62704-1234").
_US_ZIP = re.compile(r"\b([A-Z]{2}),?\s+\d{5}(?:-\d{4})?\b")
_STATE_CODES = frozenset(_US_STATES.split("|"))


def _us_zip_codes(text: str) -> int:
    return sum(1 for m in _US_ZIP.finditer(text) if m.group(1) in _STATE_CODES)

# Ten digits in the NHS's 3-3-4 grouping; a number counts only with its mod-11 check digit, and
# only written with spaces or after the word NHS (a US telephone number is 3-3-4 with hyphens).
_TEN_DIGITS = re.compile(r"(?<![\w-])(\d{3})([ -]?)(\d{3})\2(\d{4})(?![\w-])")
_NHS_WORD = re.compile(r"\bNHS\b[^\n\d]{0,25}$")


def nhs_check_digit_ok(digits: str) -> bool:
    """The NHS number's modulus 11 check: weights 10..2 on the first nine digits; the check
    digit is 11 minus the remainder (11 -> 0; 10 means the number is invalid)."""
    if len(digits) != 10 or not digits.isdigit():
        return False
    total = sum(int(d) * w for d, w in zip(digits[:9], range(10, 1, -1), strict=True))
    check = 11 - total % 11
    if check == 11:
        check = 0
    return check != 10 and check == int(digits[9])


def _ten_digit_numbers(text: str) -> tuple[int, int]:
    """(NHS numbers, US-style 3-3-4 telephone numbers) of ``text``."""
    nhs = us_phone = 0
    for m in _TEN_DIGITS.finditer(text):
        digits = m.group(1) + m.group(3) + m.group(4)
        after_nhs = _NHS_WORD.search(text, max(0, m.start() - 30), m.start()) is not None
        if nhs_check_digit_ok(digits) and (after_nhs or m.group(2) == " "):
            nhs += 1
        elif m.group(2) == "-" and not after_nhs and digits[0] not in "01":
            us_phone += 1  # a NANP area code never starts with 0 or 1
    return nhs, us_phone


_US_PHONE_PARENS = re.compile(r"\([2-9]\d{2}\)\s?\d{3}[-.\s]\d{4}\b")
_US_PHONE_DOTS = re.compile(r"(?<![\w.])[2-9]\d{2}\.\d{3}\.\d{4}(?![\w.])")
_US_PHONE_PLUS1 = re.compile(r"\+1[\s-]?\(?\d{3}\)?[\s.-]?\d{3}[\s.-]?\d{4}\b")
_UK_PHONE_PLUS44 = re.compile(r"\+44\s?\(?0?\)?\s?\d{2,4}\s?\d{3,4}\s?\d{3,4}\b")
# A national UK number: 0 then the area code or mobile prefix, in spaced groups, 10-11 digits
# ("020 7946 0123", "0113 496 0000", "07700 900123", "01632 960123").
_UK_PHONE_NATIONAL = re.compile(r"(?<![\w+-])0[1-9]\d{1,3}(?: \d{6}| \d{3,4}(?: \d{3,4})?)(?![\w-])")
_SSN = re.compile(r"(?<![\w-])(?!000|666|9)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\w-])")


def _uk_national_phones(text: str) -> int:
    return sum(1 for m in _UK_PHONE_NATIONAL.finditer(text)
               if 10 <= sum(ch.isdigit() for ch in m.group()) <= 11)


# ------------------------------------------------------------------------------- words

# British and American spellings of medical and everyday words (the ae/oe of Greek roots, -our,
# -re, -ise, -ogue), matched on whole words, so that "colorectal" and "organism", written alike on
# both sides, say nothing. The Greek roots are British wherever they occur in a word.
_BRITISH_ROOTS = re.compile(r"haem|anaem|anaes|paed|oesoph|oedem|oestr|diarrhoe|ischaem|leukaem|gynaec"
                            r"|foet|orthopaed|coeliac|dyspnoe|apnoe")
_ISE = ("organ|recogn|real|stabil|mobil|hospital|immun|catheter|character|minim|optim|priorit|summar"
        "|random|special|steril|normal|visual|util|emphas|apolog|anaesthet|categor|standard")
_BRITISH_WORD = re.compile(
    r"colour(?:s|ed|ing|less)?|behaviour(?:s|al)?|tumours?|labour|favourabl[ey]|odour(?:s|less)?"
    r"|centre[sd]?|(?:milli)?litres?|fibre|programmes?|catalogue|dialogue|sulphate|titres?"
    rf"|manoeuvres?|analys(?:e|ed|ing)|(?:{_ISE})is(?:e|ed|es|ing|ation|ations)")
_AMERICAN_WORD = re.compile(
    r"hemoglobin|hematolog\w*|hematomas?|hematuria|hematocrit|hemorrhag\w*|hemodynamic\w*"
    r"|hemoly\w*|hemoptysis|hemodialysis|anemi[ac]s?|anesthe\w*|pediatric\w*|esophag\w*|edema\w*"
    r"|estrogen\w*|diarrhea\w*|ischemi[ac]|leukemi[ac]|gynecolog\w*|fet(?:al|us)|orthopedic\w*"
    r"|celiac|dyspnea|apnea|color(?:s|ed|ing|less)?|behavior(?:s|al)?|tumors?|labor|favorabl[ey]"
    r"|odor(?:s|less)?|centers?|(?:milli)?liters?|fiber|titers?|maneuvers?|analyz(?:e|ed|ing)"
    rf"|(?:{_ISE})iz(?:e|ed|es|ing|ation|ations)")

# A word ("haemoglobin", "FY1"), and a compound of words ("co-amoxiclav", "A&E", "OB/GYN").
_WORD = re.compile(r"[^\W_]+")
_COMPOUND = re.compile(r"\b[^\W_]++(?:[-&/][^\W_]++)+")


@dataclass(frozen=True)
class _Lexicon:
    """Entries of one kind of evidence: single words and compounds looked up among the text's
    words, acronyms and mixed-case names as written ("GP" is not "gp"), other words in any case;
    phrases of several words matched in the text (``_PHRASES``)."""

    cased: frozenset[str]
    folded: frozenset[str]
    phrases: tuple[str, ...]

    @classmethod
    def of(cls, *entries: str) -> _Lexicon:
        single = [e for e in entries if " " not in e]
        return cls(frozenset(e for e in single if e != e.lower() and e != e.capitalize()),
                   frozenset(e.lower() for e in single if e == e.lower() or e == e.capitalize()),
                   tuple(e for e in entries if " " in e))


# Drug names the two pharmacopoeias spell differently (British Approved Names against USANs),
# and brands sold under one name only.
_UK_DRUGS = _Lexicon.of("paracetamol", "adrenaline", "noradrenaline", "salbutamol", "co-amoxiclav",
                        "co-codamol", "co-trimoxazole", "glyceryl trinitrate", "frusemide", "lignocaine",
                        "pethidine", "bendroflumethiazide", "Oramorph", "Gaviscon", "Movicol", "Calpol")
_US_DRUGS = _Lexicon.of("acetaminophen", "Tylenol", "epinephrine", "norepinephrine", "albuterol",
                        "nitroglycerin", "meperidine", "Motrin", "Advil", "Percocet", "Vicodin", "Norco",
                        "Coumadin", "Bactrim", "Dilaudid", "MiraLAX", "Zyrtec", "Benadryl")
# The vocabulary of each health system.
_UK_SYSTEM = _Lexicon.of(
    "NHS", "A&E", "GP", "GPs", "CCG", "ICB", "TTO", "TTA", "SHO", "FY1", "FY2", "NICE", "BNF", "DVLA",
    "CQC", "MHRA", "SpR", "StR", "NMC", "DNACPR", "NEWS2", "ReSPECT form", "NEWS score", "crash call",
    "outreach team", "hospital number", "NHS Trust", "registrar", "A and E", "casualty department",
    "ward round", "theatre", "theatres", "mum", "mummy", "postcode", "practice nurse", "health visitor",
    "district nurse", "district nurses", "staff nurse", "fortnight", "Royal Infirmary",
    "general practitioner", "GP practice", "National Insurance")
# Weaker: words the UK uses for its hospital posts and places more than the US does.
_UK_HOSPITAL = _Lexicon.of("consultant", "ward", "clinic letter")
_US_SYSTEM = _Lexicon.of(
    "PCP", "HMO", "PPO", "SSN", "NPI", "DEA", "EMS", "OB/GYN", "ZIP", "PGY-1", "PGY-2", "PGY-3",
    "PGY-4", "APRN", "PA-C", "POLST", "MOLST", "DNR/DNI", "Medicare", "Medicaid", "copay", "co-pay",
    "ob-gyn", "residency", "hospitalist", "nocturnist", "mom", "mommy", "zip code", "social security",
    "emergency room", "primary care physician", "primary care provider", "cell phone",
    "skilled nursing facility", "Veterans Affairs", "attending physician", "attending surgeon",
    "full code", "code status", "rapid response")
# UK credentials after a doctor's or nurse's name.
_UK_CREDENTIALS = _Lexicon.of("MBBS", "MBChB", "MRCP", "FRCP", "FRCS", "MRCS", "MRCGP", "FRCR", "FRCA",
                              "FRCPath", "FRCOG", "MRCOG", "MRCPsych", "MRCPCH", "FRCEM", "RGN", "RMN",
                              "MB ChB", "BM BCh")
_LEXICONS = {"uk_drugs": _UK_DRUGS, "us_drugs": _US_DRUGS, "uk_system": _UK_SYSTEM,
             "uk_hospital": _UK_HOSPITAL, "us_system": _US_SYSTEM, "uk_credentials": _UK_CREDENTIALS}
# Every phrase of every lexicon, as the sequence of its folded words -> its lexicon's name.
_PHRASES: dict[tuple[str, ...], str] = {
    tuple(_WORD.findall(p.lower())): name for name, lex in _LEXICONS.items() for p in lex.phrases}
_PHRASE_LENGTHS = sorted({len(k) for k in _PHRASES})

# Units: the UK reports in SI (creatinine in umol/L, HbA1c in mmol/mol) and weighs in stones; the
# US reports in mg/dL and mEq/L, weighs in pounds and takes temperatures in Fahrenheit.
_UK_UNITS = re.compile(r"(?:\b[uU]|µ|\b[mM]icro)mol/[lL]\b|\bmmol/mol\b|\b\d{1,2}\s?stone\b")
_US_UNITS = re.compile(r"\bmg/dL\b|\bmEq\b|\b\d+(?:\.\d+)?\s?(?:lbs?|pounds)\b"
                       r"|\b(?:9[5-9]|10[0-7])(?:\.\d)?\s?°?\s?F\b|\bFahrenheit\b", re.IGNORECASE)
# A body temperature written without its unit is in the writer's scale: 95-106 is Fahrenheit.
_FAHRENHEIT_TEMP = re.compile(r"\b(?:T|Temp|Tmax|Tm|temp|temperature)\s*:?\s*(?:9[5-9]|10[0-6])\.\d\b")
# Weaker: charting habits more American than British ("72 y/o", "900cc", "MRN", "M.D.").
_US_CHARTING = re.compile(r"\b\d{1,3}\s?y/o\b|\b\d+\s?cc\b|\bMRN\b|\bM\.D\.|\bD\.O\.")
# "ER" after a word that makes it a place ("to the ER"), never the oestrogen receptor ("ER 8/8").
_US_ER = re.compile(r"\b(?:the|to|in|from|an)\s+ER\b(?![+/-])|\b(?:the|our)\s+attending\b", re.IGNORECASE)
# The US "MD" after a name ("J. Smith, MD").
_US_CREDENTIAL = re.compile(r",\s*(?:MD|NP|FACP|FACS|FACC|FACEP)\b")

# "Mr Smith" without a full stop (British usage) against "Mr. Smith" (American).
_TITLE_BARE = re.compile(r"\b(?:Mr|Mrs|Ms|Dr)\s+[A-Z]")
_TITLE_DOTTED = re.compile(r"\b(?:Mr|Mrs|Ms|Dr)\.\s*[A-Z]")


class _Scan:
    """One text; each kind of evidence is counted once, when a clue first asks for it."""

    def __init__(self, text: str) -> None:
        self.text = text

    def count(self, pattern: re.Pattern[str]) -> int:
        return sum(1 for _ in pattern.finditer(self.text))

    @cached_property
    def dates(self) -> tuple[int, int]:
        return _numeric_dates(self.text)

    @cached_property
    def ten_digits(self) -> tuple[int, int]:
        return _ten_digit_numbers(self.text)

    @cached_property
    def words(self) -> Counter[str]:
        """Words and compounds, as written."""
        found = Counter(_WORD.findall(self.text))
        found.update(_COMPOUND.findall(self.text))
        return found

    @cached_property
    def folded(self) -> Counter[str]:
        out: Counter[str] = Counter()
        for w, n in self.words.items():
            out[w.lower()] += n
        return out

    @cached_property
    def phrases(self) -> Counter[str]:
        """Phrases found, by lexicon: runs of the text's words (in any case) that make one."""
        words = _WORD.findall(self.text.lower())
        found: Counter[str] = Counter()
        for n in _PHRASE_LENGTHS:
            for run in zip(*(words[i:] for i in range(n)), strict=False):
                name = _PHRASES.get(run)
                if name is not None:
                    found[name] += 1
        return found

    def lexicon(self, name: str) -> int:
        lex = _LEXICONS[name]
        return (sum(self.words[w] for w in lex.cased) + sum(self.folded[w] for w in lex.folded)
                + self.phrases[name])

    def spellings(self, british: bool) -> int:
        def spelled(w: str) -> bool:
            if british:
                return bool(_BRITISH_ROOTS.search(w) or _BRITISH_WORD.fullmatch(w))
            return bool(_AMERICAN_WORD.fullmatch(w))

        # a compound's words are counted one by one; a code with digits is no spelling
        return sum(k for w, k in self.folded.items() if w.isalpha() and spelled(w))


# (name, locale, points of one occurrence, counter). Three points: a convention one side never
# writes (a day-first date, a postcode, an NHS number); one to two: usage that leans.
_CLUES: tuple[tuple[str, Locale, float, Callable[[_Scan], int]], ...] = (
    ("day-first dates", GB, 3.0, lambda s: s.dates[0]),
    ("month-first dates", US, 3.0, lambda s: s.dates[1]),
    ("day month year dates", GB, 1.0, lambda s: s.count(_DAY_MONTH_YEAR)),
    ("month day, year dates", US, 1.5, lambda s: s.count(_MONTH_DAY_YEAR)),
    ("UK postcode", GB, 3.0, lambda s: s.count(_UK_POSTCODE)),
    ("US ZIP code", US, 3.0, lambda s: _us_zip_codes(s.text)),
    ("NHS number", GB, 4.0, lambda s: s.ten_digits[0]),
    ("US telephone format", US, 2.0,
     lambda s: s.ten_digits[1] + s.count(_US_PHONE_PARENS) + s.count(_US_PHONE_DOTS)),
    ("+1 telephone number", US, 2.0, lambda s: s.count(_US_PHONE_PLUS1)),
    ("+44 telephone number", GB, 3.0, lambda s: s.count(_UK_PHONE_PLUS44)),
    ("UK telephone format", GB, 2.0, lambda s: _uk_national_phones(s.text)),
    ("SSN-shaped number", US, 2.0, lambda s: s.count(_SSN)),
    ("British spelling", GB, 1.5, lambda s: s.spellings(british=True)),
    ("American spelling", US, 1.5, lambda s: s.spellings(british=False)),
    ("British drug names", GB, 1.5, lambda s: s.lexicon("uk_drugs")),
    ("American drug names", US, 1.5, lambda s: s.lexicon("us_drugs")),
    ("SI units", GB, 1.0, lambda s: s.count(_UK_UNITS)),
    ("US units", US, 1.0, lambda s: s.count(_US_UNITS)),
    ("Fahrenheit temperatures", US, 2.0, lambda s: s.count(_FAHRENHEIT_TEMP)),
    ("NHS vocabulary", GB, 1.5, lambda s: s.lexicon("uk_system")),
    ("UK hospital posts", GB, 0.75, lambda s: s.lexicon("uk_hospital")),
    ("US health-care vocabulary", US, 1.5, lambda s: s.lexicon("us_system") + s.count(_US_ER)),
    ("US charting habits", US, 0.75, lambda s: s.count(_US_CHARTING)),
    ("UK credentials", GB, 2.0, lambda s: s.lexicon("uk_credentials")),
    ("US credentials", US, 1.0, lambda s: s.count(_US_CREDENTIAL)),
    ("titles without a full stop", GB, 0.5, lambda s: s.count(_TITLE_BARE)),
    ("titles with a full stop", US, 0.5, lambda s: s.count(_TITLE_DOTTED)),
)


def _clues(text: str) -> Iterator[Clue]:
    scan = _Scan(text)
    for name, locale, weight, counter in _CLUES:
        n = counter(scan)
        if n:
            yield Clue(name, locale, weight, n)


def read_english_locale(text: str, margin: float = MARGIN) -> LocaleReading:
    """en-GB or en-US as the text of an English note shows it, or ``None`` (unknown) when
    neither side leads by ``margin`` points."""
    clues = tuple(_clues(text[:MAX_CHARS]))
    gb = sum(c.points for c in clues if c.locale == GB)
    us = sum(c.points for c in clues if c.locale == US)
    locale: Locale | None = GB if gb - us >= margin else US if us - gb >= margin else None
    return LocaleReading(locale, round(gb, 3), round(us, 3), clues)


def read_locale(text: str, language: str) -> LocaleReading:
    """The locale of a note in ``language`` as its text shows it: French and Spanish have one
    supported locale each (certain, no clue needed); English is read."""
    if language == "en":
        return read_english_locale(text)
    return LocaleReading(DEFAULT_LOCALES[language], 0.0, 0.0, ())


def reads_locale_from_text(language: str, given: str | None, settings: Settings) -> bool:
    """Whether a note's locale is read from its text: none ``given`` (by the event or the
    command line), none configured for its language (``DEID_LOCALES``, which wins), the setting
    ``DEID_LOCALE_FROM_TEXT`` on, and a language with more than one locale (English)."""
    return (given is None and language == "en" and language not in settings.locales
            and settings.locale_from_text)


def with_text_locale(note: RawNote, settings: Settings) -> RawNote:
    """``note`` with the locale its text shows when nothing else names one
    (``reads_locale_from_text``); the note itself otherwise, and when the text says too little
    (the language's default, en-US, then stands)."""
    if not reads_locale_from_text(note.language, note.locale, settings):
        return note
    reading = read_english_locale(note.text)
    if reading.locale is None:
        return note
    return note.model_copy(update={"locale": reading.locale})
