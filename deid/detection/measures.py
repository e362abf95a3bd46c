"""Numbers the text proves are scores or measurements, never dates (issue 29).

The model reads any "a/b" as a date: a pain score "7/10", a strength "4/5", blood pressure "13/8",
a ventilator setting "10/5", an MMSE "23/30", a British "off work 2/52". A date moved or masked
there makes the note clinically false. A model date (or a score's name read as a person, "EVA")
is dropped only when its context proves a measurement:

- **no date holds its numbers**: two numbers with no year that are no day and month in either
  order ("23/30", "102/61", "3/52");
- **a score's or a measurement's name** just before it on its line ("EVA 4/10", "TA 13/8",
  "Strength 4/5", "PEEP 10/5", "Schober 15/10", "GCS 14/15"), words of the same kind between
  ("pain 7/10 this am" is read up to the score's name, not across a sentence);
- **the same scale again**: a mark out of the maximum of a proven score earlier on the same line
  ("pain 7/10 this am, 3/10 after dilaudid");
- **a fraction of a dose**: "3/4 de la dose", "1/2 tab";
- **a pain score's or a murmur's words after it**: "9/10 on arrival", "2/10 at rest",
  "2/6 SEM";
- **British duration notation** ("2/52" weeks, "6/12" months, "3/7" days) after "for", "in",
  "within", "over", "x" or before "ago", in English notes.

A date with a year, or any span the rules made, is never touched: the rules carry their own score
check (``deid.rules.dates.is_score``). A mark whose maximum is no known scale stays a date.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from deid.detection.plausibility import widen_number
from deid.labels import Category
from deid.spans import Span

# Names of scores and measurements written before their value, in French, Spanish and English.
_NAMES = (
    r"EVA|EN|ENS|EVN|EVS|ECPA|pain(?:\s+score)?|douleur|dolor|GCS|glasgow|MMSE|MoCA|folstein|"
    r"force|fuerza|strength|power|motor|MRC|schober|TA|PA|BP|SBP|DBP|tension|pression|"
    r"PEEP|PS|CPAP|BiPAP|IPAP|EPAP|vent(?:ilator)?|settings|A/?C|SIMV|PSV|AI|VS-?AI|"
    r"acuity|AV|VA|apgar|barthel|tinetti|rankin|NIHSS|ECOG|karnofsky|braden|norton|"
    r"score|escala|[ée]chelle|scale|cot[ée]e?\s+[àa]|[ée]valu[ée]e?\s+[àa]|rated|scored|"
    r"saturation|FiO2|I:E|reflexes|r[ée]flexes|ROT|"
    # named clinical scores and examinations marked out of their maximum ("RCRI 2/6", "PRAM 8/12",
    # "Alvarado 8/10", "Apgars 8/9", "TOF 4/4", "Myotomes 5/5", "VA (Snellen) 6/18", "recall 2/5")
    r"apgars|RCRI|PRAS|PRAM|PAS|PEWS|NEWS2?|MEWS|AUDIT(?:-C)?|6CIT|AMTS|ACE(?:-III)?|M-CHAT(?:-R(?:/F)?)?|"
    r"alvarado|BASDAI|BASFI|BASMI|CURB-?65|CHA2DS2-VASc|HAS-BLED|wells|centor|FLACC|RASS|TOF|"
    r"myotomes?|grip|recall|snellen|pinhole"
)
# Between a name and its value: separators and a few linking words, and at most one other word
# that cannot introduce a date ("Force musculaire 4/5", "pain score of 7/10", "VA (Snellen) 6/18";
# not "Glasgow fait le 12/10", where "le" introduces a date).
_LINK = r"(?:\s*(?:[:=)]|(?:de|del|à|a|at|of|is|was|est|la)\b)\s*|\s+)"
_DATE_INTRODUCERS = r"(?:le|el|on|du|del|au|al|since|depuis|desde|from|until|jusqu|del|fait|done|vu|seen)"
_NAME_BEFORE = re.compile(
    rf"(?:^|[^\w/])(?:{_NAMES}){_LINK}*(?:(?!{_DATE_INTRODUCERS}\b)[^\W\d_]{{2,20}}{_LINK}+)?[:=]?\s*$",
    re.IGNORECASE,
)
_RATIO = re.compile(r"(\d{1,3})\s?/\s?(\d{1,3})")
# an earlier mark of the same scale may carry a grade sign ("grip 4+/5, otherwise 5/5")
_MARK = re.compile(r"(\d{1,3})[+-]?\s?/\s?(\d{1,3})")
_SCALES = frozenset({3, 4, 5, 8, 9, 10, 12, 15, 20, 24, 30, 40, 50, 100})
_UK_DURATIONS = frozenset({7, 12, 52})
_UK_BEFORE = re.compile(r"(?:\b(?:for|in|within|over|after|x|past|last|since)\s*)$", re.IGNORECASE)
_UK_AFTER = re.compile(r"\s*(?:ago|later|hx|history|post|previously)\b", re.IGNORECASE)
# a fraction of a dose or of a tablet: "3/4 de la dose", "1/2 tab", "1/2 cp"
_FRACTION_AFTER = re.compile(
    r"\s*(?:de\s+(?:la\s+|l['’]|du\s+|des\s+)?|d['’]|du\s+|of\s+(?:the\s+|a\s+)?|del\s+)?"
    r"(?:dose|doses|comprim[ée]s?|cp|cps|tab|tabs|tablet|tablets|comp|comprimido|ampoule|amp|sachet|"
    r"cuill|bolus|plateau|bandeja|vial|flacon|pill|pills|dosis)\b", re.IGNORECASE)
# what only follows a pain score ("9/10 on arrival", "2/10 at rest") or a murmur's grade
# ("2/6 SEM at RUSB")
_PAIN_AFTER = re.compile(
    r"\s*(?:at\s+(?:rest|worst|best)|on\s+(?:arrival|rising|movement|exertion|walking|weight[- ]bearing)|"
    r"with\s+(?:movement|activity|walking))\b", re.IGNORECASE)
_MURMUR_AFTER = re.compile(
    r"\s*(?:SEM|ESM|PSM|HSM|SM|murmur|systolic|diastolic|holosystolic|pansystolic|ejection)\b", re.IGNORECASE)
# "day" right before the mark (not "5-day course 11/18", where a date follows the course)
_COURSE_DAY_BEFORE = re.compile(r"(?:^|[^\w-])day\s*$", re.IGNORECASE)
_SCORE_NAME_WORD = re.compile(rf"(?:{_NAMES})", re.IGNORECASE)


def _line_before(text: str, start: int, width: int = 40) -> tuple[int, str]:
    line = text.rfind("\n", max(0, start - width), start) + 1 or max(0, start - width)
    return line, text[line:start]


def _no_day_month(a: int, b: int) -> bool:
    return not ((1 <= a <= 31 and 1 <= b <= 12) or (1 <= a <= 12 and 1 <= b <= 31))


def measurement(text: str, start: int, end: int, language: str) -> bool:
    """Whether ``text[start:end]`` (an "a/b" without a year) is proven a score or measurement."""
    m = _RATIO.fullmatch(text, start, end)
    if m is None:
        return False
    a, b = int(m[1]), int(m[2])
    if _no_day_month(a, b):
        return True
    if a < b <= 8 and _FRACTION_AFTER.match(text, end):
        return True
    if b == 10 and a <= b and _PAIN_AFTER.match(text, end):
        return True
    if b in (4, 6) and a <= b and _MURMUR_AFTER.match(text, end):
        return True
    line, before = _line_before(text, start)
    if a <= b and _COURSE_DAY_BEFORE.search(before):  # "(day 5/5)": the last day of a course
        return True
    if _NAME_BEFORE.search(before):  # a blood pressure or a Schober index reads high over low
        return True
    if b in _SCALES and a <= b and _same_scale_before(text, line, start, b):
        return True
    if language == "en" and b in _UK_DURATIONS and a < b:
        return bool(_UK_BEFORE.search(text, max(0, start - 12), start) or _UK_AFTER.match(text, end))
    return False


def _same_scale_before(text: str, line: int, start: int, scale: int) -> bool:
    """An earlier mark out of ``scale`` on this line that is itself proven by a score's name."""
    for m in _MARK.finditer(text, line, start):
        if int(m[2]) == scale and int(m[1]) <= scale:
            prefix = text[line : m.start()]
            if _NAME_BEFORE.search(prefix):
                return True
    return False


def _score_name_read_as_person(span: Span, text: str, language: str) -> bool:
    """ "EVA" of "EVA 4/10", "Schober" of "Schober 15/10": a score's name read as a person's."""
    word = text[span.start : span.end]
    if span.label.category is not Category.PER:
        return False
    if not _SCORE_NAME_WORD.fullmatch(word):
        return False
    m = re.match(r"\s*[:=]?\s*(\d{1,3}\s?/\s?\d{1,3})", text[span.end : span.end + 16])
    if m is None:
        return False
    s = span.end + m.start(1)
    return measurement(text, s, s + len(m[1]), language)


def drop_measurements(spans: Iterable[Span], text: str, language: str) -> list[Span]:
    """The model's ``spans`` less the dates (and score names) their context proves measurements."""
    out = []
    for span in spans:
        if span.label.category is Category.DATE:
            whole = widen_number(span, text)  # "/15" of "GCS 14/15": the model cut the score
            if measurement(text, whole.start, whole.end, language):
                continue
        if _score_name_read_as_person(span, text, language):
            continue
        out.append(span)
    return out
