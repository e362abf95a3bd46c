from __future__ import annotations

import hashlib
import re
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from deid.hl7 import (
    build_deid_hl7,
    deidentify_message,
    escape,
    identity_values,
    parse_message,
    parse_note,
)
from deid.hl7.scrub import POLICIES
from deid.labels import Label

DEID_TEXT = ("Patient : M. Paul MOREAU, né le 02/06/1984.\nAdressé par le Dr LEROY | suivi ^ & ~ \\.\n"
             "Conclusion : revoir dans 3 mois à Annecy.")


def fake_surrogate(label: Label, value: str) -> str:
    """Letters only, stable per (label, value): like the store memo, and unlikely to contain an
    original value by accident. Dates answer in ISO, as the substitution engine would."""
    if label.category.value == "PER" and "," in value:  # "FAMILY, Given Middle": word by word
        fam, _, rest = value.partition(",")
        f = " ".join(fake_surrogate(label, w) for w in fam.split())
        r = " ".join(fake_surrogate(label, w) for w in rest.split())
        return f"{f}, {r}" if f and r else f"{f}," if f else f", {r}"
    digest = hashlib.sha256(f"{label}|{value}".encode()).digest()
    if label.category.value == "DATE":
        return f"20{digest[0] % 30:02d}-{1 + digest[1] % 12:02d}-{1 + digest[2] % 28:02d}"
    return "Sur" + "".join(string.ascii_lowercase[b % 26] for b in digest[:8])


# Hand-written identity values of oru_r01_fr.hl7 (PID, PD1, NK1, PV1, ORC, OBR, MSH, NTE, ZBE)
FR_IDENTITY = [
    "8812345", "1850375123456", "DL7788990", "DUPONT", "Jean-Pierre", "Marcel", "LEGRAND", "ROUSSEAU",
    "Hélène", "19850314", "12 rue des Lilas", "Lilas", "Bâtiment C", "Villeurbanne", "Rhône", "69100",
    "0612345678", "jp.dupont@example.fr", "0478123456", "VIS2024-0042", "2850375999999", "CABINET",
    "10003456789", "GIRARD", "Anne", "Marie", "Lucas", "0698765432", "0611223344", "PRE-778", "R812Q",
    "10101010101", "BERNARD", "Claire", "20202020202", "PETIT", "Louis", "30303030303", "ROBERT",
    "Sophie", "40404040404", "LEFEBVRE", "Paul", "VN-20240315-7781", "20240310", "20240315",
    "ORD-55501", "FIL-66602", "CHU-LYON", "CHULYON", "DXCARE", "1.2.250.1.71.4.2.1", "MVT-0001",
]


def _identity_field_values(payload: bytes) -> set[str]:
    """Every sub-component of every non-kept field of the person-bearing segments, plus every
    value of the segments that are dropped altogether."""
    msg = parse_message(payload)
    values: set[str] = set()
    for seg in msg.segments:
        policy = POLICIES.get(seg[0])
        for n in range(1, len(seg)):
            if seg[0] == "MSH" and n in (1, 2, 18):  # separators; MSH-18 is rewritten
                continue
            if policy is not None and (policy.get(n) is not None and policy[n].type == "keep"):
                continue
            if seg[0] == "OBX" and n == 5:
                continue
            for rep in msg.repetitions(seg[n]):
                for comp in msg.components(rep):
                    for sub in msg.subcomponents(comp):
                        v = msg.value(sub).strip()
                        if len(v) >= 3:
                            values.add(v)
    return values


def _deid(payload: bytes, **kw: object) -> str:
    parsed = parse_note(payload)
    return deidentify_message(parsed.message, DEID_TEXT, fake_surrogate, text_obx=parsed.text_obx,
                              **kw)  # type: ignore[arg-type]


def _deid_without_text(payload: bytes) -> str:
    """The output minus the (hand-written, already de-identified) note text."""
    out = _deid(payload)
    assert out.count(escape(DEID_TEXT)) == 1
    return out.replace(escape(DEID_TEXT), "")


def test_no_hand_written_identity_value_survives_anywhere(fr_oru: bytes) -> None:
    out = _deid_without_text(fr_oru).casefold()
    leaked = [v for v in FR_IDENTITY if v.casefold() in out]
    assert leaked == []


