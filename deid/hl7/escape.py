"""HL7 v2 escape sequences (chapter 2.7), in both directions.

Our own rather than ``hl7.unescape``: that one logs the whole field on an unknown sequence (PHI in
logs), decodes ``\\Xhh\\`` byte by byte as code points (UTF-8 multi-byte text comes out garbled),
and its ``escape`` writes non-ASCII as single-byte hex.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Cap of \.sp n\ and \.sk n\: layout needs a few; a larger n would let a message of a few MiB
# expand into hundreds of MiB of blank text before the text limit is checked.
MAX_SPACING = 10
_HEX_DIGITS = "0123456789ABCDEFabcdef"
_REPEAT = re.compile(r"^(\.sp|\.sk)\s*([+-]?\d*)$")


@dataclass(frozen=True, slots=True)
class Separators:
    field: str = "|"
    component: str = "^"
    repetition: str = "~"
    escape: str = "\\"
    subcomponent: str = "&"

    @property
    def encoding_characters(self) -> str:
        """MSH-2 as written on output (always the four classic characters)."""
        return self.component + self.repetition + self.escape + self.subcomponent


DEFAULT_SEPARATORS = Separators()


def unescape(value: str, seps: Separators = DEFAULT_SEPARATORS, codec: str = "utf-8") -> str:
    """Decode escape sequences; formatting commands (``\\.br\\``...) become plain-text layout.

    An unterminated sequence is kept literally; unknown or unsupported ones (character-set
    switches, locally defined ``\\Z..\\``, highlighting) are dropped. ``\\.sp n\\`` and
    ``\\.sk n\\`` give at most 10 line breaks or spaces, so the text is never much longer than
    the field it came from.
    """
    esc = seps.escape
    if not esc or esc not in value:
        return value
    # Split on the escape character: text and sequences alternate (odd pieces are sequences),
    # and each distinct sequence is decoded once. C-speed splits and joins, no Python step per
    # character: a field of a few MiB full of escapes is read in a fraction of a second.
    pieces = value.split(esc)
    tail = ""
    if len(pieces) % 2 == 0:  # an odd number of escape characters: the last one is unterminated
        tail = esc + pieces.pop()
    sequences = pieces[1::2]
    decoded = {seq: _decode_sequence(seq, seps, codec) for seq in set(sequences)}
    pieces[1::2] = [decoded[seq] for seq in sequences]
    return "".join(pieces) + tail


_FORMATTING = {"H": "", "N": "", ".br": "\n", ".ce": "\n", ".fi": "", ".nf": ""}


def _decode_sequence(seq: str, seps: Separators, codec: str) -> str:
    if seq in _FORMATTING:
        return _FORMATTING[seq]
    if len(seq) == 1 and seq in "FSTRE":
        delimiters = (seps.field, seps.component, seps.subcomponent, seps.repetition, seps.escape)
        return delimiters["FSTRE".index(seq)]
    if seq[:1] == "X" and len(seq) % 2 == 1 and len(seq) > 1 and not seq[1:].strip(_HEX_DIGITS):
        raw = bytes.fromhex(seq[1:])
        try:
            return raw.decode(codec)
        except (UnicodeDecodeError, LookupError):
            return raw.decode("latin-1")
    m = _REPEAT.match(seq)
    if m:
        count = int(m.group(2)) if m.group(2) not in ("", "+", "-") else 1
        count = max(0, min(count, MAX_SPACING))
        return ("\n" if m.group(1) == ".sp" else " ") * count
    return ""  # .in/.ti indents, \C..\ / \M..\ charset switches, \Z..\ local escapes, junk


def escape(value: str, seps: Separators = DEFAULT_SEPARATORS) -> str:
    """Encode text for an ST/TX/FT field: delimiters escaped, line breaks as ``\\.br\\`` (a raw
    CR would end the segment), other control characters as hex; non-ASCII stays as is (the
    output message is UTF-8)."""
    esc = seps.escape
    table = {
        esc: f"{esc}E{esc}",
        seps.field: f"{esc}F{esc}",
        seps.component: f"{esc}S{esc}",
        seps.repetition: f"{esc}R{esc}",
        seps.subcomponent: f"{esc}T{esc}",
    }
    out: list[str] = []
    text = value.replace("\r\n", "\n").replace("\r", "\n")
    for ch in text:
        if ch in table:
            out.append(table[ch])
        elif ch == "\n":
            out.append(f"{esc}.br{esc}")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"{esc}X{ord(ch):02X}{esc}")
        else:
            out.append(ch)
    return "".join(out)
