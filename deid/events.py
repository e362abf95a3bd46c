"""Python models of the event contracts in ``schemas/`` (a test checks the two do not drift).

Encoding is orjson; ``encode``/``decode`` are the only way events cross a process boundary.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

SCHEMA_VERSION = 1


def _not_a_bool(value: Any) -> Any:
    # JSON true equals 1 in Python, so a bare Literal[1] takes it even in strict mode; the
    # schema's "type": "integer" does not.
    if isinstance(value, bool):
        raise ValueError("schema_version must be the integer 1")
    return value


SchemaVersion = Annotated[Literal[1], BeforeValidator(_not_a_bool)]


# The window of a plausible document date: a note dated 1850 or 2999 would anchor every date of
# the patient's timeline there (issue 33), so it is refused rather than read.
EARLIEST_DOCUMENT = date(1900, 1, 1)


def latest_document() -> date:
    return date.today() + timedelta(days=366)


def plausible_document_date(day: date) -> bool:
    return EARLIEST_DOCUMENT <= day <= latest_document()


class RawNote(BaseModel):
    """A clinical note as producers send it (topic ``raw-notes``)."""

    model_config = ConfigDict(extra="forbid")

    schema_version: SchemaVersion = 1
    event_id: str = Field(min_length=1, max_length=256)
    patient_id: str = Field(min_length=1, max_length=256)
    document_id: str | None = Field(default=None, max_length=256)
    note_type: str | None = Field(default=None, max_length=128)
    language: Literal["fr", "es", "en"] = "fr"
    document_date: date | None = None  # reference for durations; absent -> dates use placeholders
    # Conventions of the feed: "en-US" reads 3/9/2024 as March 9 and draws US places, "en-GB" day
    # first and UK places; absent -> DEID_LOCALES for the language, else (English) the locale the
    # text shows (deid.locales, set by the worker as it decodes), else fr-FR, es-ES, en-US.
    locale: Literal["fr-FR", "es-ES", "en-US", "en-GB"] | None = None
    # Order of numeric dates, overriding the locale's: "dmy" (12/03/2024 = 12 March) or "mdy".
    date_order: Literal["dmy", "mdy"] | None = None
    text: str
    source: dict[str, Any] = Field(default_factory=dict)


class SubstitutedSpan(BaseModel):
    """Where a surrogate sits in the output text; never the original value."""

    model_config = ConfigDict(extra="forbid")

    start: int = Field(ge=0)
    end: int = Field(ge=0)
    label: str
    strategy: str


class PrivacyAccount(BaseModel):
    model_config = ConfigDict(extra="forbid")

    epsilon_spent: float = Field(ge=0)  # by this note (0 on a replay)
    patient_epsilon_total: float = Field(ge=0)
    patient_epsilon_cap: float = Field(ge=0)
    exhausted: bool  # some values got the deterministic fallback because the cap was reached
    fallback_count: int = Field(default=0, ge=0)
    # What the epsilon figures add up: each release's epsilon per one unit of its own metric (days,
    # months or years for dates, years for ages and birth dates, feature distance for places).
    epsilon_basis: Literal["sum-per-unit"] = "sum-per-unit"


class ModelInfo(BaseModel):
    model_config = ConfigDict(extra="forbid", protected_namespaces=())

    name: str
    version: str


class ConceptMention(BaseModel):
    """A concept mention in the de-identified text: ``text == DeidNote.text[start:end]``. Never a
    PHI span: a mention that overlaps or touches a detected PHI span is not published."""

    model_config = ConfigDict(extra="forbid")

    type: str  # NORMALIZABLES, NOTNORMALIZABLES, PROTEINAS (deid.concepts.CONCEPT_TYPES)
    start: int = Field(ge=0)  # in the de-identified text
    end: int = Field(ge=0)
    text: str


class ConceptMentions(BaseModel):
    """Drug, chemical and protein mentions of a note (issue 20); present only where concept
    extraction ran (``DEID_CONCEPTS__ENABLED`` and the note's language listed)."""

    model_config = ConfigDict(extra="forbid", protected_namespaces=())

    version: SchemaVersion = 1  # of this block
    model: ModelInfo  # the concept tagger
    trained_on: list[str]  # languages the tagger learned from: elsewhere it finds only what it knew
    mentions: list[ConceptMention]


class DeidNote(BaseModel):
    """A de-identified note (topic ``deid-notes``), keyed by ``patient_pseudonym``."""

    model_config = ConfigDict(extra="forbid")

    schema_version: SchemaVersion = 1
    event_id: str
    patient_pseudonym: str
    document_pseudonym: str | None = None
    note_type: str | None = None
    language: Literal["fr", "es", "en"]
    text: str
    spans: list[SubstitutedSpan]
    privacy: PrivacyAccount
    model: ModelInfo
    timings_ms: dict[str, float] = Field(default_factory=dict)
    # Labels detected in the note but left in clear by the configured policy (e.g. AGE under the
    # "random" profile below 90, SEX): said here so that no consumer takes them for surrogates.
    kept_labels: list[str] = Field(default_factory=list)
    # Additive (schemas/README.md): omitted from the encoded event, not null, when concept
    # extraction did not run, so the bytes of a topic without it are those of before.
    concepts: ConceptMentions | None = Field(default=None, exclude_if=lambda v: v is None)


DeadLetterReason = Literal[
    "invalid_json",
    "undecodable_bytes",
    "schema_violation",
    "missing_patient_id",
    "text_too_large",
    "unsupported_language",
    "hl7_parse_error",
    "processing_error",
    "detection_timeout",
    "document_date_out_of_range",
]


class DeadLetter(BaseModel):
    """A rejected input (topic ``deid-dlq``). Carries no payload text: the raw event may hold PHI;
    operators find it by topic, partition and offset in the (access-controlled) input topic."""

    model_config = ConfigDict(extra="forbid")

    schema_version: SchemaVersion = 1
    reason: DeadLetterReason
    detail: str = Field(max_length=500)  # machine-made, PHI-free (e.g. the failing JSON path)
    source_topic: str
    partition: int = Field(ge=0)
    offset: int = Field(ge=0)
    event_id: str | None = None
    received_at: str  # RFC 3339 UTC


def encode(model: BaseModel) -> bytes:
    return orjson.dumps(model.model_dump(mode="json", exclude_none=False))


def decode_raw_note(payload: bytes) -> RawNote:
    """Parse and validate in strict mode (exactly what ``schemas/raw-note.v1.json`` accepts: no
    coercion of a number or a datetime to a date, of ``true`` to 1...); raises
    ``pydantic.ValidationError``."""
    return RawNote.model_validate_json(payload, strict=True)
