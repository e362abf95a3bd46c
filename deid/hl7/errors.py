"""The one error of the HL7 layer: a machine-readable reason, never a value from the message."""

from __future__ import annotations

from typing import Literal

Hl7ErrorReason = Literal[
    "empty_message",
    "missing_msh",
    "bad_encoding_characters",
    "bad_segment_id",
    "unexpected_segment",
    "truncated_segment",
    "missing_required_field",
    "unparseable",
    "unsupported_charset",
    "undecodable_bytes",
    "unsupported_message_type",
    "missing_pid",
    "missing_patient_id",
    "no_note_text",
    "too_many_segments",
    "too_many_fields",
    "too_many_repetitions",
    "too_many_components",
    "too_many_subcomponents",
    "bad_framing",
    "message_too_large",
]


class Hl7Error(ValueError):
    """A message that cannot be accepted. ``reason`` is a closed code; ``location`` names a
    segment or field (``"MSH-10"``), never its content. Maps to the dead-letter reason
    ``hl7_parse_error`` with ``detail`` as its detail."""

    def __init__(self, reason: Hl7ErrorReason, location: str | None = None) -> None:
        self.reason: Hl7ErrorReason = reason
        self.location = location
        super().__init__(self.detail)

    @property
    def detail(self) -> str:
        return f"{self.reason}:{self.location}" if self.location else self.reason

    @property
    def hl7_error_code(self) -> str:
        """HL7 table 0357 code for ERR-3 of a negative acknowledgement."""
        return _ERR_CODES.get(self.reason, "207")


_ERR_CODES: dict[str, str] = {
    "missing_msh": "100",
    "bad_segment_id": "100",
    "unexpected_segment": "100",
    "truncated_segment": "101",
    "missing_required_field": "101",
    "missing_pid": "100",
    "missing_patient_id": "101",
    "no_note_text": "101",
    "bad_encoding_characters": "102",
    "unsupported_message_type": "200",
    "unsupported_charset": "203",
    # Beyond the shape limits (deid.hl7.limits): more segments than any message structure holds is
    # a segment sequence error; more fields, repetitions or components than any data type has, a
    # data type error.
    "too_many_segments": "100",
    "too_many_fields": "102",
    "too_many_repetitions": "102",
    "too_many_components": "102",
    "too_many_subcomponents": "102",
}
