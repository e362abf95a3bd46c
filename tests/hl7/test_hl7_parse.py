from __future__ import annotations

import base64
from datetime import date

import pytest
from hl7_samples import sample

from deid.events import DeadLetter, RawNote
from deid.hl7 import Hl7Error, hl7_to_raw_note, parse_message, parse_note
from deid.settings import MllpSettings, Settings


def _settings(**kw: object) -> Settings:
    return Settings(**kw)  # type: ignore[arg-type]


def test_french_oru_becomes_a_raw_note_with_every_text_obx_in_order(fr_oru: bytes) -> None:
    note = hl7_to_raw_note(fr_oru, _settings())
    assert isinstance(note, RawNote)
    assert note.event_id == "MSG00001"
    assert note.patient_id == "8812345"  # first PID-3 repetition, not the NIR of the second
    assert note.language == "fr"
    assert note.document_date == date(2024, 3, 15)  # OBR-7
    assert note.document_id == "FIL-66602"
    assert note.text.splitlines() == [
        "Patient : M. Jean-Pierre DUPONT, né le 14/03/1985.",
        "Adressé par le Dr PETIT pour douleur thoracique.",
        "Examen",
        "TA 13^8, FC 72/min.",
        "Tél. patient : 06 12 34 56 78",
        "Conclusion & suivi : revoir dans 3 mois à Villeurbanne.",
    ]
    assert "72" not in note.text.split("FC")[0]  # the NM OBX is not text


def test_source_metadata_holds_only_the_message_type(fr_oru: bytes) -> None:
    note = hl7_to_raw_note(fr_oru, _settings())
    assert note.source == {"format": "hl7v2", "message_type": "ORU", "trigger": "R01"}


def test_english_oru_with_crlf_decodes_ft_formatting_and_hex(en_oru: bytes) -> None:
    assert b"\r\n" in en_oru
    note = hl7_to_raw_note(en_oru, _settings(default_language="en"))
    assert note.language == "en"  # no MSH-19: the configured default
    assert note.patient_id == "MRN77001"
    assert note.document_date == date(2024, 4, 1)
    assert note.text == ("Margaret O'Brien, 76 y/o female.\n\nFindings: no acute process \\ stable.\n"
                         "Fee $12 | paid.\n\nSigned: Gregory House MD, café.")


def test_mdm_t02_with_lf_separators_takes_date_and_document_from_txa(fr_mdm: bytes) -> None:
    note = hl7_to_raw_note(fr_mdm, _settings(default_language="en"))
    assert note.language == "fr"  # MSH-19 wins over the default
    assert note.document_date == date(2024, 5, 19)  # TXA-4, not MSH-7
    assert note.document_id == "DOC-778899"
    assert note.note_type == "CR"
    assert note.source["message_type"] == "MDM" and note.source["trigger"] == "T02"
    assert note.text.splitlines()[1] == "Opérateur : Dr Michel DURAND."


def test_ed_obx_holding_base64_text_is_decoded_and_a_pdf_is_skipped(ed_oru: bytes) -> None:
    note = hl7_to_raw_note(ed_oru, _settings())
    assert note.text == "Discharge summary for Lucia GARCIA.\nSeen by Dr. Smith on 05/31/2024."
    assert note.language == "en"


def test_patient_id_is_taken_from_the_configured_assigning_authority(fr_oru: bytes) -> None:
    s = _settings(mllp=MllpSettings(patient_id_authority="ASIP-SANTE-INS-NIR"))
    assert hl7_to_raw_note(fr_oru, s).patient_id == "1850375123456"
    by_oid = _settings(mllp=MllpSettings(patient_id_authority="1.2.250.1.71.4.2.1"))
    assert hl7_to_raw_note(fr_oru, by_oid).patient_id == "8812345"


def test_missing_configured_authority_is_an_error_not_a_fallback(fr_oru: bytes) -> None:
    s = _settings(mllp=MllpSettings(patient_id_authority="ELSEWHERE"))
    with pytest.raises(Hl7Error) as err:
        hl7_to_raw_note(fr_oru, s)
    assert err.value.reason == "missing_patient_id"


def test_latin1_message_declared_in_msh18_is_decoded() -> None:
    text = ("MSH|^~\\&|A|B|C|D|20240101||ORU^R01|L1|P|2.5||||||8859/1\r"
            "PID|1||42^^^X^PI||LÉGER^Zoé\rOBX|1|TX|||Mme Zoé LÉGER, née à Sète.\r")
    note = parse_note(text.encode("latin-1"))
    assert note.text == "Mme Zoé LÉGER, née à Sète."


def test_undeclared_charset_falls_back_to_latin1_when_not_utf8() -> None:
    text = "MSH|^~\\&|A|B|C|D|20240101||ORU^R01|L2|P|2.5\rPID|1||42\rOBX|1|ST|||Hélène\r"
    assert parse_note(text.encode("latin-1")).text == "Hélène"


