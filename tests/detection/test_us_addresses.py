"""A US address line read as its parts whatever the model called them (``deid.detection.addresses``)."""

from __future__ import annotations

import gc
import time

import pytest

from deid.detection.addresses import read_us_addresses
from deid.labels import Label
from deid.spans import Span


def _at(text: str, part: str, label: Label, source: str = "ner") -> Span:
    i = text.index(part)
    return Span(i, i + len(part), label, source)


def _parts(spans: list[Span], text: str) -> list[tuple[str, str]]:
    return [(text[s.start : s.end], s.label.value) for s in spans]


@pytest.mark.parametrize(("text", "model", "want"), [
    # a house number read as a ZIP code, a town as a street
    ("REHAB\n16151 19 Mile Rd, Clinton Township, MI 48038  |  Ph 586-263-2790",
     [("16151", Label.POSTCODE), ("19 Mile Rd", Label.STREET), ("Clinton Township", Label.STREET)],
     [("16151 19 Mile Rd", "STREET"), ("Clinton Township", "CITY"), ("MI", "LOCATION"),
      ("48038", "POSTCODE")]),
    # a state read as a ZIP code
    ("410 W 10th Ave, Columbus, OH 43210   Ph 614-293-5500", [("OH", Label.POSTCODE)],
     [("410 W 10th Ave", "STREET"), ("Columbus", "CITY"), ("OH", "LOCATION"), ("43210", "POSTCODE")]),
    # a Queens house number read as a phone number, the unit kept with the street, a state as a town
    ("37-14 82nd St, 2nd Fl, Jackson Heights, NY 11372", [("37-14", Label.PHONE), ("NY", Label.CITY)],
     [("37-14 82nd St, 2nd Fl", "STREET"), ("Jackson Heights", "CITY"), ("NY", "LOCATION"),
      ("11372", "POSTCODE")]),
    # a suite after a bullet, a town with no comma before its state, Maryland after a town
    ("220 Lyon St NW, Suite 610 · Grand Rapids MD 21201-1595", [],
     [("220 Lyon St NW, Suite 610", "STREET"), ("Grand Rapids", "CITY"), ("MD", "LOCATION"),
      ("21201-1595", "POSTCODE")]),
    # no street: the town after a comma, the state read as a town
    ("Rio Grande Family Health, Albuquerque, NM 87109", [("NM", Label.CITY)],
     [("Albuquerque", "CITY"), ("NM", "LOCATION"), ("87109", "POSTCODE")]),
])  # fmt: skip
def test_each_part_of_an_address_line_gets_its_own_label(
        text: str, model: list[tuple[str, Label]], want: list[tuple[str, str]]) -> None:
    spans = [_at(text, part, label) for part, label in model]
    got = [p for p in _parts(read_us_addresses(spans, text, "en"), text) if p[1] != "PHONE"]
    assert got == want


@pytest.mark.parametrize(("text", "found"), [
    ("Patient ID 12345", []),  # a code that is also a word, no street before it
    ("Meds: Dalteparin SC 10000 units", []),
    ("Mobility: Walking, OK 10000 steps", []),
    ("Signed: John Smith MD 41234\nSpoke with Smith today.", [("John Smith", Label.PERSON)]),
    ("Signed: John Smith, NY 10021", [("John Smith", Label.PERSON)]),  # a name is no town
    ("Facility: Mercy Hospital Des Moines, IA 50314", [("Mercy Hospital", Label.HOSPITAL)]),
])  # fmt: skip
def test_a_word_a_name_or_a_hospital_before_a_code_and_five_digits_is_no_town(
        text: str, found: list[tuple[str, Label]]) -> None:
    spans = [_at(text, part, label) for part, label in found]
    assert read_us_addresses(spans, text, "en") == spans


