"""Dates: numeric and written forms in French, Spanish and English; bare years only in context."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from deid.labels import Label
from deid.rules import build_recognizers

Find = Callable[[str, str], list[tuple[str, Label]]]

D = Label.DATE


@pytest.mark.parametrize(
    ("text", "lang", "surface"),
    [
        ("Vu le 12/02/2020 en consultation.", "fr", "12/02/2020"),
        ("Vu le 12.02.20 en consultation.", "fr", "12.02.20"),
        ("Vu le 12-02-2020.", "fr", "12-02-2020"),
        ("Vu le 5/4/2017.", "es", "5/4/2017"),
        ("Examen du 2020-02-26.", "fr", "2020-02-26"),
        ("Opéré le 26 février 2020.", "fr", "26 février 2020"),
        ("Opéré le 1er janvier 2019.", "fr", "1er janvier 2019"),
        ("Revu le 3 mars pour contrôle.", "fr", "3 mars"),
        ("Hospitalisé en février 2020.", "fr", "février 2020"),
        ("Hospitalisé en fév. 2020.", "fr", "fév. 2020"),
        ("Diagnostic en 2003.", "fr", "2003"),
        ("Covid en décembre 93.", "fr", "décembre 93"),
        ("Intervenido el 3 de abril de 2018.", "es", "3 de abril de 2018"),
        ("Ingresó en octubre de 2016.", "es", "octubre de 2016"),
        ("Ingresó en noviembre del 2001.", "es", "noviembre del 2001"),
        ("Operado el 13-noviembre-2017.", "es", "13-noviembre-2017"),
        ("Diálisis desde el año 2004.", "es", "año 2004"),
        ("Trasplante en 1998.", "es", "1998"),
        ("En el mes de marzo se operó.", "es", "marzo"),
        ("Seen on February 26, 2020.", "en", "February 26, 2020"),
        ("Seen on Feb 3rd 2020.", "en", "Feb 3rd 2020"),
        ("Seen on 3 Feb 2020.", "en", "3 Feb 2020"),
        ("Admitted in March 2019.", "en", "March 2019"),
        ("Diagnosed in 2003.", "en", "2003"),
        ("Seen on 02/26/2020.", "en", "02/26/2020"),
        ("Fecha de ingreso: 20/11//2014.", "es", "20/11//2014"),
        ("Suivi depuis 02/2020.", "fr", "02/2020"),
        ("Hospitalisé le MAR 8 JUILLET 2025 pour bilan.", "fr", "MAR 8 JUILLET 2025"),
        ("Orienté le Jeu, 17 Avr 2098 en post-op.", "fr", "Jeu, 17 Avr 2098"),
        ("Seen on Monday, February 26, 2020.", "en", "Monday, February 26, 2020"),
        ("Rendez-vous fixé le 23avr.", "fr", "23avr"),
        ("Prévu le 01sep2018 à 02:21.", "fr", "01sep2018"),
        ("Prélevé le 1 2 0 6 2 0 8 1 au matin.", "fr", "1 2 0 6 2 0 8 1"),
        ("Revu le 23022018, stable.", "fr", "23022018"),
        ("Cure C4 16/09 bien tolérée.", "fr", "16/09"),
        # a weekday, whole or abbreviated, then the day of the month: an entry's date
        ("Curas.\n\njue 11 — vendaje bien.", "es", "jue 11"),
        ("Se cura el viernes 19. Sin signos.", "es", "viernes 19"),
        ("Curas.\nlun 22/1 — 3,6 x 2,4 cm.", "es", "lun 22/1"),
        ("Transmissions\nmer 03/07 7h50 — levée.", "fr", "mer 03/07"),
        ("Nurse visit Thurs 4/18 @ 10:15.", "en", "Thurs 4/18"),
        ("SOC visit Sat 3/23.", "en", "Sat 3/23"),
        # a Spanish month's abbreviation and a two-digit year
        ("FOLFIRINOX x 6 ciclos (oct-22 a mar-23).", "es", "oct-22"),
    ],
)
def test_date_is_found_with_exact_offsets(find: Find, text: str, lang: str, surface: str) -> None:
    assert (surface, D) in find(text, lang)


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Dose de 2003 mg.", "fr"),  # a bare four-digit number is not a year
        ("Plaquettes 150000/mm3, taille 1.80.", "fr"),
        ("TA 12/8, score 3/4.", "fr"),
        ("Il marche sur mars.", "fr"),  # no day, no year, no temporal word
        ("He may come back.", "en"),
        ("Le 32/13/2020 est impossible.", "fr"),  # out of range
        ("Version 1.2.3 du logiciel.", "fr"),
        ("Hospital Universitario 12 de Octubre.", "es"),  # a hospital's name
        ("Sat 94% on RA, sat in chair.", "en"),  # a saturation, not Saturday
        ("Home attendant Mon-Fri 9 AM-1 PM.", "en"),  # a clock, not a day of the month
        ("sat 12 in the chair", "en"),  # an English abbreviation only capitalised
        ("Home aide Mon-Fri 9-5, Sat 10-2.", "en"),  # hours of a week, not days of the month
        ("Aide Mon-Fri 9 to 5, Sun 2 hours.", "en"),
        ("LYM 25 MON 8 EOS 2", "en"),  # monocytes
        ("RDV lun 8h30, mar 7h45.", "fr"),  # clocks
        ("Vu par le MAR 2 fois.", "fr"),  # the anaesthetist
        ("lun 9 horas de ayuno.", "es"),
    ],
)
def test_non_dates_are_not_flagged(find: Find, text: str, lang: str) -> None:
    assert [s for s in find(text, lang) if s[1] is D] == []


def test_french_birth_date_is_told_apart(find: Find) -> None:
    assert find("Patiente née le 03/04/1950.", "fr") == [("03/04/1950", Label.BIRTH_DATE)]


def test_a_birth_date_is_told_apart_by_its_field_in_every_language(find: Find) -> None:
    """Substitution protects a birth date at the scale of years: a Spanish "Fecha de nacimiento"
    read as a plain date came out moved by days. MEDDOCAN's official export still writes FECHAS."""
    from deid.lab.corpora.mapping import export_label

    assert find("Fecha de nacimiento: 05/03/1996.", "es") == [("05/03/1996", Label.BIRTH_DATE)]
    assert find("Nacida el 05/03/1996 en Lugo.", "es") == [("05/03/1996", Label.BIRTH_DATE)]
    assert find("DOB: 03/14/1942", "en") == [("03/14/1942", Label.BIRTH_DATE)]
    assert find("Fecha de ingreso: 05/03/2016.", "es") == [("05/03/2016", D)]
    assert export_label("meddocan", Label.BIRTH_DATE) == "FECHAS"


