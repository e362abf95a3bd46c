"""Pure parts of the worker: record decoding to dead-letter reasons, batch splitting."""

from __future__ import annotations

from dataclasses import dataclass

import orjson
import pytest

from deid.events import DeadLetter, RawNote
from deid.settings import Settings
from worker.batching import estimate_tokens, split_by_budget
from worker.decode import decode_record, record_time

S = Settings.model_validate({"batch": {"max_text_chars": 100}, "default_language": "es"})


def dec(value: bytes | None) -> RawNote | DeadLetter:
    return decode_record(value, topic="raw", partition=3, offset=17, timestamp_ms=1_700_000_000_123,
                         settings=S)


@pytest.mark.parametrize(("payload", "reason"), [
    (None, "undecodable_bytes"),
    (b"\xc3\x28", "undecodable_bytes"),
    (b"{\"a\": ", "invalid_json"),
    (b"[1, 2]", "schema_violation"),
    (orjson.dumps({"event_id": "e", "text": "t"}), "missing_patient_id"),
    (orjson.dumps({"event_id": "e", "patient_id": "  ", "text": "t"}), "missing_patient_id"),
    (orjson.dumps({"event_id": "e", "patient_id": "p", "text": "t", "language": "de"}),
     "unsupported_language"),
    (orjson.dumps({"event_id": "e", "patient_id": "p", "text": "x" * 101}), "text_too_large"),
    (orjson.dumps({"event_id": "e", "patient_id": "p"}), "schema_violation"),
    (orjson.dumps({"event_id": "e", "patient_id": "p", "text": "t", "extra": 1}), "schema_violation"),
    (orjson.dumps({"event_id": "e", "patient_id": "p", "text": "t", "document_date": "1850-01-01"}),
     "document_date_out_of_range"),
    (orjson.dumps({"event_id": "e", "patient_id": "p", "text": "t", "document_date": "2999-01-01"}),
     "document_date_out_of_range"),
])
def test_bad_records_get_a_machine_readable_reason_and_their_position(payload: bytes | None,
                                                                      reason: str) -> None:
    res = dec(payload)
    assert isinstance(res, DeadLetter)
    assert (res.reason, res.source_topic, res.partition, res.offset) == (reason, "raw", 3, 17)


def test_a_dead_letter_never_quotes_the_payload_and_its_time_is_the_record_timestamp() -> None:
    secret = "Jeanne Lefebvre 06 12 48 93 27"
    res = dec(orjson.dumps({"event_id": "e-1", "patient_id": "p", "text": secret, "document_date": secret}))
    assert isinstance(res, DeadLetter)
    assert res.reason == "schema_violation"
    assert res.event_id == "e-1"
    assert "Jeanne" not in res.model_dump_json() and "06 12" not in res.model_dump_json()
    assert res.received_at == record_time(1_700_000_000_123) == "2023-11-14T22:13:20.123Z"


def test_a_good_record_decodes_with_the_default_language_when_none_is_given() -> None:
    res = dec(orjson.dumps({"event_id": "e", "patient_id": "p", "text": "hola"}))
    assert isinstance(res, RawNote)
    assert res.language == "es"


@dataclass
class Rec:
    value: bytes | None


def test_batches_stop_at_the_token_budget_but_always_take_one_record() -> None:
    recs = [Rec(b"x" * 350)] * 10  # ~102 tokens each
    assert split_by_budget(recs, max_events=32, max_tokens=300) == 2
    assert split_by_budget(recs, max_events=4, max_tokens=10_000) == 4
    assert split_by_budget([Rec(b"x" * 100_000)], max_events=32, max_tokens=300) == 1
    assert split_by_budget([], max_events=32, max_tokens=300) == 0
    assert estimate_tokens(None) == 1


def test_client_library_errors_are_rate_limited_and_counted_and_our_lines_always_pass() -> None:
    import logging

    from worker.logs import CLIENT_LOG_RECORDS, CLIENT_LOG_SUPPRESSED, RateLimitFilter

    f = RateLimitFilter(window_s=60)
    before = CLIENT_LOG_RECORDS.labels("aiokafka", "error")._value.get()
    dropped = CLIENT_LOG_SUPPRESSED.labels("aiokafka")._value.get()

    def rec(name: str, msg: str, level: int = logging.ERROR) -> logging.LogRecord:
        return logging.LogRecord(name, level, __file__, 1, msg, (), None)

    passed = [f.filter(rec("aiokafka.conn", "Unable connect to node %s")) for _ in range(70)]
    assert passed.count(True) == 1
    assert f.filter(rec("aiokafka", "another template"))
    assert all(f.filter(rec("deid.worker", "batch %d")) for _ in range(5))
    assert all(f.filter(rec("deid.worker", "batch %d", logging.DEBUG)) for _ in range(5))
    # a library nobody listed (it inherits the root's DEBUG) is held below WARNING all the same
    for name in ("pydantic_settings.main", "dotenv.main", "httpcore.connection", "some_new_lib"):
        assert not f.filter(rec(name, "read %s", logging.DEBUG)), name
        assert not f.filter(rec(name, "read %s", logging.INFO)), name
    assert CLIENT_LOG_RECORDS.labels("aiokafka", "error")._value.get() - before == 71
    assert CLIENT_LOG_SUPPRESSED.labels("aiokafka")._value.get() - dropped == 69


def test_third_party_loggers_are_pinned_even_when_the_root_is_at_debug() -> None:
    import logging

    from worker.logs import PINNED_LOGGERS, configure_logging

    root = logging.getLogger()
    old = root.level
    try:
        logging.getLogger("aiokafka").setLevel(logging.DEBUG)  # what the old bridge restored
        configure_logging("DEBUG")
        for name in PINNED_LOGGERS:
            assert logging.getLogger(name).getEffectiveLevel() >= logging.WARNING, name
        assert not logging.getLogger("aiokafka.conn").isEnabledFor(logging.DEBUG)
        assert logging.getLogger("deid.worker").isEnabledFor(logging.DEBUG)
    finally:
        root.setLevel(old)


def test_a_document_date_inside_the_window_is_read() -> None:
    res = dec(orjson.dumps({"event_id": "e", "patient_id": "p", "text": "t", "document_date": "1901-06-01"}))
    assert isinstance(res, RawNote) and res.document_date is not None


def test_the_substituters_out_of_window_count_is_exported_once_per_date() -> None:
    from collections import Counter
    from types import SimpleNamespace

    from prometheus_client import CollectorRegistry

    from worker.metrics import WorkerMetrics
    from worker.stream import StreamWorker

    registry = CollectorRegistry()
    stats: Counter[str] = Counter()
    fake = SimpleNamespace(pipeline=SimpleNamespace(substituter=SimpleNamespace(stats=stats)),
                           metrics=WorkerMetrics(registry), _dates_out_of_window_seen=0)
    stats["dates_out_of_window"] += 2
    StreamWorker._export_substitution_stats(fake)  # type: ignore[arg-type]
    StreamWorker._export_substitution_stats(fake)  # type: ignore[arg-type]
    stats["dates_out_of_window"] += 1
    StreamWorker._export_substitution_stats(fake)  # type: ignore[arg-type]
    assert registry.get_sample_value("deid_dates_out_of_window_total") == 3
