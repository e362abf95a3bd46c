"""The substitution engine against the store interface: memo, budget, replay, fallback."""

import random
import re
from collections.abc import Sequence
from datetime import date

import pytest
from substitution_testkit import spans_of

from deid.events import ModelInfo, RawNote, encode
from deid.labels import Label
from deid.settings import PrivacySettings, Settings
from deid.spans import Span
from deid.store.base import CommitResult, Release
from deid.store.keys import KeyHasher
from deid.store.memory import InMemoryStore
from deid.substitution import Substituter, deidentify_text

MODEL = ModelInfo(name="test", version="0")
SECRET = b"0123456789abcdef-test-secret"

THREAD = ("Mr. Durand born in Dijon, 40 years old, was admitted to the hospital from 12/02/2020 to "
          "February 26, 2020 following a road accident in Dijon")

FRENCH = ("Mme Jeanne DUPONT, 67 ans, vue le 3 mars 2021 à Besançon. Hospitalisée il y a 2 ans à Dijon "
          "(CHU Dijon). Tél 06 12 34 56 78. NIR 2 54 03 25 056 123 45. Son fils Paul Dupont, à Dijon.")




THREAD_SPANS = spans_of(THREAD, [("Durand", Label.PATIENT), ("Dijon", Label.CITY),
                                 ("40 years old", Label.AGE),
                                 ("12/02/2020", Label.DATE), ("February 26, 2020", Label.DATE),
                                 ("Dijon", Label.CITY)])
FRENCH_SPANS = spans_of(FRENCH, [
    ("Jeanne DUPONT", Label.PATIENT), ("67 ans", Label.AGE), ("3 mars 2021", Label.DATE),
    ("Besançon", Label.CITY), ("il y a 2 ans", Label.DATE), ("Dijon", Label.CITY),
    ("CHU Dijon", Label.HOSPITAL),
    ("06 12 34 56 78", Label.PHONE), ("2 54 03 25 056 123 45", Label.ID_SSN), ("Paul Dupont", Label.RELATIVE),
    ("Dijon", Label.CITY)])


class CountingStore(InMemoryStore):
    def __init__(self) -> None:
        super().__init__()
        self.lookups: list[str] = []
        self.commits: list[tuple[str, str]] = []

    async def lookup(self, patient, keys):
        self.lookups.append(patient)
        return await super().lookup(patient, keys)

    async def commit(self, patient, spend_id, releases, cap_micro):
        self.commits.append((patient, spend_id))
        return await super().commit(patient, spend_id, releases, cap_micro)


def note(text: str, event: str, patient: str = "p1", lang: str = "fr", day: date | None = date(2021, 3, 5)):
    return RawNote(event_id=event, patient_id=patient, language=lang, document_date=day, text=text)


def make(store=None, seed: int = 1, **privacy) -> tuple[Substituter, InMemoryStore]:
    store = store or InMemoryStore()
    settings = Settings(privacy=PrivacySettings(**privacy))
    return Substituter(store, KeyHasher(SECRET), settings, random.Random(seed)), store


def test_thread_example_is_readable_consistent_and_keeps_formats():
    out = deidentify_text(THREAD, THREAD_SPANS, "en", date(2020, 3, 1), profile="dp", rng=random.Random(7))
    m = re.fullmatch(
        r"Mr\. (?P<n>[A-Z][\w'-]+) born in (?P<c1>[\w' -]+), (?P<a>\d+) years? old, "
        r"was admitted to the hospital "
        r"from (?P<d1>\d\d/\d\d/\d{4}) to (?P<d2>[A-Z][a-z]+ \d\d?, \d{4}) following a road accident in "
        r"(?P<c2>[\w' -]+)", out.text)
    assert m, out.text
    assert m["c1"] == m["c2"]  # one surrogate for both mentions of Dijon
    assert m["n"] != "Durand"
    assert out.privacy.epsilon_spent == pytest.approx(1.0, abs=1e-5)
    assert [s.strategy for s in out.spans] == ["random", "exponential", "dp-laplace", "dp-timeline",
                                               "dp-timeline",
                                               "exponential"]


def test_french_note_keeps_family_ties_gender_case_and_place_consistency():
    out = deidentify_text(FRENCH, FRENCH_SPANS, "fr", date(2021, 3, 5), rng=random.Random(3))
    m = re.search(r"^Mme (?P<first>\S+) (?P<last>[A-ZÀ-Ý' -]+), \d+ ans?, vue le (?:1er|\d+) \w+ \d{4} à ",
                  out.text)
    assert m, out.text
    son = re.search(r"Son fils (?P<first>\S+) (?P<last>.+), à (?P<city>.+)\.$", out.text)
    assert son, out.text
    assert son["last"].upper() == m["last"]  # DUPONT and Dupont: one surname, two case styles
    assert "il y a" in out.text and "Dupont" not in out.text and "DUPONT" not in out.text
    assert out.text.count(son["city"]) >= 2  # both plain mentions of Dijon
    assert re.search(r"Tél 06 \d\d \d\d \d\d \d\d\.", out.text)