@pytest.mark.parametrize(
    ("text", "lang", "surface"),
    [
        ("Douleur apparue il y a 10 ans.", "fr", "il y a 10 ans"),
        ("Toux depuis 3 semaines.", "fr", "depuis 3 semaines"),
        ("Tabac depuis 40 ans.", "fr", "depuis 40 ans"),
        ("Contrôle dans 2 jours.", "fr", "dans 2 jours"),
        ("Cirugía hace 3 meses.", "es", "hace 3 meses"),
        ("Dolor desde hace cuatro años.", "es", "desde hace cuatro años"),
        ("Surgery 2 weeks ago.", "en", "2 weeks ago"),
        ("Pain for the past three days.", "en", "for the past three days"),
    ],
)
def test_relative_expression_is_a_date(find: Find, text: str, lang: str, surface: str) -> None:
    assert find(text, lang) == [(surface, D)]


def test_relative_recognizer_names_its_source() -> None:
    (rec,) = build_recognizers(["relative_date"])
    (span,) = rec.find("il y a 10 ans", "fr")
    assert span.source == "rules.relative_date"


def test_date_recognizer_does_not_flag_a_duration_after_an_event(find: Find) -> None:
    assert find("Dos meses después se operó.", "es") == []


@pytest.mark.parametrize("text", ["Apgar 9/10/10 à la naissance", "Apgar : 10/10/10", "EVA 7/10/10",
                                  "score de Glasgow 15/10/12"])
def test_scores_written_like_dates_are_not_dates(find: Find, text: str) -> None:
    assert [lab for _, lab in find(text, "fr") if lab in (Label.DATE, Label.BIRTH_DATE)] == []


@pytest.mark.parametrize("text", ["Revue par Eva 12/03/20.", "Score 12/03/2020 relevé",
                                  "Apgar le 12/03/2020"])
def test_a_date_after_a_score_word_or_the_name_eva_is_still_a_date(find: Find, text: str) -> None:
    assert [lab for _, lab in find(text, "fr") if lab is Label.DATE]


def test_a_date_typed_digit_by_digit_with_spaced_separators_is_one_date() -> None:
    from deid.rules import RuleDetector

    text = "Date de sortie : 2 1 - 0 9 - 2 0 8 8 , vu le 0 3 / 1 1 / 2 0 1 9."
    spans = RuleDetector(["date"]).find(text, "fr")
    assert [text[s.start : s.end] for s in spans] == ["2 1 - 0 9 - 2 0 8 8", "0 3 / 1 1 / 2 0 1 9"]


