"""PID/NK1/PV1 surrogates and the note's text surrogates come from one memo, so they agree."""

from __future__ import annotations

import random
import re

from hl7_samples import sample

from deid.events import ModelInfo
from deid.hl7 import build_deid_hl7, identity_values, parse_hl7_note, parse_message, to_raw_note
from deid.hl7.surrogates import companion_note, resolve_identity_surrogates
from deid.labels import Label
from deid.settings import ModelSettings, Settings
from deid.spans import Span
from deid.store.keys import KeyHasher
from deid.store.memory import InMemoryStore
from deid.substitution import Substituter

MODEL = ModelInfo(name="gold", version="0")


def _span(text: str, value: str, label: Label) -> Span:
    start = text.index(value)
    return Span(start, start + len(value), label)


async def test_identity_fields_and_text_mentions_get_the_same_surrogates() -> None:
    settings = Settings(model=ModelSettings(enabled=False))
    substituter = Substituter(InMemoryStore(), KeyHasher(settings.secret_bytes()), settings,
                              random.Random(7))
    parsed = parse_hl7_note(sample("oru_r01_fr.hl7"), settings)
    note = to_raw_note(parsed)
    # gold spans stand in for the detector
    spans = sorted([
        _span(note.text, "DUPONT", Label.PATIENT),
        _span(note.text, "14/03/1985", Label.BIRTH_DATE),
        _span(note.text, "PETIT", Label.STAFF),
        _span(note.text, "06 12 34 56 78", Label.PHONE),
    ])
    [deid_note] = await substituter.substitute([note], [spans], MODEL)
    surrogates = await resolve_identity_surrogates(substituter, note, identity_values(parsed.message), MODEL)
    out = build_deid_hl7(parsed, deid_note.text, surrogates)
    msg = parse_message(out)
    pid, pv1 = msg.first("PID"), msg.first("PV1")

    surname = msg.get(pid, 5, 1)
    assert surname and surname != "DUPONT"
    assert f"Jean-Pierre {surname}," in deid_note.text
    birth = msg.get(pid, 7)
    assert re.fullmatch(r"\d{8}", birth)
    assert f"né le {birth[6:8]}/{birth[4:6]}/{birth[:4]}" in deid_note.text
    phone = msg.get(pid, 13, 1)
    assert " ".join(phone[i:i + 2] for i in range(0, 10, 2)) in deid_note.text
    assert f"Dr {msg.get(pv1, 8, 2)} " in deid_note.text
    # and the rebuilt message's text is the de-identified note
    assert parse_hl7_note(out, settings).text == deid_note.text
    assert "DUPONT" not in out.decode() and "1850375123456" not in out.decode()


async def test_resolving_twice_is_a_replay_that_spends_nothing() -> None:
    settings = Settings(model=ModelSettings(enabled=False))
    store = InMemoryStore()
    hasher = KeyHasher(settings.secret_bytes())
    substituter = Substituter(store, hasher, settings, random.Random(3))
    parsed = parse_hl7_note(sample("mdm_t02_fr.hl7"), settings)
    note = to_raw_note(parsed)
    values = identity_values(parsed.message)
    first = await resolve_identity_surrogates(substituter, note, values, MODEL)
    spent = await store.spent(hasher.patient(note.patient_id))
    second = await resolve_identity_surrogates(substituter, note, values, MODEL)
    assert first == second
    assert await store.spent(hasher.patient(note.patient_id)) == spent
    assert set(first) == set(values)


def test_companion_note_keeps_the_patient_and_gets_its_own_event_id() -> None:
    parsed = parse_hl7_note(sample("oru_r01_en.hl7"), Settings())
    note = to_raw_note(parsed)
    companion, spans = companion_note(note, [(Label.PATIENT, "O'BRIEN"), (Label.OTHER, "a\nb")])
    assert companion.patient_id == note.patient_id
    assert companion.document_date == note.document_date
    assert companion.event_id == "CTRL-EN-0002#hl7-fields"
    assert [companion.text[s.start:s.end] for s in spans] == ["O'BRIEN"]


async def test_pid_nk1_names_and_addresses_come_from_the_texts_identities_and_place_rows() -> None:
    """The text names "Jean-Pierre DUPONT" and "Villeurbanne": PID-5 family and given names, NK1's
    family name and PID-11's town and postcode are those of the text, and the town and postcode
    exist together in the shipped table."""
    from deid.surrogates import gazetteer as gz

    settings = Settings(model=ModelSettings(enabled=False))
    substituter = Substituter(InMemoryStore(), KeyHasher(settings.secret_bytes()), settings,
                              random.Random(11))
    parsed = parse_hl7_note(sample("oru_r01_fr.hl7"), settings)
    note = to_raw_note(parsed)
    spans = sorted([_span(note.text, "Jean-Pierre DUPONT", Label.PATIENT),
                    _span(note.text, "PETIT", Label.STAFF), _span(note.text, "Villeurbanne", Label.CITY)])
    [deid_note] = await substituter.substitute([note], [spans], MODEL)
    m = re.search(r"Patient : M\. (\S+) (\S+), né", deid_note.text)
    assert m, deid_note.text
    given, family = m.groups()
    surrogates = await resolve_identity_surrogates(substituter, note, identity_values(parsed.message), MODEL)
    msg = parse_message(build_deid_hl7(parsed, deid_note.text, surrogates))
    pid = msg.first("PID")
    assert (msg.get(pid, 5, 1), msg.get(pid, 5, 2)) == (family, given)
    assert [msg.get(s, 2, 1) for s in msg.all("NK1")] == [family, family]  # the family's surname
    town = re.search(r"revoir dans 3 mois à (.+)\.", deid_note.text)
    assert town and msg.get(pid, 11, 3) == town[1]
    zipc = msg.get(pid, 11, 5)
    assert [t for t in gz.gazetteer("FR").towns if t.name == town[1] and zipc in t.postcodes]
    assert msg.get(pid, 11, 4) == next(t.admin2_name for t in gz.gazetteer("FR").towns if t.name == town[1])
    nk1 = msg.all("NK1")[0]
    assert (msg.get(nk1, 4, 3), msg.get(nk1, 4, 5)) == (town[1], zipc)
