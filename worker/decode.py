"""Kafka record -> RawNote, or a DeadLetter with a machine-readable, PHI-free reason.

The dead letter's ``received_at`` is the input record's own Kafka timestamp, not the wall clock,
so that a redelivered bad event produces a byte-identical dead letter.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson
from pydantic import ValidationError

from deid.events import DeadLetter, DeadLetterReason, RawNote
from deid.settings import Settings

_LANGUAGES = ("fr", "es", "en")


def record_time(timestamp_ms: int | None) -> str:
    ts = (timestamp_ms or 0) / 1000.0
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _event_id(obj: Any) -> str | None:
    if isinstance(obj, dict):
        value = obj.get("event_id")
        if isinstance(value, str) and 0 < len(value) <= 256:
            return value
    return None


def _schema_detail(exc: ValidationError) -> str:
    # Field paths and error types only: pydantic's messages and inputs can echo the payload.
    parts = [f"{'.'.join(str(p) for p in e['loc']) or '<root>'}:{e['type']}" for e in exc.errors()]
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
        return dead("schema_violation", f"<root>:expected object, got {type(obj).__name__}")
    patient = obj.get("patient_id")
    if not isinstance(patient, str) or not patient.strip():
        return dead("missing_patient_id", "patient_id absent, empty or not a string", obj)
    if obj.get("language") is None:
        obj["language"] = settings.default_language
    language = obj["language"]
    if language not in _LANGUAGES:
        return dead("unsupported_language", "language must be one of fr, es, en", obj)
    text = obj.get("text")
    if isinstance(text, str) and len(text) > settings.batch.max_text_chars:
        return dead("text_too_large", f"text has {len(text)} chars, limit {settings.batch.max_text_chars}",
                    obj)
    try:
        return RawNote.model_validate(obj)
    except ValidationError as exc:
        return dead("schema_violation", _schema_detail(exc), obj)
