"""Fuzz HL7 v2 messages through the parser the MLLP bridge and the worker share (``deid.hl7``).

The parser itself (``parse_note`` + ``to_raw_note``) answers a note or an ``Hl7Error`` with a reason
of the closed set, never another exception (``worker.mllp_decode.inspect_hl7`` would turn one into
an AR ``unparseable:<ExceptionName>``: a parser bug, which this test refuses); the shared check
``inspect_hl7`` answers a ``RawNote`` or a ``Rejection`` with a dead-letter reason; the worker's
``decode_hl7_record`` a ``RawNote`` or a ``DeadLetter``, the same for the same bytes; the rebuilt
de-identified message (the worker's deid-hl7 output) is made without error; and the CPU time is
bounded linearly in the message's length.

Messages are built by structure: an MSH with the classic or random encoding characters and field
separator, a charset (MSH-18) and an encoding that may disagree with it, random segments of known
and unknown ids, fields of separators, escapes (valid, unknown, unterminated, ``\\Xhh\\``,
``\\.sp n\\``), unicode, line breaks of every kind, huge fields at and past the shape limits
(``deid.hl7.limits``), then truncated or corrupted bytes. The shipped samples, mutated, reach the
deeper paths (notes, dates, languages, PID-3 authorities).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

import pytest
from fuzz_testkit import budget, growth, outcome, within
from hypothesis import given
from hypothesis import strategies as st

from deid.events import DeadLetter, DeadLetterReason, RawNote, encode
from deid.hl7 import (
    DEFAULT_LIMITS,
    Hl7Error,
    Hl7ErrorReason,
    build_deid_hl7,
    mapping_lookup,
    parse_note,
    to_raw_note,
)
from deid.settings import Settings
from worker.mllp_decode import Rejection, decode_hl7_record, inspect_hl7

SAMPLES = Path(__file__).resolve().parents[1] / "hl7" / "samples"
SEEDS = tuple((SAMPLES / n).read_bytes() for n in ("oru_r01_fr.hl7", "oru_r01_en.hl7", "mdm_t02_fr.hl7",
                                                     "oru_r01_ed.hl7"))
SETTINGS = Settings.model_validate({"batch": {"max_text_chars": 20_000}})
HL7_REASONS = frozenset(get_args(Hl7ErrorReason))
DL_REASONS = frozenset(get_args(DeadLetterReason))
# A parser bug shows as "unparseable:<ExceptionName>" (inspect_hl7's catch-all); a real
# "unparseable" names a field ("MSH-10").
_LOCATION = re.compile(r"[A-Z][A-Z0-9]{2}(-\d+)?")
# 50 ms plus 20 µs per byte of CPU (measured: about 1 µs per byte for a message at the limits).
BASE_S, PER_BYTE_S = 0.05, 20e-6

SEGMENT_IDS = ("PID", "PV1", "OBR", "OBX", "TXA", "NTE", "EVN", "ORC", "NK1", "ZZZ", "PD1")
BAD_SEGMENT_IDS = ("MSH", "obx", "OB", "1AB", "OBXX", "")
CHARSETS = ("", "UNICODE UTF-8", "8859/1", "ASCII", "8859/15", "WINDOWS-1252", "utf-8")
BAD_CHARSETS = ("UNICODE", "GB 18030-2000", "ISO IR87", "UTF-16")
CODECS = ("utf-8", "latin-1", "cp1252", "utf-16")
ESCAPES = ("\\F\\", "\\S\\", "\\T\\", "\\R\\", "\\E\\", "\\X41\\", "\\XC3A9\\", "\\Xzz\\", "\\X\\", "\\.br\\",
           "\\.sp 5\\", "\\.sp 99999\\", "\\.sk -3\\", "\\H\\", "\\N\\", "\\Zlocal\\", "\\C2842\\",
           "\\M2442\\", "\\", "\\\\", "\\.in+4\\", "\\.ce\\")
BREAKS = ("\r", "\n", "\r\n", "\n\r")
ATOMS = ("^", "~", "&", "|", "\\", " ", "\t", "\x00", "\x0b", "é", "ß", "\u202e",
         "\ufeff", "\U0001f600", "MSH", "PID", "12/03/1961", "20240315", "2024", "DUPONT", "fr", "ES", "eng")
TYPES = ("TX", "FT", "ST", "ED", "NM", "CE", "", "tx")
MESSAGE_TYPES = ("ORU^R01", "MDM^T02", "ORU", "ADT^A01", "^", "ORU^R01^ORU_R01", "mdm^t02")
HEAVY = ("^", "~", "&", "\\F\\", "a^", "a~", "\r", "\n", "|", "\\", "\\.sp 10\\", "\\X41\\")
AT_LIMITS = (DEFAULT_LIMITS.max_components - 1, DEFAULT_LIMITS.max_components, DEFAULT_LIMITS.max_fields + 1,
             DEFAULT_LIMITS.max_repetitions, DEFAULT_LIMITS.max_segments + 1, 50_000)

no_break = st.characters(exclude_categories=("Cs",), exclude_characters="\r\n")
field_text = st.lists(st.sampled_from(ESCAPES) | st.sampled_from(ATOMS) | st.text(no_break, max_size=6),
                      max_size=8).map("".join)


def one_in(n: int, rare: st.SearchStrategy[str], usual: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """``rare`` one draw in ``n`` or so, else ``usual`` (so that most messages get past the header)."""
    return st.integers(1, n).flatmap(lambda k: rare if k == 1 else usual)


@st.composite
def encoding_characters(draw: st.DrawFn) -> tuple[str, str]:
    """(field separator, MSH-2): mostly the classic ones, else drawn (may be invalid)."""
    if draw(st.integers(0, 5)):
        return "|", draw(st.sampled_from(("^~\\&", "^~\\&#")))
    alphabet = st.sampled_from("|^~\\&#!$%*+/:;=?@_`{}-aZ1 \r")
    return draw(alphabet), "".join(draw(st.lists(alphabet, min_size=0, max_size=6)))


@st.composite
def messages(draw: st.DrawFn) -> bytes:
    fs, enc = draw(encoding_characters())
    comp = enc[:1] or "^"
    msh = fs.join([
        "MSH", enc, "APP", "FAC", "DEID", "DEID", draw(st.sampled_from(("20240315143000", "2", ""))), "",
        draw(st.sampled_from(MESSAGE_TYPES)).replace("^", comp), draw(one_in(8, st.just(""), st.just("M1"))),
        "P",
        draw(one_in(8, st.just(""), st.sampled_from(("2.5", "2.7")))), "", "", "", "", "",
        draw(one_in(6, st.sampled_from(BAD_CHARSETS), st.sampled_from(CHARSETS))),
        draw(st.sampled_from(("FR", "es", "", "ENG")))])
    if draw(st.integers(0, 5)) == 0:
        msh = msh[: draw(st.integers(0, len(msh)))]
    segments = [msh]
    if draw(st.integers(0, 2)):  # a patient and a text line: the paths past the header
        segments += [fs.join(["PID", "1", "", "8812345"]), fs.join(["OBX", "1", "TX", "", "", "Vu ce jour."])]
    for _ in range(draw(st.integers(0, 8))):
        seg_id = draw(one_in(12, st.sampled_from(BAD_SEGMENT_IDS), st.sampled_from(SEGMENT_IDS)))
        fields = [draw(one_in(20, st.sampled_from(BREAKS), field_text))
                  for _ in range(draw(st.integers(0, 8)))]
        if seg_id == "OBX" and draw(st.booleans()):
            fields = ["1", draw(st.sampled_from(TYPES)), "11488-4", "1", draw(field_text), *fields]
        if seg_id == "PID" and draw(st.booleans()):
            pid3 = draw(st.sampled_from(("8812345", "", "x" * 300))) + comp * 3 + draw(field_text)
            fields = ["1", "", pid3, *fields]
        segments.append(fs.join([seg_id, *fields]))
    if draw(st.integers(0, 4)) == 0:  # one huge field, at or past a shape limit
        piece, count = draw(st.sampled_from(HEAVY)), draw(st.sampled_from(AT_LIMITS))
        segments.append(fs.join(["OBX", "9", "TX", "", "", piece * count]))
    text = draw(st.sampled_from(("\r", "\n", "\r\n", "\n\r"))).join(segments)
    codec = draw(one_in(4, st.sampled_from(CODECS), st.just("utf-8")))
    payload = text.encode(codec, "replace")
    return draw(corruptions(payload))


@st.composite
def corruptions(draw: st.DrawFn, payload: bytes) -> bytes:
    kind = draw(st.sampled_from(("none", "none", "none", "none", "cut", "insert", "bom", "nul", "splice")))
    at = draw(st.integers(0, len(payload)))
    if kind == "cut":
        return payload[:at]
    if kind == "insert":
        return payload[:at] + draw(st.binary(min_size=1, max_size=12)) + payload[at:]
    if kind == "bom":
        return b"\xef\xbb\xbf" + payload
    if kind == "nul":
        return payload + b"\x00" * draw(st.integers(1, 5))
    if kind == "splice":  # a whole second message inside
        return payload[:at] + draw(st.sampled_from(SEEDS)) + payload[at:]
    return payload


@st.composite
def mutated_samples(draw: st.DrawFn) -> bytes:
    """A shipped sample with one to four edits: a span replaced by separators, escapes or bytes,
    a segment dropped or duplicated, the charset changed, a cut."""
    data = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        end = min(len(data), at + draw(st.integers(0, 40)))
        kind = draw(st.sampled_from(("replace", "drop_segment", "dup_segment", "charset", "cut", "heavy")))
        if kind == "replace":
            data = data[:at] + draw(field_text).encode("utf-8") + data[end:]
        elif kind in ("drop_segment", "dup_segment"):
            lines = data.split(b"\r")
            i = draw(st.integers(0, max(0, len(lines) - 1)))
            lines[i:i + 1] = [] if kind == "drop_segment" else [lines[i], lines[i]]
            data = b"\r".join(lines)
        elif kind == "charset":
            data = data.replace(b"UNICODE UTF-8", draw(st.sampled_from(CHARSETS)).encode(), 1)
            data = data.decode("utf-8", "replace").encode(draw(st.sampled_from(CODECS)), "replace")
        elif kind == "cut":
            data = data[:at]
        else:
            heavy = draw(st.sampled_from(HEAVY)).encode() * draw(st.sampled_from(AT_LIMITS))
            data = data[:at] + heavy + data[at:]
    return data


def _parse(payload: bytes) -> RawNote | Hl7Error:
    """The parser of ``deid.hl7`` alone, with the de-identified message rebuilt from an accepted
    note: an ``Hl7Error`` is an answer, any other exception a failure of the test."""
    try:
        parsed = parse_note(payload, authority=None, default_language="fr")
        note = to_raw_note(parsed)
    except Hl7Error as exc:
        return exc
    out = build_deid_hl7(parsed, parsed.text, mapping_lookup({}))
    assert isinstance(out, bytes)
    return note


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    """Imports and first-use costs, untimed: the bound is on each message's own cost."""
    for seed in SEEDS:
        _parse(seed)
        inspect_hl7(seed, SETTINGS)


