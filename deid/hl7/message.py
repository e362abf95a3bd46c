"""Decode and split one HL7 v2 message (ER7) into segments of raw, still-escaped fields.

Splitting is ours (segments, then fields; components and sub-components only when read), numbered
as ``hl7`` 0.4.5 numbers them, after our checks of what that parser let through (MSH and its
encoding characters, segment ids, segment separators other than CR) and of the shape limits
(``deid.hl7.limits``), counted before each level is split. Fields are kept escaped so that the
de-identified message can be rebuilt from exactly what came in; values are unescaped only when
read (``Hl7Message.value``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deid.hl7.errors import Hl7Error
from deid.hl7.escape import Separators, unescape
from deid.hl7.limits import (
    DEFAULT_LIMITS,
    Hl7Limits,
    check_field_count,
    check_segment_count,
    check_segment_shape,
)

_SEGMENT_ID = re.compile(r"^[A-Z][A-Z0-9]{2}$")
_LINE_BREAKS = re.compile(r"\r\n|\n\r|\n|\r")
_CR_BREAKS = re.compile(r"\r\n|\n\r|\r")

# MSH-18 values seen in the wild -> Python codec; empty means "try UTF-8, else Latin-1".
_CHARSETS = {
    "": "",
    "ASCII": "ascii",
    "UNICODE UTF-8": "utf-8",
    "UTF-8": "utf-8",
    "UTF8": "utf-8",
    "8859/1": "latin-1",
    "8859/15": "iso8859-15",
    "ISO-8859-1": "latin-1",
    "ISO8859-1": "latin-1",
    "ISO-8859-15": "iso8859-15",
    "WINDOWS-1252": "cp1252",
    "CP1252": "cp1252",
}


@dataclass(frozen=True, slots=True)
class Hl7Message:
    """Segments as lists of raw fields; ``segments[i][n]`` is field n (MSH numbered as in the
    standard: ``[1]`` is the field separator, ``[2]`` the encoding characters)."""

    segments: tuple[tuple[str, ...], ...]
    separators: Separators
    codec: str  # the codec the bytes were decoded with (for \\Xhh\\ escapes)

    def first(self, segment_id: str) -> tuple[str, ...] | None:
        for seg in self.segments:
            if seg[0] == segment_id:
                return seg
        return None

    def all(self, segment_id: str) -> list[tuple[str, ...]]:
        return [seg for seg in self.segments if seg[0] == segment_id]

    def repetitions(self, raw_field: str) -> list[str]:
        return raw_field.split(self.separators.repetition) if raw_field else []

    def components(self, raw_rep: str) -> list[str]:
        return raw_rep.split(self.separators.component)

    def subcomponents(self, raw_comp: str) -> list[str]:
        return raw_comp.split(self.separators.subcomponent)

    def value(self, raw: str) -> str:
        return unescape(raw, self.separators, self.codec)

    def get(self, segment: tuple[str, ...] | None, field: int, component: int = 1, rep: int = 0) -> str:
        """Unescaped component ``component`` (1-based) of repetition ``rep`` of ``field``; ''
        when absent. Sub-components are joined with a space."""
        if segment is None or field >= len(segment):
            return ""
        reps = self.repetitions(segment[field])
        if rep >= len(reps):
            return ""
        comps = self.components(reps[rep])
        if component > len(comps):
            return ""
        subs = self.subcomponents(comps[component - 1])
        return " ".join(s for s in (self.value(x).strip() for x in subs) if s)

    @property
    def msh(self) -> tuple[str, ...]:
        return self.segments[0]


def decode_bytes(payload: bytes) -> tuple[str, str]:
    """Text of the message and the codec used, from MSH-18 when it names a known charset."""
    if not payload or not payload.strip():
        raise Hl7Error("empty_message")
    probe = payload.lstrip(b"\xef\xbb\xbf \t\r\n").decode("latin-1")
    codec = _CHARSETS.get(_msh18(probe).upper())
    if codec is None:
        raise Hl7Error("unsupported_charset", "MSH-18")
    text: str
    if codec:
        try:
            text = payload.decode(codec)
        except UnicodeDecodeError as exc:
            raise Hl7Error("undecodable_bytes") from exc
    else:
        try:
            text, codec = payload.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            text, codec = payload.decode("latin-1"), "latin-1"
    return text.lstrip("\ufeff"), codec


def _msh18(text: str) -> str:
    if not text.startswith("MSH") or len(text) < 4:
        return ""
    line = _LINE_BREAKS.split(text, maxsplit=1)[0]
    # fields[0] = "MSH", fields[1] = MSH-2, so MSH-n is fields[n - 1]; split no further than
    # MSH-18 (this runs before the shape limits: a hostile MSH may hold millions of separators)
    fields = line.split(text[3], 18)
    if len(fields) < 18:
        return ""
    comp = fields[1][:1] or "^"
    return fields[17].split(comp, 1)[0].strip()


def parse_message(payload: bytes | str, limits: Hl7Limits = DEFAULT_LIMITS) -> Hl7Message:
    """Split one message; raises ``Hl7Error`` with a machine-readable reason when malformed or
    beyond ``limits`` (checked before each level is split: the work is linear in the length)."""
    if isinstance(payload, bytes):
        text, codec = decode_bytes(payload)
    else:
        text, codec = payload, "utf-8"
    text = text.strip(" \t\r\n\x00")
    if not text:
        raise Hl7Error("empty_message")
    if not text.startswith("MSH"):
        raise Hl7Error("missing_msh")
    seps = _separators(text)
    # CR is the segment separator; LF alone only when the message has no CR at all (a file
    # saved on Unix). With CRs present, a lone LF is data: senders put raw line breaks in OBX-5.
    has_cr = "\r" in text
    check_segment_count(text, "\r" if has_cr else "\n", limits)
    lines = [ln for ln in (_CR_BREAKS.split(text) if has_cr else text.split("\n")) if ln.strip()]
    for ln in lines:
        if not _SEGMENT_ID.match(ln[:3]) or (len(ln) > 3 and ln[3] != seps.field):
            raise Hl7Error("bad_segment_id")
    if sum(1 for ln in lines if ln.startswith("MSH")) != 1:
        raise Hl7Error("unexpected_segment", "MSH")
    # ``hl7.parse`` (0.4.5) strips the whole message, Unicode blanks included: same here
    lines[-1] = lines[-1].rstrip()
    segments: list[tuple[str, ...]] = []
    for ln in lines:
        check_field_count(ln, seps.field, limits)
        fields = split_segment(ln, seps.field)
        check_segment_shape(ln, fields, seps, limits)
        segments.append(fields)
    msg = Hl7Message(segments=tuple(segments), separators=seps, codec=codec)
    _check_msh(msg)
    return msg


def split_segment(line: str, field_sep: str) -> tuple[str, ...]:
    """One segment's raw fields, numbered as ``hl7.parse`` 0.4.5 numbers them (the parser of
    record, PLATFORM.md; ``tests/hl7/test_hl7_limits.py`` checks both agree): in an MSH, ``[1]``
    is the field separator and ``[2]`` the encoding characters. Our own split keeps each field one
    string (``hl7.parse`` builds an object per component and sub-component, millions for a
    hostile message, only for us to join them back)."""
    if not line.startswith("MSH"):
        return tuple(line.split(field_sep))
    end = line.find(field_sep, 4)
    rest = line[end + 1 :] if end >= 0 else ""
    head = ("MSH", line[3], line[4:end] if end >= 0 else line[4:])
    return head + tuple(rest.split(field_sep)) if rest else head


def read_header(payload: bytes, limits: Hl7Limits = DEFAULT_LIMITS) -> Hl7Message | None:
    """The message's MSH alone, when it can be read, for the acknowledgement of a message that
    could not be parsed (MSA-2 then names its control id); None otherwise. Only the bytes up to
    the first line break are looked at (a line break is one byte in every supported charset)."""
    head = payload.lstrip(b"\xef\xbb\xbf \t\r\n\x00")
    cut = min((i for i in (head.find(b"\r"), head.find(b"\n")) if i >= 0), default=len(head))
    try:
        return parse_message(head[:cut], limits)
    except ValueError:  # Hl7Error, or bytes no codec reads
        return None


def _separators(text: str) -> Separators:
    if len(text) < 8:
        raise Hl7Error("truncated_segment", "MSH")
    fs = text[3]
    end = text.find(fs, 4)
    enc = text[4:end] if end > 0 else ""
    chars = fs + enc[:4]
    # 4 encoding characters (5 from v2.7: the truncation character), all distinct, none of them
    # alphanumeric, blank or a line break
    if (
        len(enc) not in (4, 5)
        or len(set(fs + enc)) != len(fs + enc)
        or any(c.isalnum() or c.isspace() for c in chars)
    ):
        raise Hl7Error("bad_encoding_characters", "MSH-2")
    return Separators(field=fs, component=enc[0], repetition=enc[1], escape=enc[2], subcomponent=enc[3])


def _check_msh(msg: Hl7Message) -> None:
    msh = msg.msh
    if len(msh) < 13:  # up to MSH-12 (version), required
        raise Hl7Error("truncated_segment", "MSH")
    for n in (9, 10, 12):
        if not msg.get(msh, n):
            raise Hl7Error("missing_required_field", f"MSH-{n}")
