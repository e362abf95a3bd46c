"""The project's span convention: what characters a PHI span covers.

The corpora disagree at the edges: ECHR puts the article in dates ("le 12 juillet 1993") and the
courtesy title in names ("Mme Anne X"); eds-pseudo public_small annotates a whole postal address
as one span where its gen_dataset and MEDDOCAN split street, postcode and city. A model trained on
the mix learns both and is exact on neither. One convention, applied to every corpus when it is
read (training and evaluation alike) and to the model's output, removes that noise:

- a span covers the identifying words only: no surrounding whitespace, no trailing ``,;:-``, no
  sentence-final period (an initial's or abbreviation's period stays: "J.", "S.A.");
- a span without a letter or digit, or that is only an article ("le", "L'"), is no span;
- a person span starts after its courtesy titles ("Dr", "Mme", "Señora");
- a date span starts after a leading article or preposition ("le", "el", "the", "on");
- a whole French address "<street>, <postcode> <city>" is three spans: STREET, POSTCODE, CITY.

Nothing here removes a span that holds an identifying character: only titles, articles,
whitespace and separators are trimmed off.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from deid.labels import Category, Label
from deid.spans import Span

# Courtesy titles and honorifics (FR, ES, EN), and the "et"/"and"/"y" that joins two of them
# ("M. et Mme X"): not part of a name in MEDDOCAN or eds-pseudo.
_TITLE = re.compile(
    r"(?:m|mr|mme|mlle|mrs|ms|dr|dre|dra|pr|prof|sr|sra|srta|don|doña|docteur|professeur|madame|"
    r"monsieur|mademoiselle|señor|señora|doctor|doctora|me|maître|mm|mmes|messrs|sir|et|and|y)(?:\s?\.)?(?:\s+|$)",
    re.IGNORECASE,
)
# Articles and prepositions that introduce a date; "l'" has no space after it.
_DATE_LEAD = re.compile(r"(?:(?:le|la|el|the|on|du|au|del|al|en|in)\s+|l['’])", re.IGNORECASE)
# Words that introduce or join mentions but identify nothing on their own.
_FUNCTION_WORD = re.compile(
    r"(?:le|la|les|l['’]|el|los|las|the|de|du|des|d['’]|del|al|au|aux|en|in|on|et|y|and)", re.IGNORECASE
)
_TRAILING = ",;:-–"
# A final period ends the sentence unless the last word is an initial or a dotted abbreviation
# ("J.", "S.A."), whose period belongs to it.
_KEEPS_PERIOD = re.compile(r"(?:^|\s)(?:\w\.|(?:\w{1,3}\.){2,})$")
# "<number and street>, <postcode> <city>": French 5-digit postcodes, Corsican "2A 004"/"2B 065".
_WHOLE_ADDRESS = re.compile(
    r"(?P<street>.*\S),?\s+(?P<zip>(?:\d{5}|2[AB]\s?\d{3}))\s+(?P<city>\S.*)", re.DOTALL
)


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start:
        last = text[end - 1]
        if last.isspace() or last in _TRAILING or (last == "." and not _KEEPS_PERIOD.search(text[start:end])):
            end -= 1
        else:
            break
    return start, end


def _skip(pattern: re.Pattern[str], text: str, start: int, end: int) -> int:
    while (m := pattern.match(text, start, end)) is not None and start < m.end() < end:
        start = m.end()
    return start


def _split_address(span: Span, text: str) -> list[Span]:
    m = _WHOLE_ADDRESS.fullmatch(text, span.start, span.end)
    if m is None:
        return [span]
    out: list[Span] = []
    for group, label in (("street", Label.STREET), ("zip", Label.POSTCODE), ("city", Label.CITY)):
        a, b = _strip(text, m.start(group), m.end(group))
        if b > a:
            out.append(Span(a, b, label, span.source, span.score))
    return out


def conform_span(span: Span, text: str, *, split_addresses: bool = False) -> list[Span]:
    """``span`` under the project's convention: zero, one or (addresses) several spans."""
    start, end = _strip(text, span.start, span.end)
    category = span.label.category
    if category is Category.PER:
        start = _skip(_TITLE, text, start, end)
        if _TITLE.fullmatch(text, start, end):
            return []  # a title alone names nobody
    elif category is Category.DATE:
        start = _skip(_DATE_LEAD, text, start, end)
    start, end = _strip(text, start, end)
    if not any(c.isalnum() for c in text[start:end]) or _FUNCTION_WORD.fullmatch(text, start, end):
        return []  # punctuation or an article alone identifies no one
    out = span
    if (start, end) != (span.start, span.end):
        out = Span(start, end, span.label, span.source, span.score)
    if split_addresses and out.label is Label.STREET:
        return _split_address(out, text)
    return [out]


def conform(spans: Iterable[Span], text: str, *, split_addresses: bool = False) -> list[Span]:
    """Every span of one text under the convention, in text order."""
    out = [part for s in spans for part in conform_span(s, text, split_addresses=split_addresses)]
    return sorted(out, key=lambda s: (s.start, s.end))
