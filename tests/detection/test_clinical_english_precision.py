"""Issue 30: whole English notes where the model reads clinical charting as PHI (abbreviations,
field words, eponyms, languages, weekly routines, kinship words under other labels, tables of
results, editions' years, visual acuities, lymph node counts), each beside a look-alike that
stays PHI. Names and values are made up for these tests."""

from __future__ import annotations

from deid.detection.measures import drop_measurements
from deid.detection.own_words import drop_own_words
from deid.labels import Label
from deid.spans import Span


def _at(text: str, words: str, label: Label, nth: int = 0) -> Span:
    i = -1
    for _ in range(nth + 1):
        i = text.index(words, i + 1)
    return Span(i, i + len(words), label, "ner", 0.9)


def _kept(spans: list[Span], text: str) -> set[str]:
    return {text[s.start : s.end] for s in drop_own_words(spans, text, "en")}


def test_clinical_abbreviations_and_field_words_name_no_one() -> None:
    text = (
        "Allergies: NKDA. Follows commands, MAE, PERRL.\n"
        "Plan: PEEP wean. Sister Odile Marchetti in Tulsa, ph (918) 555-0147.\n"
        "Pt is at the NH since May. Moved from Salem, OR last year.\n"
        "Corinne Vasquez, RN, CWOCN  bleep 4410\nGP Partner   GMC 7712045\n"
    )
    spans = [
        _at(text, "NKDA", Label.STAFF),
        _at(text, "MAE, PERRL", Label.STAFF),
        _at(text, "PEEP wean", Label.STAFF),
        _at(text, "ph", Label.LOCATION),
        _at(text, "NH", Label.LOCATION),
        _at(text, "CWOCN", Label.HOSPITAL),
        _at(text, "bleep", Label.STAFF),
        _at(text, "GMC", Label.ID_SSN),
        # look-alikes that stay: a state after a town, a name, a register's number
        _at(text, "OR", Label.LOCATION),
        _at(text, "Odile Marchetti", Label.RELATIVE),
        _at(text, "7712045", Label.ID_SSN),
    ]
    assert _kept(spans, text) == {"OR", "Odile Marchetti", "7712045"}


def test_charting_words_and_eponyms_name_no_one() -> None:
    text = (
        "Access to firearms: denies. Pt not keen on surgery.\n"
        "RUQ US: + sonographic Murphy. 19 Fr Blake drain left in situ.\n"
        "Graded walking, McKenzie ext in lying. Seen and discussed with Dr Murphy.\n"
        "Called Mr Blake, who agreed.\n"
    )
    spans = [
        _at(text, "denies", Label.RELATIVE),
        _at(text, "keen", Label.RELATIVE),
        _at(text, "Murphy", Label.STAFF),
        _at(text, "Blake", Label.STAFF),
        _at(text, "McKenzie", Label.STAFF),
        _at(text, "Seen", Label.CITY),
        # a name after a title stays, whatever follows it
        _at(text, "Murphy", Label.STAFF, 1),
        _at(text, "Blake", Label.PATIENT, 1),
    ]
    kept = drop_own_words(spans, text, "en")
    assert [(text[s.start : s.end], s.start) for s in kept] == [
        ("Murphy", text.index("Dr Murphy") + 3),
        ("Blake", text.index("Mr Blake") + 3),
    ]


def test_a_language_by_its_context_names_no_one() -> None:
    text = (
        "LANGUAGE: Vietnamese - interpreter used.\nSource: pt (Spanish/English mix).\n"
        "Assessed in Welsh, pt's preference. Primary language Haitian Creole.\n"
        "Seen with her son Rhys Welsh today.\n"
    )
    spans = [
        _at(text, "Vietnamese", Label.ID_PATIENT),
        _at(text, "Spanish", Label.COUNTRY),
        _at(text, "Welsh", Label.CITY),
        _at(text, "Haitian Creole", Label.COUNTRY),
        _at(text, "Rhys Welsh", Label.RELATIVE),
        _at(text, "Welsh", Label.PATIENT, 1),
    ]
    assert _kept(spans, text) == {"Rhys Welsh", "Welsh"}
    assert len(drop_own_words(spans, text, "en")) == 2


