"""Scores and measurements are never dates: a model date is dropped only on proof from context."""

from __future__ import annotations

import pytest

from deid.detection.measures import drop_measurements, measurement
from deid.labels import Label
from deid.spans import Span


def _at(text: str, words: str) -> tuple[int, int]:
    i = text.index(words)
    return i, i + len(words)


@pytest.mark.parametrize(("lang", "text", "value"), [
    ("fr", "EVA 4/10 ce matin", "4/10"),  # pain scale
    ("fr", "TA 13/8, FC 88", "13/8"),  # blood pressure in cmHg
    ("fr", "MMSE 23/30 à l'entrée", "23/30"),  # no day and month either way
    ("fr", "indice de Schober 15/10", "15/10"),
    ("fr", "Force musculaire 4/5 aux membres inférieurs", "4/5"),
    ("fr", "douleur cotée à 6/10", "6/10"),
    ("es", "Glasgow 14/15 a su llegada", "14/15"),
    ("en", "Pain 7/10 this am, 3/10 after dilaudid", "3/10"),  # the same scale again on the line
    ("en", "Strength 4/5 LLE. Vent PS 10/5.", "10/5"),
    ("en", "BP 102/61 on arrival", "102/61"),
    ("en", "Off work 2/52, review in 6/12.", "6/12"),  # British months
    ("en", "symptoms for 3/7 only", "3/7"),  # British days
    ("fr", "réduire à 3/4 de la dose", "3/4"),  # a fraction of a dose
    ("en", "take 1/2 tab at night", "1/2"),
    ("en", "Smoker, 1/2 ppd x 20 yrs", "1/2"),  # a smoker's packs a day
    ("es", "fuma 1/2 cajetilla al día", "1/2"),
    ("fr", "Repas midi 3/4 du mixé, dessert entier", "3/4"),  # a part of a meal
    ("en", "tol clears, ate 1/2 supper", "1/2"),
    ("fr", "Souffle systolique 2/6 au foyer mitral", "2/6"),  # a murmur's grade, named before it
    ("fr", "Acuité visuelle 10/10 ODG", "10/10"),
    ("fr", "fragilité (Fried 3/5)", "3/5"),
    ("en", "tender joint count 8/28 and swollen joint count 6/28", "6/28"),
    ("en", "cefazolin d5/7. Oseltamivir completed.", "5/7"),  # the day of a course, glued
    ("en", "Cefalexin 500mg TDS x 7/7 - first dose given here", "7/7"),  # a whole British course
    ("en", "IM grade 1/4, E/A 0.8", "1/4"),  # a valve leak's grade, out of 4
    ("en", "fragility (Fried 3/5)", "3/5"),
    ("fr", "EVENDOL 3/15.", "3/15"),
    ("en", "to stay with her sister, needs ~3/12.", "3/12"),
    ("en", "ACE-III 58/100 - Attention 12/18, Memory 9/26, Fluency 4/14", "9/26"),  # a test's domains
    ("en", "FRAILTY: CFS 6/9 (moderately frail)", "6/9"),
    ("en", "poor sleep and tearfulness (HADS-D 12/21)", "12/21"),
    ("en", "Feet: monofilament 10/10 R, 10/10 L", "10/10"),
])
def test_a_ratio_its_context_proves_a_measurement(lang: str, text: str, value: str) -> None:
    assert measurement(text, *_at(text, value), lang)


@pytest.mark.parametrize(("lang", "text", "value"), [
    ("fr", "vu le 12/10 en consultation", "12/10"),
    ("fr", "Glasgow fait le 12/10", "12/10"),  # "le" introduces a date, even after a score's name
    ("en", "admitted on 6/12 for chest pain", "6/12"),
    ("en", "seen 3/10 in clinic", "3/10"),
    ("es", "ingresa el 4/3 por disnea", "4/3"),
    ("en", "Admitted 5/7 with chest pain, platelet count 150", "5/7"),
    ("en", "unwell since 7/7, worse today", "7/7"),  # "since": a day, not a course
    ("en", "Flu clinic booked for 12/12.", "12/12"),  # "for" before a whole course may book a day
    ("en", "Seen in memory clinic 14/11", "14/11"),  # a scale's word that is a common word
    ("fr", "RDV consultation mémoire 14/11", "14/11"),
    ("en", "CFS clinic 14/11", "14/11"),
    ("en", "Seen by Dr Fried 3/5", "3/5"),  # the surname, not the frailty phenotype
    ("en", "On 2/3 lunch with daughter", "2/3"),  # a date's word before a meal's fraction
    ("fr", "Score 12/03/2020", "12/03/2020"),  # a year makes a date
])
def test_a_date_stays_a_date(lang: str, text: str, value: str) -> None:
    assert not measurement(text, *_at(text, value), lang)


