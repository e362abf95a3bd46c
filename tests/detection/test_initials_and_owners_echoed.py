"""A detected name's other initials and its possessive are echoed; an initial before it is grown
in (issue 29)."""

from __future__ import annotations

import pytest

from deid.detection.echoes import echo_names
from deid.detection.extents import whole_extents
from deid.labels import Label
from deid.spans import Span


def at(text: str, words: str, label: Label = Label.PATIENT) -> Span:
    start = text.index(words)
    return Span(start, start + len(words), label, "ner", 0.95)


def echoed(text: str, name: str, language: str = "en") -> list[str]:
    out = echo_names([at(text, name)], text, language)
    return [text[s.start : s.end] for s in out if s.source == "echo"]


@pytest.mark.parametrize(("text", "name", "expected"), [
    ("Patient: STREET, William John. Managed stairs (WJS keen to go home).", "STREET, William John", ["WJS"]),
    ("Patient : LE GOFF Maryvonne (MLG) - 72 a", "LE GOFF Maryvonne", ["MLG"]),
    ("Noor El-Amin, MD - Pediatric Emergency Medicine (NEA)", "Noor El-Amin", ["NEA"]),
    ("J. O'Brien-Achterberg MCSP  Band 6 Physio   JOBA", "J. O'Brien-Achterberg", ["JOBA"]),
    ("Reported by: Dr Fiona Grant FRCPath\nAuthorised electronically FG 19/01/2024", "Fiona Grant FRCPath",
     ["FG"]),
    ("PRZYBYLSKI, DOMINIK  23 yo M. Mom states DP dx bipolar I at 19", "PRZYBYLSKI, DOMINIK", ["DP"]),
])  # fmt: skip
def test_initials_written_given_name_first_or_by_parts_are_echoed(text: str, name: str,
                                                                  expected: list[str]) -> None:
    assert echoed(text, name) == expected


def test_a_possessive_echo_covers_the_name_not_the_s() -> None:
    text = "Kwabena MENSAH up at 09:30. Mum rang, updated w/ KM's consent."
    assert echoed(text, "Kwabena MENSAH") == ["KM"]


def test_initials_that_are_a_clinical_abbreviation_are_not_echoed() -> None:
    text = "Dr Marie Durand reviewed. MD aware."
    assert echoed(text, "Marie Durand") == []


def test_a_nickname_the_rule_found_spreads_even_in_capitals() -> None:
    text = 'Goes by "PJ". IS 1000 at bedside, PJ using it w/ coaching.'
    start = text.index("PJ")
    nick = Span(start, start + 2, Label.PERSON, "rules.nickname", 1.0)
    out = echo_names([nick], text, "en")
    assert [text[s.start : s.end] for s in out] == ["PJ", "PJ"]


def test_an_initial_before_a_name_is_grown_in_but_not_the_french_monsieur() -> None:
    text = "M. Trewin MCSP, Band 6 Physiotherapist"
    assert [text[s.start : s.end] for s in whole_extents([at(text, "Trewin", Label.STAFF)], text, "en")] == [
        "M. Trewin"]
    text_fr = "Vu avec M. Durand ce jour"
    grown = whole_extents([at(text_fr, "Durand")], text_fr, "fr")
    assert [text_fr[s.start : s.end] for s in grown] == ["Durand"]


def test_a_nickname_spelled_like_a_particle_is_echoed_in_english_and_not_in_french_or_spanish() -> None:
    """"Del" of "Delbert "Del" Okoro" names him again in an English note; "del" and "Del" are words of
    Spanish text (and "de", "la" of French), so there the particle guard stays."""
    text = 'Pt Delbert "Del" Okoro, 67M. Del resting, asked for the del mar brochure.'
    assert echoed(text, 'Delbert "Del" Okoro') == ["Del"]
    es = 'Paciente Delfín "Del" Okoro. Del mismo modo refiere dolor.'
    assert echoed(es, 'Delfín "Del" Okoro', "es") == []


@pytest.mark.parametrize(("text", "name"), [
    ("Patient: Diane O. Brown, 81 y/o F\nDOB: 03/04/1943   MRN 558120", "Diane O. Brown"),
    ("Seen with Rhys Adams (son).\nVS: BP 132/80  SpO2 96% RA", "Rhys Adams"),
    ("Matthew Hale, CPN\nReferred from MH liaison, seen in clinic", "Matthew Hale"),
])  # fmt: skip
def test_initials_that_are_a_field_or_charting_abbreviation_are_not_echoed_in_running_text(
        text: str, name: str) -> None:
    assert echoed(text, name) == []


@pytest.mark.parametrize(("text", "name", "expected"), [
    ("Will review Mon.\n\nFfion Hughes SLT   FH", "Ffion Hughes", ["FH"]),
    ("Operated by Farid Haddad.\n\nFH/ko   DD: 03/06/2022", "Farid Haddad", ["FH"]),
    ("Plan discussed.\nGP / Dr Gareth Pryce ED Clinical Fellow", "Gareth Pryce", ["GP"]),
])  # fmt: skip
def test_such_initials_still_echo_where_they_sign(text: str, name: str, expected: list[str]) -> None:
    assert echoed(text, name) == expected


def test_a_hospital_acronym_echoes_even_when_it_is_also_an_examination() -> None:
    text = "Manchester Royal Infirmary colorectal team.\ncc: MRI Colorectal CNS team"
    out = echo_names([at(text, "Manchester Royal Infirmary", Label.HOSPITAL)], text, "en")
    assert [text[s.start : s.end] for s in out if s.source == "echo"] == ["MRI"]