def test_a_weekly_routine_is_no_date_and_a_single_weekday_stays() -> None:
    text = (
        "Goes to church on Sundays. Home carer Mon-Fri 9 AM-1 PM. Dressings Mon/Wed/Fri.\n"
        "Fell last Sunday at home. Review on Tuesday.\n"
    )
    spans = [
        _at(text, "Sundays", Label.DATE),
        _at(text, "Mon-Fri 9 AM", Label.DATE),
        _at(text, "Mon/Wed/Fri", Label.DATE),
        _at(text, "last Sunday", Label.DATE),
        _at(text, "Tuesday", Label.DATE),
    ]
    assert _kept(spans, text) == {"last Sunday", "Tuesday"}


def test_kinship_words_under_another_label_name_no_one() -> None:
    text = (
        "NSVD of a live male infant, Apgars 9/9. MSE: young man lying in bed.\n"
        "Pt is a 96-year-old widow. Son Dmitri Albescu (61) called.\n"
    )
    spans = [
        _at(text, "male infant", Label.AGE),
        _at(text, "young man", Label.AGE),
        _at(text, "widow", Label.PROFESSION),
        _at(text, "96-year-old", Label.AGE),
        _at(text, "Dmitri Albescu", Label.RELATIVE),
    ]
    assert _kept(spans, text) == {"96-year-old", "Dmitri Albescu"}


def test_a_table_of_results_is_no_identifier() -> None:
    text = (
        "  Date      Na    K     Cr\n  12/05/22    139   4.2   88     51\nNHS No: 401 233 7781   MRN 5521\n"
    )
    spans = [
        _at(text, "139   4", Label.ID_SSN),
        _at(text, "2", Label.ID_SSN, 3),
        _at(text, "401 233 7781", Label.ID_SSN),
        _at(text, "5521", Label.ID_PATIENT),
    ]
    assert text[spans[1].start - 2 : spans[1].end] == "4.2"
    assert _kept(spans, text) == {"401 233 7781", "5521"}


def test_modal_may_and_cut_abbreviations_and_editions_are_no_date() -> None:
    text = (
        "No further testing per 2014 ACC/AHA. May proceed. Will need OT.\n"
        "Plan on day of d/c. Care Act 2014 assessment. Influenza 2024-25 season vaccine given.\n"
        "Seizure in 2014. Seen in May. Will reports low mood.\n"
    )
    spans = [
        _at(text, "2014", Label.DATE),
        _at(text, "May", Label.DATE),
        _at(text, "Will", Label.STAFF),
        _at(text, "/c", Label.DATE),
        _at(text, "2014", Label.DATE, 1),
        _at(text, "2024-25", Label.DATE),
        # look-alikes that stay: a year of an event, a month, the name before a verb in -s
        _at(text, "2014", Label.DATE, 2),
        _at(text, "May", Label.DATE, 1),
        _at(text, "Will", Label.PATIENT, 1),
    ]
    kept = drop_own_words(spans, text, "en")
    assert [s.start for s in kept] == [spans[6].start, spans[7].start, spans[8].start]


def test_visual_acuities_nodes_and_named_recovery_scores_are_no_dates() -> None:
    text = (
        "Vision:   RE 6/18 unaided, 6/12 with pinhole   LE 6/9 unaided\n"
        "pT3 pN1b (3/19 LN), R0.\nAldrete 9/10 at 10:50.\nSeen 6/9 in clinic, next 3/10.\n"
    )
    spans = [
        _at(text, "6/18", Label.DATE),
        _at(text, "6/12", Label.DATE),
        _at(text, "6/9", Label.DATE),
        _at(text, "3/19", Label.DATE),
        _at(text, "9/10", Label.DATE),
        _at(text, "6/9", Label.DATE, 1),
        _at(text, "3/10", Label.DATE),
    ]
    kept = drop_measurements(spans, text, "en")
    assert [s.start for s in kept] == [spans[5].start, spans[6].start]


