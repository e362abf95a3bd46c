"""Fuzz the Kafka raw-note event through the worker's decode path (``worker.decode.decode_record``).

Whatever the bytes, the answer is a ``RawNote`` that keeps the decode's promises (a non-blank
patient, a text within the limit, a known language, a plausible document date) or a ``DeadLetter``
with a reason of the closed set and a PHI-free detail; never an exception; the same bytes give the
same answer (a redelivered record makes a byte-identical dead letter); and the CPU time is bounded
linearly in the record's length.

Inputs: valid events (accepted as they are), events mutated by structure (a field dropped, given a
wrong type, a huge string, deep nesting, NaN, a duplicate key, an unknown key, a document date at
the edges, unicode oddities) and by bytes (truncated, bytes inserted, invalid UTF-8, a BOM).
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from typing import Any, get_args

import pytest
from fuzz_testkit import budget, growth, outcome, within
from hypothesis import given
from hypothesis import strategies as st

from deid.events import DeadLetter, DeadLetterReason, RawNote, encode, plausible_document_date
from deid.settings import Settings
from worker.decode import decode_record

SETTINGS = Settings.model_validate({"batch": {"max_text_chars": 5_000}})
LIMIT = SETTINGS.batch.max_text_chars
REASONS = frozenset(get_args(DeadLetterReason))
# Every value a producer chooses carries this word: it must never reach a dead letter's detail.
MARK = "Zorglub"
# Bound on the decode's CPU time: 50 ms plus 5 µs per byte (measured: ~0.2 µs per byte).
BASE_S, PER_BYTE_S = 0.05, 5e-6

FIELDS = ("schema_version", "event_id", "patient_id", "document_id", "note_type", "language",
          "document_date", "locale", "date_order", "text", "source")

# Characters that break naive text handling: NUL, BOM, bidi overrides, zero-width joiners,
# combining marks, astral code points, line and paragraph separators, C1 controls.
ODD = "\x00\ufeff\u202e\u200d\u0301\U0001f600\u2028\u2029\x85\x9b\u00a0\ufffd"
odd_text = st.text(alphabet=st.sampled_from(ODD) | st.characters(exclude_categories=("Cs",)), max_size=40)
ids = st.text(min_size=1, max_size=30).map(lambda s: MARK + s)
today = date.today()
plausible_dates = st.dates(min_value=date(1900, 1, 1), max_value=today + timedelta(days=366))
EDGE_DATES = ("0001-01-01", "9999-12-31", "1899-12-31", "1900-01-01", "2024-02-30", "2023-02-29",
              "2024-13-01", "2024-00-10", "2024-1-1", "20240101", "+02024-01-01", "2024-01-01T00:00:00",
              "2024-01-01 ", " 2024-01-01", "２０２４-01-01", "", (today + timedelta(days=366)).isoformat(),
              (today + timedelta(days=367)).isoformat())

json_scalars = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True)
                | st.text(max_size=20).map(lambda s: MARK + s))
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=8).map(lambda s: MARK + s), inner, max_size=4),
                           max_leaves=12)


@st.composite
def valid_events(draw: st.DrawFn) -> dict[str, Any]:
    event: dict[str, Any] = {"event_id": draw(ids), "patient_id": draw(ids),
                             "text": MARK + draw(odd_text | st.text(max_size=200))}
    optional = {
        "schema_version": st.just(1),
        "document_id": st.none() | ids,
        "note_type": st.none() | st.text(max_size=20),
        "language": st.sampled_from(("fr", "es", "en")),
        "document_date": st.none() | plausible_dates.map(date.isoformat),
        "locale": st.none() | st.sampled_from(("fr-FR", "es-ES", "en-US", "en-GB")),
        "date_order": st.none() | st.sampled_from(("dmy", "mdy")),
        "source": st.dictionaries(st.text(max_size=8), json_values.filter(_no_nan), max_size=3),
    }
    for name, values in optional.items():
        if draw(st.booleans()):
            event[name] = draw(values)
    return event


def _no_nan(value: Any) -> bool:
    return "NaN" not in json.dumps(value) and "Infinity" not in json.dumps(value)


def _nested(depth: int, leaf: str = "1") -> str:
    """JSON text of ``depth`` alternating arrays and objects around ``leaf`` (written by hand:
    ``json.dumps`` recurses, and stops near a thousand levels)."""
    opens = ["[" if i % 2 else f'{{"{MARK}":' for i in range(depth)]
    closes = ["]" if i % 2 else "}" for i in reversed(range(depth))]
    return "".join(opens) + leaf + "".join(closes)


def _dumps(event: dict[str, Any], ascii_only: bool) -> bytes:
    return json.dumps(event, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")


@st.composite
def mutated_events(draw: st.DrawFn) -> bytes:
    """A valid event, then one to three structural mutations, serialized, then maybe a byte-level one."""
    event = draw(valid_events())
    tail = ""  # raw JSON appended inside the object (duplicate keys, literals json.dumps cannot write)
    for _ in range(draw(st.integers(1, 3))):
        field = draw(st.sampled_from(FIELDS))
        kind = draw(st.sampled_from(("drop", "wrong_type", "huge", "deep", "edge_date", "odd", "extra",
                                     "duplicate", "literal", "blank")))
        if kind == "drop":
            event.pop(field, None)
        elif kind == "wrong_type":
            event[field] = draw(json_values)
        elif kind == "huge":
            event[field] = draw(st.sampled_from(("a", " ", "é", "\u202e", "\\", '"', "\U0001f600"))) * draw(
                st.sampled_from((LIMIT - 1, LIMIT, LIMIT + 1, 3 * LIMIT, 60_000)))
        elif kind == "deep":
            event.pop(field, None)
            tail += f', "{field}": {_nested(draw(st.integers(1, 3_000)))}'
        elif kind == "edge_date":
            event["document_date"] = draw(st.sampled_from(EDGE_DATES))
        elif kind == "odd":
            event[field] = MARK + draw(odd_text)
        elif kind == "extra":
            event[MARK + draw(st.text(max_size=10))] = draw(json_values)
        elif kind == "duplicate":
            tail += f', "{field}": {json.dumps(draw(json_values.filter(_no_nan)))}'
        elif kind == "literal":
            literal = draw(st.sampled_from(("NaN", "Infinity", "-Infinity", "1e400", "-0", "1.0", "01",
                                            "10000000000000000000000000000", "true", '"\\ud800"',
                                            '"\\udc00\\ud800"', '"\\u0000"', "[]", "{}")))
            tail += f', "{field}": {literal}'
        else:  # blank
            event[field] = draw(st.sampled_from(("", " ", "\t\n", "\u00a0", "\u3000")))
    body = _dumps(event, draw(st.booleans()))
    if tail:
        body = body[:-1] + tail.encode() + b"}" if body.endswith(b"}") else body
    return draw(byte_mutations(body))


@st.composite
def byte_mutations(draw: st.DrawFn, body: bytes) -> bytes:
    kind = draw(st.sampled_from(("none", "none", "truncate", "insert", "flip", "bom", "overlong")))
    at = draw(st.integers(0, len(body)))
    if kind == "truncate":
        return body[:at]
    if kind == "insert":
        return body[:at] + draw(st.binary(min_size=1, max_size=8)) + body[at:]
    if kind == "flip" and body:
        i = min(at, len(body) - 1)
        return body[:i] + bytes([body[i] ^ draw(st.integers(1, 255))]) + body[i + 1 :]
    if kind == "bom":
        return b"\xef\xbb\xbf" + body
    if kind == "overlong":  # "/" as an overlong sequence, a lone continuation byte, a surrogate in UTF-8
        bad = draw(st.sampled_from((b"\xc0\xaf", b"\x80", b"\xed\xa0\x80", b"\xf8\x88")))
        return body[:at] + bad + body[at:]
    return body


def _decode(value: bytes | None) -> RawNote | DeadLetter:
    return decode_record(value, topic="raw-notes", partition=3, offset=42, timestamp_ms=1_700_000_000_000,
                         settings=SETTINGS)


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    """Imports and first-use costs, untimed: the bound is on each record's own cost."""
    _decode(b'{"event_id": "e", "patient_id": "p", "text": "t", "document_date": "2024-01-01"}')
    _decode(b"{}")


