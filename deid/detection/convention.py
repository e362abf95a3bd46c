"""The project's span convention: what characters a PHI span covers.

The corpora disagree at the edges: ECHR puts the article in dates ("le 12 juillet 1993") and the
courtesy title in names ("Mme Anne X"); eds-pseudo public_small annotates a whole postal address
as one span where its gen_dataset and MEDDOCAN split street, postcode and city. A model trained on
the mix learns both and is exact on neither. One convention, applied to every corpus when it is
read (training and evaluation alike) and to the model's output, removes that noise:

- a span covers the identifying words only: no surrounding whitespace, no trailing ``,;:-``, no
  sentence-final period (an initial's or abbreviation's period stays: "J.", "S.A.");
- a span without a letter or digit is no span, nor a date or lower-case place that is only an
  article ("le"), nor a date that is only "today" or "yesterday" (a relative date, not a date), nor
  a lone "M." before "et Mme" (the title of a couple); a person span always keeps its last word
  ("Mme Le", "Dr M.");
- a person span starts after its courtesy titles ("Dr", "Mme", "Señora");
- a date span starts after a leading article or preposition ("le", "el", "the", "on"), a relative
  ("la hermana") after a lower-case article or possessive (no MEDDOCAN relative has one);
- a whole French address "<street>, <postcode> <city>" is three spans: STREET, POSTCODE, CITY.

Nothing here removes a span that holds an identifying character: only titles, articles,
whitespace and separators are trimmed off.

Two uses, two behaviours for a span the convention has no place for (a title alone, "today", an
article, punctuation): projecting gold (``read_corpus``, ``deid eval --convention``) drops it;
detection (``doubtful=Label.PHI``, the ``conform`` step of ``deid.detection.pipeline``) keeps it
under the generic label, still replaced: a detector's span is never dropped (recall first).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from deid.labels import Category, Label
from deid.spans import Span

# Courtesy titles and honorifics (FR, ES, EN): not part of a name in MEDDOCAN or eds-pseudo.
# "M" is a title only where a span starts ("M. Dupont"); further in, it is an initial
# ("Dr M. Martin"). "et"/"and"/"y" go only between two titles ("M. et Mme Robins").
_TITLES = (r"mr|mme|mlle|mrs|ms|dr|dre|dra|pr|prof|sr|sra|srta|doña|docteur|professeur|madame|monsieur|"
           r"mademoiselle|señor|señora|doctor|doctora|me|maître|mm|mmes|messrs")  # fmt: skip
_TITLE = re.compile(rf"(?:{_TITLES})(?:\s?\.)?\s+", re.IGNORECASE)
_FIRST_TITLE = re.compile(rf"(?:m|{_TITLES})(?:\s?\.)?\s+", re.IGNORECASE)
_JOINED_TITLE = re.compile(rf"(?:et|and|y)\s+(?=(?:m|{_TITLES})(?:\s?\.)?\s)", re.IGNORECASE)
_TITLE_BEFORE = re.compile(rf"(?<![\w.])(?:m|{_TITLES})(?:\s?\.)?\s+$", re.IGNORECASE)
_TITLE_ALONE = re.compile(rf"(?:{_TITLES})\.?", re.IGNORECASE)
# Articles and prepositions that introduce a date; "l'" has no space after it.
_DATE_LEAD = re.compile(r"(?:(?:le|la|el|the|on|du|au|del|al|en|in)\s+|l['’])", re.IGNORECASE)
# Lower-case articles and possessives before a relative: "la hermana", "su madre", "sa mère".
_RELATIVE_LEAD = re.compile(r"(?:la|el|los|las|su|sus|le|les|sa|son|ses|the|his|her)\s+")
# Words that introduce or join mentions but identify nothing on their own. Person spans are never
# dropped for it ("Mme Le" is a surname), other places only when written in lower case.
_FUNCTION_WORD = re.compile(
    r"(?:le|la|les|l['’]|el|los|las|the|de|du|des|d['’]|del|al|au|aux|en|in|on|et|y|and)", re.IGNORECASE
)
# Words that point at a day relative to the note, split as the model's words are ("aujourd", "hui").
_DEICTIC_DATE = re.compile(
    r"(?:aujourd(?:['’]\s?hui)?|hui|hier|demain|hoy|ayer|mañana|today|yesterday|tomorrow)", re.IGNORECASE
)
# "M. et Mme Robins", "M . et Mme T .": the "M" is the couple's title, not an initial.
_COUPLE_AFTER = re.compile(rf"\s?\.?\s+(?:et|and)\s+(?:{_TITLES})\b", re.IGNORECASE)
_TRAILING = ",;:-–(["  # an opening bracket never ends a mention ("Instituto ... (" before "(IOBA)")
_TRAILING_EXACT = ",;"  # e-mail, URL, IP and identifiers: ":" and "-" may end them ("2001:db8::")
# A final period ends the sentence unless the last word is an initial or a dotted abbreviation
# ("J.", "S.A."), whose period belongs to it.
_KEEPS_PERIOD = re.compile(r"(?:^|\s)(?:\w\.|(?:\w{1,3}\.){2,})$")
# "<number and street>, <postcode> <city>": French 5-digit postcodes, Corsican "2A 004"/"2B 065".
_WHOLE_ADDRESS = re.compile(
    r"(?P<street>.*\S),?\s+(?P<zip>(?:\d{5}|2[AB]\s?\d{3}))\s+(?P<city>\S.*)", re.DOTALL
)


def _strip(text: str, start: int, end: int, trailing: str = _TRAILING) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start:
        last = text[end - 1]
        if last.isspace() or last in trailing or (last == "." and not _KEEPS_PERIOD.search(text[start:end])):
            end -= 1
        else:
            break
    return start, end


def _skip(pattern: re.Pattern[str], text: str, start: int, end: int) -> int:
    while (m := pattern.match(text, start, end)) is not None and start < m.end() < end:
        start = m.end()
    return start


def _skip_titles(text: str, start: int, end: int) -> int:
    """Where the name starts after the span's leading titles; the last word always stays. A lone
    "M" right after a title outside the span is an initial ("M . M . Eliasson")."""
    first = _TITLE if _TITLE_BEFORE.search(text, max(0, start - 12), start) else _FIRST_TITLE
    pos = start
    while True:
        m = (first if pos == start else _TITLE).match(text, pos, end) or _JOINED_TITLE.match(
            text, pos, end)
        if m is None or m.end() >= end:
            return pos
        pos = m.end()


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


def conform_span(
    span: Span, text: str, *, split_addresses: bool = False, doubtful: Label | None = None
) -> list[Span]:
    """``span`` under the project's convention: zero, one or (addresses) several spans.

    ``doubtful``: instead of dropping a span the convention has no place for, return it under
    this label, over its extent without surrounding whitespace (detection: recall first)."""
    out = _conform_span(span, text, split_addresses)
    if out or doubtful is None:
        return out
    if not any(c.isalnum() for c in text[span.start:span.end]):
        # nothing to doubt: a lone "(" holds no letter or digit, and kept as PHI it came out of
        # substitution as "[OTHER]" in the middle of "DOB: 03/14/1942 (81 y/o M)"
        return []
    a, b = _strip(text, span.start, span.end, "")
    a, b = (a, b) if b > a else (span.start, span.end)
    return [Span(a, b, doubtful, span.source, span.score)]


def _conform_span(span: Span, text: str, split_addresses: bool) -> list[Span]:
    category = span.label.category
    trailing = _TRAILING_EXACT if category in (Category.REF, Category.QID) else _TRAILING
    start, end = _strip(text, span.start, span.end, trailing)
    if category is Category.PER:
        start = _skip_titles(text, start, end)
        if span.label is Label.RELATIVE:
            start = _skip(_RELATIVE_LEAD, text, start, end)
        if _TITLE_ALONE.fullmatch(text, start, end):
            return []  # a title alone ("Mme", "Dr.") names nobody; a lone initial ("M.") stays
        if text[start:end] in ("M", "M.") and _COUPLE_AFTER.match(text, end):
            return []
    elif category is Category.DATE:
        start = _skip(_DATE_LEAD, text, start, end)
        if _DEICTIC_DATE.fullmatch(text, start, end):
            return []
    start, end = _strip(text, start, end, trailing)
    if not any(c.isalnum() for c in text[start:end]):
        return []  # punctuation alone identifies no one
    if (category is not Category.PER and _FUNCTION_WORD.fullmatch(text, start, end)
            and (category is Category.DATE or text[start:end].islower())):  # fmt: skip
        return []  # an article alone ("le" before a date) is no mention
    out = span
    if (start, end) != (span.start, span.end):
        out = Span(start, end, span.label, span.source, span.score)
    if split_addresses and out.label is Label.STREET:
        return _split_address(out, text)
    return [out]


def conform(
    spans: Iterable[Span], text: str, *, split_addresses: bool = False, doubtful: Label | None = None
) -> list[Span]:
    """Every span of one text under the convention, in text order (``doubtful``: see ``conform_span``)."""
    out = [part for s in spans
           for part in conform_span(s, text, split_addresses=split_addresses, doubtful=doubtful)]  # fmt: skip
    return sorted(out, key=lambda s: (s.start, s.end))
