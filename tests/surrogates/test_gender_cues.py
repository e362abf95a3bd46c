"""What a mention says of its person's gender and roles (``deid.surrogates.identity``): the article
of a neutral title, a hyphenated word alone."""

from __future__ import annotations

import pytest

from deid.surrogates import identity


@pytest.mark.parametrize("text", ["le Dr Nadège BERTRAND", "le Dr Nadège Martin", "le Docteur Nadège Martin"])
def test_the_masculine_article_of_a_neutral_title_yields_to_a_womans_given_name(text: str) -> None:
    m = identity.parse(text, "fr")
    assert m.title_gender is None
    assert m.givens == ["nadege"]  # not read as her surname because "le" was taken for a man


def test_the_masculine_article_still_says_a_man_when_the_given_name_does_not_say_a_woman() -> None:
    assert identity.parse("le Dr Jean Martin", "fr").title_gender == "male"
    assert identity.parse("le Dr Martin", "fr").title_gender == "male"
    assert identity.parse("el Dr. Martínez", "es").title_gender == "male"


def test_the_feminine_article_of_a_neutral_title_says_a_woman_whatever_the_name() -> None:
    assert identity.parse("la Dr Dominique Martin", "fr").title_gender == "female"


def test_the_article_before_the_span_yields_to_the_given_name_too() -> None:
    m = identity.parse("Nadège BERTRAND", "fr")
    assert identity.context_gender("adressée par le Dr ", "fr", m) == (None, None)
    assert identity.context_gender("adressée par le Dr ", "fr", identity.parse("BERTRAND", "fr"))[0] == "male"
    assert identity.context_gender("adressée par la Dr ", "fr", m)[0] == "female"


def test_a_hyphenated_word_alone_is_as_doubtful_as_one_word_alone() -> None:
    m = identity.parse("LAMBERT-HOUDAYER", "fr")
    assert m.ambiguous == "single"  # "Lambert" is a given name too: the note's other mentions decide
    m.as_surname()
    assert m.surnames == ["lambert", "houdayer"]


def test_a_kinship_word_before_a_number_or_on_the_line_above_says_nothing_of_the_next_name() -> None:
    # a nursing sheet: the son's phone, then a care assistant signing her shift on the next line
    assert identity.context_gender("Tél fils 06 71 24 88 30.\n", "fr") == (None, None)
    assert identity.context_gender("Famille : fils\n", "fr") == (None, None)
    assert identity.context_gender("passé voir son fils ", "fr") == (None, "male")
    assert identity.context_gender("Madame\n", "fr")[0] == "female"  # a letter's address block
