"""The feed's locale when an event does not name one (HL7 feeds never do): settings per language."""

from __future__ import annotations

import random
import re
from datetime import date

import pytest
from pydantic import ValidationError

from deid.events import ModelInfo, RawNote
from deid.labels import Label
from deid.settings import Settings
from deid.spans import Span
from deid.store.keys import KeyHasher
from deid.store.memory import InMemoryStore
from deid.substitution import Substituter
from deid.surrogates import gazetteer as gz

TEXT = "Admitted 3/9/2024 in Leeds."
SPANS = [Span(9, 17, Label.DATE), Span(21, 26, Label.CITY)]


async def substitute(settings: Settings, seed: int, **note: object) -> tuple[str, str]:
    hasher = KeyHasher(b"0123456789abcdef-test-secret")
    sub = Substituter(InMemoryStore(), hasher, settings, random.Random(seed))
    raw = RawNote(event_id=f"e{seed}", patient_id="p1", language="en", document_date=date(2024, 3, 20),
                  text=TEXT, **note)  # type: ignore[arg-type]
    [out] = await sub.substitute([raw], [SPANS], ModelInfo(name="gold", version="0"))
    return tuple(out.text[s.start : s.end] for s in out.spans)  # type: ignore[return-value]


def month_of(rendered: str, order: str) -> int:
    a, b, _ = (int(x) for x in rendered.split("/"))
    return b if order == "dmy" else a


@pytest.mark.parametrize("seed", range(4))
async def test_an_english_feed_set_to_en_gb_reads_day_first_and_draws_uk_towns(seed: int) -> None:
    # 3/9/2024 is 3 September in a UK note: a surrogate within weeks of it stays in Aug-Oct
    when, town = await substitute(Settings(profile="dp", locales={"en": "en-GB"}), seed)
    assert month_of(when, "dmy") in (8, 9, 10), when
    assert town in {t.name for t in gz.gazetteer("GB").towns}


@pytest.mark.parametrize("seed", range(4))
async def test_without_the_setting_an_english_feed_is_us_and_the_event_still_wins(seed: int) -> None:
    when, town = await substitute(Settings(profile="dp"), seed)
    assert month_of(when, "mdy") in (2, 3, 4), when  # 9 March, month first
    assert town in {t.name for t in gz.gazetteer("US").towns}
    when, _ = await substitute(Settings(profile="dp", locales={"en": "en-GB"}), seed, locale="en-US")
    assert month_of(when, "mdy") in (2, 3, 4), when


async def test_date_orders_override_the_locale_s_order() -> None:
    when, _ = await substitute(Settings(profile="dp", date_orders={"en-US": "dmy"}), 0)
    assert re.fullmatch(r"\d{1,2}/\d{1,2}/\d{4}", when) and month_of(when, "dmy") in (8, 9, 10), when


def test_a_locale_of_another_language_is_refused() -> None:
    with pytest.raises(ValidationError, match="locale must be of its language"):
        Settings(locales={"en": "fr-FR"})  # type: ignore[dict-item]
