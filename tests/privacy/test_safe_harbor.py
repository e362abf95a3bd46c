"""HIPAA Safe Harbor, 45 CFR 164.514(b)(2)(i) (A)-(R), item by item, under the ``safe-harbor``
profile (the table of ``docs/PRIVACY.md``, "Safe Harbor"). Each test writes a US note of its own
with gold spans and checks that the identifier's letters and digits are gone from the output,
except what the rule lets the profile keep (a state, a year, an age under 90, three ZIP digits).
Dates and ages (item C) belong to ``deid/substitution/temporal.py``; their tests are listed in
the table and only the plain cases are checked here."""

from __future__ import annotations

import random
import re
from datetime import date

import pytest

from deid.labels import Label
from deid.privacy.safe_harbor import restricted_zip3, zip3
from deid.spans import Span
from deid.substitution.profiles import PROFILES, deidentify_text

SEEDS = range(5)


def _run(parts: list[str | tuple[str, Label]], seed: int,
         day: date = date(2024, 5, 2)) -> tuple[str, list[str]]:
    """The de-identified text and the output of each marked mention, in order."""
    text, spans, pos = "", [], 0
    for p in parts:
        if isinstance(p, tuple):
            spans.append(Span(pos, pos + len(p[0]), p[1]))
            p = p[0]
        text += p
        pos += len(p)
    out = deidentify_text(text, spans, "en", day, profile="safe-harbor", rng=random.Random(seed),
                          locale="en-US")
    got = sorted(out.spans, key=lambda s: s.start)
    assert len(got) == len(spans), (out.text, got)
    return out.text, [out.text[s.start:s.end] for s in got]


def _alnum(s: str) -> str:
    return re.sub(r"[^0-9A-Za-z]", "", s).lower()


def _gone(original: str, rendered: str) -> bool:
    """Neither the whole value nor any 4+ character run of its letters and digits survives."""
    a, b = _alnum(original), _alnum(rendered)
    return all(a[i:i + 4] not in b for i in range(max(1, len(a) - 3)))


# ------------------------------------------------------------------------- (A) names


@pytest.mark.parametrize("seed", SEEDS)
def test_a_names_of_the_patient_relatives_and_staff_are_replaced(seed: int) -> None:
    _, (pat, rel, staff) = _run(["Patient ", ("Eleanor Whitcombe", Label.PATIENT), ", daughter ",
                                 ("Marisol Whitcombe", Label.RELATIVE), ", seen by Dr. ",
                                 ("Okafor", Label.STAFF), "."], seed)
    for original, rendered in (("Eleanor Whitcombe", pat), ("Marisol Whitcombe", rel), ("Okafor", staff)):
        assert not set(original.lower().split()) & set(rendered.lower().split()), (original, rendered)


# -------------------------------------------------- (B) geographic subdivisions smaller than a state


@pytest.mark.parametrize("seed", SEEDS)
def test_b_street_city_and_county_are_replaced_and_the_zip_keeps_three_digits(seed: int) -> None:
    _, (street, city, county, zipcode) = _run(
        ["Lives at ", ("418 Larkspur Lane", Label.STREET), ", ", ("Ithaca", Label.CITY), " (",
         ("Tompkins County", Label.LOCATION), "), NY ", ("14850", Label.POSTCODE), "."], seed)
    assert "418" not in street and "larkspur" not in street.lower()  # "Lane" is the kind of street
    assert city != "Ithaca" and "tompkins" not in county.lower()
    assert zipcode == "148**"


def test_b_zip_codes_of_restricted_three_digit_areas_become_000() -> None:
    """The 17 areas of 20,000 people or fewer (2000 Census, HHS guidance), every one of them,
    as ZIP and ZIP+4; an unrestricted neighbour (035, 037) keeps its digits."""
    assert restricted_zip3() == frozenset({"036", "059", "063", "102", "203", "556", "692", "790", "821",
                                           "823", "830", "831", "878", "879", "884", "890", "893"})
    for head in sorted(restricted_zip3()):
        assert zip3(f"{head}17") == "000**" and zip3(f"{head}17-4410") == "000**-****"
    assert zip3("03584") == "035**" and zip3("03755") == "037**" and zip3("00501") == "005**"


