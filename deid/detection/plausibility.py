"""Checks on the model's spans that no reading of the text supports, applied before the merge.

Recall first: a span a check doubts is not dropped but downgraded to the generic ``Label.PHI``
(``deid.labels.DOUBTFUL``) and still replaced; widening only ever adds characters.

The rules carry their own checks (a date's day and month in range, a checksum); the model's spans
get these few, each a property of the text that holds whatever corpus the model learned from:

- a date that cuts a number is widened to the whole of it ("7|/10": the model read the end of a
  score; half a number tells nothing of what it is). Words are left as the model cut them: notes
  glue words ("IPPN11232344", "DRAlberto"), and the model's cut there is the right one;
- a name that starts with a period starts with the initial before it ("MmeE . Jagander" read as
  ". Jagander": the tokenizer glued the initial to the title);
- a date that is a score written like one ("Apgar 9/10/10", "évaluée à 7/10": marks out of a
  scale's maximum after a score's name) is no date, as in the date rule;
- an elided article or pronoun alone ("L'" of "L'enfant", "D'") names nothing, unless the model
  flagged the word it is elided onto ("L’" + "Hospitalet de Llobregat");
- "familia" of "médico de familia" (a general practitioner, "médecin de famille", "family
  doctor") is no relative;
- the acronym of a public service that every town or county has (CCAS, CAF, CPAM, MDPH) names no
  one and no place: it is the kind of service, not which one;
- a date that no reading of its numbers supports is no date: a blood gas or a run of vital signs
  ("7.32/45/88", "101.4 / 112 / 20", three numbers without a year that are no day and month), a
  clock time or a shift ("14:30", "0700-1900"). Seen as false positives of the model on English
  nursing notes (issue 17); downgraded to PHI they are still replaced, by a generic placeholder
  rather than a shifted "date". A mistyped date with its year ("14/14/2014", MEDDOCAN dev) stays.

Not a check: "@" written for "at" ("pt @ rest", read as an e-mail by the model on English notes).
An e-mail syntax check downgraded real, malformed addresses of the eds-pseudo held-out fifth
("tlabelle @ medimail . com", "abarasse.jl@fr") and of MEDDOCAN dev: it hurt held-out, so it
did not land (docs/benchmarks/ner.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from deid.labels import DOUBTFUL, Category, Label
from deid.rules.dates import is_score
from deid.spans import Span

# Characters that continue a number inside one token ("9/10/10", "12.03"); not "-", which also
# joins two dates of a range ("1968-1970": two dates).
_NUMBER_JOINERS = "/."
# No date is longer than this on either side of a cut; the bound keeps a run like "1/1/1/..."
# from being walked once per span.
_MAX_WIDENING = 12
_FAMILY = re.compile(r"famil(?:ia|le|y)", re.IGNORECASE)
_DOCTOR_BEFORE = re.compile(r"\b(?:m[ée]dic[oa]s?|medicina|m[ée]decins?|m[ée]decine)\s+de\s+$", re.IGNORECASE)
_DOCTOR_AFTER = re.compile(r"\s+(?:doctor|physician|practitioner|medicine|GP)\b", re.IGNORECASE)
_ELIDED = re.compile(r"[A-Za-zÀ-ÿ]['’]?")
# French social and health services, named by the kind of service: each town, county or region
# has its own, and the acronym alone does not say whose.
_GENERIC_SERVICES = frozenset({
    "CCAS", "CAF", "CPAM", "MDPH", "PMI", "ASE", "CMP", "CMPP", "CAMSP", "SAMU", "SMUR", "EHPAD",
    "SSIAD", "HAD", "CLIC", "MSA", "URSSAF", "ARS", "HAS", "CSAPA", "CMS", "SSR", "USLD",
})  # fmt: skip
# A clock time ("14:30", "11 h 12") or a shift whose one end starts with 0 ("0700-1900"; a range of
# years never does).
_CLOCK = re.compile(r"(?:[01]?\d|2[0-3])\s?[:h]\s?[0-5]\d|0\d[0-5]\d\s?-\s?(?:[01]\d|2[0-3])[0-5]\d|"
                    r"(?:[01]\d|2[0-3])[0-5]\d\s?-\s?0\d[0-5]\d")
# A blood gas or a vital-sign run: a decimal among numbers split by slashes ("7.32/45/88").
_DECIMAL_RUN = re.compile(r"\d+[.,]\d+\s?/|/\s?\d+[.,]\d+")


def widen_number(span: Span, text: str) -> Span:
    """A date grown to the whole of the number it cuts ("7|/10" -> "7/10")."""
    if span.label.category is not Category.DATE:
        return span

    def inside(i: int) -> bool:
        """Whether the boundary before ``text[i]`` falls inside a number."""
        if i <= 0 or i >= len(text):
            return False
        left, right = text[i - 1], text[i]
        if left.isdigit() and right.isdigit():
            return True
        if right in _NUMBER_JOINERS and left.isdigit():
            return i + 1 < len(text) and text[i + 1].isdigit()
        if left in _NUMBER_JOINERS and right.isdigit():
            return i >= 2 and text[i - 2].isdigit()
        return False

    start, end = span.start, span.end
    while inside(start) and span.start - start < _MAX_WIDENING:
        start -= 1
    while inside(end) and end - span.end < _MAX_WIDENING:
        end += 1
    if (start, end) == (span.start, span.end):
        return span
    return Span(start, end, span.label, span.source, span.score)


def _initial_before(span: Span, text: str) -> Span:
    """A name span that opens on an initial's period, grown back over that initial's word."""
    if span.label.category is not Category.PER or text[span.start] != ".":
        return span
    start = span.start
    while start > 0 and text[start - 1] in " \t" and span.start - start < _MAX_WIDENING:
        start -= 1
    word = start
    while word > 0 and not text[word - 1].isspace() and start - word < _MAX_WIDENING:
        word -= 1
    if word == start or not text[start - 1].isalpha():
        return span
    return Span(word, span.end, span.label, span.source, span.score)


def _family_doctor(span: Span, text: str) -> bool:
    """ "familia" in "médico de familia", "médecin de famille", "family doctor": a kind of doctor."""
    if not _FAMILY.fullmatch(text, span.start, span.end):
        return False
    return bool(_DOCTOR_BEFORE.search(text, max(0, span.start - 20), span.start)
                or _DOCTOR_AFTER.match(text, span.end))


def _is_score(span: Span, text: str) -> bool:
    return span.label.category is Category.DATE and is_score(text, span.start, span.end)


def doubt(span: Span, text: str, starts: set[int]) -> str | None:
    """Why no reading of the text supports ``span`` as its label (module docstring), or None."""
    words = text[span.start : span.end]
    if _is_score(span, text):
        return "score"
    if _ELIDED.fullmatch(words) and _elided_before_word(span, text, starts):
        return "elided article"
    if words in _GENERIC_SERVICES and span.label.category in (Category.ORG, Category.LOC):
        return "generic service"
    if span.label.category is Category.PER and _family_doctor(span, text):
        return "family doctor"
    if span.label.category is Category.DATE and _no_date(words):
        return "numbers no date holds"
    return None


def _no_date(words: str) -> bool:
    """A blood gas, a run of vital signs, a clock time or a shift, never a date."""
    words = words.strip()
    if _CLOCK.fullmatch(words) or _DECIMAL_RUN.search(words):
        return True
    if any(c.isalpha() for c in words) or not re.fullmatch(r"[\d\s/.\-]+", words):
        return False
    groups = re.findall(r"\d+", words)
    if len(groups) != 3 or all(len(g) == 1 for g in groups) or any(len(g) == 4 for g in groups):
        return False  # two numbers may be a day and month; four or more a date typed digit by digit;
        # a four-digit year makes a mistyped date ("14/14/2014")
    a, b, c = (int(g) for g in groups)
    day_month = (1 <= a <= 31 and 1 <= b <= 12) or (1 <= a <= 12 and 1 <= b <= 31)
    year_first = len(groups[0]) == 4 and 1 <= b <= 12 and 1 <= c <= 31
    return not (day_month or year_first)


def plausible(spans: Iterable[Span], text: str, doubtful: Label = DOUBTFUL) -> list[Span]:
    """The model's ``spans`` of ``text``, dates widened to whole numbers, those no reading supports
    relabelled ``doubtful`` (never dropped)."""
    spans = list(spans)
    starts = {s.start for s in spans}
    out: list[Span] = []
    for span in spans:
        span = _initial_before(widen_number(span, text), text)
        if doubt(span, text, starts) is not None:
            span = Span(span.start, span.end, doubtful, span.source, span.score)
        out.append(span)
    return sorted(out, key=lambda s: (s.start, s.end))


def _elided_before_word(span: Span, text: str, starts: set[int]) -> bool:
    """A single letter followed by an apostrophe and a word that no span of the model starts:
    "L'enfant", "d'Anne" ("L" alone is an initial, kept; "L’" before "Hospitalet", a town the
    model flagged too, is the town's article)."""
    end = span.end if text[span.end - 1] in "'’" else span.end + 1
    if end > len(text) or text[end - 1] not in "'’":
        return False
    return end < len(text) and text[end].isalpha() and end not in starts

