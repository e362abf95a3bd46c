"""Each phase of reading a person mention (``deid.surrogates.identity.parse``), checked on the
shapes its docstrings name: the kept words before the name, the name's words (a degree dropped, a
maiden name split off), the role of each word, then how sure those roles are."""

from __future__ import annotations

import pytest

from deid.surrogates import identity


def roles(text: str, lang: str, *flags: bool | str) -> list[tuple[str, str]]:
    return [(u.role, u.value) for u in identity.parse(text, lang, *flags).units]


# ---- kept words before the name


def test_a_kinship_word_and_its_possessive_are_kept_and_say_the_gender() -> None:
    m = identity.parse("sa fille Marie Dupont", "fr")
    assert m.kept and m.kin_gender == "female" and m.title_gender is None
    assert [u.value for u in m.units] == ["marie", "dupont"]


def test_a_doctor_title_takes_the_gender_of_its_article() -> None:
    m = identity.parse("la Dr Martin", "fr")
    assert m.title_gender == "female" and m.title == "dr"
    assert roles("la Dr Martin", "fr") == [("surname", "martin")]


def test_an_article_after_a_title_belongs_to_the_surname() -> None:
    assert roles("Mme Le Goff", "fr") == [("surname", "le goff")]


def test_a_capitalised_kinship_word_is_kept_only_at_the_start_of_a_sentence() -> None:
    opening = identity.parse("Daughter Faith", "en", False, False, True)
    assert opening.kept and opening.kin_gender == "female"
    assert [(u.role, u.value) for u in opening.units] == [("given", "faith")]
    assert not identity.parse("Daughter Faith", "en").kept


def test_a_title_alone_is_kept_and_has_no_name() -> None:
    m = identity.parse("Mr", "en")
    assert m.kept and m.units == []


# ---- the name's words


def test_a_degree_after_a_comma_is_no_part_of_the_name() -> None:
    m = identity.parse("Nicole Landry, M.D.", "en")
    assert m.kept
    assert [u.value for u in m.units] == ["nicole", "landry"]
    assert not any(u.role.endswith("_initial") for u in m.units)


def test_a_maiden_name_marker_says_a_woman_and_what_follows_it_is_a_surname() -> None:
    m = identity.parse("LYON née CHABERT Rose", "fr")
    assert m.title_gender == "female"
    assert m.surnames[:2] == ["lyon", "chabert"]


def test_an_english_possessive_is_no_part_of_the_surname() -> None:
    assert [u.value for u in identity.parse("Khan's", "en").units] == ["khan"]


# ---- the role of each word


@pytest.mark.parametrize(
    ("text", "lang", "expected"),
    [
        ("SMITH, MARY", "en", [("surname", "smith"), ("given", "mary")]),
        ("DUPONT (Jean) Marie", "fr", [("surname", "dupont"), ("given", "jean"), ("given", "marie")]),
        ("J.D.", "en", [("given_initial", "j"), ("surname_initial", "d")]),
        ("J.-L. Martin", "fr", [("given_initial", "j"), ("given_initial", "l"), ("surname", "martin")]),
        ("Sra. Martínez García", "es", [("surname", "martinez"), ("surname", "garcia")]),
        (
            "María José Pérez López",
            "es",
            [("given", "maria"), ("given", "jose"), ("surname", "perez"), ("surname", "lopez")],
        ),
        ("Doña Pilar", "es", [("given", "pilar")]),
        ("Mamie Blanca", "fr", [("given", "blanca")]),  # what the family calls her: her given name
        ("Mémé Blanche", "fr", [("given", "blanche")]),
        ("Papy Jo", "fr", [("given", "jo")]),
        # a header's surnames first, in one case and no comma: the given names the lists know last
        (
            "CARBALLEIRA OUTEIRO XOSE MANUEL",
            "es",
            [("surname", "carballeira"), ("surname", "outeiro"), ("given", "xose"), ("given", "manuel")],
        ),
        ("DUPONT MARTIN JEAN", "fr", [("surname", "dupont"), ("given", "martin"), ("given", "jean")]),
        # in running text, capitalised words keep the given names first, whatever the lists know
        ("Siobhan Kelly Thomas", "en", [("given", "siobhan"), ("given", "kelly"), ("surname", "thomas")]),
    ],
)
def test_each_word_gets_the_role_its_writing_or_the_lists_say(
    text: str, lang: str, expected: list[tuple[str, str]]
) -> None:
    assert roles(text, lang) == expected


def test_a_word_after_a_surname_and_a_comma_outside_the_mention_is_a_given_name() -> None:
    m = identity.parse("MARY", "en", False, True)
    assert [(u.role, u.value) for u in m.units] == [("given", "mary")]
    assert m.ambiguous == ""


# ---- how sure the roles are


@pytest.mark.parametrize(
    ("text", "lang", "title_before", "doubt"),
    [
        ("Dupont Jean", "fr", False, "order"),
        ("Olivier", "fr", False, "single"),
        ("MARY", "en", False, "caps"),
        ("Brukvat", "fr", False, "unknown"),
        ("Olive", "en", False, "listed"),
        ("Mme Martin", "fr", False, "titled"),
        ("Martin", "fr", "mme", "titled"),
        ("SMITH, MARY", "en", False, ""),
    ],
)
def test_a_reading_the_writing_leaves_open_is_marked_for_the_note_and_history_to_settle(
    text: str, lang: str, title_before: bool | str, doubt: str
) -> None:
    assert identity.parse(text, lang, title_before).ambiguous == doubt


@pytest.mark.parametrize(("text", "title_before"), [("Mme Victoire", False), ("Victoire", "mme")])
def test_a_given_name_of_the_titles_gender_after_a_title_reads_as_that_given_name(
    text: str, title_before: bool | str
) -> None:
    m = identity.parse(text, "fr", title_before)
    assert [(u.role, u.value) for u in m.units] == [("given", "victoire")]
    assert m.ambiguous == "single"


def test_a_french_grandparents_family_word_is_kept_and_says_the_gender() -> None:
    m = identity.parse("Mamie Blanca", "fr")
    assert m.kept and m.title_gender == "female" and m.title == "mamie"
    # in Spanish "Pepe" is a given name, not a grandfather
    assert roles("Pepe Martínez", "es") == [("given", "pepe"), ("surname", "martinez")]
