"""Kafka record -> RawNote, or a DeadLetter with a machine-readable, PHI-free reason.

Validation is strict and equal to ``schemas/raw-note.v1.json`` (pydantic strict mode on the JSON
bytes: no ``true`` for 1, no number or datetime for a date); a test generates events from the
schema and checks that both accept and reject the same ones. Two documented rules are stricter
than the schema: a blank ``patient_id`` (``missing_patient_id``) and a ``text`` longer than
``batch.max_text_chars`` (``text_too_large``). An absent ``language`` takes ``default_language``;
an absent ``locale`` stays absent unless the text of an English note shows one (``deid.locales``).

A dead letter's ``detail`` names fields from a fixed set (the schema's property names, or
``<unknown_field>``) and pydantic's error types: never a name or a value chosen by the producer.
Its ``received_at`` is the input record's own Kafka timestamp, not the wall clock, so that a
redelivered bad event produces a byte-identical dead letter.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson
from pydantic import ValidationError

from deid.events import EARLIEST_DOCUMENT, DeadLetter, DeadLetterReason, RawNote, plausible_document_date
from deid.locales import with_text_locale
from deid.settings import Settings

_LANGUAGES = ("fr", "es", "en")
FIELDS: frozenset[str] = frozenset(RawNote.model_fields)
UNKNOWN_FIELD = "<unknown_field>"
ROOT = "<root>"


def record_time(timestamp_ms: int | None) -> str:
    ts = (timestamp_ms or 0) / 1000.0
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _event_id(obj: Any) -> str | None:
    if isinstance(obj, dict):
        value = obj.get("event_id")
        if isinstance(value, str) and 0 < len(value) <= 256:
            return value
    return None


def schema_detail(exc: ValidationError) -> str:
    """``field:error_type`` pairs. The field is a top-level property of the schema or
    ``<unknown_field>`` (an extra key's name may be PHI); nested paths (inside ``source``, whose
    keys are the producer's) stop at the top-level field. Error types are pydantic's fixed codes."""
    parts: list[str] = []
    for e in exc.errors(include_url=False, include_context=False, include_input=False):
        loc = e["loc"]
        field = str(loc[0]) if loc else ROOT
        if field not in FIELDS:
            field = UNKNOWN_FIELD if loc else ROOT
        part = f"{field}:{e['type']}"
        if part not in parts:
            parts.append(part)
    return "; ".join(parts)[:500]


def decode_record(value: bytes | None, *, topic: str, partition: int, offset: int,
                  timestamp_ms: int | None, settings: Settings) -> RawNote | DeadLetter:
    def dead(reason: DeadLetterReason, detail: str, obj: Any = None) -> DeadLetter:
        return DeadLetter(reason=reason, detail=detail[:500], source_topic=topic, partition=partition,
                          offset=offset, event_id=_event_id(obj), received_at=record_time(timestamp_ms))

    if value is None:
        return dead("undecodable_bytes", "empty record value")
    try:
        value.decode("utf-8")
    except UnicodeDecodeError as exc:
        return dead("undecodable_bytes", f"invalid utf-8 at byte {exc.start}")
    try:
        obj = orjson.loads(value)
    except orjson.JSONDecodeError as exc:
        return dead("invalid_json", f"invalid JSON at char {exc.pos}")
    if not isinstance(obj, dict):
        return dead("schema_violation", f"{ROOT}:model_type")
    patient = obj.get("patient_id")
    if not isinstance(patient, str) or not patient.strip():
        return dead("missing_patient_id", "patient_id absent, empty or not a string", obj)
    if "language" in obj and obj["language"] not in _LANGUAGES:  # null included: the schema says so
        return dead("unsupported_language", "language must be one of fr, es, en", obj)
    text = obj.get("text")
    if isinstance(text, str) and len(text) > settings.batch.max_text_chars:
        return dead("text_too_large", f"text has {len(text)} chars, limit {settings.batch.max_text_chars}",
                    obj)
    try:
        note = RawNote.model_validate_json(value, strict=True)
    except ValidationError as exc:
        # JSON that orjson reads (1,024 levels) but the schema's parser does not (200 levels); one
        # error only, read alone: a record of many unknown keys has as many errors to build
        first = exc.errors(include_url=False, include_input=False)[0] if exc.error_count() == 1 else None
        if first is not None and first["type"] == "json_invalid":
            return dead("invalid_json", "JSON nested deeper than 200 levels", obj)
        return dead("schema_violation", schema_detail(exc), obj)
    if note.document_date is not None and not plausible_document_date(note.document_date):
        return dead("document_date_out_of_range",
                    f"document_date must lie between {EARLIEST_DOCUMENT} and one year from today", obj)
    if "language" not in obj:
        note = note.model_copy(update={"language": settings.default_language})
    # no locale in the event nor in DEID_LOCALES for its language: an English note's is read from
    # its text (DEID_LOCALE_FROM_TEXT), so a UK letter is not read month first with US places
    return with_text_locale(note, settings)