def test_only_proven_dates_and_score_names_are_dropped() -> None:
    text = "EVA 4/10 le 12/10, Schober 15/10. Vue par Eva Martin."
    spans = [Span(*_at(text, w), label) for w, label in (
        ("EVA", Label.PERSON), ("4/10", Label.DATE), ("12/10", Label.DATE), ("Schober", Label.PERSON),
        ("15/10", Label.DATE), ("Eva Martin", Label.STAFF))]
    kept = {text[s.start : s.end] for s in drop_measurements(spans, text, "fr")}
    assert kept == {"12/10", "Eva Martin"}


def test_a_long_run_of_ratios_is_read_in_linear_time() -> None:
    import time

    def cost(n: int) -> float:
        text = "EVA " + "1/10 " * n
        spans = [Span(4 + 5 * i, 8 + 5 * i, Label.DATE) for i in range(n)]
        t = time.perf_counter()
        drop_measurements(spans, text, "fr")
        return time.perf_counter() - t

    small, large = min(cost(1000) for _ in range(3)), min(cost(10000) for _ in range(3))
    assert large / small < 15  # ten times the input, well under a hundred times the time


@pytest.mark.parametrize(("text", "model_cut", "value"), [
    ("Neuro: GCS 14/15 (E4V4M6)", "/15", "14/15"),  # the model read the end of the score alone
    ("Power: grip 4+/5, otherwise 5/5.", "5/5", "5/5"),  # the same scale, the first mark graded
    ("co-amoxiclav (day 5/5) - stop tonight", "5/5", "5/5"),  # the last day of a course
])
def test_a_score_the_model_cut_or_graded_is_read_whole(text: str, model_cut: str, value: str) -> None:
    i = text.index(value) + value.index(model_cut)
    span = Span(i, i + len(model_cut), Label.DATE, "ner", 0.7)
    assert drop_measurements([span], text, "en") == []


def test_a_spanish_day_before_a_date_stays_a_date() -> None:
    text = "acudió el día 12/03 a urgencias"
    assert not measurement(text, *_at(text, "12/03"), "es")


def test_a_date_after_a_course_of_days_stays_a_date() -> None:
    text = "antibiotics completed 5-day course 11/18 and were not extended"
    assert not measurement(text, *_at(text, "11/18"), "en")


@pytest.mark.parametrize(("text", "mark"), [
    ("1. Ciprofloxacin 500mg PO bd 7/7 (14 tabs)", "7/7"),  # a British course after a lower-case frequency
    ("2. Paracetamol 1g PO qds prn 5/7 (32 tabs)", "5/7"),
    ("On examination she had 8/28 tender and 5/28 swollen joints", "8/28"),  # the DAS28's joints
    ("On examination she had 8/28 tender and 5/28 swollen joints", "5/28"),
])  # fmt: skip
def test_a_course_after_a_lower_case_frequency_and_a_joint_count_are_no_dates(text: str, mark: str) -> None:
    assert measurement(text, *_at(text, mark), "en")


@pytest.mark.parametrize(("text", "mark"), [
    ("Clinic on 5/7 in the morning", "5/7"),  # "on" in lower case is a date's word, no frequency
    ("Rheumatology review 8/28 at clinic", "8/28"),  # no joints' word after the mark: a date
    ("seen on 2/28 swollen R ankle", "2/28"),  # a date's word before the mark outweighs it
    ("Keflex 500 mg QID 7/12, stop 7/19", "7/12"),  # an American frequency: the course's day
    ("Doxycycline 100 mg BID 7/7 - 7/14", "7/7"),
])  # fmt: skip
def test_a_date_beside_those_words_stays_a_date(text: str, mark: str) -> None:
    assert not measurement(text, *_at(text, mark), "en")