def test_a_section_heading_in_capitals_names_no_one_but_a_hospital_in_capitals_stays() -> None:
    text = (
        "HOSPITAL MEDICINE CONSULT NOTE\n"
        "CHIEF COMPLAINT: back pain\n"
        "VERIFICATION OF EXPECTED DEATH (RN)\n"
        "COLORECTAL MDT OUTCOME - 08/04/2025\n"
        "HOSPITAL COURSE:\n"
        "WESTMORLAND GENERAL HOSPITAL\n"
        "Seen at ST MARY'S HOSPITAL today. Hope Lowe, RN\n"
        "LOWER, John  DOB 01/02/1950\n"
    )
    spans = [
        _at(text, "HOSPITAL MEDICINE CONSULT NOTE", Label.HOSPITAL),
        _at(text, "CHIEF COMPLAINT", Label.STAFF),
        _at(text, "EXPECTED DEATH", Label.PATIENT),
        _at(text, "COLORECTAL MDT OUTCOME", Label.STAFF),
        _at(text, "HOSPITAL", Label.HOSPITAL, nth=1),
        _at(text, "WESTMORLAND GENERAL HOSPITAL", Label.HOSPITAL),
        _at(text, "GENERAL HOSPITAL", Label.HOSPITAL),  # a cut name: its line names the hospital
        _at(text, "ST MARY'S HOSPITAL", Label.HOSPITAL),
        _at(text, "LOWER, John", Label.PATIENT),
    ]
    assert _kept(spans, text) == {"WESTMORLAND GENERAL HOSPITAL", "GENERAL HOSPITAL", "ST MARY'S HOSPITAL",
                                  "LOWER, John"}


def test_a_shift_by_its_clocks_is_no_date_but_a_range_of_days_stays() -> None:
    text = "DELL SETON SICU  7p-7a  7/5-7/6   Bed 11\n3p-11p  3/29  Rm 714\nOn 7am to 7pm shift."
    spans = [_at(text, words, Label.DATE) for words in ("7p-7a", "7/5-7/6", "3p-11p", "7am to 7pm")]
    assert _kept(spans, text) == {"7/5-7/6"}
    # the parts of a shift the model cut apart are no dates either ("7p" and "7a" of "7p-7a")
    assert _kept([_at(text, "7p", Label.DATE), _at(text, "7a", Label.DATE)], text) == set()


def test_a_count_of_relatives_names_no_one_but_a_name_beside_a_number_stays() -> None:
    text = "Married, 2 teenage sons. Lives with wife Tamsin & 2 kids. Has two daughters. Bed 2 Will."
    spans = [_at(text, "2 teenage sons", Label.RELATIVE), _at(text, "2 kids", Label.RELATIVE),
             _at(text, "two daughters", Label.RELATIVE), _at(text, "Tamsin", Label.RELATIVE),
             _at(text, "2 Will", Label.RELATIVE)]
    assert _kept(spans, text) == {"Tamsin", "2 Will"}


def test_the_heading_check_reads_a_bounded_reach_on_a_note_of_one_long_line() -> None:
    """A note of one line full of capitals: each span's heading check reads at most a short reach
    around it, not the whole line again (ten times the note, about ten times the time)."""
    import time

    def cost(n: int) -> float:
        text = "HOSPITAL COURSE " * (n // 16)
        spans = [Span(i, i + 8, Label.HOSPITAL, "ner", 0.9) for i in range(0, len(text), 16)]
        best = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            drop_own_words(spans, text, "en")
            best = min(best, time.perf_counter() - t)
        return best

    small, large = max(cost(10_000), 1e-3), cost(100_000)
    assert large / small < 20
    # far from its line's start, a span is no heading ("HOSPITAL" inside a long line of capitals)
    text = "A" * 200 + " HOSPITAL COURSE:"
    assert _kept([_at(text, "HOSPITAL", Label.HOSPITAL)], text) == {"HOSPITAL"}
