"""HL7 v2 input and output, pure (no network): parse ORU^R01 / MDM^T02 into a ``RawNote``,
rebuild a de-identified message, and make MLLP acknowledgements.

Worker entry points: ``hl7_to_raw_note`` (a raw-hl7 record -> the note the pipeline processes),
``identity_values`` + ``build_deid_hl7`` (the optional de-identified HL7 output).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from deid.hl7.ack import AckCode, build_ack
from deid.hl7.errors import Hl7Error, Hl7ErrorReason
from deid.hl7.escape import Separators, escape, unescape
from deid.hl7.limits import DEFAULT_LIMITS, Hl7Limits
from deid.hl7.message import Hl7Message, parse_message, read_header
from deid.hl7.note import ParsedHl7, hl7_to_raw_note, parse_note, to_raw_note
from deid.hl7.scrub import SurrogateFor, deidentify_message, identity_values, mapping_lookup
from deid.hl7.surrogates import SubstituterLike, resolve_identity_surrogates
from deid.labels import Label

if TYPE_CHECKING:
    from deid.events import ModelInfo, RawNote
    from deid.settings import Settings


def parse_hl7_note(payload: bytes, settings: Settings) -> ParsedHl7:
    """``parse_note`` with the deployment's patient-id authority and default language."""
    return parse_note(payload, authority=settings.mllp.patient_id_authority,
                      default_language=settings.default_language)


def build_deid_hl7(
    parsed: ParsedHl7,
    deid_text: str,
    surrogates: Mapping[tuple[Label, str], str] | SurrogateFor,
    *,
    keep_routing: bool = False,
) -> bytes:
    """The de-identified message (UTF-8 ER7, CR-separated) for the deid-hl7 topic.

    ``surrogates`` is either the resolved mapping for ``identity_values(parsed.message)`` (a
    missing entry becomes a category placeholder) or a ``surrogate_for`` callable.
    """
    lookup = mapping_lookup(surrogates) if isinstance(surrogates, Mapping) else surrogates
    text = deidentify_message(parsed.message, deid_text, lookup, text_obx=parsed.text_obx,
                              keep_routing=keep_routing)
    return text.encode("utf-8")


async def deid_hl7_for_record(
    payload: bytes, note: RawNote, deid_text: str, settings: Settings, substituter: SubstituterLike,
    model: ModelInfo,
) -> bytes:
    """The deid-hl7 record for a raw-hl7 record already turned into ``note`` and de-identified
    into ``deid_text``: its identity fields get surrogates from the same memo (one more
    ``substitute`` call, on a companion note; may raise ``StoreUnavailable`` like any other)."""
    parsed = parse_hl7_note(payload, settings)
    values = identity_values(parsed.message, text_obx=parsed.text_obx)
    surrogates = await resolve_identity_surrogates(substituter, note, values, model)
    return build_deid_hl7(parsed, deid_text, surrogates)


__all__ = [
    "DEFAULT_LIMITS",
    "AckCode",
    "Hl7Error",
    "Hl7ErrorReason",
    "Hl7Limits",
    "Hl7Message",
    "ParsedHl7",
    "Separators",
    "SurrogateFor",
    "build_ack",
    "build_deid_hl7",
    "deid_hl7_for_record",
    "deidentify_message",
    "escape",
    "hl7_to_raw_note",
    "identity_values",
    "mapping_lookup",
    "parse_hl7_note",
    "parse_message",
    "parse_note",
    "read_header",
    "resolve_identity_surrogates",
    "to_raw_note",
    "unescape",
]
