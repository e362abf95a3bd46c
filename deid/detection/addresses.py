"""A US address line read as its parts (issue 29: "a US house number became the ZIP code").

"16151 19 Mile Rd, Clinton Township, MI 48038" is written in the Postal Service's one order:
a house number and a street (with its unit), a town, a state's code, a ZIP code. The model reads
its parts one at a time and often wrongly ("16151" a postcode, "Clinton Township" a street, "OH" a
postcode, "37-14" of "37-14 82nd St" a phone number), and the surrogate of such an address then
names a street as its town or a ZIP as its state. Where a line holds a town, a state's code and a
ZIP code in that order (the street before them optional), the step gives each part its label over
whatever the merge made there: STREET, CITY, LOCATION (the state), POSTCODE. It drops nothing:
every character a span covered is still covered (by the parts, or by the rest of a span that
reached out of the address under its own label), and the parts are added even where nothing was
found (a town, a state and a ZIP in that order are an address).

English notes only. The town needs a left edge (the street, a line's start, a comma, a bar, a
colon or two blanks) so that "seen at Mercy Hospital Des Moines IA 50314" does not make the
hospital's words a town. Linear in the note: every repeat is bounded, every run of blanks possessive
(two runs side by side around an optional "#" split a long run in every way: quadratic).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence

from deid.labels import Category, Label
from deid.rules.us import STATE_CODES
from deid.spans import Span

_STATES = "|".join(STATE_CODES)
_SUFFIX = (r"(?:St|Street|Ave|Avenue|Rd|Road|Blvd|Boulevard|Dr|Drive|Ln|Lane|Way|Ct|Court|Pl|Place|Pkwy|"
           r"Parkway|Hwy|Highway|Ter|Terrace|Cir|Circle|Trl|Trail|Loop|Pike|Sq|Square|Row|Rte|Route|Run|"
           r"Path|Aly|Alley|Plz|Plaza|Xing|Crossing)\.?")
_DIRECTION = r"(?:[NSEW]|NE|NW|SE|SW)\.?"
# a word of the street's name: a capitalised word or a number ("19 Mile", "82nd", "W 10th")
_STREET_WORD = r"(?:[A-Z][A-Za-z'’.-]{0,20}|\d{1,3}(?:st|nd|rd|th)?)"
_UNIT = (r"(?:,?[ \t]*+(?:Apt|Unit|Ste|Suite|Fl|Floor|Rm|Room|Bldg|Lot|Trlr|#)\.?[ \t]*+#?[ \t]*+[\w-]{1,6}"
         r"|,[ \t]*+\d{1,2}(?:st|nd|rd|th)[ \t]++(?:Fl|Floor)\.?)")
_STREET = (rf"(?P<street>\d{{1,6}}(?:-\d{{1,4}})?[A-Z]?[ \t]++(?:{_DIRECTION}[ \t]++)?"
           rf"(?:{_STREET_WORD}[ \t]++){{0,4}}{_SUFFIX}(?:[ \t]++{_DIRECTION})?{_UNIT}?)")
_TOWN_WORD = r"[A-Z][A-Za-z'’.-]{1,24}"
_TOWN = rf"(?P<city>{_TOWN_WORD}(?:[ \t]++{_TOWN_WORD}){{0,3}})"
_ZIP = r"(?P<zip>\d{5}(?:-\d{4})?)(?![\w-])"
_WITH_STREET = re.compile(rf"(?<![\w./-]){_STREET}[ \t]*+[,·|–-][ \t]*+{_TOWN},?[ \t]++(?P<state>{_STATES})"
                          rf"[ \t]++{_ZIP}")
# Without a street: a comma between the town and the state, and no code that is also a word or a
# degree ("Patient ID 12345", "Heparin SC 10000 units", "John Smith, MD 41234")
_PLAIN_STATES = "|".join(s for s in _STATES.split("|") if s not in {"ID", "IN", "OK", "OR", "ME", "HI", "DE",
                                                                   "AS", "MD", "PA", "DC", "SC", "VI", "GU"})
_TAIL_ALONE = re.compile(rf"(?:^|(?<=[,·|:;(\t])|(?<=[,·|:;(] )|(?<=  )){_TOWN},[ \t]++"
                         rf"(?P<state>{_PLAIN_STATES})[ \t]++{_ZIP}", re.MULTILINE)
# a town overlapping a name or an institution the merge found is no town ("Signed: John Smith, NY
# 10021" stays a person and is echoed; "Mercy Hospital Des Moines, IA 50314" stays a hospital)
_NOT_A_TOWN = frozenset({Category.PER, Category.ORG})

_PARTS = (("street", Label.STREET), ("city", Label.CITY), ("state", Label.LOCATION), ("zip", Label.POSTCODE))
_SOURCE = "rules.us_address"


def _addresses(text: str, spans: Sequence[Span]) -> list[re.Match[str]]:
    """Every address line's match, those with a street first, none overlapping, in order; none
    whose town overlaps a name or an institution."""
    streets = list(_WITH_STREET.finditer(text))
    ends = [m.end() for m in streets]
    alone = []
    for m in _TAIL_ALONE.finditer(text):
        i = bisect_right(ends, m.start())  # the first match with a street ending after its start
        if i == len(streets) or streets[i].start() >= m.end():
            alone.append(m)
    found = sorted(streets + alone, key=lambda m: m.start())
    blocked = sorted((s.start, s.end) for s in spans if s.label.category in _NOT_A_TOWN)
    starts = [s for s, _ in blocked]
    keep = []
    for m in found:
        # the merged spans do not overlap each other: the last few starting before the town's end
        # are the only ones that can reach into it
        i = bisect_right(starts, m.start("city"), hi=bisect_right(starts, m.end("city") - 1))
        last = bisect_right(starts, m.end("city") - 1)
        if not any(m.start("city") < e for _, e in blocked[max(0, i - 4) : last]):
            keep.append(m)
    return keep


def _overlapping(matches: Sequence[re.Match[str]], ends: Sequence[int], span: Span) -> list[re.Match[str]]:
    hit = []
    for i in range(bisect_right(ends, span.start), len(matches)):  # no slice: a copy per span was quadratic
        if matches[i].start() >= span.end:
            break
        hit.append(matches[i])
    return hit


def _outside(span: Span, start: int, end: int) -> list[Span]:
    """What of ``span`` lies outside [start, end), under its own label."""
    pieces = []
    if span.start < start:
        pieces.append(Span(span.start, min(span.end, start), span.label, span.source, span.score))
    if span.end > end:
        pieces.append(Span(max(span.start, end), span.end, span.label, span.source, span.score))
    return pieces


def _trimmed(span: Span, text: str) -> Span:
    """``span`` less the blanks and separators at its ends (where the address cut it)."""
    start, end = span.start, span.end
    while start < end and text[start] in _EDGE:
        start += 1
    while end > start and text[end - 1] in _EDGE:
        end -= 1
    return Span(start, end, span.label, span.source, span.score)


_EDGE = frozenset(" \t,·|–-")


def read_us_addresses(spans: Sequence[Span], text: str, language: str) -> list[Span]:
    """``spans`` with each US address line's parts labelled STREET, CITY, LOCATION and POSTCODE,
    the spans it overlapped cut to what lies outside it."""
    if language != "en":
        return list(spans)
    matches = _addresses(text, spans)
    if not matches:
        return list(spans)
    ends = [m.end() for m in matches]
    out: list[Span] = []
    for span in spans:
        hit = _overlapping(matches, ends, span)
        if not hit:
            out.append(span)
            continue
        pieces = [span]
        for m in hit:  # in order: only the last piece can reach the next address
            pieces.extend(_outside(pieces.pop(), m.start(), m.end()))
        out.extend(_trimmed(p, text) for p in pieces if any(c.isalnum() for c in text[p.start : p.end]))
    for m in matches:
        parts = m.groupdict()
        for group, label in _PARTS:
            if parts.get(group) is not None:
                out.append(Span(m.start(group), m.end(group), label, _SOURCE))
    return sorted(out)
