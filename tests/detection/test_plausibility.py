"""The checks on the model's spans before the merge (deid.detection.plausibility): a span a check doubts is
kept under the generic PHI label (recall first), never dropped."""

from __future__ import annotations

from deid.detection.plausibility import plausible
from deid.labels import Label
from deid.spans import Span


def at(text: str, words: str, label: Label) -> Span:
    start = text.index(words)
    return Span(start, start + len(words), label, "ner", 0.9)


def found(spans: list[Span], text: str) -> list[tuple[str, str]]:
    return [(s.label.value, text[s.start : s.end]) for s in spans]


def doubted(spans: list[Span]) -> bool:
    """Every span kept, under the generic label."""
    return bool(spans) and all(s.label is Label.PHI for s in spans)


def test_a_name_glued_to_a_word_keeps_the_models_cut() -> None:
    text = "Compte rendu émis par DRAlberto Miján, IPPN11232344"
    spans = [at(text, "Alberto Miján", Label.STAFF), at(text, "N11232344", Label.ID_PATIENT)]
    assert found(plausible(spans, text), text) == [("STAFF", "Alberto Miján"), ("ID_PATIENT", "N11232344")]


def test_a_date_that_cuts_a_number_is_widened_over_its_separators() -> None:
    text = "Contrôle le 12/03/2024 au matin"
    assert found(plausible([at(text, "/03/2024", Label.DATE)], text), text) == [("DATE", "12/03/2024")]


def test_a_score_written_like_a_date_is_no_date() -> None:
    for text, words in (("Douleur évaluée à 7/10 ce jour", "/10"),
                        ("naissance après 2h apgar 9/10/10 révision", "9/10/10"),
                        ("EVA 6/10", "6/10")):  # fmt: skip
        out = plausible([at(text, words, Label.DATE)], text)
        assert doubted(out) and text[out[0].start : out[0].end].endswith(words), text


def test_a_score_word_before_a_full_date_keeps_the_date() -> None:
    text = "Score de Glasgow 12/03/2020"
    assert found(plausible([at(text, "12/03/2020", Label.DATE)], text), text) == [("DATE", "12/03/2020")]


def test_a_date_after_the_first_name_eva_in_capitals_is_kept() -> None:
    for text, date in (("Mme DUPONT EVA 12/03/85.", "12/03/85"), ("DUPONT EVA 12 mars", "12 mars")):
        assert found(plausible([at(text, date, Label.DATE)], text), text) == [("DATE", date)], text


def test_an_elided_article_alone_is_no_name_but_an_initial_is() -> None:
    text = "Le père L'enfant est scolarisé"
    letter = text.index("L'")
    assert doubted(plausible([Span(letter, letter + 1, Label.PERSON, "ner")], text))
    assert doubted(plausible([at(text, "L'", Label.PERSON)], text))
    town = "08907 L’Hospitalet de Llobregat"  # the article of a town the model flagged stays
    article, name = at(town, "L’", Label.LOCATION), at(town, "Hospitalet de Llobregat", Label.LOCATION)
    assert found(plausible([article, name], town), town) == [("LOCATION", "L’"),
                                                              ("LOCATION", "Hospitalet de Llobregat")]
    initial = "Signé L. Martin"
    assert found(plausible([at(initial, "L", Label.PERSON)], initial), initial) == [("PERSON", "L")]


def test_a_generic_public_service_acronym_is_no_organisation() -> None:
    text = "colis alimentaire fourni par le CCAS aujourd'hui, suivi CHU Pellegrin"
    spans = [at(text, "CCAS", Label.HOSPITAL), at(text, "CHU Pellegrin", Label.HOSPITAL)]
    assert found(plausible(spans, text), text) == [("PHI", "CCAS"), ("HOSPITAL", "CHU Pellegrin")]
    person = "Mme CAF"  # a surname that happens to be spelt like one stays a name
    assert found(plausible([at(person, "CAF", Label.PERSON)], person), person) == [("PERSON", "CAF")]


def test_a_name_opening_on_a_period_takes_the_initial_before_it() -> None:
    text = "MmeE . Jagander , directeur"
    spans = plausible([at(text, ". Jagander", Label.PERSON)], text)
    assert found(spans, text) == [("PERSON", "MmeE . Jagander")]
    alone = "Total : . Jagander"  # no letter before the period: nothing to take
    spans = plausible([at(alone, ". Jagander", Label.PERSON)], alone)
    assert found(spans, alone) == [("PERSON", ". Jagander")]


def test_the_family_of_a_family_doctor_is_no_relative() -> None:
    for text in ("su médico de familia solicitó una analítica", "adressé par son médecin de famille",
                 "seen by her family doctor"):  # fmt: skip
        word = next(w for w in ("familia", "famille", "family") if w in text)
        assert found(plausible([at(text, word, Label.RELATIVE)], text), text) == [("PHI", word)], text
    kin = "antecedentes en la familia paterna"
    assert found(plausible([at(kin, "familia", Label.RELATIVE)], kin), kin) == [("RELATIVE", "familia")]


def test_a_long_run_of_numbers_is_not_walked_once_per_span() -> None:
    import time

    text = "1/" * 50_000
    spans = [Span(i, i + 3, Label.DATE, "ner", 0.9) for i in range(0, len(text) - 4, 10)]
    started = time.perf_counter()
    out = plausible(spans, text)
    assert time.perf_counter() - started < 10  # ~0.4 s; walking the run per span took minutes
    assert all(s.length <= 3 + 2 * 12 for s in out)


def test_numbers_no_date_holds_are_kept_as_generic_phi() -> None:
    """Blood gases, vital-sign runs, clock times and shifts read as dates by the model on English
    notes: still replaced, under the generic label; a mistyped date with its year stays a date."""
    for text, words in (("ABG 7.32/45/88 at 14:30", "7.32/45/88"), ("ABG 7.32/45/88 at 14:30", "14:30"),
                        ("NURSING NOTE 11/9 0700-1900", "0700-1900"), ("Repeat ABG 7.34/51/78", "34/51/78"),
                        ("Vitals 101.4 / 112 / 20", "101.4 / 112 / 20")):  # fmt: skip
        out = found(plausible([at(text, words, Label.DATE)], text), text)
        assert out[0][0] == "PHI" and words in out[0][1], words  # widened over a cut number first
    for text, words in (("Fecha de Ingreso: 14/14/2014.", "14/14/2014"), ("DOB: 3/14/92", "3/14/92"),
                        ("de 1998-2001", "1998-2001"), ("le 12 mars 2020", "12 mars 2020")):  # fmt: skip
        assert found(plausible([at(text, words, Label.DATE)], text), text) == [("DATE", words)], words
