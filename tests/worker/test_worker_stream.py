"""The worker loop in-process against a real (Tansu) broker: delivery, dead letters, replays,
back-pressure. Detection is a deterministic gazetteer so these tests do not load the model."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import aiohttp
import orjson
import pytest
from worker_testkit import GazetteerDetector, consume, produce, running_worker, worker_settings

from deid.events import DeidNote, RawNote
from deid.settings import Settings
from deid.spans import Span
from deid.store.base import CommitResult, Release, StoreUnavailable
from deid.store.memory import InMemoryStore
from worker.main import serve
from worker.samples import patient_by_id, phi_values, sample_notes
from worker.services.broker import TansuBroker, create_topics
from worker.stream import TIMINGS_HEADER, StreamWorker

pytestmark = pytest.mark.integration




async def topics(broker: TansuBroker, s: Settings, partitions: int = 2) -> None:
    k = s.kafka
    await create_topics(broker.bootstrap_servers, [k.topic_raw_notes], partitions)
    await create_topics(broker.bootstrap_servers, [k.topic_deid_notes, k.topic_dead_letter], 1)


async def test_every_note_comes_out_deidentified_keyed_by_pseudonym_without_planted_phi(
        broker: TansuBroker) -> None:
    s = worker_settings(broker.bootstrap_servers, "flow")
    await topics(broker, s)
    notes = sample_notes(12, patients=3)
    await produce(broker.bootstrap_servers, s.kafka.topic_raw_notes, notes)
    async with running_worker(s, InMemoryStore()) as (_, port):
        out = await consume(broker.bootstrap_servers, s.kafka.topic_deid_notes, 12, timeout_s=40)
        async with aiohttp.ClientSession() as http:
            async with http.get(f"http://127.0.0.1:{port}/livez") as r:
                assert r.status == 200
            async with http.get(f"http://127.0.0.1:{port}/readyz") as r:
                assert r.status == 200
            async with http.get(f"http://127.0.0.1:{port}/metrics") as r:
                metrics = await r.text()
    assert sorted(DeidNote.model_validate_json(r.value).event_id for r in out) == sorted(
        n.event_id for n in notes)
    patient_of = {n.event_id: patient_by_id(n.patient_id) for n in notes}
    for rec in out:
        note = DeidNote.model_validate_json(rec.value)
        planted = phi_values(patient_of[note.event_id])
        assert rec.key == note.patient_pseudonym.encode()
        assert note.timings_ms == {}
        assert TIMINGS_HEADER in dict(rec.headers)
        assert note.spans
        leaked = [v for v in planted if v in note.text]
        assert not leaked, f"{len(leaked)} planted values leaked in {note.event_id}"
        assert "IPP-" not in rec.value.decode()  # nor the raw patient id
    assert "deid_events_out_total 12.0" in metrics
    assert 'deid_stage_seconds_count{stage="detect"}' in metrics


async def test_malformed_events_are_dead_lettered_with_their_reason_while_good_ones_flow(
        broker: TansuBroker) -> None:
    s = worker_settings(broker.bootstrap_servers, "dlq", max_text_chars=5000)
    await topics(broker, s, partitions=1)
    good = sample_notes(3)
    boom = RawNote(event_id="boom-1", patient_id="P-boom", text="this one breaks BOOM the detector")
    bad: list[RawNote | tuple[bytes | None, bytes | None]] = [
        (b"k", b"{not json"),
        (b"k", b"\xff\xfe{}"),
        (b"k", orjson.dumps({"event_id": "e-schema", "patient_id": "P1"})),  # no text
        (b"k", orjson.dumps({"event_id": "e-nopid", "text": "x"})),
        (b"k", orjson.dumps({"event_id": "e-big", "patient_id": "P1", "text": "x" * 6000})),
        (b"k", orjson.dumps({"event_id": "e-lang", "patient_id": "P1", "text": "x", "language": "de"})),
    ]
    await produce(broker.bootstrap_servers, s.kafka.topic_raw_notes, [good[0], *bad, boom, good[1], good[2]])

    class Exploding(GazetteerDetector):
        def detect(self, texts: Sequence[str], languages: Sequence[str]) -> list[list[Span]]:
            if any("BOOM" in t for t in texts):
                raise RuntimeError("detector failure")
            return super().detect(texts, languages)

    async with running_worker(s, InMemoryStore(), Exploding()):
        out = await consume(broker.bootstrap_servers, s.kafka.topic_deid_notes, 3, timeout_s=40)
        dlq = await consume(broker.bootstrap_servers, s.kafka.topic_dead_letter, 7, timeout_s=20)
    assert sorted(DeidNote.model_validate_json(r.value).event_id for r in out) == sorted(
        n.event_id for n in good)
    letters = [orjson.loads(r.value) for r in dlq]
    assert [(d["offset"], d["reason"]) for d in sorted(letters, key=lambda d: d["offset"])] == [
        (1, "invalid_json"), (2, "undecodable_bytes"), (3, "schema_violation"), (4, "missing_patient_id"),
        (5, "text_too_large"), (6, "unsupported_language"), (7, "processing_error")]
    assert all(d["source_topic"] == s.kafka.topic_raw_notes and d["partition"] == 0 for d in letters)
    assert {d["event_id"] for d in letters} >= {"e-schema", "e-big", "e-lang", "boom-1"}
    assert all(r.key is None for r in dlq)
    assert "BOOM" not in str(letters)


async def _replay(broker: TansuBroker, tag: str
                  ) -> tuple[dict[str, set[bytes]], dict[str, int], dict[str, int]]:
    """Process 9 notes, then re-read the topic with a second group (every event redelivered)."""
    s = worker_settings(broker.bootstrap_servers, tag)
    await topics(broker, s)
    notes = sample_notes(9, patients=3)
    await produce(broker.bootstrap_servers, s.kafka.topic_raw_notes, notes)
    store = InMemoryStore()
    async with running_worker(s, store):
        first = await consume(broker.bootstrap_servers, s.kafka.topic_deid_notes, 9, timeout_s=40)
    pseudos = {DeidNote.model_validate_json(r.value).patient_pseudonym for r in first}
    spent = {p: await store.spent(p) for p in pseudos}
    s.kafka.consumer_group += "-again"
    async with running_worker(s, store):
        both = await consume(broker.bootstrap_servers, s.kafka.topic_deid_notes, 18, timeout_s=40)
    assert len(both) == 18
    by_id: dict[str, set[bytes]] = {}
    for r in both:
        by_id.setdefault(DeidNote.model_validate_json(r.value).event_id, set()).add(r.value)
    assert len(by_id) == 9
    return by_id, spent, {p: await store.spent(p) for p in pseudos}


async def test_a_redelivered_event_gives_byte_identical_output_and_spends_nothing(
        broker: TansuBroker) -> None:
    by_id, spent_before, spent_after = await _replay(broker, "replay")
    assert all(len(values) == 1 for values in by_id.values()), "a redelivery changed the output bytes"
    assert spent_after == spent_before


async def test_an_output_too_large_for_the_broker_is_dead_lettered_alone(broker: TansuBroker) -> None:
    s = worker_settings(broker.bootstrap_servers, "large")
    s.kafka.max_request_size = 3000
    await topics(broker, s, partitions=1)
    small = RawNote(event_id="small-1", patient_id="P1", text="Vu ce jour, rien à signaler.")
    large = RawNote(event_id="large-1", patient_id="P1", text="Examen normal. " * 250)
    await produce(broker.bootstrap_servers, s.kafka.topic_raw_notes, [large, small])
    async with running_worker(s, InMemoryStore()):
        out = await consume(broker.bootstrap_servers, s.kafka.topic_deid_notes, 1, timeout_s=40)
        dlq = await consume(broker.bootstrap_servers, s.kafka.topic_dead_letter, 1, timeout_s=20)
    assert [DeidNote.model_validate_json(r.value).event_id for r in out] == ["small-1"]
    letters = [orjson.loads(r.value) for r in dlq]
    assert [(d["event_id"], d["reason"], d["offset"]) for d in letters] == [
        ("large-1", "processing_error", 0)]
    assert letters[0]["detail"].startswith("publish: ")


class FlakyStore(InMemoryStore):
    """Unavailable for the first ``failures`` calls of lookup/commit."""

    def __init__(self, failures: int) -> None:
        super().__init__()
        self.failures = failures

    def _maybe_fail(self) -> None:
        if self.failures > 0:
            self.failures -= 1
            raise StoreUnavailable("down")

    async def lookup(self, patient: str, keys: Sequence[str]) -> dict[str, str]:
        self._maybe_fail()
        return await super().lookup(patient, keys)

    async def commit(self, patient: str, spend_id: str, releases: Sequence[Release], cap_micro: int
                     ) -> CommitResult:
        self._maybe_fail()
        return await super().commit(patient, spend_id, releases, cap_micro)

    async def spent(self, patient: str) -> int:
        self._maybe_fail()
        return await super().spent(patient)


async def test_store_outage_applies_back_pressure_and_loses_or_dead_letters_nothing(
        broker: TansuBroker) -> None:
    s = worker_settings(broker.bootstrap_servers, "outage")
    await topics(broker, s)
    notes = sample_notes(6, patients=2)
    await produce(broker.bootstrap_servers, s.kafka.topic_raw_notes, notes)
    async with running_worker(s, FlakyStore(failures=6)) as (worker, _):
        out = await consume(broker.bootstrap_servers, s.kafka.topic_deid_notes, 6, timeout_s=40)
        dlq = await consume(broker.bootstrap_servers, s.kafka.topic_dead_letter, 1, timeout_s=1)
        errors = worker.metrics.store_errors._value.get()
    assert sorted(DeidNote.model_validate_json(r.value).event_id for r in out) == sorted(
        n.event_id for n in notes)
    assert dlq == []
    assert errors >= 1


DEFAULT_MODEL = Path(__file__).resolve().parents[2] / "deid" / "models" / "default"


@pytest.mark.skipif(not (DEFAULT_MODEL / "config.json").exists(), reason="the default model is not built")
async def test_end_to_end_with_the_default_model_leaks_no_planted_name_phone_or_email(
        broker: TansuBroker) -> None:
    s = worker_settings(broker.bootstrap_servers, "model")
    s.model.enabled = True
    await topics(broker, s)
    notes = sample_notes(4, patients=2)
    await produce(broker.bootstrap_servers, s.kafka.topic_raw_notes, notes)
    started: asyncio.Future[tuple[StreamWorker, int]] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(serve(s, store=InMemoryStore(), install_signals=False,
                                     on_started=lambda w, p: started.set_result((w, p))))
    try:
        out = await consume(broker.bootstrap_servers, s.kafka.topic_deid_notes, 4, timeout_s=240)
    finally:
        if started.done():
            started.result()[0].stop()
        await asyncio.wait_for(task, 60)
    assert len(out) == 4
    patient_of = {n.event_id: patient_by_id(n.patient_id) for n in notes}
    for rec in out:
        note = DeidNote.model_validate_json(rec.value)
        leaked = [v for v in phi_values(patient_of[note.event_id]) if v in note.text]
        assert not leaked, f"{len(leaked)} planted values leaked in {note.event_id}"
