"""The JSON Schema files in schemas/ and the pydantic models of deid.events describe the same events."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel, ValidationError

from deid.events import DeadLetter, DeidNote, ModelInfo, PrivacyAccount, RawNote, SubstitutedSpan, encode

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
MODELS: dict[str, type[BaseModel]] = {
    "raw-note.v1.json": RawNote,
    "deid-note.v1.json": DeidNote,
    "dead-letter.v1.json": DeadLetter,
}


def load(name: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    return schema


def validator(name: str) -> Draft202012Validator:
    return Draft202012Validator(load(name), format_checker=Draft202012Validator.FORMAT_CHECKER)


_COMPARED = ("type", "const", "enum", "minimum", "maximum", "exclusiveMinimum", "minLength", "maxLength",
             "format", "default")


def shape(node: Any, root: dict[str, Any]) -> Any:
    """What a schema node accepts, with refs resolved and documentation keywords dropped."""
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        ref = node["$ref"]
        assert ref.startswith("#/$defs/"), ref
        return shape(root["$defs"][ref.removeprefix("#/$defs/")], root)
    out: dict[str, Any] = {k: node[k] for k in _COMPARED if k in node}
    if "anyOf" in node:
        out["anyOf"] = sorted((shape(n, root) for n in node["anyOf"]),
                              key=lambda s: json.dumps(s, sort_keys=True))
    if "items" in node:
        out["items"] = shape(node["items"], root)
    if "properties" in node:
        out["properties"] = {k: shape(v, root) for k, v in node["properties"].items()}
        out["required"] = sorted(node.get("required", []))
    if "additionalProperties" in node:
        out["additionalProperties"] = shape(node["additionalProperties"], root)
    return out


@pytest.mark.parametrize("name", sorted(MODELS))
def test_schema_file_is_a_valid_draft_2020_12_schema(name: str) -> None:
    schema = load(name)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_schema_file_has_the_same_fields_and_required_set_as_the_model(name: str) -> None:
    file_schema = load(name)
    model_schema = MODELS[name].model_json_schema()
    assert set(file_schema["properties"]) == set(model_schema["properties"])
    assert set(file_schema["required"]) == set(model_schema["required"])


@pytest.mark.parametrize("name", sorted(MODELS))
def test_schema_file_accepts_exactly_what_the_model_accepts_field_by_field(name: str) -> None:
    file_schema = load(name)
    model_schema = MODELS[name].model_json_schema()
    assert shape(file_schema, file_schema) == shape(model_schema, model_schema)


def _deid_note() -> DeidNote:
    return DeidNote(
        event_id="e-1",
        patient_pseudonym="p-9f2c",
        document_pseudonym=None,
        language="fr",
        text="Vu le [DATE].",
        spans=[SubstitutedSpan(start=6, end=12, label="DATE", strategy="placeholder")],
        privacy=PrivacyAccount(epsilon_spent=0.5, patient_epsilon_total=1.5, patient_epsilon_cap=10.0,
                               exhausted=False),
        model=ModelInfo(name="rules", version="0.1.0"),
        timings_ms={"detect": 1.5},
    )


GOOD: list[tuple[str, dict[str, Any]]] = [
    ("raw-note.v1.json", {"event_id": "e-1", "patient_id": "P1", "text": "Vu le 12/02/2020."}),
    ("raw-note.v1.json", {"schema_version": 1, "event_id": "e-2", "patient_id": "P1", "document_id": "D7",
                          "note_type": "CR", "language": "es", "document_date": "2020-02-26",
                          "text": "", "source": {"system": "emr", "n": 3}}),
    ("raw-note.v1.json", {"event_id": "e-3", "patient_id": "P1", "text": "x", "document_id": None,
                          "document_date": None}),
    ("deid-note.v1.json", orjson.loads(encode(_deid_note()))),
    ("deid-note.v1.json", {**orjson.loads(encode(_deid_note())), "concepts": {
        "version": 1, "model": {"name": "deid-concepts", "version": "1"}, "trained_on": ["es"],
        "mentions": [{"type": "NORMALIZABLES", "start": 0, "end": 2, "text": "Vu"}]}}),
    ("dead-letter.v1.json", orjson.loads(encode(DeadLetter(
        reason="invalid_json", detail="line 1 column 3", source_topic="raw-notes", partition=0, offset=42,
        received_at="2026-01-31T12:00:00Z")))),
]

_RAW = {"event_id": "e-1", "patient_id": "P1", "text": "t"}
_DEID = orjson.loads(encode(_deid_note()))
_DLQ = {"reason": "processing_error", "detail": "", "source_topic": "raw-notes", "partition": 0, "offset": 0,
        "received_at": "2026-01-31T12:00:00Z"}


def _without(d: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k != key}


BAD: list[tuple[str, str, dict[str, Any]]] = [
    ("missing patient_id", "raw-note.v1.json", _without(_RAW, "patient_id")),
    ("missing text", "raw-note.v1.json", _without(_RAW, "text")),
    ("empty event_id", "raw-note.v1.json", {**_RAW, "event_id": ""}),
    ("unknown field", "raw-note.v1.json", {**_RAW, "patient_name": "x"}),
    ("unsupported language", "raw-note.v1.json", {**_RAW, "language": "de"}),
    ("future schema version", "raw-note.v1.json", {**_RAW, "schema_version": 2}),
    ("text not a string", "raw-note.v1.json", {**_RAW, "text": 3}),
    ("patient_id too long", "raw-note.v1.json", {**_RAW, "patient_id": "x" * 257}),
    ("source not an object", "raw-note.v1.json", {**_RAW, "source": "emr"}),
    ("missing privacy", "deid-note.v1.json", _without(_DEID, "privacy")),
    ("negative span offset", "deid-note.v1.json",
     {**_DEID, "spans": [{"start": -1, "end": 2, "label": "DATE", "strategy": "placeholder"}]}),
    ("original value in a span", "deid-note.v1.json",
     {**_DEID, "spans": [{"start": 0, "end": 2, "label": "DATE", "strategy": "placeholder", "value": "x"}]}),
    ("negative epsilon", "deid-note.v1.json",
     {**_DEID, "privacy": {**_DEID["privacy"], "epsilon_spent": -1}}),
    ("model without version", "deid-note.v1.json", {**_DEID, "model": {"name": "rules"}}),
    ("non-numeric timing", "deid-note.v1.json", {**_DEID, "timings_ms": {"detect": "fast"}}),
    ("concept mention with a score", "deid-note.v1.json", {**_DEID, "concepts": {
        "model": {"name": "c", "version": "1"}, "trained_on": ["es"],
        "mentions": [{"type": "PROTEINAS", "start": 0, "end": 2, "text": "Vu", "score": 0.9}]}}),
    ("concepts without a model", "deid-note.v1.json",
     {**_DEID, "concepts": {"trained_on": [], "mentions": []}}),
    ("unknown reason", "dead-letter.v1.json", {**_DLQ, "reason": "oops"}),
    ("detail too long", "dead-letter.v1.json", {**_DLQ, "detail": "x" * 501}),
    ("negative offset", "dead-letter.v1.json", {**_DLQ, "offset": -1}),
    ("payload carried", "dead-letter.v1.json", {**_DLQ, "text": "PHI"}),
    ("missing received_at", "dead-letter.v1.json", _without(_DLQ, "received_at")),
]


@pytest.mark.parametrize(("name", "event"), GOOD)
def test_good_event_passes_the_schema_file_and_the_model(name: str, event: dict[str, Any]) -> None:
    validator(name).validate(event)
    MODELS[name].model_validate(event)


@pytest.mark.parametrize(("why", "name", "event"), BAD, ids=[b[0] for b in BAD])
def test_bad_event_fails_the_schema_file_and_the_model(why: str, name: str, event: dict[str, Any]) -> None:
    assert list(validator(name).iter_errors(event)), why
    with pytest.raises(ValidationError):
        MODELS[name].model_validate(event)


def test_a_malformed_document_date_fails_the_schema_file() -> None:
    assert list(validator("raw-note.v1.json").iter_errors({**_RAW, "document_date": "26/02/2020"}))


def test_a_deid_note_without_concepts_is_encoded_without_the_field_as_before() -> None:
    assert "concepts" not in orjson.loads(encode(_deid_note()))


def test_an_encoded_event_round_trips_through_the_schema() -> None:
    note = RawNote(event_id="e", patient_id="p", text="t", document_date="2020-02-26")  # type: ignore[arg-type]
    validator("raw-note.v1.json").validate(orjson.loads(encode(note)))
