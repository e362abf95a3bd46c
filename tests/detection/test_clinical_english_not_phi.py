"""Issue 30: classes of English clinical text the model reads as PHI that their context proves are
not (named scores, languages after a word, numbered wards, departments cut in parts, clock
times), and their look-alikes that stay PHI."""

from __future__ import annotations

import pytest

from deid.detection.measures import measurement
from deid.detection.own_words import names_no_one
from deid.labels import Label
from deid.spans import Span


def _span(text: str, words: str, label: Label) -> Span:
    i = text.index(words)
    return Span(i, i + len(words), label, "ner", 0.9)


@pytest.mark.parametrize(("text", "value"), [
    ("RCRI 2/6 (intraperitoneal surgery)", "2/6"),
    ("In the ED, PRAS 10/12, SpO2 89%", "10/12"),
    ("male infant, Apgars 8/9. 2nd degree", "8/9"),
    ("Propofol off, TOF 4/4. Sedation", "4/4"),
    ("Myotomes 5/5 throughout", "5/5"),
    ("VA (Snellen)     6/18 right eye", "6/18"),
    ("R hand grip 4+/5, otherwise 5/5.", "5/5"),  # the same scale again after a named mark
    ("back + both thighs, 9/10 on arrival", "9/10"),  # what follows only a pain score
    ("RRR, 2/6 SEM at RUSB", "2/6"),  # a murmur's grade
    ("Riesgo alto: GRACE 98, TIMI 3/7. CRUSADE 18", "3/7"),
    ("Fragilidad: SPPB 8/12, Clinical Frailty Scale 5", "8/12"),
])
def test_a_named_clinical_score_is_no_date(text: str, value: str) -> None:
    i = text.index(value)
    assert measurement(text, i, i + len(value), "en")


@pytest.mark.parametrize(("text", "value"), [
    ("Alvarado done on 8/10 in clinic", "8/10"),  # a date introducer after the score's name
    ("seen 9/10 on the ward", "9/10"),
    ("echo 2/6 showed an LVEF of 40%", "2/6"),
])
def test_a_date_without_proof_of_a_score_stays_a_date(text: str, value: str) -> None:
    i = text.index(value)
    assert not measurement(text, i, i + len(value), "en")


@pytest.mark.parametrize(("text", "words"), [
    ("the discharge instructions in Spanish and English; sent", "Spanish"),
    ("she speaks fluent English.", "English"),
])
def test_a_language_after_a_lower_case_word_names_no_one(text: str, words: str) -> None:
    assert names_no_one(_span(text, words, Label.COUNTRY), text, "en")


def test_a_language_after_a_capitalised_word_stays() -> None:
    text = "walk on the Promenade des Anglais daily"
    assert not names_no_one(_span(text, "Anglais", Label.LOCATION), text, "fr")
    text = "lives in Old English Road"
    assert not names_no_one(_span(text, "English", Label.LOCATION), text, "en")


@pytest.mark.parametrize(("text", "words"), [
    ("SBAR HANDOVER - Ward 120 ASU, RSUH", "Ward 120"),
    ("PHYSIOTHERAPY  Ward 39   06/10/23", "Ward"),
    ("PHYSIOTHERAPY  Ward 39   06/10/23", "39"),
])
def test_a_numbered_ward_names_no_one(text: str, words: str) -> None:
    assert names_no_one(_span(text, words, Label.LOCATION), text, "en")


def test_a_named_ward_beside_a_hospital_name_stays() -> None:
    text = "seen at Ward Memorial Hospital today"
    assert not names_no_one(_span(text, "Ward", Label.HOSPITAL), text, "en")


@pytest.mark.parametrize(("text", "words"), [
    ("Noor El-Amin, MD - Pediatric Emergency Medicine   10/26/2022", "Pediatric"),
    ("Maya Lindqvist, MD, PGY-2 Emergency Medicine\n", "PGY-2 Emergency Medicine"),
    ("Attending Physician, Hospital Medicine\n", "Hospital Medicine"),
])
def test_a_specialty_names_no_one(text: str, words: str) -> None:
    assert names_no_one(_span(text, words, Label.HOSPITAL), text, "en")


@pytest.mark.parametrize(("text", "words"), [
    ("Referred to Adult Social Care for a package.", "Adult Social Care"),
    ("Copy: Safeguarding Children team", "Safeguarding Children"),
    ("Discussed with the Transfer Center at 0300.", "Transfer Center"),
])
def test_a_service_named_by_whom_it_serves_names_no_one(text: str, words: str) -> None:
    assert names_no_one(_span(text, words, Label.HOSPITAL), text, "en")


def test_a_centre_with_a_name_stays() -> None:
    text = "Seen at the Kingsway Diabetes Centre last year."
    assert not names_no_one(_span(text, "Kingsway Diabetes Centre", Label.HOSPITAL), text, "en")
    assert not names_no_one(_span(text, "Diabetes Centre", Label.HOSPITAL), text, "en")  # cut from it


