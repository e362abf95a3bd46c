"""Issue 29: a French or Spanish nursing sheet's shifts and team roles are no PHI. The model read
a shift word as a date or a person ("Yaiza TCAE tarde", "14/02 NUIT", "TURNO NOCHE") and a team
role alone as a person or an institution ("IDE : Sandrine", "/ AS Nolwenn"); each is dropped on
its own words, beside a look-alike that stays. Names and values are made up for these tests."""

from __future__ import annotations

from deid.detection.own_words import drop_own_words
from deid.labels import Label
from deid.spans import Span


def _at(text: str, words: str, label: Label) -> Span:
    i = text.index(words)
    return Span(i, i + len(words), label, "ner", 0.9)


def _kept(spans: list[Span], text: str, language: str) -> set[str]:
    return {text[s.start : s.end] for s in drop_own_words(spans, text, language)}


def test_a_shift_alone_is_no_date_and_no_person() -> None:
    text = "Yaiza TCAE tarde\n\n15/02/2024 NOCHE\nEvolutivo enfermería TURNO NOCHE 02-03/12\nnights x3"
    spans = [_at(text, "tarde", Label.DATE), _at(text, "NOCHE", Label.PATIENT),
             _at(text, "TURNO NOCHE", Label.STAFF), _at(text, "nights", Label.DATE)]
    assert _kept(spans, text, "es") == set()


def test_a_shift_with_its_day_or_a_capitalised_name_stays() -> None:
    text = "Vue samedi soir aux urgences. Dr Noche appelé. Friday night fall. Mme Matin"
    spans = [_at(text, "samedi soir", Label.DATE), _at(text, "Noche", Label.STAFF),
             _at(text, "Friday night", Label.DATE), _at(text, "Matin", Label.PATIENT)]
    assert _kept(spans, text, "fr") == {"samedi soir", "Noche", "Friday night", "Matin"}


def test_a_team_role_alone_names_no_one_but_an_english_state_or_initials_stay() -> None:
    text = "Nuit du 08 au 09/01      IDE : Sandrine L.      AS : Nolwenn\n13/04 IDE Katell / AS Soizic"
    spans = [_at(text, "IDE", Label.PERSON), _at(text, "AS :", Label.STAFF),
             _at(text, "AS Soizic", Label.STAFF)]
    kept = _kept([spans[0], Span(spans[1].start, spans[1].start + 2, Label.HOSPITAL, "ner", 0.9), spans[2]],
                 text, "fr")
    assert kept == {"AS Soizic"}
    en = "Moved from Pittsburgh, PA in 2019. Seen by RM."
    assert _kept([_at(en, "PA", Label.LOCATION), _at(en, "RM", Label.STAFF)], en, "en") == {"PA", "RM"}


def test_a_bare_unit_of_time_is_no_date_but_a_season_or_a_weekend_is() -> None:
    text = ("Wife brought him in this AM. Son came in last night. 8/30 days last month. "
            "Home for summer, last weekend.")
    spans = [_at(text, "AM", Label.DATE), _at(text, "last", Label.DATE), _at(text, "month", Label.DATE),
             _at(text, "summer", Label.DATE), _at(text, "last weekend", Label.DATE)]
    assert _kept(spans, text, "en") == {"summer", "last weekend"}


def test_a_french_nursing_target_is_no_place_but_a_name_after_it_on_another_line_stays() -> None:
    text = "Cible : CHUTE\nD : retrouvée au sol.\nCible DOULEUR\nDr CHUTE appelé"
    spans = [_at(text, "CHUTE", Label.HOSPITAL), _at(text, "DOULEUR", Label.PERSON),
             Span(text.rindex("CHUTE"), text.rindex("CHUTE") + 5, Label.STAFF, "ner", 0.9)]
    assert _kept(spans, text, "fr") == {"CHUTE"}
    assert [text[s.start:s.end] for s in drop_own_words(spans, text, "fr")] == ["CHUTE"]
    assert drop_own_words(spans, text, "fr")[0].label is Label.STAFF