def _check(payload: bytes) -> None:
    size = len(payload)
    answer = within(lambda: _parse(payload), size=size, base_s=BASE_S, per_unit_s=PER_BYTE_S)
    if isinstance(answer, Hl7Error):
        assert answer.reason in HL7_REASONS
        assert answer.location is None or _LOCATION.fullmatch(answer.location), answer.location
    inspected = within(lambda: inspect_hl7(payload, SETTINGS), size=size, base_s=BASE_S,
                       per_unit_s=PER_BYTE_S)
    answered = inspected.outcome
    outcome(answered.detail.split(":")[0] if isinstance(answered, Rejection) else "note")
    if isinstance(answered, Rejection):
        assert answered.reason in DL_REASONS
        if answered.reason == "hl7_parse_error":
            reason, _, where = answered.detail.partition(":")
            assert reason in HL7_REASONS, answered.detail
            assert not where or _LOCATION.fullmatch(where), f"a parser bug: {answered.detail}"
    else:
        assert isinstance(answered, RawNote) and isinstance(answer, RawNote)
        assert answered.patient_id.strip() and answered.text.strip()
        assert len(answered.text) <= SETTINGS.batch.max_text_chars
    record = _record(payload)
    assert isinstance(record, RawNote | DeadLetter)
    if isinstance(record, DeadLetter):
        assert encode(_record(payload)) == encode(record)  # a redelivery makes the same bytes