def test_a_department_cut_out_of_a_hospital_name_stays() -> None:
    text = "Greater Manchester Mental Health NHS Foundation Trust"
    assert not names_no_one(_span(text, "Health", Label.HOSPITAL), text, "en")
    text = "transferred to Boston Hospital Medical Center"
    assert not names_no_one(_span(text, "Medical", Label.HOSPITAL), text, "en")


@pytest.mark.parametrize(("text", "words", "label"), [
    ("wife stayed until 2300, calls herself", "2300", Label.POSTCODE),
    ("supine since 10/14/19 2000 - P/F held", "2000", Label.DATE),
    ("called 11/02 0640 by the home", "0640", Label.POSTCODE),
    ("MICU DAY SHIFT NOTE 0700 - 1930\n", "1930", Label.DATE),
    ("Handoff to NOC RN @ 1930; charge aware", "1930", Label.DATE),
])
def test_a_clock_time_by_its_context_names_no_one(text: str, words: str, label: Label) -> None:
    assert names_no_one(_span(text, words, label), text, "en")


@pytest.mark.parametrize(("text", "words", "label"), [
    ("moved to the UK around 2000, then", "2000", Label.DATE),  # could be a year
    ("in 2000-2010 he lived abroad", "2010", Label.DATE),  # a range of years
    ("born 12/10 1930 in Leeds", "1930", Label.DATE),  # a day and month, then its year
    ("lives at 2300 Main Street", "2300", Label.STREET),  # a house number
    ("Rue Haute, Ixelles 1050", "1050", Label.POSTCODE),
])
def test_four_digits_that_may_be_a_year_or_an_address_stay(text: str, words: str, label: Label) -> None:
    assert not names_no_one(_span(text, words, label), text, "en")


@pytest.mark.parametrize(("text", "words"), [
    ("MTP activated 0418.\n0420 Dr F (anaesthesia) intubated", "0418.\n0420"),
    ("Lactate repeat ordered for 0600\n - 0440 Dr R. d/w ICU", "0600\n - 0440"),
    ("accepted to MICU bed 12\n - 0455 transferred on monitor", "12\n - 0455"),
    ("Night shift 1900-0730 uneventful", "1900-0730"),
])
def test_clock_times_of_timed_entries_are_no_phone(text: str, words: str) -> None:
    assert names_no_one(_span(text, words, Label.PHONE), text, "en")


@pytest.mark.parametrize(("text", "words"), [
    ("Wife's mobile 07700 900123, home 0161 496 0012", "0161 496 0012"),
    ("call back on 614-555-0188\n0420 no answer", "614-555-0188"),  # the phone ends at the line
    ("Tel. 04 75 33 18 62\n", "04 75 33 18 62"),
])
def test_a_phone_beside_timed_entries_stays(text: str, words: str) -> None:
    assert not names_no_one(_span(text, words, Label.PHONE), text, "en")


@pytest.mark.parametrize("words", ["E3V5M6", "(E3V5M6)", "E4 V5 M6", "E2VTM5"])
def test_the_parts_of_a_glasgow_score_are_no_identifier(words: str) -> None:
    text = f"O/E: GCS 14/15 {words}, drowsy but rousable"
    assert names_no_one(_span(text, words, Label.ID_SSN), text, "en")


@pytest.mark.parametrize(("text", "words"), [
    ("Retour en EHPAD prévu lundi.", "EHPAD"),
    ("Transfert en SSR gériatrique.", "SSR"),
    ("Suivi au CMP de secteur.", "CMP"),
])
def test_a_french_kind_of_care_structure_alone_names_no_one(text: str, words: str) -> None:
    assert names_no_one(_span(text, words, Label.HOSPITAL), text, "fr")


def test_a_french_care_structure_with_its_name_stays() -> None:
    text = "Retour à l'EHPAD Les Tilleuls."
    assert not names_no_one(_span(text, "EHPAD Les Tilleuls", Label.HOSPITAL), text, "fr")
    assert not names_no_one(_span(text, "Les Tilleuls", Label.HOSPITAL), text, "fr")


@pytest.mark.parametrize(("text", "words", "language"), [
    ("Sortie prévue demain matin.", "demain", "fr"),
    ("Seen by PT yesterday, walked 20 m.", "yesterday", "en"),
    ("Alta prevista para mañana.", "mañana", "es"),
])
def test_a_day_counted_from_the_notes_own_names_no_date(text: str, words: str, language: str) -> None:
    assert names_no_one(_span(text, words, Label.PHI), text, language)
    assert names_no_one(_span(text, words, Label.DATE), text, language)


def test_the_day_before_a_dated_act_stays() -> None:
    text = "la veille de l'audience"  # ECHR FR's gold marks it
    assert not names_no_one(_span(text, "veille", Label.DATE), text, "fr")