async def test_one_lookup_per_patient_per_batch_and_one_commit_per_note():
    store = CountingStore()
    sub, _ = make(store)
    notes = [note(FRENCH, "e1"), note(FRENCH, "e2"), note(FRENCH, "e3", patient="p2")]
    outs = await sub.substitute(notes, [FRENCH_SPANS] * 3, MODEL)
    assert len(store.lookups) == 2 and len(set(store.lookups)) == 2
    assert len(store.commits) == 3
    assert outs[0].text == outs[1].text  # second note of p1: memo hits only
    assert outs[1].privacy.epsilon_spent == 0
    assert outs[0].text != outs[2].text  # another patient, other surrogates


async def test_replayed_event_spends_nothing_and_is_byte_identical():
    sub, store = make()
    first = (await sub.substitute([note(FRENCH, "e1")], [FRENCH_SPANS], MODEL))[0]
    patient = first.patient_pseudonym
    spent_after_first = await store.spent(patient)
    again = (await sub.substitute([note(FRENCH, "e1")], [FRENCH_SPANS], MODEL))[0]
    assert first.privacy.epsilon_spent > 0
    # the replay charges the ledger nothing, and republishes the first run's account unchanged
    assert await store.spent(patient) == spent_after_first
    assert encode(again) == encode(first)


async def test_memoized_values_cost_nothing_and_new_values_share_the_note_budget():
    sub, _ = make(epsilon_per_note=2.0)
    text2 = "Revue le 3 mars 2021, puis le 10 avril 2021 à Dijon."
    spans2 = spans_of(text2, [("3 mars 2021", Label.DATE), ("10 avril 2021", Label.DATE),
                              ("Dijon", Label.CITY)])
    a = (await sub.substitute([note(FRENCH, "e1")], [FRENCH_SPANS], MODEL))[0]
    b = (await sub.substitute([note(text2, "e2", day=date(2021, 4, 20))], [spans2], MODEL))[0]
    assert a.privacy.epsilon_spent == pytest.approx(2.0, abs=1e-5)
    assert b.privacy.epsilon_spent == pytest.approx(2.0, abs=1e-5)  # only "10 avril 2021" is new
    assert b.privacy.patient_epsilon_total == pytest.approx(4.0, abs=1e-5)


async def test_over_cap_values_release_nothing_true_and_the_output_says_so():
    sub, _ = make(epsilon_per_note=1.0, patient_cap=1.5)
    t1 = "Vu le 3 mars 2021."
    t2 = "Vu le 12 février 2021 et il y a 3 ans."
    s1 = spans_of(t1, [("3 mars 2021", Label.DATE)])
    s2 = spans_of(t2, [("12 février 2021", Label.DATE), ("il y a 3 ans", Label.DATE)])
    a = (await sub.substitute([note(t1, "e1")], [s1], MODEL))[0]
    b = (await sub.substitute([note(t2, "e2")], [s2], MODEL))[0]
    assert not a.privacy.exhausted
    assert b.privacy.exhausted and b.privacy.fallback_count == 2 and b.privacy.epsilon_spent == 0
    assert b.text == "Vu le [DATE] et [DATE]."  # not even the true year
    assert [s.strategy for s in b.spans] == ["fallback-placeholder", "fallback-placeholder"]
    replay = (await sub.substitute([note(t2, "e2")], [s2], MODEL))[0]
    assert replay.text == b.text and replay.privacy.epsilon_spent == 0


async def test_a_first_note_over_the_cap_gets_placeholders():
    sub, _ = make(epsilon_per_note=1.0, patient_cap=0.5)
    t = "Vu le 3 mars 2021."
    out = (await sub.substitute([note(t, "e1")], [spans_of(t, [("3 mars 2021", Label.DATE)])], MODEL))[0]
    assert out.text == "Vu le [DATE]." and out.privacy.exhausted


class RacingStore(InMemoryStore):
    """A replica committed a surrogate for every key just before us."""

    async def commit(self, patient, spend_id, releases: Sequence[Release], cap_micro) -> CommitResult:
        async with self._lock:
            p = self._get(patient)
            for r in releases:
                p.memo.setdefault(r.key, r.surrogate if r.cost_micro == 0 else "day:1999-01-01")
        return await super().commit(patient, spend_id, releases, cap_micro)


