"""Phone and fax numbers, e-mails, URLs and IP addresses."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from deid.labels import Label

Find = Callable[[str, str], list[tuple[str, Label]]]


@pytest.mark.parametrize(
    ("text", "lang", "surface", "label"),
    [
        ("Tél : 01 23 45 67 89.", "fr", "01 23 45 67 89", Label.PHONE),
        ("Tél : 01.23.45.67.89.", "fr", "01.23.45.67.89", Label.PHONE),
        ("Tél : 01-23-45-67-89.", "fr", "01-23-45-67-89", Label.PHONE),
        ("Portable 0612345678.", "fr", "0612345678", Label.PHONE),
        ("Appeler le +33 6 12 34 56 78.", "fr", "+33 6 12 34 56 78", Label.PHONE),
        ("Standard +33 (0)1 23 45 67 89.", "fr", "+33 (0)1 23 45 67 89", Label.PHONE),
        ("Tel : (33) 01 71 12 77 06", "fr", "(33) 01 71 12 77 06", Label.PHONE),
        ("Dicté : 0 4 2 6 4 4 6 2 6 3.", "fr", "0 4 2 6 4 4 6 2 6 3", Label.PHONE),
        ("Fax : 01 23 45 67 89.", "fr", "01 23 45 67 89", Label.FAX),
        ("Télécopie : 01 23 45 67 89.", "fr", "01 23 45 67 89", Label.FAX),
        ("Tfno: 913 908 121.", "es", "913 908 121", Label.PHONE),
        ("Tlfno: 630 75 89 15.", "es", "630 75 89 15", Label.PHONE),
        ("Fax: 91 336 87 85.", "es", "91 336 87 85", Label.FAX),
        ("Tfno: 933203624 Fax: 933203631", "es", "933203631", Label.FAX),
        ("Tel.: +34 913 908 121", "es", "34 913 908 121", Label.PHONE),
        ("Tfno: 986413144 ext 1530 - Fax", "es", "986413144 ext 1530", Label.PHONE),
        ("Tel. y Fax: 961 622 403", "es", "961 622 403", Label.PHONE),
        ("Call (555) 123-4567.", "en", "(555) 123-4567", Label.PHONE),
        ("Call +44 20 7946 0958.", "en", "+44 20 7946 0958", Label.PHONE),
    ],
)
def test_phone_and_fax_numbers(find: Find, text: str, lang: str, surface: str, label: Label) -> None:
    assert (surface, label) in find(text, lang)


def test_a_digit_by_digit_phone_ends_at_the_line_break(find: Find) -> None:
    text = "M. X\n0 4 2 6 4 4 6 2 6 3\n01-11-1994"
    assert find(text, "fr") == [("0 4 2 6 4 4 6 2 6 3", Label.PHONE), ("01-11-1994", Label.DATE)]


def test_phone_keyword_nearest_to_the_number_decides_fax(find: Find) -> None:
    text = "Fax: 948 296 500 Tel.: 948 255 400"
    assert find(text, "es") == [("948 296 500", Label.FAX), ("948 255 400", Label.PHONE)]


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Plaquettes 250 000 /mm3.", "fr"),
        ("Lot 12345.", "fr"),
        ("Hematíes 4.860.000/μl (4.400.000-5.800.000).", "es"),
        ("Dosis de 100 000 UI.", "es"),
    ],
)
def test_numbers_that_are_not_phones(find: Find, text: str, lang: str) -> None:
    assert [s for s in find(text, lang) if s[1] in (Label.PHONE, Label.FAX)] == []


@pytest.mark.parametrize(
    ("text", "surface"),
    [
        ("Contact : jean.dupont@chu-dijon.fr.", "jean.dupont@chu-dijon.fr"),
        ("E-mail: forsan@comv.es", "forsan@comv.es"),
        ("Navarra E-mail.hleonbrito@hotmail.com", "hleonbrito@hotmail.com"),
        ("mail: A.B+tag@Example.COM", "A.B+tag@Example.COM"),
    ],
)
def test_email_addresses(find: Find, text: str, surface: str) -> None:
    assert find(text, "fr") == [(surface, Label.EMAIL)]


@pytest.mark.parametrize(
    ("text", "surface"),
    [
        ("Voir https://exemple.fr/dossier?id=12.", "https://exemple.fr/dossier?id=12"),
        ("Site (http://www.chu.fr/a) ouvert", "http://www.chu.fr/a"),
        ("Site www.chu-dijon.fr, accueil", "www.chu-dijon.fr"),
    ],
)
def test_urls_without_trailing_punctuation(find: Find, text: str, surface: str) -> None:
    assert find(text, "fr") == [(surface, Label.URL)]


@pytest.mark.parametrize(
    ("text", "surface"),
    [
        ("Connexion depuis 192.168.1.10 refusée.", "192.168.1.10"),
        ("Hôte 2001:db8::1 joignable.", "2001:db8::1"),
        ("Hôte fe80::1ff:fe23:4567:890a.", "fe80::1ff:fe23:4567:890a"),
    ],
)
def test_ip_addresses(find: Find, text: str, surface: str) -> None:
    assert find(text, "fr") == [(surface, Label.IP)]


@pytest.mark.parametrize("text", ["Version 999.1.1.1", "Heure 12:30:45", "Ratio 1:2"])
def test_things_that_look_like_ips_but_are_not(find: Find, text: str) -> None:
    assert [s for s in find(text, "fr") if s[1] is Label.IP] == []


def test_a_birth_date_and_an_age_are_not_a_phone_number() -> None:
    from deid.rules import RuleDetector

    text = "M. POPESCU Dimitri - né le 07/11/1968 - 52 ans"
    spans = RuleDetector().find(text, "fr")
    found = [(text[s.start : s.end], s.label.value) for s in spans]
    assert ("07/11/1968", "BIRTH_DATE") in found and not [f for f in found if f[1] == "PHONE"]


@pytest.mark.parametrize(
    ("text", "lang", "surface"),
    [
        ("Dr Rajesh Nair, FY2, GMC 7382914, bleep 1156\n", "en", "1156"),
        ("Samir Haddad, PharmD   pgr 2291   ext 5-6018", "en", "2291"),
        ("Samir Haddad, PharmD   pgr 2291   ext 5-6018", "en", "5-6018"),
        ("Adaeze Nwankwo-Berg, LICSW   pager 4-2281   12/09/23", "en", "4-2281"),
        ("es comenta amb Unitat d'Arrítmies (ext. 4530) per implant", "es", "4530"),
        ("Nefrología · busca 4417", "es", "4417"),
        ("assistante sociale – poste 1462", "fr", "1462"),
    ],
)
def test_an_extension_or_a_bleep_alone_after_its_word_is_a_phone(
        find: Find, text: str, lang: str, surface: str) -> None:
    assert (surface, Label.PHONE) in find(text, lang)


@pytest.mark.parametrize(
    ("text", "lang", "number"),
    [
        ("Branché au poste 2 de dialyse.", "fr", "2"),  # a station, not an extension
        ("Bip 12 fois dans la nuit.", "fr", "12"),
        ("Knee flex 110, ext 4.5 cm lag.", "en", "4.5"),
        ("Elbow extension 180° passively.", "en", "180"),
        ("Full extension 180 degrees.", "en", "180"),
        ("Lumbar ROM: flexion 75%, extension 100%.", "en", "100"),
        ("Knee extension 0-120 today.", "en", "0-120"),
    ],
)
def test_a_short_count_after_the_word_is_no_extension(find: Find, text: str, lang: str, number: str) -> None:
    assert all(number not in surface for surface, label in find(text, lang) if label is Label.PHONE)