def _check(value: bytes | None) -> RawNote | DeadLetter:
    """The decode's whole contract for one record."""
    out = within(lambda: _decode(value), size=len(value or b""), base_s=BASE_S, per_unit_s=PER_BYTE_S)
    outcome(out.reason if isinstance(out, DeadLetter) else "note")
    if isinstance(out, RawNote):
        assert out.patient_id.strip()
        assert len(out.text) <= LIMIT
        assert out.language in ("fr", "es", "en")
        assert 0 < len(out.event_id) <= 256
        assert out.document_date is None or plausible_document_date(out.document_date)
        assert RawNote.model_validate_json(out.model_dump_json(), strict=True) == out
    else:
        assert isinstance(out, DeadLetter)
        assert out.reason in REASONS
        assert len(out.detail) <= 500
        assert MARK not in out.detail, (out.reason, out.detail)
        assert (out.source_topic, out.partition, out.offset) == ("raw-notes", 3, 42)
        assert encode(_decode(value)) == encode(out)  # a redelivery makes the same bytes
    return out


@budget(1.0)
@given(valid_events(), st.booleans())
def test_a_valid_event_decodes_to_the_same_note(event: dict[str, Any], ascii_only: bool) -> None:
    out = _check(_dumps(event, ascii_only))
    assert isinstance(out, RawNote), out
    assert out.text == event["text"] and out.patient_id == event["patient_id"]
    assert out.language == event.get("language", SETTINGS.default_language)
    assert out.source == event.get("source", {})