@pytest.mark.parametrize("seed", SEEDS)
def test_b_a_restricted_zip_in_a_note_becomes_000(seed: int) -> None:
    _, (city, home, before) = _run(["Home: ", ("Pinedale", Label.CITY), ", WY ", ("82941", Label.POSTCODE),
                                    "; previously ZIP ", ("03601-0168", Label.POSTCODE), "."], seed)
    assert city != "Pinedale" and home == "829**" and before == "000**-****"


def test_b_the_profile_asks_for_zip3_and_no_other_profile_does() -> None:
    assert PROFILES["safe-harbor"]["POSTCODE"] == "safe-harbor"
    assert all("POSTCODE" not in PROFILES[m] or m == "safe-harbor" or PROFILES[m]["POSTCODE"] == "placeholder"
               for m in PROFILES)


# ----------------------------------------------------------------- (C) dates and ages


@pytest.mark.parametrize("seed", SEEDS)
def test_c_dates_keep_their_year_only_and_ages_over_89_are_aggregated(seed: int) -> None:
    """The plain cases; the rest (birth years against the note's dates, written-out ages, weekdays)
    in tests/substitution/test_date_profiles.py, owned with deid/substitution/temporal.py."""
    _, (admitted, age) = _run(["Admitted ", ("03/17/2023", Label.DATE), ", aged ", ("93", Label.AGE),
                               "."], seed)
    assert "17" not in admitted and "03" not in admitted.replace("2023", "") and "2023" in admitted
    assert "93" not in age and "90" in age


# ------------------------------------------------------------------- (D)-(R) identifiers


IDENTIFIERS = [
    ("D", "phone", "Phone ", "(607) 555-0143", Label.PHONE),
    ("E", "fax", "Fax ", "(607) 555-0178", Label.FAX),
    ("F", "email", "Email ", "ewhitcombe@cornellmail.org", Label.EMAIL),
    ("G", "ssn", "SSN ", "219-09-9999", Label.ID_SSN),
    ("H", "medical record number", "MRN ", "MR-00482913", Label.ID_PATIENT),
    ("I", "health plan beneficiary number", "Medicare ID ", "1EG4-TE5-MK73", Label.ID_SSN),
    ("J", "account number", "Account ", "ACCT 7730021945", Label.ID),
    ("K", "certificate or licence number", "Driver licence ", "D4402-18837", Label.ID_NATIONAL),
    ("L", "vehicle identifier", "VIN ", "1HGCM82633A004352", Label.ID),
    ("M", "device identifier", "Pacemaker serial ", "PJN884217H", Label.ID),
    ("N", "URL", "Portal ", "https://mychart.whitcombe-family.net/e/4471", Label.URL),
    ("O", "IP address", "Logged from ", "172.16.254.37", Label.IP),
    ("R", "other unique identifying number", "Study subject ", "SUBJ-2291-0047", Label.ID),
]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("item", "what", "cue", "value", "label"), IDENTIFIERS,
                         ids=[f"{i[0]}-{i[1]}" for i in IDENTIFIERS])
def test_identifiers_d_to_r_leave_nothing_of_the_value(seed: int, item: str, what: str, cue: str, value: str,
                                                        label: Label) -> None:
    text, (rendered,) = _run([cue, (value, label), "."], seed)
    if label is Label.URL:  # the scheme and top-level domain say nothing; host and path go
        kept = set(re.findall(r"[a-z0-9]+", rendered.lower())) & {"mychart", "whitcombe", "family", "4471"}
        assert not kept, (item, what, text)
    else:
        assert rendered != value and _gone(value, rendered), (item, what, text)


def test_p_q_biometric_identifiers_and_photos_have_no_text_form_the_profile_keeps() -> None:
    """(P) biometric identifiers and (Q) full-face photographs: a text note carries none; what a
    detector labels OTHER (a fingerprint or voiceprint reference) becomes its placeholder."""
    from deid.settings import Settings
    from deid.substitution.operators import OperatorTable
    from deid.substitution.profiles import profile_settings
    from deid.substitution.strategies import strategy_of

    cfg = profile_settings(Settings(), "safe-harbor")
    assert strategy_of(Label.OTHER, cfg, OperatorTable.of_registered()) == "placeholder"
    _, (rendered,) = _run(["Fingerprint template ", ("FP-77A1-9C", Label.OTHER), "."], 0)
    assert rendered == "[OTHER]"
