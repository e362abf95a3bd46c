"""Concept mentions found in the original text, moved onto the de-identified text (issue 20).

The tagger reads the original note, inside the trust zone, like the PHI detector. Substitution then
changes lengths (a name becomes a longer surrogate, a date a placeholder), so each mention's
offsets are shifted by what the replacements before it added or removed. A mention that overlaps
or touches (shares a boundary with) a PHI span, replaced or kept in clear, is withheld: its
characters would be, or border on, an identifier, and a tagger's boundary that runs into a name is
how a name would leak. What is published is therefore, by construction, text outside every PHI
span, copied unchanged by the substitution: ``deid_text[new.start:new.end] ==
original[c.start:c.end]``.

The engine reports where each surrogate sits in the output (``DeidNote.spans``), not the
replacements it applied; ``replacements_of`` rebuilds them from the detected spans (merged the way
the engine merges them) and checks that they render the published text exactly, so an offset is
never moved by a guess.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from itertools import accumulate, pairwise

from deid.concepts import Concept
from deid.events import ConceptMention, ConceptMentions, DeidNote, ModelInfo
from deid.render import Replacement, render
from deid.spans import Span, resolve


class OffsetsMismatch(ValueError):
    """The detected spans do not account for the published text; the message holds counts only."""


def _blocked(intervals: Sequence[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """The union of closed intervals ``[start, end]``, as sorted starts and ends (touching and
    overlapping intervals merged)."""
    starts: list[int] = []
    ends: list[int] = []
    for a, b in sorted(intervals):
        if ends and a <= ends[-1]:
            ends[-1] = max(ends[-1], b)
        else:
            starts.append(a)
            ends.append(b)
    return starts, ends


def move_concepts(text_length: int, concepts: Sequence[Concept], replacements: Sequence[Replacement],
                  phi: Sequence[Span] = ()) -> list[Concept]:
    """``concepts`` (offsets into the original text of ``text_length`` characters) in the
    coordinates of the text ``render(original, replacements)`` returns, sorted, without duplicates.

    Withheld: a mention overlapping or touching a replacement or any span of ``phi`` (the detected
    PHI, kept spans included), and a mention whose offsets do not fit the original text."""
    reps = sorted(replacements, key=lambda r: (r.start, r.end))
    for prev, cur in pairwise(reps):
        if cur.start < prev.end:
            raise ValueError("replacements overlap")
    rep_ends = [r.end for r in reps]
    # shift[k]: what the first k replacements added to the length (negative when they shortened it)
    shift = [0, *accumulate(len(r.surrogate) - (r.end - r.start) for r in reps)]
    b_starts, b_ends = _blocked([(r.start, r.end) for r in reps] + [(s.start, s.end) for s in phi])
    out: set[Concept] = set()
    for c in concepts:
        if not 0 <= c.start < c.end <= text_length:
            continue
        # the last blocked interval starting at or before c.end: touching or overlapping c?
        i = bisect_right(b_starts, c.end) - 1
        if i >= 0 and b_ends[i] >= c.start:
            continue
        k = bisect_right(rep_ends, c.start)  # replacements wholly before the mention
        d = shift[k]
        out.add(Concept(c.start + d, c.end + d, c.type, c.score))
    return sorted(out, key=lambda c: (c.start, c.end, c.type, -c.score))


def replacements_of(original: str, spans: Sequence[Span], note: DeidNote) -> list[Replacement]:
    """The replacements that made ``note.text`` from ``original`` given the detected ``spans``:
    the spans merged as the engine merges them (overlaps joined) paired, in text order, with the
    surrogates ``note.spans`` places. ``OffsetsMismatch`` unless they render ``note.text`` exactly."""
    merged = sorted(resolve(spans), key=lambda s: (s.start, s.end))
    placed = sorted(note.spans, key=lambda p: (p.start, p.end))
    if len(merged) != len(placed):
        raise OffsetsMismatch(f"{len(merged)} detected spans, {len(placed)} placed surrogates")
    reps = [Replacement(s.start, s.end, s.label, note.text[p.start : p.end], p.strategy)
            for s, p in zip(merged, placed, strict=True)]
    try:
        text, _ = render(original, reps)
    except ValueError:
        raise OffsetsMismatch("the detected spans do not fit the original text") from None
    if text != note.text:
        raise OffsetsMismatch("the replacements do not render the published text")
    return reps


def concept_mentions(original: str, spans: Sequence[Span], note: DeidNote, concepts: Sequence[Concept],
                     model: ModelInfo, trained_on: Sequence[str]) -> ConceptMentions:
    """The ``concepts`` block of ``note``: the mentions ``concepts`` (found in ``original``) that
    touch no PHI span, with offsets into ``note.text`` and their surface there."""
    moved = move_concepts(len(original), concepts, replacements_of(original, spans, note), spans)
    mentions = [ConceptMention(type=c.type, start=c.start, end=c.end, text=note.text[c.start : c.end])
                for c in moved]
    # one mention per (start, end, type): the score is not published
    unique = list({(m.start, m.end, m.type): m for m in mentions}.values())
    return ConceptMentions(model=model, trained_on=list(trained_on), mentions=unique)


__all__ = ["OffsetsMismatch", "concept_mentions", "move_concepts", "replacements_of"]
