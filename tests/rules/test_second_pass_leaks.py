"""PHI that the first pass of issue 29 left on the realistic notes, each read by its cue or shape:
laboratory accessions, serial numbers and plates, weekdays after an event, dated short dates and
ranges, hospitals by their initials where they are used, care structures by their kind, and staff
named by role and given name. Each behaviour comes with the look-alike that must stay untouched."""

from __future__ import annotations

from collections.abc import Callable

from deid.labels import Label

Find = Callable[[str, str], list[tuple[str, Label]]]


def surfaces(find: Find, text: str, language: str, label: Label | None = None) -> set[str]:
    return {s for s, lab in find(text, language) if label is None or lab == label}


# identifiers


def test_a_laboratory_accession_is_an_identifier_whatever_introduces_it(find: Find) -> None:
    text = "Muestras: AP20-22871 (frasco 1). Path (S24-08813): appendicitis. biopsie (H24-00988)."
    found = surfaces(find, text, "es", Label.ID)
    assert {"AP20-22871", "S24-08813", "H24-00988"} <= found


def test_a_serial_number_and_a_plate_are_identifiers(find: Find) -> None:
    text = "low air loss mattress (SN LAL2206637) working; truck (gray Silverado, LA plate WKN 418) gone."
    assert {"LAL2206637", "WKN 418"} <= surfaces(find, text, "en", Label.ID)


def test_an_implant_lot_is_an_identifier_a_vaccine_lot_is_not(find: Find) -> None:
    implant = "ciment Palacos R+G 40 g - lot 8319027\n"
    vaccine = "Havrix 720 EL.U IM L thigh, lot 9Z7H3, exp 11/2026"
    assert "8319027" in surfaces(find, implant, "fr", Label.ID)
    assert "9Z7H3" not in surfaces(find, vaccine, "en")


# dates


def test_a_weekday_after_an_event_or_before_a_part_of_the_day_is_a_date(find: Find) -> None:
    text = "Addiction med consult Mon. Discuss in MDT Weds. One episode of restlessness Sat night."
    assert {"Mon", "Weds", "Sat"} <= surfaces(find, text, "en", Label.DATE)
    assert "mardi" in surfaces(find, "Sa fille est venue mardi à l'ortho.", "fr", Label.DATE)
    booked = "Missed Fri run - son's truck. Own GP Mon for MSU result. CM will f/u Tue."
    assert {"Fri", "Mon", "Tue"} <= surfaces(find, booked, "en", Label.DATE)


def test_a_spanish_weekday_in_the_singular_is_a_date_in_the_plural_a_habit(find: Find) -> None:
    text = "Consumo de cocaína fumada el sabado con unos amigos. Revisión el lunes."
    assert {"sabado", "lunes"} <= surfaces(find, text, "es", Label.DATE)
    assert not surfaces(find, "Acude a diálisis los lunes, miércoles y viernes.", "es", Label.DATE)
    assert not surfaces(find, "Diálisis el lunes y el jueves de cada semana.", "es", Label.DATE)


def test_a_clinics_weekly_day_or_a_saturation_after_a_check_is_no_date(find: Find) -> None:
    text = "Attends Mon clinic weekly. Recheck Sat 92% on RA."
    assert not surfaces(find, text, "en", Label.DATE)


def test_a_weekday_of_a_habit_or_a_saturation_is_no_date(find: Find) -> None:
    text = "TA 135/80, FC 88, Sat O2 96%. Niece visits Sat. Granddaughter staying over Fri nights."
    assert not surfaces(find, text, "en", Label.DATE)


def test_a_month_day_after_the_event_it_dates_is_a_date(find: Find) -> None:
    text = "amlodipine held on admission, resumed 3/5 at 5 mg. Intubated 10/9. IABP placed 1/15 via R fem."
    assert {"3/5", "10/9", "1/15"} <= surfaces(find, text, "en", Label.DATE)


def test_a_ratio_or_a_setting_without_its_event_stays(find: Find) -> None:
    text = "BiPAP 10/5, pain 4/10, BCx 2/2 Klebsiella, strength 5/5."
    assert not surfaces(find, text, "en", Label.DATE)


def test_a_spanish_day_month_after_its_article_or_shift_is_a_date_a_fraction_is_not(find: Find) -> None:
    text = "Retirada de puntos a partir del 28/01 si buena evolución.\nTARDE 12/01\nNeuro: estable."
    assert {"28/01", "12/01"} <= surfaces(find, text, "es", Label.DATE)
    assert not surfaces(find, "Lesión en el 1/3 distal del fémur.", "es", Label.DATE)


def test_the_first_day_of_a_range_is_a_date(find: Find) -> None:
    fr = "hospitalisée dans notre unité du 3 au 14 mars 2024, entrée par le SAU"
    es = "EVOLUTIVO ENFERMERÍA - NOCHE 10 AL 11/01/24\nHab 514-A."
    en = "admitted to our hospitalist service from September 6 to 10 with emboli"
    assert "3" in surfaces(find, fr, "fr", Label.DATE)
    assert "10" in surfaces(find, es, "es", Label.DATE)
    assert "10" in surfaces(find, en, "en", Label.DATE)


