"""A name found once is replaced wherever it appears again; a span covers all of what it names."""

from __future__ import annotations

from deid.detection.echoes import echo_names
from deid.detection.extents import whole_extents
from deid.labels import Label
from deid.spans import Span


def _span(text: str, words: str, label: Label, nth: int = 0, score: float = 1.0) -> Span:
    i = -1
    for _ in range(nth + 1):
        i = text.index(words, i + 1)
    return Span(i, i + len(words), label, "ner", score)


def _texts(spans: list[Span], text: str) -> list[tuple[str, str]]:
    return [(text[s.start : s.end], s.label.value) for s in spans]


def test_a_given_name_used_alone_later_is_a_name() -> None:
    text = "Mme LEMAIRE Honorine, 84 ans. Nuit calme. Honorine a bien dormi, honorine souriante."
    out = echo_names([_span(text, "LEMAIRE Honorine", Label.PATIENT)], text, "fr")
    # the lower-case one is a word of the language as far as this note shows: names are capitalised
    assert _texts(out, text) == [("LEMAIRE Honorine", "PATIENT"), ("Honorine", "PATIENT")]


def test_nicknames_pet_forms_and_initials_of_a_known_name() -> None:
    text = ("Robert Kessler, 70 yo. Bob tolerated his diet. Daughter Consolata Ferri called; "
            "Consolatina will visit. Plan discussed with RK.")
    spans = [_span(text, "Robert Kessler", Label.PATIENT), _span(text, "Consolata Ferri", Label.RELATIVE)]
    out = _texts(echo_names(spans, text, "en"), text)
    assert ("Bob", "PATIENT") in out  # the English nickname table
    assert ("Consolatina", "RELATIVE") in out  # stem + diminutive
    assert ("RK", "PATIENT") in out  # initials of a two-word name


def test_common_words_that_are_names_match_only_as_names() -> None:
    text = "Will Hartley admitted. Will continue antibiotics. Seen by Will today; patient will call."
    out = _texts(echo_names([_span(text, "Will Hartley", Label.PATIENT)], text, "en"), text)
    assert out == [("Will Hartley", "PATIENT"), ("Will", "PATIENT")]  # mid-sentence, capitalised only


def test_a_doubtful_one_word_name_or_an_acronym_spreads_nothing() -> None:
    text = "MI in 2019. MI again. Foley in place, Foley changed."
    spans = [_span(text, "MI", Label.PERSON), _span(text, "Foley", Label.PERSON, score=0.4)]
    assert echo_names(spans, text, "en") == sorted(spans)


def test_identifiers_and_towns_are_grown_over_their_glued_parts() -> None:
    text = "Examen ECH24-118734 fait à Vandœuvre-lès-Nancy."
    spans = [_span(text, "118734", Label.ID), _span(text, "Nancy", Label.CITY)]
    assert _texts(whole_extents(spans, text, "fr"), text) == [
        ("ECH24-118734", "ID"), ("Vandœuvre-lès-Nancy", "CITY")]


def test_a_house_number_belongs_to_its_street() -> None:
    en = "Lives at 2 Mill Lane, Otley."
    assert _texts(whole_extents([_span(en, "Mill Lane", Label.STREET)], en, "en"), en) == [
        ("2 Mill Lane", "STREET")]
    es = "Domicilio: Calle Pureza 45, 3º B, Sevilla."
    assert _texts(whole_extents([_span(es, "Calle Pureza", Label.STREET)], es, "es"), es) == [
        ("Calle Pureza 45, 3º B", "STREET")]


def test_the_rest_of_a_persons_name_is_grown_in() -> None:
    text = "Patient: OCAÑA VILLALBA, REMEDIOS. Nurse Aimee Dupuis. Pt FENNIMORE, ROSE E seen."
    spans = [_span(text, "OCAÑA VILLALBA", Label.PATIENT), _span(text, "Dupuis", Label.STAFF),
             _span(text, "FENNIMORE, ROSE", Label.PATIENT)]
    assert _texts(whole_extents(spans, text, "en"), text) == [
        ("OCAÑA VILLALBA, REMEDIOS", "PATIENT"), ("Aimee Dupuis", "STAFF"), ("FENNIMORE, ROSE E", "PATIENT")]


def test_a_name_ending_a_sentence_does_not_take_the_next_word() -> None:
    text = "Vu par Dr Martin. Marie viendra demain."
    spans = [_span(text, "Martin.", Label.STAFF)]
    assert whole_extents(spans, text, "fr") == spans


