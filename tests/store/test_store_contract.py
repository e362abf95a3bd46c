"""The PatientStore contract, run on every implementation: memory, local SQLite, fakeredis, real Redis."""

from __future__ import annotations

import asyncio
import random
import re
from datetime import date

import pytest
from store_testkit import hx

from deid.events import DeidNote, ModelInfo, RawNote, encode
from deid.labels import Label
from deid.settings import PrivacySettings, Settings
from deid.spans import Span
from deid.store.base import PROBE_TTL_S, CommitResult, PatientStore, Release
from deid.store.keys import KeyHasher
from deid.store.redis import RedisPatientStore
from deid.substitution.engine import Substituter
from deid.temporal.timeline import Point, seal, unseal

P1, P2 = hx("patient", 1), hx("patient", 2)
CAP = 1_000_000


def k(i: object) -> str:
    return hx("value", i)


async def test_lookup_of_unknown_patient_is_empty(store: PatientStore) -> None:
    assert await store.lookup(P1, [k(1), k(2)]) == {}
    assert await store.lookup(P1, []) == {}
    assert await store.spent(P1) == 0


async def test_commit_memoizes_surrogates_for_later_lookups(store: PatientStore) -> None:
    res = await store.commit(P1, "n1", [Release(k(1), "Martin"), Release(k(2), "12/03/2001", 100)], CAP)
    assert res.surrogates == {k(1): "Martin", k(2): "12/03/2001"}
    assert res.granted and not res.replay and res.spent_micro == 100 and res.total_micro == 100
    assert res.refused_keys == frozenset()
    assert await store.lookup(P1, [k(1), k(2), k(3)]) == {k(1): "Martin", k(2): "12/03/2001"}
    assert await store.spent(P1) == 100


async def test_existing_entry_wins_over_a_racing_writer(store: PatientStore) -> None:
    await store.commit(P1, "n1", [Release(k(1), "Martin")], CAP)
    res = await store.commit(P1, "n2", [Release(k(1), "Bernard"), Release(k(2), "Durand")], CAP)
    assert res.surrogates == {k(1): "Martin", k(2): "Durand"}
    assert await store.lookup(P1, [k(1)]) == {k(1): "Martin"}


async def test_only_absent_values_are_charged(store: PatientStore) -> None:
    await store.commit(P1, "n1", [Release(k(1), "2001", 300)], CAP)
    res = await store.commit(P1, "n2", [Release(k(1), "1999", 300), Release(k(2), "2003", 200)], CAP)
    assert res.spent_micro == 200 and res.total_micro == 500
    assert res.surrogates[k(1)] == "2001"


async def test_a_value_listed_twice_in_one_commit_is_charged_once(store: PatientStore) -> None:
    res = await store.commit(P1, "n1", [Release(k(1), "2001", 300), Release(k(1), "2001", 300)], CAP)
    assert res.spent_micro == 300 and res.surrogates == {k(1): "2001"}


async def test_replayed_commit_spends_nothing_and_returns_identical_surrogates(store: PatientStore) -> None:
    releases = [Release(k(1), "Martin"), Release(k(2), "2001", 250), Release(k(3), "Lyon", 250)]
    first = await store.commit(P1, "event-7", releases, CAP)
    redrawn = [Release(r.key, r.surrogate + "-other", r.cost_micro) for r in releases]
    again = await store.commit(P1, "event-7", redrawn, CAP)
    assert again.replay and again.granted and again.spent_micro == 0
    assert again.surrogates == first.surrogates
    assert again.total_micro == first.total_micro == 500
    assert await store.spent(P1) == 500


async def test_a_replay_returns_the_account_recorded_by_the_first_commit(store: PatientStore) -> None:
    first = await store.commit(P1, "n1", [Release(k(1), "2001", 300)], CAP)
    assert (first.recorded_spent_micro, first.recorded_total_micro) == (300, 300)
    await store.commit(P1, "n2", [Release(k(2), "2002", 200)], CAP)  # the patient's total moves on
    again = await store.commit(P1, "n1", [], CAP)
    assert again.replay and again.spent_micro == 0 and again.total_micro == 500
    assert (again.recorded_spent_micro, again.recorded_total_micro) == (300, 300)


