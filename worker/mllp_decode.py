"""One validation of a raw HL7 v2 message, used at the edge and in the worker.

``inspect_hl7`` is everything that would dead-letter a raw-hl7 record in the worker (no bytes, an
unparseable or unsupported message, one beyond the shape limits of ``deid.hl7.limits``, MSH-10 or
PID-3 over 256 characters, a field the event contract bounds, note text over
``batch.max_text_chars``), from one parse of the message. The worker turns a ``Rejection`` into
its dead letter (``decode_hl7_record``); the MLLP bridge answers it with AR and the same code
*before* acknowledging, so a sender never gets AA for a message the worker would then drop.
"""

from __future__ import annotations

from dataclasses import dataclass

from deid.events import DeadLetter, DeadLetterReason, RawNote
from deid.hl7 import Hl7Error, Hl7Message, parse_message, parse_note, read_header, to_raw_note
from deid.locales import with_text_locale
from deid.settings import Settings
from worker.decode import record_time


@dataclass(frozen=True, slots=True)
class Rejection:
    """Why a message cannot become a note: the dead-letter ``reason`` and its PHI-free ``detail``;
    ``hl7_error_code`` is the HL7 table 0357 code for ERR-3 of the negative ACK."""

    reason: DeadLetterReason
    detail: str
    hl7_error_code: str = "207"

    @property
    def ack_text(self) -> str:
        """MSA-3 / ERR-3.2 of the AR: the HL7 error code word for a parse error (its dead letter's
        detail, e.g. ``missing_patient_id:PID-3``), else the dead-letter reason itself."""
        return self.detail if self.reason == "hl7_parse_error" else self.reason


@dataclass(frozen=True, slots=True)
class Inspected:
    """One message, parsed once: the note or why not, and what the ACK echoes (the parsed
    message, or its MSH alone when the rest could not be parsed; None when even that failed)."""

    header: Hl7Message | None
    outcome: RawNote | Rejection


def inspect_hl7(value: bytes | None, settings: Settings) -> Inspected:
    """Parse and validate ``value`` once (CPU-bound, bounded by ``deid.hl7.limits``: the bridge
    runs it off the event loop)."""
    if not value:
        return Inspected(None, Rejection("undecodable_bytes", "empty record value"))
    try:
        msg = parse_message(value)
    except Hl7Error as exc:
        return Inspected(read_header(value), Rejection("hl7_parse_error", exc.detail, exc.hl7_error_code))
    except Exception as exc:  # a parser bug: reject this message only
        return Inspected(None, Rejection("hl7_parse_error", f"unparseable:{type(exc).__name__}"))
    try:
        note = to_raw_note(parse_note(msg, authority=settings.mllp.patient_id_authority,
                                      default_language=settings.default_language))
    except Hl7Error as exc:
        return Inspected(msg, Rejection("hl7_parse_error", exc.detail, exc.hl7_error_code))
    except Exception as exc:  # a parser bug or a bound of the event contract: reject this message only
        return Inspected(msg, Rejection("hl7_parse_error", f"unparseable:{type(exc).__name__}"))
    limit = settings.batch.max_text_chars
    if len(note.text) > limit:
        return Inspected(msg, Rejection("text_too_large", f"text has {len(note.text)} chars, limit {limit}"))
    return Inspected(msg, note)


def check_hl7(value: bytes | None, settings: Settings) -> RawNote | Rejection:
    return inspect_hl7(value, settings).outcome


def decode_hl7_record(value: bytes | None, *, topic: str, partition: int, offset: int,
                      timestamp_ms: int | None, settings: Settings) -> RawNote | DeadLetter:
    """A raw-hl7 record -> RawNote, or a DeadLetter: the HL7 twin of ``worker.decode.decode_record``
    (same signature, same PHI-free dead letters), so the worker dispatches on the record's topic."""
    checked = inspect_hl7(value, settings)
    if isinstance(checked.outcome, RawNote):
        return with_text_locale(checked.outcome, settings)  # HL7 never names a locale
    why = checked.outcome
    return DeadLetter(reason=why.reason, detail=why.detail[:500], source_topic=topic,
                      partition=partition, offset=offset, event_id=_control_id(checked.header),
                      received_at=record_time(timestamp_ms))


def _control_id(header: Hl7Message | None) -> str | None:
    """MSH-10 when the header is readable (an identifier of the message, not of a person)."""
    if header is None:
        return None
    cid = header.get(header.msh, 10)
    return cid if 0 < len(cid) <= 256 else None