def test_a_surname_in_capitals_takes_the_given_name_after_its_comma() -> None:
    text = "Paciente: CIFUENTES BARROSO, EUSEBIO. Control: Rial Outeiro, C. en planta."
    spans = [_span(text, "CIFUENTES BARROSO", Label.PATIENT), _span(text, "Rial Outeiro", Label.PATIENT)]
    assert _texts(whole_extents(spans, text, "es"), text) == [
        ("CIFUENTES BARROSO, EUSEBIO", "PATIENT"), ("Rial Outeiro, C.", "PATIENT")]


def test_an_institutions_acronym_is_the_institution() -> None:
    text = "Admitted to Front Range Presbyterian Medical Center. FRPMC pharmacy called."
    out = echo_names([_span(text, "Front Range Presbyterian Medical Center", Label.HOSPITAL)], text, "en")
    assert ("FRPMC", "HOSPITAL") in _texts(out, text)


def test_the_name_steps_take_linear_time_on_a_note_full_of_names() -> None:
    """Every word used to be checked against every span: ten times the note took a hundred times
    as long (0.4 s -> 25 s at 360k characters)."""
    import time

    def cost(n: int) -> float:
        unit = "Paulette Durand vue. Paulette dort. "
        text = unit * n
        spans = [Span(i * len(unit), i * len(unit) + 15, Label.PATIENT, "ner", 1.0) for i in range(n)]
        t = time.perf_counter()
        whole_extents(echo_names(spans, text, "fr"), text, "fr")
        return time.perf_counter() - t

    small, large = min(cost(500) for _ in range(3)), min(cost(5000) for _ in range(2))
    assert large / small < 20


def test_an_english_institutions_name_is_grown_over_its_capitalised_words() -> None:
    def grown(text: str, part: str, language: str = "en") -> str:
        i = text.index(part)
        (span,) = whole_extents([Span(i, i + len(part), Label.ORG, "ner")], text, language)
        return text[span.start : span.end]

    assert grown("placed with Kennington Home Care Ltd. Carers x4", "Kennington") == \
        "Kennington Home Care Ltd"
    assert grown("Guy's and St Thomas' NHS Foundation Trust", "St Thomas") == \
        "St Thomas' NHS Foundation Trust"
    assert grown("the Royal National Hospital for Rheumatic Diseases", "Royal National Hospital") == \
        "Royal National Hospital for Rheumatic Diseases"
    # not a department of it, a field's label, a new sentence, nor in another language
    center = "Memorial Medical Center"
    assert grown(f"to {center} ED for eval", center) == center
    assert grown("St Mary's Hospital Address: 1 Main St", "St Mary's Hospital") == "St Mary's Hospital"
    assert grown("transferred to MGH. Patient stable", "MGH") == "MGH"
    assert grown("Hospital Universitario La Paz", "Hospital Universitario", "es") == "Hospital Universitario"
    # an acronym is a whole name: the sentence's capitalised word before it stays out
    assert grown("long lie. Admitted RLI with L #NOF.", "RLI") == "RLI"
    assert grown("Fracture clinic RLI 15/11", "RLI") == "RLI"
    assert grown("seen at NHS GGC today", "GGC") == "NHS GGC"
    # an institution's parts glued by a hyphen, in any language
    assert grown("Laboratoire BIO-ALSACE CENTRE, Colmar", "ALSACE", "fr") == "BIO-ALSACE"
    assert grown("transfer from BUMC-T ED", "BUMC") == "BUMC-T"


def test_a_hospitals_acronym_found_by_its_cue_echoes_though_a_capitalised_verb_stands_before_it() -> None:
    from deid.detection.pipeline import PIPELINE, run_pipeline

    text = "Fall at home. Admitted RLI with L #NOF.\nFOLLOW-UP\nFracture clinic RLI 15/11/23"
    i = text.index("RLI")
    rule = Span(i, i + 3, Label.HOSPITAL, "rules.hospital_acronym", 1.0)
    out = run_pipeline([rule], [], text, "en", steps=PIPELINE)
    assert [text[s.start : s.end] for s in out if s.label is Label.HOSPITAL] == ["RLI", "RLI"]


