"""Ages: the number with its unit, never the label word; durations are not ages."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from deid.labels import Label

Find = Callable[[str, str], list[tuple[str, Label]]]

A = Label.AGE


@pytest.mark.parametrize(
    ("text", "lang", "surface"),
    [
        ("Homme de 40 ans, fumeur.", "fr", "40 ans"),
        ("Patiente âgée de 40 ans.", "fr", "40 ans"),
        ("40 ans, pas d'antécédent.", "fr", "40 ans"),
        ("Âge : 72 ans", "fr", "72 ans"),
        ("Enfant de 3 ans et 6 mois.", "fr", "3 ans et 6 mois"),
        ("Varón de 40 años.", "es", "40 años"),
        ("Mujer nacida el 25/12/1955, de 68 años, que acude por disnea.", "es", "68 años"),
        ("Mujer de 40 años de edad.", "es", "40 años"),
        ("Paciente de 40 años de edad, sin antecedentes.", "es", "40 años"),
        ("Edad: 44 años Sexo: M.", "es", "44 años"),
        ("Edad: 22  Sexo: M.", "es", "22"),
        ("Niña de tres años y diez meses de edad.", "es", "tres años y diez meses"),
        ("Apendicectomía a los 25 años.", "es", "25 años"),
        ("A 40-year-old man.", "en", "40-year-old"),
        ("A man aged 40.", "en", "40"),
        ("She is 40 years old.", "en", "40 years old"),
        ("Patient 67 yo, male.", "en", "67 yo"),
        # the age at an event of the record, its months with it
        ("Age at assessment: 3 years 2 months", "en", "3 years 2 months"),
        ("Age: 3 years and 2 months", "en", "3 years and 2 months"),
    ],
)
def test_age_is_found(find: Find, text: str, lang: str, surface: str) -> None:
    assert (surface, A) in find(text, lang)


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Tabac depuis 40 ans.", "fr"),  # relative date, not an age
        ("Diabète il y a 10 ans.", "fr"),
        ("Traitement pendant 2 ans.", "fr"),
        ("Revu 2 ans plus tard.", "fr"),
        ("Tratamiento durante 3 años.", "es"),
        ("Cirugía hace 3 años.", "es"),
        ("A los 6 meses de la cirugía.", "es"),
        ("Historia de 5 años de evolución.", "es"),
        ("Fumadora, de 20 años de evolución.", "es"),
        ("Lumbalgia, de 2 años de duración.", "es"),
        ("Treated for 3 years.", "en"),
        ("Anticoagulation 3 mois puis contrôle.", "fr"),  # a bare delay in months is not an age
        ("A los 6 meses se repitió la ecografía.", "es"),
        ("Gestante de 34 semanas.", "es"),  # gestational age is not the patient's age
    ],
)
def test_durations_are_not_ages(find: Find, text: str, lang: str) -> None:
    assert [s for s in find(text, lang) if s[1] is A] == []


@pytest.mark.parametrize(("text", "surface"), [
    ("Thibodeaux, Olive  91F  rm 318", "91"),  # a handoff header: name, age and sex, room
    ("VOLKOV, DMITRI   67 yoM   CCU bed 2", "67 yo"),
    ("Pre-op: 23M, 36h RIF pain", "23"),
    ("Inaya (4) at school, with the children (7)", "7"),  # an age after children
])
def test_an_age_with_the_sex_letter_is_an_age(text: str, surface: str) -> None:
    from deid.rules import build_recognizers

    (short_age,) = build_recognizers(["short_age"])
    assert surface in [text[s.start:s.end] for s in short_age.find(text, "en")]


@pytest.mark.parametrize("text", [
    "T 101 F overnight", "Tmax 99.1F", "Size 14F catheter", "placed 16 F foley", "temp 100 F at 0400",
])
def test_a_temperature_or_a_tube_gauge_with_an_f_is_no_age(text: str) -> None:
    from deid.rules import build_recognizers

    (short_age,) = build_recognizers(["short_age"])
    assert short_age.find(text, "en") == []


@pytest.mark.parametrize(("text", "surface"), [
    ("She speaks to her daughter (now 10) in Hargeisa", "10"),
    ("boy Luca (DOB 17/08/2021, now 3) 3.42kg", "3"),
])
def test_an_age_now_in_brackets_is_an_age(text: str, surface: str) -> None:
    from deid.rules import build_recognizers

    (short_age,) = build_recognizers(["short_age"])
    assert [text[s.start:s.end] for s in short_age.find(text, "en")] == [surface]


@pytest.mark.parametrize("text", [
    "pain (now 3/10)", "dose (now 10 mg)", "now 10 days post-op",
    "pain (was 8, now 3), Hb (7.2 yesterday, now 9), NEWS (now 5)",  # values that changed
    "age at which 3 doses are given",  # no event of the record after "age at"
])
def test_a_score_or_a_dose_now_is_no_age(text: str) -> None:
    from deid.rules import build_recognizers

    (short_age,) = build_recognizers(["short_age"])
    assert short_age.find(text, "en") == []