async def test_a_free_commit_is_recorded_too_so_its_replay_is_recognised(store: PatientStore) -> None:
    await store.commit(P1, "n1", [Release(k(1), "2001", 300)], CAP)
    free = await store.commit(P1, "n2", [Release(k(2), "Martin")], CAP)
    assert not free.replay and (free.recorded_spent_micro, free.recorded_total_micro) == (0, 300)
    await store.commit(P1, "n3", [Release(k(3), "2003", 100)], CAP)
    again = await store.commit(P1, "n2", [Release(k(2), "Petit")], CAP)
    assert again.replay and again.surrogates == {k(2): "Martin"}
    assert (again.recorded_spent_micro, again.recorded_total_micro) == (0, 300)


async def test_a_refused_commit_records_nothing_and_is_refused_again(store: PatientStore) -> None:
    await store.commit(P1, "n1", [Release(k(1), "2001", 900)], 1000)
    refused = await store.commit(P1, "n2", [Release(k(2), "2002", 200)], 1000)
    assert not refused.granted and (refused.recorded_spent_micro, refused.recorded_total_micro) == (0, 900)
    again = await store.commit(P1, "n2", [Release(k(2), "2002", 200)], 1000)
    assert not again.granted and not again.replay and again.refused_keys == frozenset({k(2)})


async def test_budget_is_granted_up_to_exactly_the_cap(store: PatientStore) -> None:
    res = await store.commit(P1, "n1", [Release(k(1), "a", 600), Release(k(2), "b", 400)], 1000)
    assert res.granted and res.total_micro == 1000


async def test_refused_budget_stores_free_releases_but_not_costed_ones(store: PatientStore) -> None:
    await store.commit(P1, "n1", [Release(k(1), "2001", 900)], 1000)
    res = await store.commit(P1, "n2", [Release(k(2), "Martin"), Release(k(3), "2002", 200)], 1000)
    assert not res.granted and res.spent_micro == 0 and res.total_micro == 900
    assert res.refused_keys == frozenset({k(3)})
    assert res.surrogates == {k(2): "Martin"}
    assert await store.lookup(P1, [k(2), k(3)]) == {k(2): "Martin"}
    assert await store.spent(P1) == 900


async def test_memoized_values_stay_free_after_the_cap_is_reached(store: PatientStore) -> None:
    await store.commit(P1, "n1", [Release(k(1), "2001", 1000)], 1000)
    res = await store.commit(P1, "n2", [Release(k(1), "1999", 1000)], 1000)
    assert res.granted and res.spent_micro == 0 and res.surrogates == {k(1): "2001"}


async def test_patients_are_isolated(store: PatientStore) -> None:
    await store.commit(P1, "n1", [Release(k(1), "Martin", 10)], CAP)
    res = await store.commit(P2, "n1", [Release(k(1), "Petit", 10)], CAP)
    assert not res.replay and res.surrogates == {k(1): "Petit"}
    assert await store.lookup(P1, [k(1)]) == {k(1): "Martin"}
    assert await store.spent(P2) == 10


async def test_mark_processed_is_true_only_the_first_time(store: PatientStore) -> None:
    assert await store.mark_processed(P1, hx("event", 1)) is True
    assert await store.mark_processed(P1, hx("event", 1)) is False
    assert await store.mark_processed(P2, hx("event", 1)) is True


async def test_erase_patient_removes_everything_of_that_patient_only(store: PatientStore) -> None:
    await store.commit(P1, "n1", [Release(k(1), "Martin"), Release(k(2), "2001", 100)], CAP)
    await store.mark_processed(P1, hx("event", 1))
    await store.commit(P2, "n1", [Release(k(1), "Petit", 5)], CAP)
    removed = await store.erase_patient(P1)
    assert removed >= 4  # two memo entries, one spend id, one mark (plus the ledger)
    assert await store.lookup(P1, [k(1), k(2)]) == {}
    assert await store.spent(P1) == 0
    assert await store.mark_processed(P1, hx("event", 1)) is True
    assert await store.lookup(P2, [k(1)]) == {k(1): "Petit"}
    assert await store.spent(P2) == 5