def test_nonstandard_separators_are_honoured() -> None:
    text = "MSH#!*$@#A#B#C#D#20240101##ORU!R01#S1#P#2.5\rPID#1##77!!!AUTH!PI\rOBX#1#TX###a$F$b$S$c\r"
    note = parse_note(text)
    assert note.patient_id == "77"
    assert note.text == "a#b!c"


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("bad_missing_msh.hl7", "missing_msh"),
        ("bad_encoding_chars.hl7", "bad_encoding_characters"),
        ("bad_truncated.hl7", "truncated_segment"),
        ("bad_no_patient_id.hl7", "missing_patient_id"),
    ],
)
def test_malformed_messages_raise_a_typed_reason(name: str, reason: str) -> None:
    with pytest.raises(Hl7Error) as err:
        hl7_to_raw_note(sample(name), _settings())
    assert err.value.reason == reason
    # the detail fits a dead letter as is
    DeadLetter(reason="hl7_parse_error", detail=err.value.detail, source_topic="raw-hl7", partition=0,
               offset=0, received_at="2024-01-01T00:00:00Z")


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (b"", "empty_message"),
        (b"   \r\n", "empty_message"),
        (b"MSH|^~\\&|A|B|C|D|2024||ORU^R01|X|P", "truncated_segment"),
        (b"MSH|^~\\&|A|B|C|D|2024||ORU^R01||P|2.5\rPID|1||42\rOBX|1|TX|||t", "missing_required_field"),
        (b"MSH|^~\\&|A|B|C|D|2024||ADT^A01|X|P|2.5\rPID|1||42\r", "unsupported_message_type"),
        (b"MSH|^~\\&|A|B|C|D|2024||ORU^R01|X|P|2.5\rOBX|1|TX|||t", "missing_pid"),
        (b"MSH|^~\\&|A|B|C|D|2024||ORU^R01|X|P|2.5\rPID|1||42\rOBX|1|NM|||5", "no_note_text"),
        (b"MSH|^~\\&|A|B|C|D|2024||ORU^R01|X|P|2.5\rPID|1||42\rOB", "bad_segment_id"),
        (b"MSH|^~\\&|A|B|C|D|2024||ORU^R01|X|P|2.5\rPID|1||42\rpid|x", "bad_segment_id"),
        (b"MSH|^~\\&|A|B|C|D|2024||ORU^R01|X|P|2.5||||||KOI8\rPID|1||42", "unsupported_charset"),
        (b"MSH|^~\\&|A|B|C|D|2024||ORU^R01|X|P|2.5||||||UNICODE UTF-8\rPID|1||\xe9", "undecodable_bytes"),
        (b"MSH|^^\\&|A|B|C|D|2024||ORU^R01|X|P|2.5\rPID|1||42", "bad_encoding_characters"),
        (b"MSHa^~\\&a", "bad_encoding_characters"),
    ],
)
def test_edge_malformations_raise_the_right_reason(payload: bytes, reason: str) -> None:
    with pytest.raises(Hl7Error) as err:
        parse_note(payload)
    assert err.value.reason == reason


def test_error_messages_never_carry_message_content() -> None:
    payload = b"MSH|^~\\&|A|B|C|D|2024||ORU^R01|X|P|2.5\rPID|1||||DUPONT^Jean\rOBX|1|TX|||DUPONT"
    with pytest.raises(Hl7Error) as err:
        parse_note(payload)
    assert "DUPONT" not in str(err.value) and "DUPONT" not in repr(err.value)


def test_base64_ed_with_line_wrapping_and_hex_ed_are_read() -> None:
    b64 = base64.b64encode("Texte encapsulé assez long pour être coupé en lignes.".encode()).decode()
    wrapped = "\\X0D0A\\".join(b64[i:i + 20] for i in range(0, len(b64), 20))
    hexed = "Deuxième".encode().hex().upper()
    msg = (f"MSH|^~\\&|A|B|C|D|2024||ORU^R01|X|P|2.5\rPID|1||42\r"
           f"OBX|1|ED|||^TEXT^^Base64^{wrapped}\rOBX|2|ED|||^text^plain^Hex^{hexed}\r")
    assert parse_note(msg).text == "Texte encapsulé assez long pour être coupé en lignes.\nDeuxième"


def test_parse_message_numbers_msh_fields_as_the_standard(fr_oru: bytes) -> None:
    msg = parse_message(fr_oru)
    assert msg.get(msg.msh, 9, 2) == "R01"
    assert msg.get(msg.msh, 10) == "MSG00001"
    assert msg.get(msg.msh, 4) == "CHU-LYON"


def test_a_lone_lf_inside_a_cr_separated_message_is_a_line_break_of_the_text() -> None:
    msg = b"MSH|^~\\&|A|B|C|D|2024||ORU^R01|X|P|2.5\rPID|1||42\rOBX|1|TX|||ligne 1\nligne 2\r"
    assert parse_note(msg).text == "ligne 1\nligne 2"


def test_a_short_text_obx_inside_the_message_is_a_blank_line_not_a_truncation() -> None:
    msg = b"MSH|^~\\&|A|B|C|D|2024||ORU^R01|X|P|2.5\rPID|1||42\rOBX|1|TX|||a\rOBX|2|TX\rOBX|3|TX|||b\r"
    assert parse_note(msg).text == "a\nb"


def test_a_message_with_two_patients_is_refused_rather_than_merged() -> None:
    msg = (b"MSH|^~\\&|A|B|C|D|2024||ORU^R01|X|P|2.5\rPID|1||42\rOBX|1|TX|||a\r"
           b"PID|2||43\rOBX|1|TX|||b\r")
    with pytest.raises(Hl7Error) as err:
        parse_note(msg)
    assert err.value.detail == "unexpected_segment:PID"
