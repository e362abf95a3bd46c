"""The worker's locale for an English note that names none: read from its text (issue 29).

A UK letter sent as a JSON event or an HL7 message without a locale used to be substituted as
en-US: its dd/mm dates read month first, its towns drawn from the United States. The event's own
``locale`` and the feed's ``DEID_LOCALES`` still win; ``DEID_LOCALE_FROM_TEXT=false`` turns the
reading off.
"""

from __future__ import annotations

import random
import re
from datetime import date

import orjson
import pytest

from deid.events import DeadLetter, ModelInfo, RawNote
from deid.labels import Label
from deid.settings import Settings
from deid.spans import Span
from deid.store.keys import KeyHasher
from deid.store.memory import InMemoryStore
from deid.substitution import Substituter
from deid.substitution.profiles import profile_settings
from deid.surrogates import gazetteer as gz
from worker.decode import decode_record
from worker.mllp_decode import decode_hl7_record

# Day-first dates (one of them readable either way), a UK postcode, British spelling.
UK_TEXT = ("Clinic letter. Seen on 21/02/2024 in Brackenfold, first referred on 03/01/2024. "
           "Postcode LA9 4DT. Haemoglobin stable; her GP will review.")
US_TEXT = "Seen on 02/21/2024 in Salem, first referred on 01/03/2024. Salem, OR 97301. Hemoglobin stable."
KW = {"topic": "raw-notes", "partition": 0, "offset": 1, "timestamp_ms": 1_700_000_000_000}


def event(text: str, **fields: object) -> bytes:
    return orjson.dumps({"event_id": "e1", "patient_id": "p1", "language": "en", "text": text, **fields})


def decoded(payload: bytes, settings: Settings) -> RawNote:
    note = decode_record(payload, settings=settings, **KW)  # type: ignore[arg-type]
    assert isinstance(note, RawNote)
    return note


def test_an_english_event_without_a_locale_takes_the_one_its_text_shows() -> None:
    assert decoded(event(UK_TEXT), Settings()).locale == "en-GB"
    assert decoded(event(US_TEXT), Settings()).locale == "en-US"
    assert decoded(event("Seen today, doing well."), Settings()).locale is None  # unknown: en-US stands


def test_an_english_event_without_language_under_an_english_default_is_read_too() -> None:
    payload = orjson.dumps({"event_id": "e1", "patient_id": "p1", "text": UK_TEXT})
    assert decoded(payload, Settings(default_language="en")).locale == "en-GB"
    assert decoded(payload, Settings()).locale is None  # read as French: one locale, nothing to read


def test_the_event_s_locale_and_the_feed_s_setting_win_and_the_reading_can_be_turned_off(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert decoded(event(UK_TEXT, locale="en-US"), Settings()).locale == "en-US"
    assert decoded(event(UK_TEXT), Settings(locales={"en": "en-US"})).locale is None  # the engine takes en-US
    monkeypatch.setenv("DEID_LOCALE_FROM_TEXT", "false")
    assert decoded(event(UK_TEXT), Settings()).locale is None


def hl7_message(text: str) -> bytes:
    # MSH-19 = en (the message's language); the OBX holds the letter
    return ("MSH|^~\\&|PAS|TRUST|DEID|DEID|20240221101500||ORU^R01|CTRL-UK-1|P|2.3|||||||en\r"
            "PID|||H123456^^^TRUST^MR||DOE^JANE||19500101|F\r"
            "OBR|1||DOC-1|LETTER^Clinic letter|||20240221\r"
            f"OBX|1|TX|LETTER||{text}||||||F\r").encode()


def test_an_hl7_message_which_never_names_a_locale_is_read_from_its_text() -> None:
    out = decode_hl7_record(hl7_message(UK_TEXT), settings=Settings(), **KW)  # type: ignore[arg-type]
    assert not isinstance(out, DeadLetter) and (out.language, out.locale) == ("en", "en-GB")
    off = decode_hl7_record(hl7_message(UK_TEXT), settings=Settings(locale_from_text=False),
                            **KW)  # type: ignore[arg-type]
    assert isinstance(off, RawNote) and off.locale is None


async def substituted(note: RawNote, seed: int) -> tuple[list[date], str, str]:
    """The note's two dates (read back day first), its town and its postcode, after the random
    profile (one date shift per patient, towns drawn from the feed's country)."""
    sub = Substituter(InMemoryStore(), KeyHasher(b"0123456789abcdef-test-secret"),
                      profile_settings(Settings(), "random"), random.Random(seed))

    def span(word: str, label: Label) -> Span:
        return Span(note.text.index(word), note.text.index(word) + len(word), label)

    spans = [span("21/02/2024", Label.DATE), span("03/01/2024", Label.DATE),
             span("Brackenfold", Label.CITY), span("LA9 4DT", Label.POSTCODE)]
    dated = note.model_copy(update={"document_date": date(2024, 2, 22)})
    [out] = await sub.substitute([dated], [spans], ModelInfo(name="gold", version="0"))
    first, town, second, postcode = (out.text[s.start : s.end] for s in out.spans)  # text order
    days = [date(int(y), int(m), int(d)) for d, m, y in (x.split("/") for x in (first, second))]
    return days, town, postcode


@pytest.mark.parametrize("seed", range(3))
async def test_a_uk_event_without_a_locale_is_substituted_day_first_with_uk_places(seed: int) -> None:
    (seen, referred), town, postcode = await substituted(decoded(event(UK_TEXT), Settings()), seed)
    # 21 February and 3 January: one shift per patient keeps their 49 days; read month first,
    # "21/02" was no date and 03/01 was 1 March
    assert (seen - referred).days == 49
    assert town in {t.name for t in gz.gazetteer("GB").towns}
    assert re.fullmatch(r"[A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2}", postcode), postcode  # not a US ZIP code
