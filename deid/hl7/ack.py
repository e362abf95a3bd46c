"""HL7 acknowledgements (original mode) for the MLLP bridge: AA, AE, AR with a coded reason.

The reason is our machine-made code (``Hl7Error.detail``, or a fixed word for broker failures),
never content of the message; the ACK echoes only MSH routing fields and the control id.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Literal

from deid.hl7.escape import DEFAULT_SEPARATORS, escape
from deid.hl7.message import Hl7Message

AckCode = Literal["AA", "AE", "AR"]


def build_ack(
    msg: Hl7Message | None,
    code: AckCode,
    reason: str | None = None,
    *,
    error_code: str = "207",
    control_id: str | None = None,
    now: datetime | None = None,
) -> bytes:
    """An ACK for ``msg`` (None when its MSH could not be read: the ACK then has no MSA-2).

    ``error_code`` is the HL7 table 0357 code written in ERR-3 of an AE/AR.
    """
    seps = DEFAULT_SEPARATORS

    def echo(n: int) -> str:
        return escape(msg.get(msg.msh, n, 1), seps)[:180] if msg is not None else ""

    stamp = (now or datetime.now(UTC)).strftime("%Y%m%d%H%M%S")
    trigger = escape(msg.get(msg.msh, 9, 2), seps)[:3] if msg is not None else ""
    version = echo(12) or "2.5"
    processing = echo(11) or "P"
    ack_id = control_id or uuid.uuid4().hex[:20]
    fs = seps.field
    msh = fs.join(["MSH", seps.encoding_characters, echo(5), echo(6), echo(3), echo(4), stamp, "",
                   f"ACK^{trigger}^ACK" if trigger else "ACK", ack_id, processing, version])
    segments = [msh]
    text = escape(reason, seps)[:80] if reason else ""
    segments.append(fs.join(["MSA", code, echo(10), text]).rstrip(fs))
    if code != "AA":
        severity = "E"
        segments.append(fs.join(["ERR", "", "", f"{error_code}^{text}^HL70357", severity]))
    return ("\r".join(segments) + "\r").encode("utf-8")
