"""Keyed hashes: spelling variants share a key, secrets separate keyspaces, nothing raw leaks."""

from __future__ import annotations

import pytest

from deid.labels import Label
from deid.store.keys import KeyHasher, normalize

SECRET = b"0123456789abcdef-test-secret"


def test_spelling_variants_of_one_value_share_one_memo_key() -> None:
    h = KeyHasher(SECRET)
    p = h.patient("IPP-42")
    assert h.value(p, Label.PATIENT, "DUPONT ") == h.value(p, Label.PERSON, "Dupont")
    assert h.value(p, Label.PHONE, "06 12 34 56 78") == h.value(p, Label.PHONE, "+33 6 12 34 56 78")
    assert h.value(p, Label.ID_PATIENT, "80-12-939") == h.value(p, Label.ID_PATIENT, "8012939")
    assert h.value(p, Label.CITY, "Besançon") == h.value(p, Label.CITY, "BESANCON")


def test_the_same_value_of_two_patients_or_two_categories_gets_two_keys() -> None:
    h = KeyHasher(SECRET)
    a, b = h.patient("A"), h.patient("B")
    assert h.value(a, Label.CITY, "Dijon") != h.value(b, Label.CITY, "Dijon")
    assert h.value(a, Label.CITY, "Dijon") != h.value(a, Label.PATIENT, "Dijon")


def test_another_secret_gives_another_keyspace_and_keys_hold_no_raw_value() -> None:
    one, two = KeyHasher(SECRET), KeyHasher(SECRET + b"x")
    assert one.patient("1234567") != two.patient("1234567")
    key = one.value(one.patient("1234567"), Label.PATIENT, "Durand")
    assert "durand" not in key.lower() and "1234567" not in key
    assert len(key) == 32 and int(key, 16) >= 0


def test_a_short_secret_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 16 bytes"):
        KeyHasher(b"short")


def test_normalize_folds_case_accents_and_spaces_for_names() -> None:
    assert normalize(Label.PATIENT, "  Éloïse   MARTIN ") == "eloise martin"