async def test_the_surrogate_returned_by_commit_wins_over_our_draw():
    sub, _ = make(RacingStore())
    t = "Vu le 3 mars 2021."
    out = (await sub.substitute([note(t, "e1")], [spans_of(t, [("3 mars 2021", Label.DATE)])], MODEL))[0]
    assert out.text == "Vu le 1er janvier 1999."
    assert out.privacy.epsilon_spent == 0


async def test_without_document_date_dates_stay_on_the_timeline_and_durations_are_noised_alone():
    sub, _ = make(seed=5)
    t = "Vu le 3 mars 2021, malade depuis 3 semaines, 40 ans."
    s = spans_of(t, [("3 mars 2021", Label.DATE), ("depuis 3 semaines", Label.DATE), ("40 ans", Label.AGE)])
    out = (await sub.substitute([note(t, "e1", day=None)], [s], MODEL))[0]
    shape = r"Vu le \d+(er)? \w+ \d{4}, malade depuis \w+ semaines?, \d+ ans?\."
    assert re.fullmatch(shape, out.text), out.text
    assert "[" not in out.text


async def test_interval_strategy_keeps_chronology_and_shift_moves_all_dates_of_a_patient_alike():
    text = "Entrée le 02/01/2021, opéré le 05/01/2021, sortie le 20/01/2021, contrôle le 15/06/2021."
    marks = [("02/01/2021", Label.DATE), ("05/01/2021", Label.DATE), ("20/01/2021", Label.DATE),
             ("15/06/2021", Label.DATE)]
    spans = spans_of(text, marks)
    for seed in range(20):
        sub, _ = make(seed=seed, date_strategy="interval", epsilon_per_note=0.5)
        out = (await sub.substitute([note(text, "e", day=date(2021, 7, 1))], [spans], MODEL))[0]
        got = [date(int(y), int(m), int(d)) for d, m, y in re.findall(r"(\d\d)/(\d\d)/(\d{4})", out.text)]
        assert got == sorted(got)
    sub, _ = make(date_strategy="shift")
    a, b = await sub.substitute([note(text, "e1"), note("Vu le 02/01/2021.", "e2")],
                                [spans, spans_of("Vu le 02/01/2021.", [("02/01/2021", Label.DATE)])], MODEL)
    orig = [date(2021, 1, 2), date(2021, 1, 5), date(2021, 1, 20), date(2021, 6, 15)]
    got = [date(int(y), int(m), int(d)) for d, m, y in re.findall(r"(\d\d)/(\d\d)/(\d{4})", a.text)]
    shifts = {(g - o).days for g, o in zip(got, orig, strict=True)}
    assert len(shifts) == 1 and 0 not in shifts
    assert a.privacy.epsilon_spent == 0
    assert b.text == f"Vu le {got[0]:%d/%m/%Y}."


def test_placeholder_mode_and_bad_configuration():
    out = deidentify_text(THREAD, THREAD_SPANS, "en", date(2020, 3, 1), profile="placeholder")
    assert out.text.startswith("Mr. [PER] born in [LOC], [AGE], was admitted")
    with pytest.raises(ValueError):
        deidentify_text(THREAD, THREAD_SPANS, "en", profile="nope")
    with pytest.raises(ValueError):
        Substituter(InMemoryStore(), KeyHasher(SECRET), Settings(strategies={"PER": "geo"}), random.Random(0))


def test_same_input_reference_and_seed_give_the_same_output():
    a = deidentify_text(FRENCH, FRENCH_SPANS, "fr", date(2021, 3, 5), rng=random.Random(9))
    b = deidentify_text(FRENCH, FRENCH_SPANS, "fr", date(2021, 3, 5), rng=random.Random(9))
    assert a.text == b.text


def test_overlapping_spans_are_replaced_as_their_union():
    t = "Patient Jean Dupont vu."
    spans = [Span(8, 19, Label.PATIENT), Span(13, 19, Label.PATIENT)]
    out = deidentify_text(t, spans, "fr", profile="placeholder")
    assert out.text == "Patient [PER] vu."


async def test_postcode_follows_the_surrogate_city_of_the_same_note():
    t = "Domicile : 21000 Dijon."
    spans = spans_of(t, [("21000", Label.POSTCODE), ("Dijon", Label.CITY)])
    from deid.surrogates import places

    for seed in range(5):
        sub, _ = make(seed=seed)
        out = (await sub.substitute([note(t, f"e{seed}")], [spans], MODEL))[0]
        m = re.fullmatch(r"Domicile : (\d{5}) (.+)\.", out.text)
        assert m, out.text
        city = places.country_table("fr").find(m[2])
        assert city is not None and city.postcode == m[1]