@budget(2.0)
@given(mutated_events())
def test_a_mutated_event_is_a_note_or_a_closed_dead_letter(value: bytes) -> None:
    _check(value)


@budget(1.0)
@given(st.binary(max_size=400) | st.text(max_size=200).map(str.encode))
def test_arbitrary_bytes_are_a_note_or_a_closed_dead_letter(value: bytes) -> None:
    _check(value)


def test_the_reviews_hostile_events_are_answered() -> None:
    """Fixed cases, each a reason of its own (run on every budget)."""
    good = {"event_id": "e1", "patient_id": "p1", "text": "Vu ce jour."}
    cases: dict[bytes | None, str | None] = {
        None: "undecodable_bytes",
        b"": "invalid_json",
        b"\xff" + _dumps(good, True): "undecodable_bytes",
        b'{"event_id": "e1", "patient_id": "p1", "text": NaN}': "invalid_json",
        b"[" * 100_000: "invalid_json",
        _nested(5_000).encode(): "invalid_json",  # past orjson's nesting limit
        # deep but within pydantic's parser (200 levels; orjson's is 1,024: between the two the
        # worker says invalid_json, naming the nesting)
        _dumps(good, True)[:-1] + f', "source": {_nested(150)}}}'.encode(): None,
        _dumps(good, True)[:-1] + f', "source": {_nested(300)}}}'.encode(): "invalid_json",
        _dumps({**good, "patient_id": "\u3000"}, True): "missing_patient_id",
        _dumps({**good, "text": "a" * (LIMIT + 1)}, True): "text_too_large",
        _dumps({**good, "document_date": "0001-01-01"}, True): "document_date_out_of_range",
        _dumps({**good, "document_date": "9999-12-31"}, True): "document_date_out_of_range",
        _dumps({**good, "document_date": "2023-02-29"}, True): "schema_violation",
        _dumps({**good, "schema_version": True}, True): "schema_violation",
        _dumps({**good, "language": None}, True): "unsupported_language",
        _dumps({**good, MARK: 1}, True): "schema_violation",
        b'{"event_id": "e1", "patient_id": "p1", "text": "x", "patient_id": " "}': "missing_patient_id",
    }
    for value, reason in cases.items():
        out = _check(value)
        got = out.reason if isinstance(out, DeadLetter) else None
        assert got == reason, (value[:60] if value else value, out)


def test_the_decode_is_linear_in_the_records_length() -> None:
    """Shapes that cost per character (escapes, astral characters, many keys, many errors): ten
    times the input may cost at most twenty times the CPU (least times of each size over up to three
    rounds of three runs, ``growth``; quadratic is 100)."""
    shapes = {
        "escapes": lambda n: b'{"event_id":"e","patient_id":"p","text":"' + b"\\u00e9" * n + b'"}',
        "astral": lambda n: _dumps({"event_id": "e", "patient_id": "p", "text": "\U0001f600" * n}, False),
        "unknown_keys": lambda n: _dumps({"event_id": "e", "patient_id": "p", "text": "t",
                                          **{f"{MARK}{i}": i for i in range(n)}}, True),
        "source_keys": lambda n: _dumps({"event_id": "e", "patient_id": "p", "text": "t",
                                         "source": {f"k{i}": [i] for i in range(n)}}, True),
        "duplicates": lambda n: b'{"event_id":"e","patient_id":"p"' + b',"text":"x"' * n + b"}",
        "bad_items": lambda n: _dumps({"event_id": "e", "patient_id": "p", "text": [1] * n}, True),
    }
    for name, make in shapes.items():
        small, large = make(2_000), make(20_000)
        ratio = growth(lambda s=small: _decode(s), lambda s=large: _decode(s), limit=20)
        assert ratio <= 20, (name, ratio)
