"""NIR, DNI/NIE, IBAN with their checks, and hospital identifiers after their usual labels."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from deid.labels import Label
from deid.rules import build_recognizers
from deid.rules.checks import dni_ok, iban_ok, nir_key_ok

Find = Callable[[str, str], list[tuple[str, Label]]]


def nir_with_key(body: str) -> str:
    """Append the INSEE key to a 13-character NIR body (2A -> 19, 2B -> 18 for the computation)."""
    numeric = body.upper().replace("2A", "19", 1) if body[5:7].upper() == "2A" else body
    numeric = numeric.upper().replace("2B", "18", 1) if body[5:7].upper() == "2B" else numeric
    return body + f"{97 - int(numeric) % 97:02d}"


def test_nir_key_check_accepts_a_valid_number_and_rejects_a_wrong_key() -> None:
    nir = nir_with_key("1841275108123")
    assert nir_key_ok(nir)
    wrong = nir[:-2] + f"{(int(nir[-2:]) + 1) % 100:02d}"
    assert not nir_key_ok(wrong)


def test_nir_key_check_handles_corsica() -> None:
    assert nir_key_ok(nir_with_key("2850620A12345"[:5] + "2A" + "123456"))
    assert nir_key_ok(nir_with_key("18506" + "2B" + "004012"))


@pytest.mark.parametrize("sep", ["", " ", ".", "-"])
def test_nir_is_found_with_separators(find: Find, sep: str) -> None:
    nir = nir_with_key("1841275108123")
    parts = [nir[0], nir[1:3], nir[3:5], nir[5:7], nir[7:10], nir[10:13], nir[13:]]
    written = sep.join(parts)
    assert find(f"Assuré {written} affilié.", "fr") == [(written, Label.ID_SSN)]


def test_nir_with_a_wrong_key_is_not_a_nir() -> None:
    (rec,) = build_recognizers(["nir"])
    nir = nir_with_key("1841275108123")
    wrong = nir[:-2] + f"{(int(nir[-2:]) + 1) % 100:02d}"
    assert rec.find(f"numéro {wrong}", "fr") == []
    assert len(rec.find(f"numéro {nir}", "fr")) == 1


def test_corsican_nir_is_found(find: Find) -> None:
    nir = nir_with_key("18506" + "2A" + "004012")
    assert find(f"NSS {nir}.", "fr") == [(nir, Label.ID_SSN)]


def test_nir_without_key_spelled_digit_by_digit_is_found_in_french(find: Find) -> None:
    assert find("Assuré 2 8 2 0 2 9 8 2 0 2 4 7 1 ok", "fr") == [("2 8 2 0 2 9 8 2 0 2 4 7 1", Label.ID_SSN)]


@pytest.mark.parametrize("value", ["12345678Z", "X1234567L", "Y-1234567-X", "00000000T"])
def test_dni_and_nie_with_a_correct_letter(find: Find, value: str) -> None:
    assert dni_ok(value)
    assert find(f"Documento {value} presentado.", "es") == [(value, Label.ID_NATIONAL)]


@pytest.mark.parametrize("value", ["12345678A", "X1234567A"])
def test_dni_with_a_wrong_letter_is_not_flagged(find: Find, value: str) -> None:
    assert not dni_ok(value)
    assert find(f"Código {value} leído.", "es") == []


@pytest.mark.parametrize(
    "iban", ["FR76 3000 6000 0112 3456 7890 189", "ES9121000418450200051332", "GB82 WEST 1234 5698 7654 32"]
)
def test_iban_with_a_valid_checksum(find: Find, iban: str) -> None:
    assert iban_ok(iban)
    assert find(f"RIB : {iban}.", "fr") == [(iban, Label.IBAN)]


def test_iban_with_a_wrong_checksum_is_not_flagged() -> None:
    assert not iban_ok("FR77 3000 6000 0112 3456 7890 189")
    (rec,) = build_recognizers(["iban"])
    assert rec.find("FR77 3000 6000 0112 3456 7890 189", "fr") == []


@pytest.mark.parametrize(
    ("text", "lang", "surface", "label"),
    [
        ("IPP : 8012939402", "fr", "8012939402", Label.ID_PATIENT),
        ("IPP8012939402 ", "fr", None, None),  # glued to the label: not a clean match
        ("NIP: 123456", "fr", "123456", Label.ID_PATIENT),
        ("NDA: 19324754", "fr", "19324754", Label.ID_VISIT),
        ("N° de séjour 20201234", "fr", "20201234", Label.ID_VISIT),
        ("N° dossier : 2020-12345", "fr", "2020-12345", Label.ID_PATIENT),
        ("N° RPPS 10001234567", "fr", "10001234567", Label.ID_STAFF),
        ("NHC: 7834563.", "es", "7834563", Label.ID_PATIENT),
        ("NHC 1234567", "es", "1234567", Label.ID_PATIENT),
        ("CIPA: nhc-150679.", "es", "150679", Label.ID_PATIENT),
        ("Nº historia clínica: 1234567", "es", "1234567", Label.ID_PATIENT),
        ("NASS: 78 99876411 31.", "es", "78 99876411 31", Label.ID_SSN),
        ("NºCol: 28 07 56898.", "es", "28 07 56898", Label.ID_STAFF),
        ("nº colegiado 282812345", "es", "282812345", Label.ID_STAFF),
        ("Episodio: 2374864.", "es", "2374864", Label.ID_VISIT),
        ("MRN: 12345678", "en", "12345678", Label.ID_PATIENT),
        ("Medical record number 998877", "en", "998877", Label.ID_PATIENT),
        ("Encounter number: 55512345", "en", "55512345", Label.ID_VISIT),
    ],
)
def test_labelled_hospital_identifier_spans_only_the_identifier(
    find: Find, text: str, lang: str, surface: str | None, label: Label | None
) -> None:
    found = [s for s in find(text, lang) if s[1].category.value == "QID"]
    assert found == ([] if surface is None else [(surface, label)])


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Fecha de ingreso: 28/02/2016.", "es"),  # a date after a label word is a date
        ("Historia de 5 años de evolución.", "es"),
        ("IPP : 12", "fr"),  # too short to be an identifier
    ],
)
def test_label_words_without_an_identifier(find: Find, text: str, lang: str) -> None:
    assert [s for s in find(text, lang) if s[1].category.value == "QID"] == []


def _with_nhs_check_digit(nine: str) -> str:
    """The ten digits whose last is the NHS modulus-11 check digit of ``nine`` (computed here, apart
    from the code under test)."""
    total = sum(int(d) * w for d, w in zip(nine, range(10, 1, -1), strict=True))
    check = (11 - total % 11) % 11
    assert check != 10, "pick another body: 10 is no check digit"
    return nine + str(check)


@pytest.mark.parametrize("cue", ["H&C", "NHS No:", "CHI", "Health and Care No."])
def test_a_uk_health_number_with_its_check_digit_is_found_spaced(find: Find, cue: str) -> None:
    digits = _with_nhs_check_digit("328431297")
    spaced = f"{digits[:3]} {digits[3:6]} {digits[6:]}"
    assert (spaced, Label.ID_SSN) in find(f"Pascal QUINN  29  {cue} {spaced}   Day 3 post RTC", "en")


def test_a_uk_health_number_run_together_needs_its_name(find: Find) -> None:
    digits = _with_nhs_check_digit("051162043")
    assert (digits, Label.ID_SSN) in find(f"CHI {digits}, Glasgow", "en")
    assert (digits, Label.ID_SSN) in find(f"CHI: {digits}, Glasgow", "en")


def test_a_ten_digit_number_failing_the_check_or_hyphenated_is_no_uk_health_number(find: Find) -> None:
    digits = _with_nhs_check_digit("328431297")
    wrong = digits[:9] + str((int(digits[9]) + 1) % 10)
    assert (f"{wrong[:3]} {wrong[3:6]} {wrong[6:]}", Label.ID_SSN) not in find(
        f"Ref {wrong[:3]} {wrong[3:6]} {wrong[6:]} x", "en")
    hyphenated = f"{digits[:3]}-{digits[3:6]}-{digits[6:]}"  # a US telephone's shape
    assert all(label is not Label.ID_SSN for _, label in find(f"Call {hyphenated} today", "en"))


def test_a_spaced_ten_digit_number_needs_the_name_of_the_health_number(find: Find) -> None:
    digits = _with_nhs_check_digit("900910101")
    spaced = f"{digits[:3]} {digits[3:6]} {digits[6:]}"
    series = f"NICU weights (g): {spaced}, tolerating"
    assert all(label is not Label.ID_SSN for _, label in find(series, "en"))
    assert all(label is not Label.ID_SSN for _, label in find(f"Tel: {spaced}", "en"))