def test_a_french_clock_or_a_law_article_is_no_identifier_but_a_patient_number_is() -> None:
    text = "URGENCES – Box 4 – 10/10/2023 11h42\nSPDT (art. L3212-3 CSP). IPP 3212003"
    spans = [_at(text, "11h42", Label.ID_VISIT), _at(text, "L3212-3", Label.ID_VISIT),
             _at(text, "3212003", Label.ID_PATIENT)]
    assert _kept(spans, text, "fr") == {"3212003"}


def test_an_eponym_names_a_score_or_a_sign_not_a_person_but_a_name_beside_a_test_result_stays() -> None:
    text = ("Good Bishop score. Murphy's sign neg. Glasgow-Blatchford score 13. Vagal (modified "
            "Valsalva) x1. Signe de Lasègue négatif. Mr Dean Wells, test date")
    spans = [_at(text, "Bishop", Label.RELATIVE), _at(text, "Murphy", Label.PERSON),
             _at(text, "Glasgow-Blatchford", Label.CITY), _at(text, "Valsalva", Label.STAFF),
             _at(text, "Lasègue", Label.PERSON), _at(text, "Dean Wells", Label.PATIENT)]
    assert _kept(spans, text, "en") == {"Dean Wells"}  # two words and a comma: no eponym
    verbs = "Mary signs the consent. Hope scores 25/30. Mme Durand signe le consentement."
    people = [_at(verbs, "Mary", Label.PATIENT), _at(verbs, "Hope", Label.PATIENT),
              _at(verbs, "Durand", Label.PATIENT)]
    assert _kept(people, verbs, "en") == {"Mary", "Hope", "Durand"}
    month = "In May test results were normal."
    assert _kept([_at(month, "May", Label.DATE)], month, "en") == {"May"}


def test_look_alikes_of_shifts_roles_and_eponyms_stay_names_and_places() -> None:
    # a review of the change: surnames that are shift words, English initials "AS", and names or
    # places before a service or a result
    fr = "Vue par Mme TARDE ce jour. Patiente : GARDE Monique. Vu avec Mlle Martin test de marche."
    spans = [_at(fr, "TARDE", Label.STAFF), _at(fr, "GARDE", Label.PATIENT), _at(fr, "Martin", Label.STAFF)]
    assert _kept(spans, fr, "fr") == {"TARDE", "GARDE", "Martin"}
    en = ("Plan discussed with AS. Bleep Karen ext 4521. Referred to Brighton fracture clinic. "
          "Informed Sandra test results normal.")
    spans = [_at(en, "AS", Label.STAFF), _at(en, "Karen", Label.STAFF), _at(en, "Brighton", Label.CITY),
             _at(en, "Sandra", Label.RELATIVE)]
    assert _kept(spans, en, "en") == {"AS", "Karen", "Brighton", "Sandra"}
    es = "Hija Lucía test de antígeno negativo."
    assert _kept([_at(es, "Lucía", Label.RELATIVE)], es, "es") == {"Lucía"}


def test_a_part_of_a_period_alone_is_no_date_but_a_month_after_it_is() -> None:
    text = "Pt in his mid-60s. Admitted mid-March."
    march = text.rindex("March")
    spans = [_at(text, "mid", Label.DATE), Span(march, march + 5, Label.DATE, "ner")]
    assert _kept(spans, text, "en") == {"March"}
    other = "Due by the end of the month, late last year."
    assert _kept([_at(other, "end of the month", Label.DATE), _at(other, "late last year", Label.DATE)],
                 other, "en") == {"end of the month", "late last year"}


def test_a_number_that_counts_people_or_weeks_or_a_gauge_is_no_age() -> None:
    en = "Lives w/ parents, 2 older brothers. A 19 French Blake drain was placed. Son is 12."
    spans = [_at(en, "2", Label.AGE), _at(en, "19", Label.AGE), _at(en, "12", Label.AGE)]
    assert _kept(spans, en, "en") == {"12"}
    fr = "Patiente de 32 ans, G5P4, 31 SA + 2 j. Il s'occupe des 4 enfants."
    spans = [_at(fr, "32 ans", Label.AGE), _at(fr, "31", Label.AGE), _at(fr, "4 enfants", Label.AGE)]
    assert _kept(spans, fr, "fr") == {"32 ans"}
    uk = "Chapeltown Road, Leeds LS7 4SA"
    assert _kept([_at(uk, "4SA", Label.POSTCODE)], uk, "en") == {"4SA"}


