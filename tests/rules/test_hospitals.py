"""Hospitals in capitals after the word for one (deid.rules.hospitals)."""

from __future__ import annotations

import pytest

from deid.rules import RuleDetector


def hospitals(text: str, language: str = "fr") -> list[str]:
    return [text[s.start : s.end] for s in RuleDetector(["hospital"]).find(text, language)]


@pytest.mark.parametrize(("text", "language", "expected"), [
    ("HOPITAL PRIVÉ DES PEUPLIERS", "fr", ["HOPITAL PRIVÉ DES PEUPLIERS"]),
    ("31020 TOULOUSE  CHU AVICENNE\n", "fr", ["CHU AVICENNE"]),
    ("CENTRE HOSPITALIER D'ARLES", "fr", ["CENTRE HOSPITALIER D'ARLES"]),
    ("HOSPITAL UNIVERSITARIO LA PAZ. Madrid", "es", ["HOSPITAL UNIVERSITARIO LA PAZ"]),
    ("Hospital POVISA C/Salamanca 5", "es", ["Hospital POVISA"]),
])  # fmt: skip
def test_a_name_in_capitals_after_the_word_for_a_hospital_is_a_hospital(
        text: str, language: str, expected: list[str]) -> None:  # fmt: skip
    assert hospitals(text, language) == expected


def test_a_heading_in_small_letters_before_the_name_is_left_out_in_french() -> None:
    assert hospitals("Hôpital COCHIN") == ["COCHIN"]
    assert hospitals("Hôpital CLINIQUE DE SAINT CLOUD, MESNARD-LA-BAROTIERE") == ["CLINIQUE DE SAINT CLOUD"]


def test_a_department_in_capitals_after_the_name_is_not_part_of_it() -> None:
    assert hospitals("CHU DE BORDEAUX SERVICE DE CARDIOLOGIE") == ["CHU DE BORDEAUX"]


@pytest.mark.parametrize(("text", "language"), [
    ("Hôpital Necker le 3 mars", "fr"),  # capitalised, not in capitals: left to the model
    ("Clinique Pervenche Saturation en baisse", "fr"),  # where it ends is unknown
    ("admis à l'hôpital de jour", "fr"),
    ("HÔPITAL DE JOUR DE PNEUMOLOGIE", "fr"),  # a unit, not a hospital
    ("transferred to Hospital ICU", "en"),
    ("la clínica de TFNA", "es"),  # the clinical picture, not a clinic
    ("Hospital Clínico Universitario C/ Ramón y Cajal", "es"),  # "C/" opens the street
    ("Complejo Hospitalario Universitario de A Coruña", "es"),  # one capital is no name in capitals
])  # fmt: skip
def test_no_hospital_without_a_name_in_capitals(text: str, language: str) -> None:
    assert hospitals(text, language) == []


def test_a_lone_article_is_no_word_of_the_name() -> None:
    assert hospitals("vu au CHU L' ") == []
    assert hospitals("CENTRE HOSPITALIER D'ARLES") == ["CENTRE HOSPITALIER D'ARLES"]


def test_a_run_of_elided_articles_is_read_in_linear_time() -> None:
    import time

    started = time.perf_counter()
    hospitals("HOPITAL " + "L'" * 20_000 + "x")
    assert time.perf_counter() - started < 10  # ~0.01 s; trying every split took minutes
