"""The audit counts what a reader of the output would find: leaks first, then broken facts.

Outputs are written by hand here, so that each finding is checked against an expectation that
does not come from the substitution engine.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from deid.lab.corpora.realistic import Mention, Note, Person
from deid.lab.eval.audit import NoteAudit, Replaced, TownTable, align, broken_facts, mention_leaks, read_date
from deid.lab.eval.audit_run import given_name_genders, town_table
from deid.lab.eval.keeps import KEPT_ON_PURPOSE, markdown_table


def _note(text: str, mentions: list[tuple[str, str, str]], *, note_id: str = "w99-001",
          people: dict[str, Person] | None = None, date: str = "2024-03-15", country: str = "FR") -> Note:
    found, pos = [], 0
    for surface, label, ref in mentions:
        i = text.index(surface, pos)
        found.append(Mention(i, i + len(surface), label, surface, ref))
        pos = i + 1
    return Note(note_id, "w99-p01", "fr", country, "letter", "doctor", date, "", people or {}, text, found)


def _render(text: str, pairs: list[tuple[str, str]]) -> tuple[str, list[tuple[int, int, str, str]]]:
    """The output of replacing each (original, surrogate) in order, and where each one sits."""
    out, placed, pos = [], [], 0
    length = 0
    for original, surrogate in pairs:
        i = text.index(original, pos)
        out.append(text[pos:i])
        length += i - pos
        placed.append((length, length + len(surrogate), "X", "random"))
        out.append(surrogate)
        length += len(surrogate)
        pos = i + len(original)
    out.append(text[pos:])
    return "".join(out), placed


def _audit(note: Note, pairs: list[tuple[str, str]]) -> NoteAudit:
    output, placed = _render(note.text, pairs)
    return NoteAudit(note, output, align(note.text, output, placed))


def test_align_finds_where_each_replacement_came_from() -> None:
    text = "Vu par Dr Martin le 12/03/2024 à Lyon, puis Martin."
    output, placed = _render(text, [("Martin", "Durand"), ("12/03/2024", "[DATE]"), ("Martin", "Durand")])
    got = align(text, output, placed)
    assert [(text[r.start : r.end], r.surrogate) for r in got] == [
        ("Martin", "Durand"), ("12/03/2024", "[DATE]"), ("Martin", "Durand")]
    with pytest.raises(ValueError):
        align(text, output.replace("Lyon", "Caen"), placed)


def test_a_word_copied_through_or_drawn_back_is_a_leak() -> None:
    note = _note("Mme Ginette BERTHIER, 82 ans, vit à Lyon.",
                 [("Ginette BERTHIER", "PATIENT", "p1"), ("82 ans", "AGE", "82"), ("Lyon", "CITY", "")])
    a = _audit(note, [("BERTHIER", "DURAND"), ("Lyon", "Lyon")])  # given name and town left
    leaks = [(f.kind, f.label) for m in note.mentions for f in mention_leaks(
        note.note_id, m, note.text, a.replaced, "dp")]
    assert leaks == [("uncovered", "PATIENT"), ("uncovered", "AGE"), ("drawn_back", "CITY")]
    drawn = _audit(note, [("Ginette BERTHIER", "Ginette DURAND"), ("82 ans", "80 ans"), ("Lyon", "Caen")])
    found = [f for m in note.mentions
             for f in mention_leaks(note.note_id, m, note.text, drawn.replaced, "dp")]
    assert [(f.kind, f.detail) for f in found] == [("drawn_back", "ginette")]


def test_what_a_profile_keeps_on_purpose_is_no_leak() -> None:
    note = _note("Opéré le 12/03/2024, 82 ans.",
                 [("12/03/2024", "DATE", "2024-03-12"), ("82 ans", "AGE", "82")])
    a = _audit(note, [("12/03/2024", "2024")])
    # a surrogate date that shares the true year is a draw, not a leak; a placeholder holds nothing
    for profile, leaks in (("safe-harbor", 0), ("dp", 1), ("placeholder", 2)):
        found = [f for m in note.mentions
                 for f in mention_leaks(note.note_id, m, note.text, a.replaced, profile)]
        assert len(found) == leaks, profile


def test_titles_and_kinds_of_place_are_no_leak_but_the_name_is() -> None:
    note = _note("Hôpital Édouard Herriot, 5 rue Garibaldi", [
        ("Hôpital Édouard Herriot", "HOSPITAL", ""), ("5 rue Garibaldi", "STREET", "a1")])
    a = _audit(note, [("Édouard Herriot", "[PER]"), ("5", "[LOC]"), ("Garibaldi", "[LOC]")])
    assert not [f for m in note.mentions
                for f in mention_leaks(note.note_id, m, note.text, a.replaced, "dp")]


def test_a_practice_s_kind_and_a_date_s_qualifier_are_no_leak_but_their_names_are() -> None:
    note = _note("Cabinet de radiologie du Pays d'Auge. A finales de marzo, dolor.", [
        ("Cabinet de radiologie du Pays d'Auge", "HOSPITAL", ""), ("finales de marzo", "DATE", "2024-03")])
    a = _audit(note, [("Pays d'Auge", "[PER]"), ("marzo", "[DATE]")])
    assert not [f for m in note.mentions
                for f in mention_leaks(note.note_id, m, note.text, a.replaced, "placeholder")]
    kept = _audit(note, [("marzo", "[DATE]")])  # the name of the practice left: a leak
    assert [f.detail for m in note.mentions
            for f in mention_leaks(note.note_id, m, note.text, kept.replaced, "placeholder")] == ["pays auge"]


def test_a_preposition_and_the_unit_of_an_age_are_no_leak_but_an_institutions_own_word_is() -> None:
    note = _note("Seen in June; baby now 16 weeks. Home-Start Leeds North visits.", [
        ("in June", "DATE", "2024-06"), ("16 weeks", "AGE", "0"), ("Home-Start Leeds North", "ORG", "")])
    a = _audit(note, [("June", "[DATE]"), ("16", "[AGE]"), ("Leeds North", "[LOC]")])
    assert [f.detail for m in note.mentions
            for f in mention_leaks(note.note_id, m, note.text, a.replaced, "placeholder")] == ["start"]


def test_a_person_rendered_two_ways_and_a_gender_flip_are_broken_facts() -> None:
    people = {"p1": Person("patient", "F")}
    n1 = _note("Mme Ginette BERTHIER, vue.", [("Ginette BERTHIER", "PATIENT", "p1")], people=people)
    n2 = _note("Ginette va mieux.", [("Ginette", "PATIENT", "p1")], note_id="w99-002", people=people)
    a1 = _audit(n1, [("Ginette BERTHIER", "Odette LAMBERT")])
    a2 = _audit(n2, [("Ginette", "Bernard")])
    kinds = sorted(f.kind for f in broken_facts([a1, a2], given_name_genders(), None))
    assert kinds == ["gender_flip", "split_identity"]


def test_dates_out_of_order_across_notes_are_a_broken_fact() -> None:
    n1 = _note("Admis le 12/03/2024, sorti le 20/03/2024.",
               [("12/03/2024", "DATE", "2024-03-12"), ("20/03/2024", "DATE", "2024-03-20")])
    kept = _audit(n1, [("12/03/2024", "02/04/2024"), ("20/03/2024", "09/04/2024")])
    swapped = _audit(n1, [("12/03/2024", "09/04/2024"), ("20/03/2024", "02/04/2024")])
    assert broken_facts([kept], {}, None) == []
    assert [f.kind for f in broken_facts([swapped], {}, None)] == ["date_order"]


def test_a_two_digit_year_of_the_output_is_read_in_the_century_of_the_outputs_own_years() -> None:
    n1 = _note("Admis le 12/03/2024, revu le 20/03/24.",
               [("12/03/2024", "DATE", "2024-03-12"), ("20/03/24", "DATE", "2024-03-20")])
    moved = _audit(n1, [("12/03/2024", "02/04/2026"), ("20/03/24", "09/04/26")])  # 2026, not 1926
    assert broken_facts([moved], {}, None) == []
    swapped = _audit(n1, [("12/03/2024", "02/04/2026"), ("20/03/24", "09/04/25")])
    assert [f.kind for f in broken_facts([swapped], {}, None)] == ["date_order"]


def test_a_number_outside_the_dates_does_not_move_the_century_of_a_two_digit_year() -> None:
    n1 = _note("DOB 03/04/52. Seen 12/05/2024. Intake 2060 ml.",
               [("03/04/52", "BIRTH_DATE", "1952-04-03"), ("12/05/2024", "DATE", "2024-05-12")])
    a = _audit(n1, [("03/04/52", "05/06/52"), ("12/05/2024", "20/05/2024")])
    assert broken_facts([a], {}, None) == []  # 2060 ml is no year: "52" stays 1952


def test_a_changed_clinical_number_and_an_age_against_its_birth_date() -> None:
    note = _note("Née le 02/05/1941, 82 ans. EVA 4/10.",
                 [("02/05/1941", "BIRTH_DATE", "1941-05-02"), ("82 ans", "AGE", "82")], date="2024-03-15")
    a = _audit(note, [("02/05/1941", "14/09/1939"), ("82 ans", "82 ans"), ("4/10", "[DATE]")])
    kinds = sorted(f.kind for f in broken_facts([a], {}, None))
    assert kinds == ["age_birth", "clinical_value"]  # born 1939, 84 in March 2024, not 82


def test_an_age_is_read_against_the_notes_surrogate_date_where_the_note_writes_it() -> None:
    note = _note("Le 15/03/2024. Née le 02/05/1941, 82 ans.",
                 [("15/03/2024", "DATE", "2024-03-15"), ("02/05/1941", "BIRTH_DATE", "1941-05-02"),
                  ("82 ans", "AGE", "82")], date="2024-03-15")
    moved = _audit(note, [("15/03/2024", "20/06/2027"), ("02/05/1941", "02/05/1941"), ("82 ans", "86 ans")])
    assert broken_facts([moved], {}, None) == []  # 86 on the note's surrogate date, 20 June 2027
    stale = _audit(note, [("15/03/2024", "20/06/2027"), ("02/05/1941", "02/05/1941"), ("82 ans", "82 ans")])
    assert [f.kind for f in broken_facts([stale], {}, None)] == ["age_birth"]


def test_a_surrogate_town_with_a_postcode_of_another_town_is_a_broken_address() -> None:
    note = _note("12 rue X, 69003 Lyon", [("69003", "POSTCODE", "a1"), ("Lyon", "CITY", "a1")])
    good = _audit(note, [("69003", "13008"), ("Lyon", "Marseille")])
    bad = _audit(note, [("69003", "13008"), ("Lyon", "Brest")])
    assert broken_facts([good], {}, town_table()) == []
    assert [f.kind for f in broken_facts([bad], {}, town_table())] == ["address"]


@pytest.mark.parametrize(("text", "order", "want"), [
    ("le 12/03/2024", "dmy", "2024-03-12"), ("on 3/12/2024", "mdy", "2024-03-12"),
    ("4/17/58", "mdy", "1958-04-17"),
    ("12 mars 2024", "dmy", "2024-03-12"), ("March 12, 2024", "mdy", "2024-03-12"),
    ("12 de marzo de 2024", "dmy", "2024-03-12"), ("2024-03-12", "dmy", "2024-03-12"),
])
def test_the_audit_reads_full_dates_itself(text: str, order: str, want: str) -> None:
    got = read_date(text, order)
    assert got is not None and got.isoformat() == want


def test_the_keep_table_in_the_privacy_doc_is_the_one_the_audit_reads() -> None:
    doc = (Path(__file__).resolve().parents[3] / "docs" / "PRIVACY.md").read_text(encoding="utf-8")
    assert markdown_table() in doc
    assert set(KEPT_ON_PURPOSE) == {"placeholder", "dp", "random", "safe-harbor"}


def test_replaced_spans_never_hold_text_outside_their_note() -> None:
    r = Replaced(0, 3, 0, 5, "X", "random", "Aaaaa")
    assert r.surrogate == "Aaaaa" and r.end - r.start == 3


def test_a_relative_duration_is_allowed_only_where_the_profile_keeps_durations() -> None:
    from deid.lab.eval.audit import _allowed

    duration = Mention(0, 11, "DATE", "3 weeks ago", "")
    weekday = Mention(0, 11, "DATE", "last Monday", "2024-03-11")
    assert all(_allowed(duration, "3", p) for p in ("placeholder", "random", "safe-harbor"))
    assert not _allowed(duration, "3", "dp")  # a timeline point there, noised: its digits are no keep
    assert not _allowed(weekday, "monday", "safe-harbor")  # a pinned day is no duration


def test_a_weekday_kept_where_the_profile_keeps_weekdays_is_no_leak() -> None:
    text = "Fell last Friday at home."
    m = Mention(5, 16, "DATE", "last Friday", "2024-03-08")
    same = [Replaced(5, 16, 5, 16, "DATE", "random", "last Friday")]
    assert mention_leaks("n1", m, text, same, "random") == []
    assert [f.kind for f in mention_leaks("n1", m, text, same, "dp")] == ["drawn_back"]


def test_a_zip_generalised_to_its_first_digits_fits_any_town_under_them() -> None:
    towns = TownTable({"US": [("cambridge", {"02138", "02139"}, {"ma"}), ("boston", {"02108"}, {"ma"}),
                              ("seattle", {"98101"}, {"wa"})]})
    assert towns.exists("US", "Cambridge", "021**") is True
    assert towns.exists("US", "Boston", "021**-****") is True
    assert towns.exists("US", "Seattle", "021**") is False
    assert towns.exists("US", "Seattle", "000**") is True  # Safe Harbor's restricted area names no place


def test_a_familiar_title_and_the_over_89_category_are_no_leak() -> None:
    from deid.lab.eval.audit import _allowed

    mamie = Mention(0, 12, "PATIENT", "Mamie Blanche", "")
    assert _allowed(mamie, "mamie", "random") and not _allowed(mamie, "blanche", "random")
    ninety = Mention(0, 6, "AGE", "90 ans", "90")
    assert _allowed(ninety, "90", "safe-harbor") and _allowed(ninety, "90", "random")  # "90+ ans"
    assert not _allowed(ninety, "90", "placeholder") and not _allowed(ninety, "90", "dp")
    assert not _allowed(Mention(0, 6, "AGE", "93 ans", "93"), "93", "safe-harbor")
