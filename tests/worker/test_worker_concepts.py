"""Concept mentions in the de-identified event (issue 20): the worker tags the original texts in
the detection hop, moves the mentions onto the de-identified text and never publishes one that
touches PHI. A fake tagger (a drug gazetteer) stands in for the model, except in the last test."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import ClassVar

import aiohttp
import orjson
import pytest
from worker_testkit import TEST_SECRET, GazetteerDetector, consume, produce, running_worker, worker_settings

from deid.concepts import Concept
from deid.events import DeidNote, RawNote, encode
from deid.pipeline import ModelUnavailable, build_concept_tagger, build_pipeline
from deid.settings import Settings
from deid.store.memory import InMemoryStore
from worker.samples import PATIENTS
from worker.services.broker import TansuBroker, create_topics
from worker.stream import StreamWorker

P = PATIENTS[0]  # Jeanne Lefebvre: the GazetteerDetector finds her name, phone, e-mail and dates


def spanish_note(event_id: str = "es-1", extra: str = "") -> RawNote:
    return RawNote(event_id=event_id, patient_id=P.patient_id, language="es",
                   text=f"Paciente {P.first} {P.last}, de 45 años, tratada con omeprazol 20 mg desde el "
                        f"12/03/2024 y amoxicilina. Teléfono: {P.phone}.{extra}")


class DrugGazetteer:
    """A deterministic concept tagger: every occurrence of a few terms, word boundaries or not (so
    it also tags inside and against a PHI span, as a real tagger's boundaries might)."""

    model_name = "test-drugs"
    model_version = "7"
    TERMS: ClassVar[dict[str, str]] = {"omeprazol": "NORMALIZABLES", "amoxicilina": "NORMALIZABLES",
                                       "insulina": "PROTEINAS", P.last: "PROTEINAS"}

    def __init__(self, fail_on: str | None = None) -> None:
        self.fail_on = fail_on
        self.tagged: list[str] = []

    def tag(self, texts: Sequence[str]) -> list[list[Concept]]:
        if self.fail_on is not None and any(self.fail_on in t for t in texts):
            raise RuntimeError("tagger failure")
        self.tagged.extend(texts)
        return [[Concept(m.start(), m.end(), kind) for term, kind in self.TERMS.items()
                 for m in re.finditer(re.escape(term), t)] for t in texts]


def settings(**concepts: object) -> Settings:
    return Settings.model_validate({"hmac_secret": TEST_SECRET, "model": {"enabled": False},
                                    "concepts": {"enabled": True, **concepts}})


MakeWorker = Callable[..., StreamWorker]


@pytest.fixture
def make_worker() -> Iterator[MakeWorker]:
    made: list[StreamWorker] = []

    def make(tagger: DrugGazetteer, s: Settings | None = None) -> StreamWorker:
        s = s or settings()
        store = InMemoryStore()
        pipeline = build_pipeline(s, store, random.Random(7), GazetteerDetector(), concept_tagger=tagger)
        made.append(StreamWorker(s, pipeline, store))
        return made[-1]

    yield make
    for w in made:
        w._executor.shutdown()


async def deidentify(worker: StreamWorker, notes: list[RawNote]) -> list[DeidNote]:
    """What one batch of the worker does to its notes, without the broker: the detection hop
    (detection and tagging), substitution, then the concepts block."""
    analysed = worker._analyse(notes)
    outs = await worker.pipeline.substitute(notes, [a.spans for a in analysed])
    return [worker._with_concepts(n, a.spans, out, a.concepts)
            for n, a, out in zip(notes, analysed, outs, strict=True)]


def assert_mentions_index_the_text(note: DeidNote) -> None:
    assert note.concepts is not None
    for m in note.concepts.mentions:
        assert note.text[m.start : m.end] == m.text


async def test_mentions_index_the_deidentified_text_after_surrogates_change_its_lengths(
        make_worker: MakeWorker) -> None:
    (out,) = await deidentify(make_worker(DrugGazetteer()), [spanish_note()])
    assert out.spans and P.phone not in out.text  # the name, date and phone were replaced
    assert out.concepts is not None
    assert [(m.text, m.type) for m in out.concepts.mentions] == [
        ("omeprazol", "NORMALIZABLES"), ("amoxicilina", "NORMALIZABLES")]
    assert_mentions_index_the_text(out)
    assert out.concepts.model.name == "test-drugs" and out.concepts.model.version == "7"
    assert out.concepts.trained_on == ["es"]


async def test_a_concept_inside_or_touching_a_phi_span_is_not_published(make_worker: MakeWorker) -> None:
    # the tagger tags the surname (inside the PATIENT span) and "insulina" glued to it
    w = make_worker(DrugGazetteer())
    (out,) = await deidentify(w, [spanish_note(extra=f" Familiar: {P.last}insulina.")])
    assert out.concepts is not None
    assert sorted(m.text for m in out.concepts.mentions) == ["amoxicilina", "omeprazol"]
    assert P.last.encode() not in encode(out)
    assert w.metrics.concept_mentions_withheld._value.get() == 3  # the surname twice, insulina once


async def test_with_concepts_disabled_the_event_has_no_concepts_field(make_worker: MakeWorker) -> None:
    tagger = DrugGazetteer()
    (out,) = await deidentify(make_worker(tagger, settings(enabled=False)), [spanish_note()])
    assert out.concepts is None
    assert "concepts" not in orjson.loads(encode(out))  # omitted, not null: the bytes of before
    assert tagger.tagged == []


async def test_a_note_whose_language_is_not_listed_gets_no_concepts_field(make_worker: MakeWorker) -> None:
    tagger = DrugGazetteer()
    french = RawNote(event_id="fr-1", patient_id=P.patient_id, language="fr",
                     text=f"Patiente {P.first} {P.last}, traitée par omeprazol.")
    fr_out, es_out = await deidentify(make_worker(tagger), [french, spanish_note()])
    assert fr_out.concepts is None and "concepts" not in orjson.loads(encode(fr_out))
    assert es_out.concepts is not None and es_out.concepts.mentions
    assert tagger.tagged == [spanish_note().text]  # the French text never reached the tagger


async def test_a_tagger_failure_publishes_the_note_without_concepts_and_counts_it(
        make_worker: MakeWorker) -> None:
    w = make_worker(DrugGazetteer(fail_on="BOOM"))
    broken, fine = await deidentify(w, [spanish_note("es-1", " BOOM"), spanish_note("es-2")])
    assert broken.concepts is None and broken.text  # the note itself is not lost
    assert fine.concepts is not None and len(fine.concepts.mentions) == 2  # the batch retried note by note
    assert w.metrics.concept_failures._value.get() == 1


def test_concept_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert (Settings().concepts.enabled, Settings().concepts.languages) == (False, ["es"])
    monkeypatch.setenv("DEID_CONCEPTS__ENABLED", "true")
    monkeypatch.setenv("DEID_CONCEPTS__LANGUAGES", '["es","fr"]')
    monkeypatch.setenv("DEID_CONCEPTS__PATH", "/models/other")
    c = Settings().concepts
    assert (c.enabled, c.languages, c.path) == (True, ["es", "fr"], Path("/models/other"))


def test_concepts_on_with_a_model_without_a_concept_head_refuse_to_start(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "bert"}))
    assert build_concept_tagger(settings(enabled=False)) is None
    with pytest.raises(ModelUnavailable, match="no concept head"):
        build_concept_tagger(settings(path=str(tmp_path)))