def test_no_value_of_any_non_allow_listed_field_survives(fr_oru: bytes, en_oru: bytes, fr_mdm: bytes,
                                                        ed_oru: bytes) -> None:
    # closed-table codes kept in rebuilt composites (FRA: also MSH-17, a kept country code)
    codes = {"INS-NIR", "Internet", "PRN", "WPN", "NET", "FRA"}
    for payload in (fr_oru, en_oru, fr_mdm, ed_oru):
        out = _deid_without_text(payload).casefold()
        values = _identity_field_values(payload) - codes
        assert values, "the sample has identity fields"
        leaked = sorted(v for v in values if re.search(rf"(?<!\w){re.escape(v.casefold())}(?!\w)", out))
        assert leaked == []


def test_every_pid3_repetition_is_replaced_including_the_ssn(fr_oru: bytes) -> None:
    msg = parse_message(_deid(fr_oru))
    pid = msg.first("PID")
    assert [msg.get(pid, 3, 1, i) for i in range(4)] == [
        fake_surrogate(Label.ID_PATIENT, "8812345"),
        fake_surrogate(Label.ID_SSN, "1850375123456"),
        fake_surrogate(Label.ID_NATIONAL, "DL7788990"),
        "",
    ]
    assert msg.get(pid, 3, 5, 1) == "INS-NIR"  # the identifier type code stays
    assert msg.get(pid, 3, 4, 0) == ""  # the assigning authority (names the hospital) does not
    assert msg.get(pid, 19) == fake_surrogate(Label.ID_SSN, "2850375999999")


def test_pid_names_use_the_same_surrogates_as_the_text_would(fr_oru: bytes) -> None:
    msg = parse_message(_deid(fr_oru))
    pid = msg.first("PID")
    assert msg.get(pid, 5, 1) == fake_surrogate(Label.PATIENT, "DUPONT")
    assert msg.get(pid, 5, 2) == fake_surrogate(Label.PATIENT, "Jean-Pierre")
    assert msg.get(pid, 5, 1, 1) == fake_surrogate(Label.PATIENT, "DUPONT-LEGRAND")
    assert msg.get(pid, 6, 1) == fake_surrogate(Label.RELATIVE, "ROUSSEAU")
    nk1 = msg.all("NK1")
    assert [msg.get(s, 2, 2) for s in nk1] == [fake_surrogate(Label.RELATIVE, "Marie"),
                                              fake_surrogate(Label.RELATIVE, "Lucas")]
    assert msg.get(nk1[0], 3) == "SPO"  # the relationship code is kept
    pv1 = msg.first("PV1")
    assert msg.get(pv1, 7, 2) == fake_surrogate(Label.STAFF, "BERNARD")
    assert msg.get(pv1, 8, 2) == fake_surrogate(Label.STAFF, "PETIT")


def test_dates_are_replaced_by_surrogate_dates_in_hl7_form(fr_oru: bytes) -> None:
    msg = parse_message(_deid(fr_oru))
    pid = msg.first("PID")
    expected = fake_surrogate(Label.BIRTH_DATE, "1985-03-14").replace("-", "")
    assert msg.get(pid, 7) == expected
    assert msg.get(msg.first("OBR"), 7) == fake_surrogate(Label.DATE, "2024-03-15").replace("-", "")


def test_a_placeholder_surrogate_blanks_a_date_field(fr_oru: bytes) -> None:
    parsed = parse_note(fr_oru)
    out = deidentify_message(parsed.message, DEID_TEXT, lambda lab, v: f"[{lab.category.value}]")
    msg = parse_message(out)
    assert msg.get(msg.first("PID"), 7) == ""
    assert msg.get(msg.first("PID"), 5) == "[PER]"


def test_text_obx_carry_the_deidentified_text_once_and_z_and_nte_segments_are_dropped(
        fr_oru: bytes) -> None:
    out = _deid(fr_oru)
    msg = parse_message(out)
    ids = [s[0] for s in msg.segments]
    assert ids == ["MSH", "PID", "PD1", "NK1", "NK1", "PV1", "ORC", "OBR", "OBX", "OBX"]
    text_obx, nm_obx = msg.all("OBX")
    assert msg.get(text_obx, 2) == "FT"
    assert "\r" not in text_obx[5] and "|" not in msg.value(text_obx[5]).split("LEROY")[0]
    assert parse_note(out).text == DEID_TEXT  # escaping round-trips
    assert (msg.get(nm_obx, 1), msg.get(nm_obx, 2), msg.get(nm_obx, 5)) == ("2", "NM", "72")


