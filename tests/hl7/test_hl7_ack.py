from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hl7_samples import sample

from deid.cli import main
from deid.hl7 import build_ack, parse_message

NOW = datetime(2024, 3, 15, 14, 30, 0, tzinfo=UTC)


def test_aa_swaps_the_routing_and_echoes_the_control_id() -> None:
    msg = parse_message(sample("oru_r01_fr.hl7"))
    ack = parse_message(build_ack(msg, "AA", control_id="ACK1", now=NOW))
    assert [ack.get(ack.msh, n) for n in (3, 4, 5, 6, 7, 9, 10, 12)] == [
        "DEID", "DEID", "DXCARE", "CHU-LYON", "20240315143000", "ACK", "ACK1", "2.5"]
    assert ack.get(ack.msh, 9, 2) == "R01"
    msa = ack.first("MSA")
    assert [ack.get(msa, n) for n in (1, 2)] == ["AA", "MSG00001"]
    assert ack.first("ERR") is None


def test_ar_without_a_readable_header_still_is_a_valid_ack() -> None:
    raw = build_ack(None, "AR", "missing_msh", error_code="100", now=NOW)
    ack = parse_message(raw)
    msa, err = ack.first("MSA"), ack.first("ERR")
    assert [ack.get(msa, n) for n in (1, 2, 3)] == ["AR", "", "missing_msh"]
    assert [ack.get(err, 3, n) for n in (1, 2, 3)] == ["100", "missing_msh", "HL70357"]
    assert raw.endswith(b"\r") and b"\n" not in raw


def test_cli_rejects_a_missing_tls_certificate_in_one_line(monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("DEID_HMAC_SECRET", "hl7-ack-test-secret-0123456789abcdef0123456789")
    monkeypatch.setenv("DEID_MLLP__TLS_CERTFILE", "/nonexistent/cert.pem")
    assert main(["mllp", "--port", "2575"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "TLS certificate not found" in err


def test_cli_refuses_to_start_without_a_secret(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("DEID_HMAC_SECRET", raising=False)
    assert main(["mllp"]) == 2
    assert "DEID_HMAC_SECRET" in capsys.readouterr().err


def test_cli_reports_an_unreachable_broker_in_one_line(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    from worker.services.broker import free_port

    monkeypatch.setenv("DEID_HMAC_SECRET", "hl7-ack-test-secret-0123456789abcdef0123456789")

    assert main(["mllp", "--host", "127.0.0.1", "--port", str(free_port()),
                 "--bootstrap-servers", f"127.0.0.1:{free_port()}"]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        "deid mllp: error: cannot reach the Kafka broker (KafkaConnectionError)"]