# -- through the broker -------------------------------------------------------------------------

async def run_through_broker(broker: TansuBroker, tag: str, notes: list[RawNote], tagger: object | None
                             ) -> tuple[list[DeidNote], str]:
    s = worker_settings(broker.bootstrap_servers, tag)
    s.concepts.enabled = True
    await create_topics(broker.bootstrap_servers, [s.kafka.topic_raw_notes], 1)
    await create_topics(broker.bootstrap_servers, [s.kafka.topic_deid_notes, s.kafka.topic_dead_letter], 1)
    await produce(broker.bootstrap_servers, s.kafka.topic_raw_notes, notes)
    async with running_worker(s, InMemoryStore(), concept_tagger=tagger) as (_, port):
        recs = await consume(broker.bootstrap_servers, s.kafka.topic_deid_notes, len(notes), timeout_s=120)
        async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{port}/metrics") as r:
            metrics = await r.text()
    return [DeidNote.model_validate_json(r.value) for r in recs], metrics


@pytest.mark.integration
async def test_a_spanish_note_through_the_broker_publishes_mentions_that_index_its_text(
        broker: TansuBroker) -> None:
    french = RawNote(event_id="fr-1", patient_id=P.patient_id, language="fr", text="Traitée par omeprazol.")
    outs, metrics = await run_through_broker(
        broker, "concepts", [spanish_note(extra=f" {P.last}insulina."), french], DrugGazetteer())
    by_id = {o.event_id: o for o in outs}
    assert set(by_id) == {"es-1", "fr-1"}
    es = by_id["es-1"]
    assert es.concepts is not None
    assert sorted(m.text for m in es.concepts.mentions) == ["amoxicilina", "omeprazol"]
    assert_mentions_index_the_text(es)
    assert by_id["fr-1"].concepts is None
    assert 'deid_concept_mentions_total{type="NORMALIZABLES"} 2.0' in metrics
    assert "deid_concept_mentions_withheld_total 3.0" in metrics


def _shipped_concept_head() -> bool:
    from deid.concepts.model import CONFIG_KEY
    from deid.ner import DEFAULT_MODEL_DIR

    cfg = DEFAULT_MODEL_DIR / "config.json"
    return cfg.is_file() and CONFIG_KEY in json.loads(cfg.read_text())


@pytest.mark.integration
@pytest.mark.skipif(not _shipped_concept_head(), reason="the shipped model has no concept head yet")
async def test_the_shipped_concept_tagger_finds_a_drug_in_a_spanish_note_through_the_broker(
        broker: TansuBroker) -> None:
    from deid.concepts.tagger import load_concept_tagger

    note = RawNote(event_id="es-real", patient_id="P-real", language="es",
                   text="Paciente de 45 años tratado con omeprazol 20 mg y amoxicilina.")
    (out,), _ = await run_through_broker(broker, "concepts-real", [note], load_concept_tagger())
    assert out.concepts is not None and out.concepts.mentions
    assert_mentions_index_the_text(out)
