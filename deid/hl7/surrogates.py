"""Surrogates for the identity fields of a message, from the same memo as the note's text.

The values ``identity_values`` lists become a synthetic companion note of the same patient (one
value per line, one span each) that goes through the ordinary ``Substituter``: same memo keys
(a surname alone shares its entry with the surname of a full name in the text, an ISO date with
the same day written ``15/03/2024``), same budget ledger, replay-safe under its own event id.

A person name comes as one value "FAMILY, Given Middle" (``scrub._Scrubber._name``), so it is
read as one person whose surname and given names share the text's identity entries; the parts
of an address come one per line, one after the other, so the place operator groups them into one
address rendered from one table row (town, postcode, state or department together).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from deid.events import DeidNote, ModelInfo, RawNote
from deid.labels import Label
from deid.spans import Span

COMPANION_SUFFIX = "#hl7-fields"


class SubstituterLike(Protocol):
    async def substitute(
        self, notes: Sequence[RawNote], spans: Sequence[Sequence[Span]], model: ModelInfo
    ) -> list[DeidNote]: ...


def companion_note(note: RawNote, values: Sequence[tuple[Label, str]]) -> tuple[RawNote, list[Span]]:
    """The synthetic note and its spans (values with a line break are left out: the lookup then
    answers a placeholder for them)."""
    parts: list[str] = []
    spans: list[Span] = []
    pos = 0
    for label, value in values:
        if not value or "\n" in value or "\r" in value:
            continue
        spans.append(Span(pos, pos + len(value), label, source="hl7"))
        parts.append(value)
        pos += len(value) + 1
    event_id = note.event_id[: 256 - len(COMPANION_SUFFIX)] + COMPANION_SUFFIX
    companion = note.model_copy(update={"event_id": event_id, "text": "\n".join(parts)})
    return companion, spans


async def resolve_identity_surrogates(
    substituter: SubstituterLike, note: RawNote, values: Sequence[tuple[Label, str]], model: ModelInfo
) -> dict[tuple[Label, str], str]:
    """(label, original) -> surrogate for ``values`` of ``note``'s patient. Anything that cannot
    be matched back is left out (``mapping_lookup`` answers its placeholder)."""
    companion, spans = companion_note(note, values)
    if not spans:
        return {}
    [out] = await substituter.substitute([companion], [spans], model)
    placed = sorted(out.spans, key=lambda s: s.start)
    if len(placed) != len(spans):
        return {}
    result: dict[tuple[Label, str], str] = {}
    for span, p in zip(spans, placed, strict=True):
        result[(span.label, companion.text[span.start : span.end])] = out.text[p.start : p.end]
    return result