async def test_concurrent_tasks_converge_and_never_overspend(store: PatientStore) -> None:
    """32 tasks, each a note of one of 3 patients, each redelivered once, drawing its own surrogates."""
    patients = [hx("patient", i) for i in range(3)]
    cap, cost = 2_000, 100
    notes = []
    for n in range(16):
        rng = random.Random(n)
        values = rng.sample(range(40), 6)
        notes.append((patients[n % 3], f"note-{n}", values))

    async def process(
        patient: str, spend_id: str, values: list[int], seed: int
    ) -> tuple[str, dict[str, str], CommitResult]:
        rng = random.Random(seed)
        keys = [k(v) for v in values]
        known = await store.lookup(patient, keys)
        await asyncio.sleep(0)  # let racers interleave between lookup and commit
        releases = [
            Release(key, f"s{rng.randrange(10**9)}", cost if v % 2 else 0)
            for key, v in zip(keys, values, strict=True)
            if key not in known
        ]
        res = await store.commit(patient, spend_id, releases, cap)
        rendered = {key: known.get(key) or res.surrogates.get(key, "<fallback>") for key in keys}
        return spend_id, rendered, res

    jobs = [process(p, sid, vals, seed) for seed, (p, sid, vals) in enumerate(notes * 2)]
    results = await asyncio.gather(*jobs)

    memo = {p: await store.lookup(p, [k(v) for v in range(40)]) for p in patients}
    by_patient_spent = {p: 0 for p in patients}
    for (_, rendered, res), (p, _, _) in zip(results, notes * 2, strict=True):
        by_patient_spent[p] += res.spent_micro
        for key, sur in rendered.items():
            if sur != "<fallback>":
                assert memo[p][key] == sur  # exactly one surrogate per value
    for p in patients:
        total = await store.spent(p)
        assert total == by_patient_spent[p] <= cap
    # a note and its redelivery render identically when both were granted
    firsts = {sid: (r, res) for sid, r, res in results[: len(notes)]}
    for sid, rendered, res in results[len(notes) :]:
        r0, res0 = firsts[sid]
        if res.granted and res0.granted:
            assert rendered == r0


# ------------------------------------------------------------------ replay, cap and timeline (issue 15)


async def test_a_replay_with_a_value_its_first_delivery_did_not_pay_for_is_charged(store: PatientStore) -> None:  # noqa: E501
    first = await store.commit(P1, "event-9", [Release(k(1), "2001", 300)], CAP)
    again = await store.commit(P1, "event-9", [Release(k(1), "1999", 300), Release(k(2), "2003", 200)], CAP)
    assert again.replay and again.granted
    assert again.spent_micro == 200 and again.total_micro == 500
    assert again.surrogates == {k(1): first.surrogates[k(1)], k(2): "2003"}
    assert await store.spent(P1) == 500


async def test_a_replay_with_a_new_value_at_the_cap_is_refused_and_stores_nothing(store: PatientStore) -> None:  # noqa: E501
    await store.commit(P1, "event-9", [Release(k(1), "2001", 900)], 1000)
    again = await store.commit(P1, "event-9", [Release(k(1), "1999", 900), Release(k(2), "2003", 200)], 1000)
    assert again.replay and not again.granted and again.spent_micro == 0
    assert again.refused_keys == frozenset({k(2)})
    assert again.surrogates == {k(1): "2001"}
    assert await store.lookup(P1, [k(1), k(2)]) == {k(1): "2001"}
    assert await store.spent(P1) == 900
    # the same replay without the new value is still the free, identical replay
    same = await store.commit(P1, "event-9", [Release(k(1), "1999", 900)], 1000)
    assert same.replay and same.granted and same.spent_micro == 0 and same.surrogates == {k(1): "2001"}


def _sealed(true: int, fake: int, key: str) -> str:
    return seal(Point(true, fake), int(hx("pad", P1, key)[:16], 16))


