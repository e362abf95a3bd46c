from __future__ import annotations

from hl7_samples import sample

from deid.events import DeadLetter, RawNote
from deid.settings import BatchSettings, Settings
from worker.mllp_decode import decode_hl7_record

KW = {"topic": "raw-hl7", "partition": 0, "offset": 5, "timestamp_ms": 1_700_000_000_000}


def test_a_valid_record_decodes_to_a_raw_note() -> None:
    out = decode_hl7_record(sample("oru_r01_fr.hl7"), settings=Settings(), **KW)  # type: ignore[arg-type]
    assert isinstance(out, RawNote) and out.event_id == "MSG00001"


def test_a_malformed_record_becomes_a_phi_free_dead_letter() -> None:
    out = decode_hl7_record(sample("bad_no_patient_id.hl7"), settings=Settings(), **KW)  # type: ignore[arg-type]
    assert isinstance(out, DeadLetter)
    assert (out.reason, out.detail, out.event_id, out.offset) == (
        "hl7_parse_error", "missing_patient_id:PID-3", "NOPID-1", 5)
    assert "DOE" not in out.model_dump_json()


def test_unreadable_header_and_empty_value() -> None:
    out = decode_hl7_record(b"garbage", settings=Settings(), **KW)  # type: ignore[arg-type]
    assert isinstance(out, DeadLetter) and out.event_id is None and out.detail == "missing_msh"
    empty = decode_hl7_record(None, settings=Settings(), **KW)  # type: ignore[arg-type]
    assert isinstance(empty, DeadLetter) and empty.reason == "undecodable_bytes"


def test_too_large_text_is_dead_lettered() -> None:
    settings = Settings(batch=BatchSettings(max_text_chars=20))
    out = decode_hl7_record(sample("oru_r01_fr.hl7"), settings=settings, **KW)  # type: ignore[arg-type]
    assert isinstance(out, DeadLetter) and out.reason == "text_too_large"