def test_an_institution_written_whole_is_abbreviated_by_its_head() -> None:
    text = "Sheffield Teaching Hospitals NHS Foundation Trust. cc: Occupational Health, STH"
    name = _span(text, "Sheffield Teaching Hospitals NHS Foundation Trust", Label.HOSPITAL)
    assert ("STH", "HOSPITAL") in _texts(echo_names([name], text, "en"), text)


def test_a_kinship_word_gives_no_initials() -> None:
    text = "Daughter Teresa at bedside.\nDD: 01/13/2023 13:05   DT: 01/13/2023 19:48"
    name = _span(text, "Daughter Teresa", Label.RELATIVE)
    assert ("DT", "RELATIVE") not in _texts(echo_names([name], text, "en"), text)


def test_a_hospital_acronym_read_beside_its_cue_is_the_hospital_wherever_it_recurs() -> None:
    text = "Seen in TGH ED overnight. Follow-up at TGH clinic. ICU bed asked; TGH notes reviewed."
    cued = Span(text.index("TGH"), text.index("TGH") + 3, Label.HOSPITAL, "rules.hospital_acronym", 1.0)
    out = _texts(echo_names([cued], text, "en"), text)
    assert out == [("TGH", "HOSPITAL")] * 3


def test_a_hospital_acronym_from_the_model_or_a_clinical_one_spreads_nothing() -> None:
    text = "Seen in TGH overnight; TGH again. ICU stay; ICU review."
    model = _span(text, "TGH", Label.HOSPITAL)  # the model's reading: no cue seen
    clinical = Span(text.index("ICU"), text.index("ICU") + 3, Label.HOSPITAL, "rules.hospital_acronym", 1.0)
    assert echo_names([model, clinical], text, "en") == sorted([model, clinical])


def test_a_kinship_word_taken_into_a_name_is_not_echoed() -> None:
    text = "Hermano Guillermo acude. Hermano: vive en Sabadell. Fille Marie appelée. Fille rappelée."
    spans = [_span(text, "Hermano Guillermo", Label.RELATIVE), _span(text, "Fille Marie", Label.RELATIVE)]
    out = _texts(echo_names(spans, text, "es"), text)
    assert ("Hermano", "RELATIVE") not in out and ("Fille", "RELATIVE") not in out


def test_a_kinship_word_that_is_also_a_given_name_echoes_after_the_first_word() -> None:
    text = "Patient: NGUYEN Van Son, 58 y. Son reports less pain today."
    out = echo_names([_span(text, "NGUYEN Van Son", Label.PATIENT)], text, "en")
    assert ("Son", "PATIENT") in _texts(out, text)


def test_a_care_role_after_a_given_name_is_no_part_of_the_name() -> None:
    # "IDE" is a given name of the tables; after a name on a signed line it is the nurse's role
    text = "Pas de chute.\nKévin IDE nuit\nKÉVIN IDE\nJean Ide Moreau"
    spans = [_span(text, "Kévin", Label.STAFF), _span(text, "KÉVIN", Label.STAFF),
             _span(text, "Jean", Label.STAFF)]
    assert _texts(whole_extents(spans, text, "fr"), text) == [
        ("Kévin", "STAFF"), ("KÉVIN", "STAFF"), ("Jean Ide", "STAFF")]


def test_a_date_takes_the_weekday_written_before_it() -> None:
    text = "Recheck INR Fri 11/15 at clinic. EDD Mon. 08/08. Revu jeudi 12/03. Sat O2 96% 3/10 pain"
    spans = [_span(text, "11/15", Label.DATE), _span(text, "08/08", Label.DATE),
             _span(text, "12/03", Label.DATE), _span(text, "96%", Label.DATE)]
    assert _texts(whole_extents(spans, text, "en"), text) == [
        ("Fri 11/15", "DATE"), ("Mon. 08/08", "DATE"), ("jeudi 12/03", "DATE"), ("96%", "DATE")]


def test_initials_without_the_middle_initial_echo_a_name_written_surname_first() -> None:
    text = "Pt: Kowalczyk, Raymond J  7730-41926\nCalled home.\nRK reports taking warfarin. RJK agrees."
    out = _texts(echo_names([_span(text, "Kowalczyk, Raymond J", Label.PATIENT)], text, "en"), text)
    assert ("RK", "PATIENT") in out and ("RJK", "PATIENT") in out