async def test_timeline_points_are_stored_sealed_with_their_memo_entry_only(store: PatientStore) -> None:
    true, fake = 738_000, 737_990
    point = _sealed(true, fake, k(1))
    await store.commit(P1, "n1", [Release(k(1), "day:2021-07-01", 100, point), Release(k(2), "Martin")], CAP)
    got = await store.timeline(P1)
    assert got == {k(1): point}  # a free release without a point adds none
    assert re.fullmatch(r"[0-9a-f]{16}:\d{1,7}", got[k(1)])
    assert str(true) not in got[k(1)] and f"{true:x}" not in got[k(1)]  # the true day is not in clear
    assert unseal(got[k(1)], int(hx("pad", P1, k(1))[:16], 16)) == Point(true, fake)
    # an existing entry wins for its point too; a refused release leaves no point
    await store.commit(P1, "n2", [Release(k(1), "day:2021-06-01", 100, _sealed(true, 5, k(1)))], CAP)
    await store.commit(P1, "n3", [Release(k(3), "day:2020-01-01", 2 * CAP, _sealed(1, 2, k(3)))], CAP)
    assert await store.timeline(P1) == {k(1): point}
    assert await store.timeline(P2) == {}


async def test_erase_patient_removes_the_timeline(store: PatientStore) -> None:
    await store.commit(P1, "n1", [Release(k(1), "day:2021-07-01", 100, _sealed(738_000, 737_990, k(1)))], CAP)
    await store.commit(P2, "n1", [Release(k(1), "day:2021-07-02", 100, _sealed(738_001, 737_991, k(1)))], CAP)
    await store.erase_patient(P1)
    assert await store.timeline(P1) == {}
    assert list(await store.timeline(P2)) == [k(1)]


# The engine over every store kind (the real Redis included): replays and the cap end to end.

ENGINE_SECRET = b"store-contract-engine-secret-0123456789"
NOTE = ("Mme Martin, née le 14/02/1956, 68 ans, hospitalisée du 02/03/2024 au 05/03/2024, "
        "revue le 15/04/2024.")
NOTE_DAY = date(2024, 3, 6)


def _engine_spans(text: str, subs: list[str]) -> list[Span]:
    labels = {"14/02/1956": Label.BIRTH_DATE, "68 ans": Label.AGE}
    return [Span(text.index(s), text.index(s) + len(s), labels.get(s, Label.DATE)) for s in subs]


def _substituter(store: PatientStore, cap: float, seed: int = 4) -> Substituter:
    settings = Settings(privacy=PrivacySettings(epsilon_per_note=1.0, patient_cap=cap))
    return Substituter(store, KeyHasher(ENGINE_SECRET), settings, random.Random(seed))


async def _deliver(sub: Substituter, text: str, spans: list[Span], event: str = "event-1") -> DeidNote:
    note = RawNote(event_id=event, patient_id="patient-1", language="fr", document_date=NOTE_DAY, text=text)
    return (await sub.substitute([note], [spans], ModelInfo(name="t", version="0")))[0]


ALL = ["14/02/1956", "68 ans", "02/03/2024", "05/03/2024", "15/04/2024"]


async def test_engine_replay_with_the_same_spans_is_byte_identical_and_spends_nothing(store: PatientStore) -> None:  # noqa: E501
    sub = _substituter(store, cap=20.0)
    first = await _deliver(sub, NOTE, _engine_spans(NOTE, ALL))
    patient = first.patient_pseudonym
    spent = await store.spent(patient)
    assert first.privacy.epsilon_spent > 0 and spent > 0
    again = await _deliver(_substituter(store, cap=20.0, seed=99), NOTE, _engine_spans(NOTE, ALL))
    assert encode(again) == encode(first)
    assert await store.spent(patient) == spent


async def test_engine_replay_with_an_extra_date_is_charged_for_it(store: PatientStore) -> None:
    sub = _substituter(store, cap=20.0)
    first = await _deliver(sub, NOTE, _engine_spans(NOTE, ALL[:4]))  # the first model missed a date
    spent = await store.spent(first.patient_pseudonym)
    again = await _deliver(sub, NOTE, _engine_spans(NOTE, ALL))  # a model upgrade finds it
    assert again.privacy.epsilon_spent == pytest.approx(1.0, abs=1e-5)  # the one new value, charged
    assert await store.spent(first.patient_pseudonym) == spent + 1_000_000
    assert again.text[: again.text.index("revue le")] == first.text[: first.text.index("revue le")]
    assert "[DATE]" not in again.text and not again.privacy.exhausted


