"""``deid redact`` without ``--locale``: an English note's locale is read from its text (issue 29).

A UK letter used to be substituted as en-US: its 03/01/2024 read as 1 March and its town and
postcode replaced by American ones. The detector is a stand-in that marks the note's dates, town
and postcode, so that only the locale is under test.
"""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import pytest

import deid.cli.redact as redact
from deid.cli import main
from deid.labels import Label
from deid.spans import Span
from deid.surrogates import gazetteer as gz

UK_LETTER = ("Dear Doctor,\n\nThank you for asking me to see this lady, who was reviewed in the clinic "
             "on 21/02/2024 after she was first referred to us on 03/01/2024. She lives in Brackenfold, "
             "LA9 4DT, with her husband. Her haemoglobin is stable and her GP will repeat the blood count.\n")
MARKED = (("21/02/2024", Label.DATE), ("03/01/2024", Label.DATE), ("Brackenfold", Label.CITY),
          ("LA9 4DT", Label.POSTCODE))


class Marks:
    """Finds exactly the values of ``MARKED`` (a stand-in for the model)."""

    model_name = "marks"
    model_version = "0"

    def detect(self, texts: list[str], languages: list[str]) -> list[list[Span]]:
        return [[Span(t.index(v), t.index(v) + len(v), label) for v, label in MARKED if v in t]
                for t in texts]


@pytest.fixture
def letter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(redact, "detector_from_args", lambda args, **_: Marks())
    monkeypatch.delenv("DEID_LOCALES", raising=False)
    monkeypatch.delenv("DEID_LOCALE_FROM_TEXT", raising=False)
    path = tmp_path / "letter.txt"
    path.write_text(UK_LETTER, encoding="utf-8")
    return path


def redacted(capsys: pytest.CaptureFixture[str], path: Path, *extra: str) -> tuple[str, str]:
    code = main(["redact", "--json", "--profile", "random", "--date", "2024-02-22", "--seed", "5",
                 *extra, str(path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)["text"], err


def test_a_uk_note_without_locale_gets_uk_places_and_day_first_dates_and_says_so(
        letter: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text, err = redacted(capsys, letter)
    assert f"deid redact: {letter}: locale en-GB read from the text (day-first dates, UK postcode" in err
    assert "give --locale to override" in err
    m = re.search(r"clinic on (\d\d)/(\d\d)/(\d{4}) after .* on (\d\d)/(\d\d)/(\d{4})\. She lives in (.+), "
                  r"([A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2}), with", text, re.DOTALL)
    assert m, text
    d1, m1, y1, d2, m2, y2 = (int(x) for x in m.groups()[:6])
    # one shift per patient under "random": 21 February and 3 January stay 49 days apart when
    # both are read (and written) day first
    assert (date(y1, m1, d1) - date(y2, m2, d2)).days == 49
    assert m.group(7) in {t.name for t in gz.gazetteer("GB").towns}


def test_locale_and_deid_locales_override_the_text(letter: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    us_towns = {t.name for t in gz.gazetteer("US").towns}
    text, err = redacted(capsys, letter, "--locale", "en-US")
    m = re.search(r"She lives in (.+), (\d{5}), with", text)  # a US town and ZIP code, as asked
    assert "read from the text" not in err and m and m.group(1) in us_towns, text
    monkeypatch.setenv("DEID_LOCALES", '{"en": "en-US"}')
    text, err = redacted(capsys, letter)
    m = re.search(r"She lives in (.+), (\d{5}), with", text)
    assert "read from the text" not in err and m and m.group(1) in us_towns, text


def test_a_note_that_says_too_little_keeps_the_default_without_a_word(
        tmp_path: Path, letter: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plain = tmp_path / "plain.txt"
    # a date that reads either way and no other clue: the language's default (en-US) stands
    plain.write_text("The patient was seen on 03/01/2024 in Brackenfold and she is well with her husband.\n",
                     encoding="utf-8")
    _, err = redacted(capsys, plain, "--lang", "en")
    assert "read from the text" not in err