def test_a_town_needs_a_left_edge_so_a_hospital_stays_apart() -> None:
    text = "Pt seen at Mercy Hospital Des Moines IA 50314 last year."
    hospital = _at(text, "Mercy Hospital", Label.HOSPITAL)
    got = _parts(read_us_addresses([hospital], text, "en"), text)
    assert ("Mercy Hospital", "HOSPITAL") in got
    assert not any(label == "CITY" and "Mercy" in part for part, label in got)


def test_a_span_reaching_out_of_the_address_keeps_its_outside_part() -> None:
    text = "Lives with son: 2718 Penn Ave N, Apt 3, Minneapolis, MN 55411"
    wide = _at(text, "son: 2718 Penn Ave N", Label.PERSON)
    got = _parts(read_us_addresses([wide], text, "en"), text)
    assert got == [("son:", "PERSON"), ("2718 Penn Ave N, Apt 3", "STREET"), ("Minneapolis", "CITY"),
                   ("MN", "LOCATION"), ("55411", "POSTCODE")]


def test_other_languages_and_lines_without_a_zip_code_are_left_as_they_are() -> None:
    text = "Domicile : 12 rue des Lilas, Paris, NY 75011"
    spans = [_at(text, "Paris", Label.CITY)]
    assert read_us_addresses(spans, text, "fr") == spans
    plain = "Seen in Columbus, OH last May."
    assert read_us_addresses([], plain, "en") == []


def test_every_character_a_span_covered_is_still_covered() -> None:
    text = "Home: 16151 19 Mile Rd, Clinton Township, MI 48038 (own house)"
    spans = [Span(0, len(text), Label.PERSON, "ner")]
    out = read_us_addresses(spans, text, "en")
    covered = {i for s in out for i in range(s.start, s.end)}
    assert all(i in covered for i, c in enumerate(text) if c.isalnum())


@pytest.mark.parametrize(("unit", "wide"), [
    ("1 Aa Aa Aa Aa Aa ", False), ("Aa Aa, ", False), ("1 St, Aa Aa Aa Aa NY ", False),
    ("  Aa NY 1234 ", False),
    ("12 Oak St, Salem, OR 97301 | ", False), ("12 Oak St, Salem, OR 97301 | ", True),  # addresses, and one
    (", Salem, NY 12345 ", False), (", Salem, NY 12345 ", True),  # span over them all
])  # fmt: skip
def test_a_long_run_of_near_addresses_is_read_in_linear_time(unit: str, wide: bool) -> None:
    def cost(n: int) -> float:
        text = unit * n
        spans = ([Span(0, len(text), Label.LOCATION, "ner")] if wide
                 else [Span(i, i + 2, Label.CITY, "ner") for i in range(0, len(text) - 2, 40)])
        gc.disable()  # the collector's passes over the many spans made are no cost of the step
        try:
            t = time.thread_time()
            read_us_addresses(spans, text, "en")
            return time.thread_time() - t
        finally:
            gc.enable()

    # (2k and 20k pieces: at 40k, 1.2M characters, memory, not the step, read x16 for a linear run)
    # (a 2k run takes 5-9 ms: the timer's and the caches' noise read x15 on a linear step, 1 run in 3
    # on an idle box; a quadratic one reads x100)
    small, large = min(cost(2_000) for _ in range(5)), min(cost(20_000) for _ in range(3))
    assert large / max(small, 1e-4) < 30  # ten times the input, well under a hundred times the time


@pytest.mark.parametrize(("head", "tail"), [("1 Aa St Apt", "."), ("1 Aa St", "."), ("Aa", ", NY 1")])
def test_one_long_run_of_blanks_inside_an_address_is_read_in_linear_time(head: str, tail: str) -> None:
    def cost(n: int) -> float:
        text = head + " " * n + tail
        t = time.thread_time()
        read_us_addresses([], text, "en")
        return time.thread_time() - t

    # "[ \t]*#?[ \t]*" of a unit split 8k blanks in every way: 1.8 s, x4 for twice the run
    small, large = min(cost(20_000) for _ in range(5)), min(cost(200_000) for _ in range(3))
    assert large / max(small, 1e-4) < 15
