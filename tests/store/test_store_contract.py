"""The PatientStore contract, run on every implementation: memory, local SQLite, fakeredis, real Redis."""

from __future__ import annotations

import asyncio
import random

from store_testkit import hx

from deid.store.base import CommitResult, PatientStore, Release

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
