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
hospital's words a town. Linear in the note: every repeat is bounded.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence

from deid.labels import Label
from deid.spans import Span

# The Postal Service's codes of the states, the District and the territories (MD and PA too: with a
# ZIP code after them they are no degrees)
_STATES = (
    "AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|"
    "NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|PR|GU|VI|AS|MP"
)
_SUFFIX = (r"(?:St|Street|Ave|Avenue|Rd|Road|Blvd|Boulevard|Dr|Drive|Ln|Lane|Way|Ct|Court|Pl|Place|Pkwy|"
           r"Parkway|Hwy|Highway|Ter|Terrace|Cir|Circle|Trl|Trail|Loop|Pike|Sq|Square|Row|Rte|Route|Run|"
           r"Path|Aly|Alley|Plz|Plaza|Xing|Crossing)\.?")
_DIRECTION = r"(?:[NSEW]|NE|NW|SE|SW)\.?"
# a word of the street's name: a capitalised word or a number ("19 Mile", "82nd", "W 10th")
_STREET_WORD = r"(?:[A-Z][A-Za-z'’.-]{0,20}|\d{1,3}(?:st|nd|rd|th)?)"
_UNIT = (r"(?:,?[ \t]*(?:Apt|Unit|Ste|Suite|Fl|Floor|Rm|Room|Bldg|Lot|Trlr|#)\.?[ \t]*#?[ \t]*[\w-]{1,6}"
         r"|,[ \t]*\d{1,2}(?:st|nd|rd|th)[ \t]+(?:Fl|Floor)\.?)")
_STREET = (rf"(?P<street>\d{{1,6}}(?:-\d{{1,4}})?[A-Z]?[ \t]+(?:{_DIRECTION}[ \t]+)?"
           rf"(?:{_STREET_WORD}[ \t]+){{0,4}}{_SUFFIX}(?:[ \t]+{_DIRECTION})?{_UNIT}?)")
_TOWN_WORD = r"[A-Z][A-Za-z'’.-]{1,24}"
_TAIL = (rf"(?P<city>{_TOWN_WORD}(?:[ \t]+{_TOWN_WORD}){{0,3}}),?[ \t]+(?P<state>{_STATES})[ \t]+"
         r"(?P<zip>\d{5}(?:-\d{4})?)(?![\w-])")
_WITH_STREET = re.compile(rf"(?<![\w./-]){_STREET}[ \t]*[,·|–-][ \t]*{_TAIL}")
_TAIL_ALONE = re.compile(rf"(?:^|(?<=[,·|:;(\t])|(?<=[,·|:;(] )|(?<=  )){_TAIL}", re.MULTILINE)

_PARTS = (("street", Label.STREET), ("city", Label.CITY), ("state", Label.LOCATION), ("zip", Label.POSTCODE))
_SOURCE = "rules.us_address"


def _addresses(text: str) -> list[re.Match[str]]:
    """Every address line's match, those with a street first; none overlapping, in order."""
    found = list(_WITH_STREET.finditer(text))
    ends = [m.end() for m in found]
    for m in _TAIL_ALONE.finditer(text):
        i = bisect_right(ends, m.start())  # the first match with a street ending after its start
        if i == len(found) or found[i].start() >= m.end():
            found.insert(i, m)
            ends.insert(i, m.end())
    return found


def _overlapping(matches: Sequence[re.Match[str]], ends: Sequence[int], span: Span) -> list[re.Match[str]]:
    hit = []
    for m in matches[bisect_right(ends, span.start) :]:
        if m.start() >= span.end:
            break
        hit.append(m)
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
    matches = _addresses(text)
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
        for m in hit:
            pieces = [p for piece in pieces for p in _outside(piece, m.start(), m.end())]
        out.extend(_trimmed(p, text) for p in pieces if any(c.isalnum() for c in text[p.start : p.end]))
    for m in matches:
        parts = m.groupdict()
        for group, label in _PARTS:
            if parts.get(group) is not None:
                out.append(Span(m.start(group), m.end(group), label, _SOURCE))
    return sorted(out)