def test_a_credential_or_a_team_role_in_small_letters_alone_names_no_one() -> None:
    text = ("Jane Doe, PA-C\nDr A Khan MBChB MRCGP\n"
            "Dr. Nguyen (fellow) saw pt. OT RN recorded. Fellow Smith.")
    spans = [_at(text, "PA-C", Label.LOCATION), _at(text, "MBChB MRCGP", Label.HOSPITAL),
             _at(text, "fellow", Label.STAFF), _at(text, "OT RN", Label.STAFF),
             _at(text, "Fellow Smith", Label.STAFF)]
    assert _kept(spans, text, "en") == {"OT RN", "Fellow Smith"}


def test_board_certifications_and_licences_after_a_name_name_no_one() -> None:
    text = ("J. Kowalski, MS, CCC-SLP\nL. Park, PharmD, BCGP\nA. Reyes, RN CHPN\nK. Asante, APRN, FNP-C\n"
            "D. Whitlock, M.Div., BCC\nSeen at CHPN Clinic. Dr Hmdc. RN MD")
    spans = [_at(text, "MS, CCC-SLP", Label.ORG), _at(text, "BCGP", Label.HOSPITAL),
             _at(text, "RN CHPN", Label.HOSPITAL), _at(text, "FNP-C", Label.HOSPITAL),
             _at(text, "M.Div., BCC", Label.ORG), _at(text, "CHPN Clinic", Label.HOSPITAL),
             _at(text, "Hmdc", Label.STAFF), _at(text, "RN MD", Label.STAFF)]
    # a credential beside a word that is none stays, and two-letter ones alone are also initials
    assert _kept(spans, text, "en") == {"CHPN Clinic", "Hmdc", "RN MD"}


def test_one_credential_that_is_also_a_surname_or_a_place_stays_where_no_name_stands_before_it() -> None:
    text = ("Mme MBA Jeanne, vue ce jour. Moved from LDN in 2019. M. Mba Paul. Seen by K. Osei, LMSW. "
            "Lives in Hackney, LDN. Famille: Diallo, SANE. Beechwood House, MHA care home. "
            "Dr Fiona Grant FRCPath")
    spans = [_at(text, "MBA", Label.PATIENT), _at(text, "LDN", Label.LOCATION),
             _at(text, "Mba", Label.PATIENT), _at(text, "LMSW", Label.ORG),
             _at(text, "LDN.", Label.LOCATION), _at(text, "SANE", Label.PATIENT), _at(text, "MHA", Label.ORG),
             _at(text, "FRCPath", Label.HOSPITAL)]
    # after a person's name and a comma, and a credential that is never anything else, name no one
    assert _kept(spans, text, "en") == {"MBA", "LDN", "Mba", "LDN.", "SANE", "MHA"}


def test_a_session_s_or_a_cycle_s_number_is_no_date_but_the_spanish_day_of_the_month_is() -> None:
    en = "Session 9 - 11/03/25. COMMUNITY MIDWIFERY - POSTNATAL HOME VISIT (Day 5)"
    spans = [_at(en, "9", Label.DATE), _at(en, "11/03/25", Label.DATE), _at(en, "Day 5)", Label.DATE)]
    assert _kept(spans, en, "en") == {"11/03/25"}
    es = "Sonda retirada el día 12 con débito < 100. Metilpred (día 3/5)."
    spans = [_at(es, "12", Label.DATE)]
    assert _kept(spans, es, "es") == {"12"}


def test_a_year_after_a_guideline_s_body_dates_the_guideline() -> None:
    text = "eGFR 38 (CKD-EPI 2021). Recommended by KDIGO 2022. Meets criteria (AASLD 2018). Dx in 2018."
    aasld, last = text.index("2018"), text.rindex("2018")
    spans = [_at(text, "2021", Label.DATE), _at(text, "2022", Label.DATE),
             Span(aasld, aasld + 4, Label.DATE, "ner"), Span(last, last + 4, Label.DATE, "ner")]
    kept = [text[s.start : s.end] for s in drop_own_words(spans, text, "en")]
    assert kept == ["2018"] and drop_own_words(spans, text, "en")[0].start == last
