"""Whatever arrives, the parser answers a note or an Hl7Error: never another exception (the
bridge would drop the connection, the worker would stall on the record)."""

from __future__ import annotations

from hl7_samples import sample
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from deid.hl7 import Hl7Error, build_deid_hl7, mapping_lookup, parse_note, to_raw_note

SEEDS = [sample(n) for n in ("oru_r01_fr.hl7", "oru_r01_en.hl7", "mdm_t02_fr.hl7", "oru_r01_ed.hl7")]


def _accepts_or_rejects(payload: bytes) -> None:
    try:
        parsed = parse_note(payload)
    except Hl7Error:
        return
    to_raw_note(parsed)
    build_deid_hl7(parsed, parsed.text, mapping_lookup({}))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.sampled_from(SEEDS), cut=st.integers(min_value=0, max_value=4000),
       noise=st.binary(max_size=12), at=st.integers(min_value=0, max_value=4000))
def test_truncated_or_corrupted_samples_only_raise_hl7_error(seed: bytes, cut: int, noise: bytes,
                                                            at: int) -> None:
    mutated = seed[:at] + noise + seed[at:]
    _accepts_or_rejects(mutated[:cut] if cut < len(mutated) else mutated)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_only_raise_hl7_error(payload: bytes) -> None:
    _accepts_or_rejects(b"MSH|^~\\&|" + payload)
    _accepts_or_rejects(payload)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="|^~\\&#MSHPIDOBXTX01.\r\n aZé", max_size=200))
def test_delimiter_soup_only_raises_hl7_error(text: str) -> None:
    _accepts_or_rejects(("MSH|^~\\&|A|B|C|D|2024||ORU^R01|X|P|2.5\rPID|1||42\r" + text).encode())


def test_a_numeric_obx_truncated_before_its_value_is_scrubbed_not_crashed() -> None:
    # found by the fuzz test above on a fresh machine: "OBX|3|NM|8867-4^Fr" (no OBX-5)
    seed = sample("oru_r01_fr.hl7")
    cut = seed.index(b"OBX|3|NM|") + len(b"OBX|3|NM|8867-4^Fr")
    _accepts_or_rejects(seed[:cut])
