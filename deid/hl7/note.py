"""ORU^R01 / MDM^T02 (and their usual variants) -> ``RawNote``: text, patient, date, language."""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Literal

from deid.events import RawNote
from deid.hl7.errors import Hl7Error
from deid.hl7.message import Hl7Message, parse_message

if TYPE_CHECKING:
    from deid.settings import Settings

Language = Literal["fr", "es", "en"]

SUPPORTED_TYPES = frozenset({"ORU", "MDM"})
TEXT_TYPES = frozenset({"TX", "FT", "ST"})
_TS_DATE = re.compile(r"^(\d{4})(\d{2})(\d{2})")
_LANGUAGES: dict[str, Language] = {
    "fr": "fr", "fra": "fr", "fre": "fr", "french": "fr", "français": "fr", "francais": "fr",
    "es": "es", "spa": "es", "spanish": "es", "español": "es", "espanol": "es", "castellano": "es",
    "en": "en", "eng": "en", "english": "en", "anglais": "en",
}
# ED (encapsulated data) payloads we read as text: (type of data, subtype) in lower case.
_ED_TEXT_TYPES = frozenset({"text", "tx"})
_ED_TEXT_SUBTYPES = frozenset({"plain", "txt", "text", "x-hl7-text"})


@dataclass(frozen=True, slots=True)
class ParsedHl7:
    message: Hl7Message
    message_type: str  # MSH-9.1, e.g. "ORU"
    trigger: str  # MSH-9.2, e.g. "R01"
    control_id: str  # MSH-10
    patient_id: str
    text: str
    text_obx: tuple[int, ...]  # indexes in message.segments of the OBX that made up the text
    document_date: date | None
    language: Language
    document_id: str | None
    note_type: str | None


def parse_note(
    payload: bytes | str | Hl7Message, *, authority: str | None = None, default_language: Language = "fr"
) -> ParsedHl7:
    """Parse and validate; raises ``Hl7Error`` for anything that cannot become a note."""
    msg = payload if isinstance(payload, Hl7Message) else parse_message(payload)
    msh = msg.msh
    mtype, trigger = msg.get(msh, 9, 1).upper(), msg.get(msh, 9, 2).upper()
    if mtype not in SUPPORTED_TYPES:
        raise Hl7Error("unsupported_message_type", "MSH-9")
    pids = msg.all("PID")
    if not pids:
        raise Hl7Error("missing_pid")
    if len(pids) > 1:
        # an ORU may batch several patients; one note per patient is the contract, and joining
        # their OBX would file one patient's text under another's memo
        raise Hl7Error("unexpected_segment", "PID")
    pid = pids[0]
    patient_id = patient_identifier(msg, pid, authority)
    text, text_obx = note_text(msg)
    if not text.strip():
        raise Hl7Error("no_note_text")
    txa = msg.first("TXA")
    obr = msg.first("OBR")
    document_id = (msg.get(txa, 12) or msg.get(obr, 3) or msg.get(obr, 2)) or None
    note_type = (msg.get(txa, 2) or msg.get(obr, 4, 2) or msg.get(obr, 4, 1)) or None
    return ParsedHl7(
        message=msg,
        message_type=mtype,
        trigger=trigger,
        control_id=msg.get(msh, 10),
        patient_id=patient_id,
        text=text,
        text_obx=text_obx,
        document_date=document_date(msg),
        language=language(msg, default_language),
        document_id=document_id[:256] if document_id else None,
        note_type=note_type[:128] if note_type else None,
    )


def hl7_to_raw_note(payload: bytes, settings: Settings) -> RawNote:
    """The worker's entry point for a record of the raw-HL7 topic (raises ``Hl7Error``)."""
    parsed = parse_note(payload, authority=settings.mllp.patient_id_authority,
                        default_language=settings.default_language)
    return to_raw_note(parsed)


def to_raw_note(parsed: ParsedHl7) -> RawNote:
    if len(parsed.control_id) > 256 or len(parsed.patient_id) > 256:
        raise Hl7Error("unparseable", "MSH-10" if len(parsed.control_id) > 256 else "PID-3")
    return RawNote(
        event_id=parsed.control_id,
        patient_id=parsed.patient_id,
        document_id=parsed.document_id,
        note_type=parsed.note_type,
        language=parsed.language,
        document_date=parsed.document_date,
        text=parsed.text,
        # no PHI here: the sending application and facility stay out (they name the hospital)
        source={"format": "hl7v2", "message_type": parsed.message_type, "trigger": parsed.trigger},
    )