# hospitals


def test_a_hospital_is_named_by_its_initials_where_notes_use_one(find: Find) -> None:
    text = ("Devon OKAFOR-REID  41M   NBT no BS5562031\nWard Alaw, YG     15/03/18\n"
            "TGH ED - BEHAVIORAL HEALTH POD\n2nd visit since d/c from WGH\n"
            "Fracture clinic at RLI next Wednesday\nIf bleeding not settling -> ED at RVI or 999")
    assert {"NBT", "YG", "TGH", "WGH", "RLI", "RVI"} <= surfaces(find, text, "en", Label.HOSPITAL)


def test_an_emergency_departments_area_or_reading_or_a_man_called_ed_is_no_hospital(find: Find) -> None:
    text = "kept in ED at CDU overnight; arrived ED at GCS 15. Spoke to Ed at CVS pharmacy."
    assert not surfaces(find, text, "en", Label.HOSPITAL)


def test_the_label_of_a_number_is_no_hospital(find: Find) -> None:
    text = "DOB 14/10/2004   ED No MH24-118372   NHS No: 335 257 1821"
    assert not {"ED", "NHS"} & surfaces(find, text, "en", Label.HOSPITAL)


def test_a_care_structure_is_named_by_its_kind_then_its_name(find: Find) -> None:
    fr = ("HOSPICES CIVILS DE LYON\nDr Thomas NGUYEN-VAN\nMSP Château-Sud\n"
          "CMP adultes de Montreuil – EPS Ville-Évrard\n")
    es = "cc: CS Almendrales - Dr. Iván Pastrana (MAP)\nCoordinación con el PADES de Girona (Dr. Quim)"
    assert {"HOSPICES CIVILS DE LYON", "MSP Château-Sud", "CMP adultes de Montreuil",
            "EPS Ville-Évrard"} <= surfaces(find, fr, "fr", Label.HOSPITAL)
    assert {"CS Almendrales", "PADES de Girona"} <= surfaces(find, es, "es", Label.HOSPITAL)
    assert "HU 30" not in " ".join(surfaces(find, "HU 30 cm, présentation céphalique", "fr"))


def test_a_skilled_nursing_facility_is_named_before_snf(find: Find) -> None:
    text = "Sending facility: Magnolia Terrace SNF\n"
    assert "Magnolia Terrace SNF" in surfaces(find, text, "en", Label.HOSPITAL)
    assert not surfaces(find, "Per SNF RN Teresa, report given.", "en", Label.HOSPITAL)


# staff


def test_staff_named_by_role_and_given_name_are_staff(find: Find) -> None:
    fr = "11/01/23 - Matin - IDE Élodie / AS Gwenola\n\nCible : CONFUSION"
    en = "Sitter (Keisha) at bedside from 0030. SALT (Eleri) assessed yesterday."
    es = "Deambula con andador hasta el baño con Maripili (TCAE), cansado."
    assert "Gwenola" in surfaces(find, fr, "fr", Label.STAFF)
    assert {"Keisha", "Eleri"} <= surfaces(find, en, "en", Label.STAFF)
    assert "Maripili" in surfaces(find, es, "es", Label.STAFF)


def test_an_entry_signed_with_a_role_word_is_staff_but_a_line_of_care_is_not(find: Find) -> None:
    es = "Sin incidencias.\nRubén enfermero noche\n\nAvisada enfermera\nLucía - matrona - tarde\n"
    fr = "Selles x1.\nMaëlle infirmière nuit\n"
    assert {"Rubén", "Lucía"} <= surfaces(find, es, "es", Label.STAFF)
    assert "Avisada" not in surfaces(find, es, "es")  # no shift: a line of care, not a signature
    assert "Maëlle" in surfaces(find, fr, "fr", Label.STAFF)


def test_an_entry_signed_by_given_name_role_and_shift_is_staff_but_not_a_sheet_heading(find: Find) -> None:
    fr = "R : rendormie vers 3h.\nSoizic IDE nuit\n\nTransmissions IDE nuit\n18/01 Matin"
    es = "Sin incidencias.\n  Maripili TCAE tarde\n"
    assert surfaces(find, fr, "fr", Label.STAFF) == {"Soizic"}
    assert "Maripili" in surfaces(find, es, "es", Label.STAFF)


def test_a_patient_in_brackets_after_pt_is_no_staff(find: Find) -> None:
    text = "Results letter to pt (Vietnamese) and Dr. Sizemore."
    assert "Vietnamese" not in surfaces(find, text, "en", Label.STAFF)


def test_initials_alone_closing_an_entry_are_staff(find: Find) -> None:
    text = "la esposa (Montse) se queda por la mañana.\nMRC\n\n22/05 TARDE\nPico febril 38,4."
    assert "MRC" in surfaces(find, text, "es", Label.STAFF)


def test_a_heading_or_an_allergy_line_is_no_signature(find: Find) -> None:
    text = "amlodipine 5mg od\nNKDA\n\nFHx: nil.\nSang in choir.\n\nLABS\nNa 140"
    assert not surfaces(find, text, "en", Label.STAFF)