async def test_engine_at_the_cap_a_new_value_is_refused_and_renders_its_placeholder(store: PatientStore) -> None:  # noqa: E501
    sub = _substituter(store, cap=1.0)
    first = await _deliver(sub, NOTE, _engine_spans(NOTE, ALL[:4]))  # spends the whole cap
    assert first.privacy.patient_epsilon_total == pytest.approx(1.0, abs=1e-5)
    spent = await store.spent(first.patient_pseudonym)
    replay = await _deliver(sub, NOTE, _engine_spans(NOTE, ALL))  # the same event with one more date
    assert replay.text == first.text[: first.text.index("revue le")] + "revue le [DATE]."
    assert replay.privacy.exhausted and replay.privacy.fallback_count == 1
    # nothing charged: the replay republishes the account its first delivery recorded
    assert replay.privacy.epsilon_spent == first.privacy.epsilon_spent
    assert await store.spent(first.patient_pseudonym) == spent
    other = await _deliver(sub, "Revue le 20/04/2024.", _engine_spans("Revue le 20/04/2024.", ["20/04/2024"]),
                           event="event-2")  # a new note of the patient at the cap
    assert other.text == "Revue le [DATE]." and other.privacy.exhausted
    assert await store.spent(first.patient_pseudonym) == spent


async def test_engine_timeline_holds_only_sealed_points_and_erase_removes_it(store: PatientStore) -> None:
    sub = _substituter(store, cap=20.0)
    out = await _deliver(sub, NOTE, _engine_spans(NOTE, ALL))
    patient = out.patient_pseudonym
    points = await store.timeline(patient)
    assert len(points) == 5  # the birth date, three dates and the note's date (read by the age)
    assert all(re.fullmatch(r"[0-9a-f]{16}:\d{1,7}", v) for v in points.values())
    true_days = ["1956-02-14", "2024-03-02", "2024-03-05", "2024-04-15", "2024-03-06"]
    ordinals = [str(date.fromisoformat(d).toordinal()) for d in true_days]
    if isinstance(store, RedisPatientStore):  # everything the server holds for the patient, raw
        raw: list[str] = []
        for key in store.keys(patient):
            kind = await store.client.type(key)
            if kind == "hash":
                raw += [f"{a}={b}" for a, b in (await store.client.hgetall(key)).items()]
            elif kind == "string":
                raw.append(str(await store.client.get(key)))
        assert raw
    else:
        raw = [f"{a}={b}" for a, b in points.items()]
    for value in raw:
        for day, ordinal in zip(true_days, ordinals, strict=True):
            assert day not in value and ordinal not in value
    await store.erase_patient(patient)
    assert await store.timeline(patient) == {}


# -- the readiness write probe (issue 33) ----------------------------------------------------------


async def test_the_write_probe_writes_outside_every_patient_and_changes_no_patient_state(
        store: PatientStore) -> None:
    await store.commit(P1, "n1", [Release(k(1), "Martin", 100)], CAP)
    probe = hx("probe", 1)
    await store.probe_write(probe)
    await store.probe_write(probe)  # again: one entry, refreshed
    assert await store.lookup(P1, [k(1)]) == {k(1): "Martin"} and await store.spent(P1) == 100
    assert await store.lookup(probe, [k(1)]) == {} and await store.spent(probe) == 0
    assert await store.erase_patient(P1) > 0
    await store.probe_write(probe)  # erasing a patient leaves the probe working
    if isinstance(store, RedisPatientStore):  # one key, in the probe namespace, expiring
        keys = [key async for key in store.client.scan_iter(match="deid:probe:*")]
        assert keys == [f"deid:probe:{probe}"]
        assert 0 < await store.client.ttl(keys[0]) <= PROBE_TTL_S
        assert not [key async for key in store.client.scan_iter(match=f"*{probe}*") if "{p:" in key]


async def test_the_write_probe_refuses_a_key_that_is_not_a_keyed_hash(store: PatientStore) -> None:
    with pytest.raises(ValueError) as err:
        await store.probe_write("Jean Dupont")
    assert "Jean" not in str(err.value)