def patient_identifier(msg: Hl7Message, pid: tuple[str, ...], authority: str | None) -> str:
    """PID-3: the repetition whose assigning authority (namespace or universal id) is
    ``authority``, else (no authority configured) the first repetition with an ID."""
    if len(pid) <= 3 or not pid[3]:
        raise Hl7Error("missing_patient_id", "PID-3")
    wanted = authority.strip().casefold() if authority else None
    for i, _ in enumerate(msg.repetitions(pid[3])):
        ident = msg.get(pid, 3, 1, i)
        if not ident:
            continue
        if wanted is None:
            return ident
        comps = msg.components(msg.repetitions(pid[3])[i])
        hd = msg.subcomponents(comps[3]) if len(comps) > 3 else []
        names = {msg.value(s).strip().casefold() for s in hd[:2]}
        if wanted in names:
            return ident
    raise Hl7Error("missing_patient_id", "PID-3")


def note_text(msg: Hl7Message) -> tuple[str, tuple[int, ...]]:
    """OBX-5 of the text-bearing OBX (TX, FT, ST; ED holding text), in order, one per line."""
    parts: list[str] = []
    used: list[int] = []
    last = len(msg.segments) - 1
    for idx, seg in enumerate(msg.segments):
        if seg[0] != "OBX":
            continue
        if len(seg) < 6:
            # HL7 lets trailing empty fields go, so a short text OBX inside the message is a blank
            # line; as the last segment it is the mark of a message cut short.
            if idx == last and len(seg) > 2 and msg.get(seg, 2).upper() in TEXT_TYPES | {"ED"}:
                raise Hl7Error("truncated_segment", "OBX")
            continue
        vtype = msg.get(seg, 2).upper() or "TX"  # OBX-2 is often left out by text-only senders
        text: str | None = None
        if vtype in TEXT_TYPES:
            # a TX/FT repetition is a line; components are kept as written (senders rarely
            # escape a ^ in prose)
            lines = [msg.value(r) for r in msg.repetitions(seg[5])]
            text = "\n".join(lines)
        elif vtype == "ED":
            text = _ed_text(msg, seg[5])
        if text is not None and text.strip():
            parts.append(text.replace("\r\n", "\n").replace("\r", "\n"))
            used.append(idx)
    return "\n".join(parts), tuple(used)


def _ed_text(msg: Hl7Message, raw: str) -> str | None:
    comps = msg.components(msg.repetitions(raw)[0]) if raw else []
    if len(comps) < 5:
        return None
    kind, subtype, enc = (msg.value(c).strip().casefold() for c in comps[1:4])
    if kind not in _ED_TEXT_TYPES and subtype not in _ED_TEXT_SUBTYPES:
        return None
    data = msg.value(comps[4])
    try:
        if enc == "base64":
            raw_bytes = base64.b64decode("".join(data.split()), validate=True)
        elif enc == "hex":
            raw_bytes = bytes.fromhex("".join(data.split()))
        elif enc in ("a", ""):
            return data
        else:
            return None
    except (binascii.Error, ValueError):
        return None
    for codec in (msg.codec, "utf-8"):
        try:
            return raw_bytes.decode(codec).lstrip("\ufeff")
        except (UnicodeDecodeError, LookupError):
            continue
    return None


def ts_date(value: str) -> date | None:
    m = _TS_DATE.match(value.strip())
    if not m:
        return None
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def document_date(msg: Hl7Message) -> date | None:
    """TXA-4 (activity), TXA-6 (origination), OBR-7 (observation), OBX-14, then MSH-7."""
    txa, obr = msg.first("TXA"), msg.first("OBR")
    candidates = [msg.get(txa, 4), msg.get(txa, 6), msg.get(obr, 7)]
    candidates += [msg.get(obx, 14) for obx in msg.all("OBX")]
    candidates.append(msg.get(msg.msh, 7))
    for value in candidates:
        d = ts_date(value)
        if d is not None:
            return d
    return None


def language(msg: Hl7Message, default: Language) -> Language:
    """MSH-19 (language of the message), else the default. PID-15 (the patient's language) is
    deliberately not used: it says what the patient speaks, not what the clinician wrote."""
    for value in (msg.get(msg.msh, 19, 1), msg.get(msg.msh, 19, 2)):
        key = value.strip().casefold().replace("_", "-").split("-")[0]
        if key in _LANGUAGES:
            return _LANGUAGES[key]
    return default
