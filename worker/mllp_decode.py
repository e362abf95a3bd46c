"""A raw-hl7 record -> RawNote, or a DeadLetter: the HL7 twin of ``worker.decode.decode_record``
(same signature, same PHI-free dead letters), so the worker dispatches on the record's topic."""

from __future__ import annotations

from deid.events import DeadLetter, DeadLetterReason, RawNote
from deid.hl7 import Hl7Error, hl7_to_raw_note, parse_message
from deid.settings import Settings
from worker.decode import record_time


def decode_hl7_record(value: bytes | None, *, topic: str, partition: int, offset: int,
                      timestamp_ms: int | None, settings: Settings) -> RawNote | DeadLetter:
    def dead(reason: DeadLetterReason, detail: str, event_id: str | None = None) -> DeadLetter:
        return DeadLetter(reason=reason, detail=detail[:500], source_topic=topic, partition=partition,
                          offset=offset, event_id=event_id, received_at=record_time(timestamp_ms))

    if not value:
        return dead("undecodable_bytes", "empty record value")
    try:
        note = hl7_to_raw_note(value, settings)
    except Hl7Error as exc:
        return dead("hl7_parse_error", exc.detail, _control_id(value))
    except Exception as exc:  # a parser bug: dead-letter the record, never stall the partition
        return dead("hl7_parse_error", f"unparseable:{type(exc).__name__}", _control_id(value))
    limit = settings.batch.max_text_chars
    if len(note.text) > limit:
        return dead("text_too_large", f"text has {len(note.text)} chars, limit {limit}", note.event_id)
    return note


def _control_id(value: bytes) -> str | None:
    """MSH-10 when the header is readable (an identifier of the message, not of a person)."""
    try:
        msg = parse_message(value)
    except Exception:
        return None
    cid = msg.get(msg.msh, 10)
    return cid if 0 < len(cid) <= 256 else None