def test_a_title_gives_the_gender_of_an_unknown_first_name():
    from deid.surrogates import names

    assert names.gender_of_title("Mme") == "female" and names.gender_of_title("Sr.") == "male"
    assert names.gender_of_title("Dr") is None


async def test_unknown_places_are_drawn_from_the_table_for_free_and_never_kept():
    t = "Né à Xyzville-sur-Rien."
    spans = spans_of(t, [("Xyzville-sur-Rien", Label.CITY)])
    for seed in range(10):
        sub, _ = make(seed=seed)
        out = (await sub.substitute([note(t, f"e{seed}")], [spans], MODEL))[0]
        assert "Xyzville" not in out.text
        assert out.privacy.epsilon_spent == 0 and out.spans[0].strategy == "random"


def test_spanish_note_keeps_spanish_formats():
    t = "Paciente de 54 años, ingresó el 3 de marzo de 2021 en Madrid; operado hace tres semanas."
    spans = spans_of(t, [("54 años", Label.AGE), ("3 de marzo de 2021", Label.DATE), ("Madrid", Label.CITY),
                         ("hace tres semanas", Label.DATE)])
    out = deidentify_text(t, spans, "es", date(2021, 3, 25), rng=random.Random(4))
    assert re.fullmatch(r"Paciente de \d+ años?, ingresó el \d+ de [a-z]+ de \d{4} en [^;]+; "
                        r"operado hace \w+ semanas?\.", out.text), out.text


def test_no_surrogate_brings_back_another_name_of_the_note():
    """Over 300 seeds, "PETIT" and "Jean-Pierre" never become "DUPONT" or another real name of the
    note (a surname pool of a few hundred names draws any one of them often enough to show)."""
    from deid.surrogates import names

    text = "Patient : M. Jean-Pierre DUPONT, adressé par le Dr PETIT et le Dr BERNARD. Mme MARTIN, sa fille."
    words = ("Jean-Pierre DUPONT", "PETIT", "BERNARD", "MARTIN")
    spans = [Span(text.index(w), text.index(w) + len(w), Label.PATIENT if i == 0 else Label.STAFF)
             for i, w in enumerate(words)]
    real = names.name_words(words)
    for seed in range(300):
        out = deidentify_text(text, spans, profile="random", rng=random.Random(seed)).text
        found = {names.fold(w) for w in re.findall(r"[\w-]+", out) for w in (w, *w.split("-"))}
        assert not found & real, (seed, out)


def test_the_patients_sex_is_kept_and_said_kept_unless_a_strategy_replaces_it():
    t = "Homme de 40 ans, vu le 3 mars 2021."
    s = spans_of(t, [("Homme", Label.SEX), ("40 ans", Label.AGE), ("3 mars 2021", Label.DATE)])
    for mode in ("dp", "random", "safe-harbor", "placeholder"):
        out = deidentify_text(t, s, "fr", date(2021, 3, 5), profile=mode, rng=random.Random(3))
        assert out.text.startswith("Homme de ") and "SEX" in out.kept_labels, (mode, out.text)
    replaced = deidentify_text(t, s, "fr", date(2021, 3, 5), profile="placeholder",
                               settings=Settings(strategies={"SEX": "placeholder"}))
    assert replaced.text == "[OTHER] de [AGE], vu le [DATE]." and replaced.kept_labels == []


def test_random_mode_keeps_ages_under_90_and_says_so_and_aggregates_older_ones():
    t = "Patiente de 67 ans, sa mère de 92 ans."
    s = spans_of(t, [("67 ans", Label.AGE), ("92 ans", Label.AGE)])
    out = deidentify_text(t, s, "fr", date(2021, 3, 5), profile="random", rng=random.Random(1))
    assert out.text == "Patiente de 67 ans, sa mère de 90+ ans." and out.kept_labels == ["AGE"]


def test_an_email_surrogate_never_borrows_a_real_name_of_the_note():
    from deid.surrogates.names import name_lists
    from deid.temporal.lexicon import fold

    lasts = name_lists()["fr"]["last"][:40]  # a roster: 40 real surnames of the draw pool
    t = "Équipe : " + ", ".join(f"Dr {n}" for n in lasts) + ". Contact : jean.durand@chu.fr"
    s = spans_of(t, [*((f"Dr {n}", Label.STAFF) for n in lasts), ("jean.durand@chu.fr", Label.EMAIL)])
    roster = {fold(n) for n in lasts}
    for seed in range(150):
        out = deidentify_text(t, s, "fr", date(2021, 3, 5), profile="random", rng=random.Random(seed))
        local = out.text.rsplit("Contact : ", 1)[1].split("@")[0]
        assert not roster & {fold(w) for w in local.replace("-", ".").split(".")}, (seed, local)
