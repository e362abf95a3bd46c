"""Strict events: the worker's validation accepts exactly what ``schemas/raw-note.v1.json``
accepts. Cases are generated from the schema itself (``from_schema`` below walks its keywords) and
then broken one field at a time (any JSON value in any field, unknown keys, missing keys); the
JSON Schema validator and the strict pydantic model must give the same verdict on every one.

(hypothesis-jsonschema 0.23.1, the last release, fails on this Hypothesis: it uses private
internals that moved. The raw-note schema uses a dozen keywords; the generator covers exactly
those and fails loudly on any other, so a schema change cannot silently go untested.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from pydantic import ValidationError

from deid.events import DeadLetter, RawNote, decode_raw_note
from deid.settings import Settings
from worker.decode import FIELDS, UNKNOWN_FIELD, decode_record

SCHEMA: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parents[2] / "schemas" / "raw-note.v1.json").read_text(encoding="utf-8"))
VALIDATOR = Draft202012Validator(SCHEMA, format_checker=Draft202012Validator.FORMAT_CHECKER)
# Far above any generated text: the size rule is tested on its own.
WORKER = Settings.model_validate({"batch": {"max_text_chars": 10**9}, "default_language": "es"})

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20)
    | st.sampled_from(["2024-02-29", "2024-02-30", "2024-01-01T00:00:00", "20240101", "fr", "en-GB",
                       "mdy", "", "x" * 257, "1"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6)


_KNOWN = {"$schema", "$id", "title", "description", "default", "type", "additionalProperties", "required",
          "properties", "const", "enum", "minLength", "maxLength", "anyOf", "format", "minimum"}


def from_schema(node: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Instances valid under ``node`` (the subset of JSON Schema the event contracts use)."""
    unknown = set(node) - _KNOWN
    assert not unknown, f"the generator does not know {unknown}: extend it"
    if "anyOf" in node:
        return st.one_of([from_schema(n) for n in node["anyOf"]])
    if "const" in node:
        return st.just(node["const"])
    if "enum" in node:
        return st.sampled_from(node["enum"])
    kind = node.get("type")
    if kind == "null":
        return st.none()
    if kind == "integer":
        return st.integers(min_value=node.get("minimum"))
    if kind == "string":
        if node.get("format") == "date":
            return st.dates().map(lambda d: d.isoformat())
        assert "format" not in node, node
        lo, hi = node.get("minLength", 0), node.get("maxLength")
        # the edges of the length bounds, in code points (astral characters included)
        sizes = st.sampled_from([lo, hi] if hi is not None else [lo]) | st.integers(lo, min(hi or 40, 40))
        return sizes.flatmap(lambda n: st.text(st.characters(codec="utf-8"), min_size=n, max_size=n))
    if kind == "object":
        props: dict[str, Any] = node.get("properties", {})
        required = set(node.get("required", []))
        extra = node.get("additionalProperties", True)
        if not props:
            assert extra is True, node
            return st.dictionaries(st.text(max_size=8), json_values, max_size=4)
        assert extra is False, node
        fixed = {k: from_schema(v) for k, v in props.items() if k in required}
        optional = {k: from_schema(v) for k, v in props.items() if k not in required}
        return st.fixed_dictionaries(fixed, optional=optional)
    raise AssertionError(f"unsupported schema node {node}")


def decode(obj: Any) -> RawNote | DeadLetter:
    return decode_record(orjson.dumps(obj), topic="raw", partition=0, offset=0, timestamp_ms=0,
                         settings=WORKER)


def schema_accepts(obj: Any) -> bool:
    return VALIDATOR.is_valid(obj)


def model_accepts(payload: bytes) -> bool:
    try:
        decode_raw_note(payload)
    except ValidationError:
        return False
    return True


@st.composite
def broken(draw: st.DrawFn) -> dict[str, Any]:
    obj = dict(draw(from_schema(SCHEMA)))
    how = draw(st.sampled_from(["replace", "replace", "replace", "drop", "add"]))
    if how == "replace":
        obj[draw(st.sampled_from(sorted(FIELDS)))] = draw(json_values)
    elif how == "drop" and obj:
        obj.pop(draw(st.sampled_from(sorted(obj))))
    else:
        obj[draw(st.text(min_size=1, max_size=12))] = draw(json_values)
    return obj


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(from_schema(SCHEMA))
def test_every_event_the_schema_generates_is_accepted_by_the_strict_model(obj: dict[str, Any]) -> None:
    payload = orjson.dumps(obj)
    assert schema_accepts(obj)
    assert model_accepts(payload), obj


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(broken())
def test_schema_and_strict_model_accept_and_reject_the_same_events(obj: dict[str, Any]) -> None:
    payload = orjson.dumps(obj)
    assert schema_accepts(obj) == model_accepts(payload), obj


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(broken() | from_schema(SCHEMA))
def test_the_worker_decodes_exactly_the_schema_valid_events(obj: dict[str, Any]) -> None:
    """The worker adds three documented rules (blank patient id, text size, a document date in
    1900 .. one year from today) and nothing else."""
    from datetime import date

    from deid.events import plausible_document_date

    res = decode(obj)
    blank_patient = isinstance(obj.get("patient_id"), str) and not obj["patient_id"].strip()
    day = obj.get("document_date")
    out_of_range = isinstance(day, str) and schema_accepts(obj) and not plausible_document_date(
        date.fromisoformat(day))
    if schema_accepts(obj) and not blank_patient and not out_of_range:
        assert isinstance(res, RawNote), res
        assert res.language == obj.get("language", "es")
    else:
        assert isinstance(res, DeadLetter)


@pytest.mark.parametrize("field,value", [
    ("schema_version", True), ("document_date", "2024-01-01T00:00:00"), ("document_date", 1_700_000_000),
    ("document_date", "20240101"), ("language", None), ("event_id", 7), ("text", ["t"]),
])
def test_values_lax_mode_used_to_coerce_are_rejected(field: str, value: Any) -> None:
    obj = {"event_id": "e", "patient_id": "p", "text": "t", field: value}
    assert not schema_accepts(obj)
    res = decode(obj)
    assert isinstance(res, DeadLetter) and res.reason in ("schema_violation", "unsupported_language")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(broken())
def test_a_dead_letter_detail_names_only_schema_fields_and_fixed_codes(obj: dict[str, Any]) -> None:
    res = decode(obj)
    if not isinstance(res, DeadLetter) or res.reason != "schema_violation":
        return
    for part in res.detail.split("; "):
        field, _, code = part.partition(":")
        assert field in FIELDS | {UNKNOWN_FIELD, "<root>"}, res.detail
        assert code.replace("_", "").isalpha(), res.detail


def test_an_unknown_field_name_is_never_copied_into_the_dead_letter() -> None:
    phi = "Jeanne_Lefebvre_1961"
    obj = {"event_id": "e", "patient_id": "p", "text": "t", phi: "x", "source": {phi: {"deep": 1}}}
    res = decode(obj)
    assert isinstance(res, DeadLetter) and res.reason == "schema_violation"
    assert res.detail == f"{UNKNOWN_FIELD}:extra_forbidden"
    assert "Jeanne" not in res.model_dump_json()
