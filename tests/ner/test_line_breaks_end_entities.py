"""A line break ends a mention: no gold span of the corpora crosses one, and a detected span that
did made two mentions one ("Dr M Okafor" and the practice on the next line) or took the next
line's clinical text ("+1 514 555 0127." and "6h30")."""

from __future__ import annotations

import pytest

from deid.ner.text import decode_words, split_words
from deid.rules.short_ages import ShortAgeRecognizer

SIGNATURE = "Dr M Okafor\nWidcombe Surgery"


def test_a_line_break_ends_the_entity_whatever_the_tags() -> None:
    words = split_words(SIGNATURE)
    tags = ["B-STAFF"] + ["I-STAFF"] * (len(words) - 1)
    spans = decode_words(words, tags, text=SIGNATURE)
    assert [SIGNATURE[s.start : s.end] for s in spans] == ["Dr M Okafor", "Widcombe Surgery"]


def test_the_next_line_is_a_mention_of_its_own() -> None:
    text = "Tel +1 514 555 0127.\n\n6h30 patient awake"
    words = split_words(text)
    until = next(i for i, w in enumerate(words) if text[w.start : w.end] == "6h30")
    tags = ["O", "B-PHONE"] + ["I-PHONE"] * (until - 1) + ["O"] * (len(words) - until - 1)
    got = [text[s.start : s.end] for s in decode_words(words, tags, text=text)]
    # still detected (a span is never dropped for its line), but no longer the phone's extent
    assert got == [text[text.index("+1") : text.index("\n")].rstrip("."), "6h30"] or got == [
        text[text.index("+1") : text.index("\n")], "6h30"]


def test_without_the_text_the_former_decoding_is_unchanged() -> None:
    words = split_words(SIGNATURE)
    tags = ["B-STAFF"] + ["I-STAFF"] * (len(words) - 1)
    assert len(decode_words(words, tags)) == 1  # no text, no line to read: one entity, as before


@pytest.mark.parametrize("text, age", [
    ("DOB: 10/08/1942     Age: 79\nMRN: KHP-003175", "79"),
    ("AGE: 92\nLOCATION: 7 North", "92"),
])
def test_an_age_at_a_line_end_leaves_the_line_break(text: str, age: str) -> None:
    spans = ShortAgeRecognizer().find(text, "en")
    assert [text[s.start : s.end] for s in spans] == [age]


def test_a_titled_name_ends_at_its_line() -> None:
    from deid.rules.us import TitledNameRecognizer

    text = "Occupation: software developer\nGP: Dr Yeung\nBorn in Spain (Valencia)"
    assert [text[s.start : s.end] for s in TitledNameRecognizer().find(text, "en")] == ["Yeung"]


def test_the_last_step_cuts_any_span_at_its_line_breaks() -> None:
    from deid.detection.pipeline import split_at_lines
    from deid.labels import Label
    from deid.spans import Span

    text = "4710 N Lincoln Ave\nChicago, IL 60625\n\n  \nRe: visit"
    span = Span(text.index("Lincoln"), text.index(","), Label.CITY, "rules.street")
    got = [text[s.start : s.end] for s in split_at_lines([span], text)]
    assert got == ["Lincoln Ave", "Chicago"]
    blank = Span(text.index("60625") + 5, text.index("Re:"), Label.CITY, "rules.street")
    assert split_at_lines([blank], text) == []  # white space alone: nothing to replace