def test_scores_are_no_dates_but_a_date_after_the_first_name_eva_is() -> None:
    from deid.rules import RuleDetector

    rule = RuleDetector(["date"])
    for text in ("EVA 7/10", "apgar 9/10/10", "score de Glasgow 15/15"):
        assert rule.find(text, "fr") == [], text
    text = "Mme DUPONT EVA 12/03/85."
    assert [text[s.start : s.end] for s in rule.find(text, "fr")] == ["12/03/85"]


@pytest.mark.parametrize(("text", "lang", "dates"), [
    ("Reçue les 13 et 27 février, puis le 5 mars.", "fr", ["13", "27 février", "5 mars"]),
    ("Séances les 2, 9 et 16 mars.", "fr", ["2", "9", "16 mars"]),
    ("Vista los días 3 y 5 de marzo.", "es", ["3", "5 de marzo"]),
    ("Sesiones el 2, 9 y 16 de mayo de 2023.", "es", ["2", "9", "16 de mayo de 2023"]),
    ("Seen on the 3rd and 5th March.", "en", ["3rd", "5th March"]),
    ("Seen March 3 and 5.", "en", ["March 3", "5"]),
    ("Seen March 3rd and 5th.", "en", ["March 3rd", "5th"]),
])  # fmt: skip
def test_every_day_of_a_list_that_shares_its_month_is_a_date(text: str, lang: str, dates: list[str]) -> None:
    recognizers = build_recognizers(["date"])
    found = sorted((s.start, text[s.start : s.end]) for r in recognizers for s in r.find(text, lang))
    assert [surface for _, surface in found] == dates


@pytest.mark.parametrize(("text", "lang", "dates"), [
    ("Revoir entre 2 et 3 mois.", "fr", []),
    ("Entre 2 y 3 meses de tratamiento.", "es", []),
    ("Takes 2 and 3 times a day.", "en", []),
    ("INR 2,5 et 3 mars", "fr", ["3 mars"]),  # a decimal comma joins no list
    ("Valores de 2,5 y 3 de marzo", "es", ["3 de marzo"]),
    ("Vu les 13 et 27\nfévrier", "fr", []),  # a list stays on its line
    ("Grades 2 and 3 may be present.", "en", ["3 may"]),  # the modal "may" dates no list
    ("In March 2 and 3 patients were seen.", "en", ["March 2"]),
])  # fmt: skip
def test_numbers_joined_before_no_month_of_their_own_are_no_listed_days(
        text: str, lang: str, dates: list[str]) -> None:  # fmt: skip
    recognizers = build_recognizers(["date"])
    found = sorted((s.start, text[s.start : s.end]) for r in recognizers for s in r.find(text, lang))
    assert found == sorted((text.index(d), d) for d in dates)


@pytest.mark.parametrize(("text", "lang", "weekday"), [
    ("13/12/2020 (Sun) 10:42   Call back", "en", "Sun"),
    ("Revu le 12/03 (mar.) à 10h", "fr", "mar"),
    ("Consulta el 12.03.2024 (jue) a las 10", "es", "jue"),
    ("Call back 2020-12-13 (Sun) 10:42", "en", "Sun"),
])  # fmt: skip
def test_a_weekday_in_brackets_after_its_date_is_a_date(text: str, lang: str, weekday: str) -> None:
    recognizers = build_recognizers(["weekday"])
    assert [text[s.start : s.end] for r in recognizers for s in r.find(text, lang)] == [weekday]


@pytest.mark.parametrize(("text", "lang"), [
    ("Hb 12.5 (Sat) and SpO2 94% (Sat)", "en"),  # a decimal is no date
    ("Induction 12/03/2024 (MAR)", "fr"),  # capitals: the anaesthetist
    ("SpO2 12/03 (SAT)", "en"),
])  # fmt: skip
def test_a_weekday_word_in_brackets_after_a_decimal_or_in_capitals_is_no_date(text: str, lang: str) -> None:
    recognizers = build_recognizers(["weekday"])
    assert [s for r in recognizers for s in r.find(text, lang)] == []


@pytest.mark.parametrize(
    ("text", "lang", "first"),
    [
        ("Adjuvant RT L breast 40 Gy/15# 13-31 May 2024", "en", "13"),
        ("Admitted from the 3rd to 7th of March.", "en", "3rd"),
        ("Hospitalisée du 3-7 mars 2024.", "fr", "3"),
        ("Ingresado del 13 al 31 de mayo.", "es", "13"),
    ],
)
def test_the_first_day_of_a_range_whose_second_carries_the_month_is_a_date(
        find: Find, text: str, lang: str, first: str) -> None:
    assert (first, Label.DATE) in find(text, lang)


def test_a_grade_range_before_the_modal_may_is_no_range_of_days(find: Find) -> None:
    assert ("2", Label.DATE) not in find("Grades 2-3 may be seen.", "en")
