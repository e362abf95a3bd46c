"""A typist's initials in capitals after a reference, after "Typed:", or at a line's end (issue 29)."""

from __future__ import annotations

import pytest

from deid.rules.initials import SignatureInitialsRecognizer


def initials(text: str) -> list[str]:
    return [text[s.start : s.end] for s in SignatureInitialsRecognizer().find(text, "en")]


@pytest.mark.parametrize(("text", "expected"), [
    ("Réf. : HB/MG\nIPP : 7003418825", ["HB", "MG"]),  # "MG" in capitals is no milligram
    ("Ext 5382\nTyped: HK/sb\ncc: Mrs R Whitlock", ["HK", "sb"]),
    ("D: 11/09/2023  T: 11/09/2023   HC/mt\ncc: A. Mehrotra, MD", ["HC", "mt"]),
])  # fmt: skip
def test_the_author_and_typist_initials_are_found(text: str, expected: list[str]) -> None:
    assert initials(text) == expected


@pytest.mark.parametrize("text", ["IV/IM\n", "Ref: PO/IM", "glucose 5 mg/dl\n", "BUN/Cr 32/1.4\n"])
def test_units_and_routes_are_not_initials(text: str) -> None:
    assert initials(text) == []
