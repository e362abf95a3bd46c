from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from deid.hl7.escape import Separators, escape, unescape


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        (r"a\F\b", "a|b"),
        (r"a\S\b\T\c\R\d\E\e", "a^b&c~d\\e"),
        (r"line1\.br\line2", "line1\nline2"),
        (r"x\.sp2\y", "x\n\ny"),
        (r"caf\XC3A9\ \X24\5", "café $5"),
        (r"\H\bold\N\ normal", "bold normal"),
        ("\\.in+4\\indented\\.fi\\", "indented"),
        (r"\Zlocal\kept", "kept"),
        (r"unterminated \F", "unterminated \\F"),
    ],
)
def test_unescape_decodes_hl7_sequences(raw: str, text: str) -> None:
    assert unescape(raw) == text


def test_unescape_uses_the_message_separators() -> None:
    seps = Separators(field="#", component="!", repetition="*", escape="$", subcomponent="@")
    assert unescape("a$F$b$S$c$E$", seps) == "a#b!c$"


def test_hex_escape_falls_back_to_latin1_when_not_utf8() -> None:
    assert unescape("\\XE9\\t\\XE9\\") == "été"


def test_escape_never_leaves_a_delimiter_or_a_carriage_return() -> None:
    out = escape("a|b^c&d~e\\f\r\ng\x01")
    assert not set(out) & set("|^&~\r\n\x01")
    assert out == "a\\F\\b\\S\\c\\T\\d\\R\\e\\E\\f\\.br\\g\\X01\\"


@given(st.text())
def test_escape_then_unescape_is_identity_up_to_line_breaks(text: str) -> None:
    expected = text.replace("\r\n", "\n").replace("\r", "\n")
    assert unescape(escape(text)) == expected