def _record(payload: bytes) -> RawNote | DeadLetter:
    return decode_hl7_record(payload, topic="raw-hl7", partition=0, offset=7, timestamp_ms=0,
                             settings=SETTINGS)


@budget(2.0)
@given(messages())
def test_a_message_built_from_random_segments_is_a_note_or_a_closed_error(payload: bytes) -> None:
    _check(payload)


@budget(1.5)
@given(mutated_samples())
def test_a_mutated_sample_is_a_note_or_a_closed_error(payload: bytes) -> None:
    _check(payload)


def test_the_parse_is_linear_in_the_messages_length() -> None:
    """Separators, escapes and segments under every shape limit (each piece the parser may make):
    ten times the message may cost at most twenty times the CPU (least times over up to three rounds,
    ``growth``; quadratic is 100)."""
    head = SEEDS[0].rstrip(b"\r")
    shapes = {
        # components under the per-repetition limit, repeated: accepted by the limits
        "components_per_repetition": lambda n: head + b"\rOBX|9|TX|||" + (b"a^" * 900 + b"~") * (n // 1800),
        "escapes": lambda n: head + b"\rOBX|9|TX|||" + b"\\F\\" * (n // 3),
        "hex_escapes": lambda n: head + b"\rOBX|9|TX|||" + b"\\XC3A9\\" * (n // 8),
        "line_breaks": lambda n: head + b"\rOBX|9|TX|||" + b"\\.br\\a" * (n // 6),
        "segments": lambda n: head + b"\rNTE|1||x" * (n // 10),
        "obx_lines": lambda n: head + b"\rOBX|9|TX|||mot" * (n // 15),
    }
    for name, make in shapes.items():
        small, large = make(100_000), make(1_000_000)
        ratio = growth(lambda s=small: inspect_hl7(s, SETTINGS), lambda s=large: inspect_hl7(s, SETTINGS),
                       limit=20)
        assert ratio <= 20, (name, ratio)