def test_a_practice_read_as_a_person_does_not_echo_its_kind_word() -> None:
    text = "GP: Bryn Eithin Surgery\nThoracic Surgery, Ward 7\nDATE OF SURGERY: 12/09/2023\nBryn came in."
    out = echo_names([at(text, "Bryn Eithin Surgery", Label.STAFF)], text, "en")
    assert [text[s.start : s.end] for s in out if s.source == "echo"] == ["Bryn"]


@pytest.mark.parametrize(("text", "name", "expected"), [
    ("Reported by: Dana Holt, LPN  dh   3/2/24 0745\nReviewed: MT RN", "Dana Holt", ["dh"]),
    ("Bethany Kirchner, APRN   bk   12/3/19 1520", "Bethany Kirchner", ["bk"]),
    ("Nurse Jo Tate.\n 1308 | 128/70 | 1.90   | jt\n", "Jo Tate", ["jt"]),
    ("Amy Tran RN   at   3/2/24\n", "Amy Tran", ["at"]),  # a short word: beside the name only
    ("Mo Wells LPN on shift.\n0900 meds given. — mw LPN\n0940 walked. — mw\n", "Mo Wells", ["mw", "mw"]),
    ("Helen Kerr (path)\nTime in formalin 10:52. (hk)\n", "Helen Kerr", ["hk"]),
    ("Jolene Vrba, RN\ninitials: jv   completed 02/16/2024 1552", "Jolene Vrba", ["jv"]),
    ("Cheryl A. Boatwright, RN, WCC   cab\nlate addendum 1420", "Cheryl A. Boatwright", ["cab"]),
    # an author's and a typist's initials alone on their line, slash-joined in small letters
    ("PCR completed by Travis Whitlock, NRP   01/14/2024 0412\ntw/kb", "Travis Whitlock", ["tw"]),
])
def test_lower_case_initials_that_sign_an_entry_beside_its_date_are_the_signer(
        text: str, name: str, expected: list[str]) -> None:
    assert echoed(text, name) == expected


@pytest.mark.parametrize(("text", "name"), [
    ("Amy Tran saw her at 1400\n", "Amy Tran"),  # the name on the line, but no column's gap: a word
    ("Amy Tran RN. pain at 4/10 at rest\n", "Amy Tran"),
    ("Amy Tran RN.\n 1338 | 104 | at  c/o cramp\n", "Amy Tran"),  # words after them: no signature's tail
    ("Amy Tran RN.\nRepositioned q2h - at 0200, 0400\n", "Amy Tran"),  # a short word after a dash
    ("David Lee, RN.\nGlucose 110 mg/dl\n", "David Lee"),  # a unit after a slash
    ("Olivia Patel RN.\nDay 2 post-op\n", "Olivia Patel"),
    ("Ann Mills RN.\nWeigh daily (am)\n", "Ann Mills"),
    ("Olivia Nguyen RN\nDischarged home\non 3/2/24.\n", "Olivia Nguyen"),  # a wrapped line's first word
    ("Linda A. Dawson, RN\nCath: 80% LAD stenosis.", "Linda A. Dawson"),  # a middle initial: signing only
    ("Travis Whitlock RN.\nSee tw/kb notes\n", "Travis Whitlock"),  # a pair in running text: no block
    ("Wendy Taylor RN\nwt/ht\n", "Wendy Taylor"),  # shorthand alone on its line: weight and height
    ("Ian Vance RN.\niv/po\n", "Ian Vance"),  # a pair alone, but no name's initials
])
def test_lower_case_initials_in_running_text_are_not_a_signature(text: str, name: str) -> None:
    assert echoed(text, name) == []


def test_signature_initials_are_read_in_linear_time_on_a_note_full_of_signed_entries() -> None:
    import time

    def cost(n: int) -> float:
        unit = "Dana Holt, RN   dh   3/2/24 0745 RN RN 12 12\n0800 dh dh — dh\n"
        text = unit * n
        spans = [Span(i * len(unit), i * len(unit) + 9, Label.STAFF, "ner", 1.0) for i in range(n)]
        t = time.perf_counter()
        echo_names(spans, text, "en")
        return time.perf_counter() - t

    small, large = min(cost(500) for _ in range(3)), min(cost(5000) for _ in range(2))
    assert large / small < 20


def test_signature_initials_on_one_long_line_are_read_in_linear_time() -> None:
    """Each candidate looked back for its line's start and copied the rest of the text: quadratic
    on a long line without a break."""
    import time

    def cost(n: int) -> float:
        text = "Dana Holt, RN " + "x dh 1 (" * n
        t = time.perf_counter()
        echo_names([Span(0, 9, Label.STAFF, "ner", 1.0)], text, "en")
        return time.perf_counter() - t

    small, large = min(cost(2000) for _ in range(3)), min(cost(20000) for _ in range(2))
    assert large / small < 20


def test_a_signatures_tail_is_read_in_bounded_steps_wherever_it_is_tried() -> None:
    """Tried at every word's end of a long run of credentials and numbers, an unbounded tail read
    the rest of the run each time: x100 for ten times the input."""
    import re
    import time

    from deid.detection.echoes import _SIGN_TAIL

    def cost(n: int) -> float:
        text = "RN 12 " * n
        t = time.perf_counter()
        for m in re.finditer(r"\w+", text):
            _SIGN_TAIL.match(text, m.end())
        return time.perf_counter() - t

    small, large = min(cost(2000) for _ in range(3)), min(cost(20000) for _ in range(2))
    assert large / small < 30
