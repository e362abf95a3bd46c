"""Bounds on the shape of one HL7 v2 message, checked while it is split.

A frame of a few MiB can hold millions of separators; every piece the parser makes costs an object
and time under the interpreter lock. The limits below are far beyond any real ORU/MDM message and
are checked by counting separators (C-speed ``str.count``) *before* the pieces are made, so a
hostile message is refused in time linear in its length, not parsed and then counted.

Defaults, and why no real message reaches them:

- ``max_segments`` 10,000 (blank lines count): a note at the text limit (200,000 characters)
  sent one OBX per line still needs lines of 20 characters on average to stay under it; ORU and
  MDM messages of the field carry tens to a few hundred segments.
- ``max_fields`` 256 per segment: the widest standard segments (PV1, OBR, PID) have about 50.
- ``max_repetitions`` 10,000 per field: a TX/FT OBX-5 may carry a whole note as one repetition
  per line, the same reasoning as for segments; identifier lists (PID-3) have a handful.
- ``max_components`` 1,000 per repetition, ``max_subcomponents`` 1,000 per component: the
  largest composite data types (XON, XCN, XAD) have fewer than 30 components, HD/CX sub-parts
  fewer than 10; prose with unescaped ``^`` or ``&`` does not reach a thousand in one line.
"""

from __future__ import annotations

from dataclasses import dataclass

from deid.hl7.errors import Hl7Error
from deid.hl7.escape import Separators


@dataclass(frozen=True, slots=True)
class Hl7Limits:
    max_segments: int = 10_000
    max_fields: int = 256
    max_repetitions: int = 10_000
    max_components: int = 1_000
    max_subcomponents: int = 1_000


DEFAULT_LIMITS = Hl7Limits()


def check_segment_count(text: str, segment_break: str, limits: Hl7Limits) -> None:
    """``segment_break`` is the character that ends a segment in ``text`` (CR, or LF in a message
    without any CR); a CRLF pair holds one CR, so counting CRs counts the breaks."""
    if text.count(segment_break) >= limits.max_segments:
        raise Hl7Error("too_many_segments")


def check_field_count(line: str, field_sep: str, limits: Hl7Limits) -> None:
    """The highest field number of the segment ``line``: one per field separator, plus MSH-1 (the
    separator itself) in an MSH."""
    highest = line.count(field_sep) + (1 if line.startswith("MSH") else 0)
    if highest > limits.max_fields:
        raise Hl7Error("too_many_fields", line[:3])


def check_segment_shape(line: str, fields: tuple[str, ...], seps: Separators, limits: Hl7Limits) -> None:
    """Repetitions, components and sub-components of every field of one segment. A segment whose
    separator totals are under the limits cannot have a field over them, so the common case costs
    three counts; only a segment over a total is looked at field by field."""
    if (
        line.count(seps.repetition) < limits.max_repetitions
        and line.count(seps.component) < limits.max_components
        and line.count(seps.subcomponent) < limits.max_subcomponents
    ):
        return
    seg_id = fields[0]
    # MSH-1 and MSH-2 are the separators themselves, not data
    first = 3 if seg_id == "MSH" else 1
    for n in range(first, len(fields)):
        check_field_shape(fields[n], seps, limits, f"{seg_id}-{n}")


def check_field_shape(raw: str, seps: Separators, limits: Hl7Limits, location: str) -> None:
    """Linear in ``len(raw)``: a level is split only when its total count is over the limit, and
    each piece is then counted once."""
    if raw.count(seps.repetition) >= limits.max_repetitions:
        raise Hl7Error("too_many_repetitions", location)
    if raw.count(seps.component) >= limits.max_components:
        for rep in raw.split(seps.repetition):
            if rep.count(seps.component) >= limits.max_components:
                raise Hl7Error("too_many_components", location)
    if raw.count(seps.subcomponent) >= limits.max_subcomponents:
        for rep in raw.split(seps.repetition):
            if rep.count(seps.subcomponent) < limits.max_subcomponents:
                continue
            for comp in rep.split(seps.component):
                if comp.count(seps.subcomponent) >= limits.max_subcomponents:
                    raise Hl7Error("too_many_subcomponents", location)