def test_a_town_of_the_model_that_is_a_detected_persons_given_name_is_that_person() -> None:
    text = ("Granddaughter Mirlande Pierre-Louis at bedside. Mother lives in Port-au-Prince, Haiti, "
            "Mirlande will update her. Brooklyn Hayes, 7. Brooklyn slept well. Moved to Brooklyn; "
            "Brooklyn, NY 11201. Brooklyn BR1 3AA.")
    spans = [_span(text, "Mirlande Pierre-Louis", Label.RELATIVE), _span(text, "Port-au-Prince", Label.CITY),
             _span(text, "Haiti", Label.LOCATION), _span(text, "Mirlande", Label.CITY, nth=1),
             _span(text, "Brooklyn Hayes", Label.PATIENT), _span(text, "Brooklyn", Label.CITY, nth=1),
             _span(text, "Brooklyn", Label.CITY, nth=2), _span(text, "Brooklyn", Label.CITY, nth=3),
             _span(text, "Brooklyn", Label.CITY, nth=4)]
    out = _texts(echo_names(spans, text, "en"), text)
    assert out.count(("Mirlande", "RELATIVE")) == 1 and ("Haiti", "LOCATION") in out
    # the person; then the place a preposition or an address makes it
    assert [label for word, label in out if word == "Brooklyn"] == ["PATIENT", "CITY", "CITY", "CITY"]


def test_a_given_name_after_a_title_is_a_person_and_a_place_in_an_address_or_a_list_stays_a_place() -> None:
    text = ("Mrs Georgia Brown, 60. Georgia ate well. Moved from Atlanta, Georgia in 2001. "
            "Trips: Rome; Georgia; Venice. SMITH, Florence. Florence slept.")
    spans = [_span(text, "Mrs Georgia Brown", Label.PATIENT), _span(text, "Georgia", Label.LOCATION, nth=1),
             _span(text, "Atlanta", Label.CITY), _span(text, "Georgia", Label.LOCATION, nth=2),
             _span(text, "Georgia", Label.LOCATION, nth=3), _span(text, "SMITH, Florence", Label.RELATIVE),
             _span(text, "Florence", Label.CITY, nth=1)]
    out = _texts(echo_names(spans, text, "en"), text)
    assert [label for word, label in out if word == "Georgia"] == ["PATIENT", "LOCATION", "LOCATION"]
    assert ("Florence", "CITY") in out  # a name written surname first gives no given name to read


def test_a_signers_initials_closing_the_sentence_they_sign_are_the_signer() -> None:
    text = ("Hora   TA       Ini\n08:00  112/64   MRT\n\n"
            "- Braden 11/23, cambios posturales c/4 h. MRT\n- Vista por Dr. Fuentes, MRT aparte.\n")
    i = text.index("MRT")
    out = _texts(echo_names([Span(i, i + 3, Label.STAFF, "rules.signature_initials", 1.0)], text, "es"), text)
    assert out == [("MRT", "STAFF"), ("MRT", "STAFF")]  # the line's end after a sentence; not inside one


def test_an_identifiers_check_letter_after_its_digits_belongs_to_it() -> None:
    text = ("NIE X2975031-R · NUHSA AN0744618029\n"
            "| 1 | G091 524 181 436 W | RBC LD |\n"
            "Nº de unidad/bolsa: W0137 19 651077 K   Grupo A+\n"
            "Room 4112-B, MRN 20931 A patient")
    spans = [_span(text, "X2975031", Label.ID_NATIONAL), _span(text, "G091 524 181 436", Label.ID_SSN),
             _span(text, "W0137 19 651077", Label.ID_SSN), _span(text, "20931", Label.ID_PATIENT)]
    assert _texts(whole_extents(spans, text, "es"), text) == [
        ("X2975031-R", "ID_NATIONAL"), ("G091 524 181 436 W", "ID_SSN"), ("W0137 19 651077 K", "ID_SSN"),
        ("20931", "ID_PATIENT")]  # "A patient": a word, not a check letter


def test_a_sex_or_a_blood_group_after_a_number_written_whole_is_no_check_letter() -> None:
    text = "MRN 1234567\tF\t72\nNHC: 123456 H  Edad: 72\nW0137 19 651077 A  Rh+"
    spans = [_span(text, "1234567", Label.ID_PATIENT), _span(text, "123456", Label.ID_PATIENT, 1),
             _span(text, "W0137 19 651077", Label.ID_SSN)]
    assert _texts(whole_extents(spans, text, "es"), text) == [
        ("1234567", "ID_PATIENT"), ("123456", "ID_PATIENT"), ("W0137 19 651077", "ID_SSN")]