def test_msh_routing_is_blanked_unless_kept(fr_oru: bytes) -> None:
    msg = parse_message(_deid(fr_oru))
    assert [msg.get(msg.msh, n) for n in (3, 4, 5, 6)] == ["", "", "", ""]
    assert msg.get(msg.msh, 18) == "UNICODE UTF-8"
    kept = parse_message(_deid(fr_oru, keep_routing=True))
    assert [kept.get(kept.msh, n) for n in (3, 4)] == ["DXCARE", "CHU-LYON"]


def test_identity_values_lists_what_the_scrubber_asks_for(fr_oru: bytes) -> None:
    parsed = parse_note(fr_oru)
    asked: list[tuple[Label, str]] = []

    def spy(label: Label, value: str) -> str:
        asked.append((label, value))
        return fake_surrogate(label, value)

    deidentify_message(parsed.message, DEID_TEXT, spy, text_obx=parsed.text_obx)
    values = identity_values(parsed.message)
    assert set(values) == set(asked)
    assert (Label.ID_SSN, "1850375123456") in values
    # a name is asked for whole, "FAMILY, Given Middle": its parts come from one identity
    assert (Label.PATIENT, "DUPONT, Jean-Pierre Marcel") in values
    assert any(lab is Label.RELATIVE and v.startswith("DUPONT,") for lab, v in values)


def test_build_deid_hl7_with_a_partial_mapping_uses_placeholders_not_originals(fr_oru: bytes) -> None:
    parsed = parse_note(fr_oru)
    mapping = {(Label.PATIENT, "DUPONT, Jean-Pierre Marcel"): "MOREAU, Paul-Henri Louis"}
    out = build_deid_hl7(parsed, DEID_TEXT, mapping).decode("utf-8")
    assert out.startswith("MSH|") and out.endswith("\r")
    msg = parse_message(out.encode())
    pid = msg.first("PID")
    assert [msg.get(pid, 5, i) for i in (1, 2, 3)] == ["MOREAU", "Paul-Henri", "Louis"]
    assert msg.get(pid, 6, 1) == "[PER]"  # not resolved: a placeholder, never the original
    assert "1850375123456" not in out and "DUPONT" not in out


def test_surrogates_with_delimiters_are_escaped(fr_oru: bytes) -> None:
    parsed = parse_note(fr_oru)
    out = deidentify_message(parsed.message, "x", lambda lab, v: "A|B^C~D&E\\F")
    msg = parse_message(out)
    assert msg.get(msg.first("PID"), 5, 1) == "A|B^C~D&E\\F"


_IDENT = st.text(alphabet=string.ascii_uppercase, min_size=6, max_size=12).map(lambda s: "QX" + s)


@settings(max_examples=60, deadline=None)
@given(family=_IDENT, given_name=_IDENT, ssn=_IDENT, relative=_IDENT, doctor=_IDENT, street=_IDENT,
       extra_reps=st.integers(min_value=0, max_value=4))
def test_random_identities_in_any_repetition_never_survive(family: str, given_name: str, ssn: str,
                                                           relative: str, doctor: str, street: str,
                                                           extra_reps: int) -> None:
    e = escape
    reps = "~".join(f"{e(ssn)}{i}^^^AUTH^SS" for i in range(extra_reps))
    pid3 = f"ID1^^^AUTH^PI~{reps}" if reps else "ID1^^^AUTH^PI"
    payload = (
        "MSH|^~\\&|APP|FAC|R|R|20240101||ORU^R01|C1|P|2.5\r"
        f"PID|1||{pid3}||{e(family)}^{e(given_name)}~{e(given_name)}^{e(family)}||19800101|F|||"
        f"{e(street)}^^CITY^^75001||||||||{e(ssn)}\r"
        f"NK1|1|{e(relative)}^{e(given_name)}|MTH\r"
        f"PV1|1|I|||||1^{e(doctor)}^X|2^{e(doctor)}\r"
        f"OBR|1|||X^Y|||20240101||||||||||3^{e(doctor)}\r"
        f"OBX|1|TX|||note\r"
        f"ZPI|{e(family)}|{e(ssn)}\r"
    ).encode()
    out = _deid(payload)
    for value in (family, given_name, ssn, relative, doctor, street):
        assert value not in out
