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


@pytest.mark.parametrize(("text", "expected"), [
    ("Our ref: PR/sh/CLDT", ["PR", "sh", "CLDT"]),  # "PR" is also per rectum: the shape proves it
    ("Yours sincerely\nPR/dmt   D: 03/15/2024", ["PR", "dmt"]),
])  # fmt: skip
def test_the_author_capitals_before_a_typist_are_initials_even_when_an_abbreviation(
        text: str, expected: list[str]) -> None:  # fmt: skip
    assert initials(text) == expected


@pytest.mark.parametrize("text", ["Tylenol 650 PO/bid\n", "Given PR/tds\n"])
def test_a_route_before_a_frequency_is_no_author_and_typist(text: str) -> None:
    assert initials(text) == []


@pytest.mark.parametrize(("text", "expected"), [
    (" TIME | BP     | HR | init\n 1108 | 172/94 | 82 | ms\n 1138 | 164/90 | 80 | at  c/o cramp\n",
     ["ms", "at"]),
    ("TIME  | BEHAVIOR | RESP | INIT | NOTE\n2230  | yelling  | 22 | KL | x\n2245 | calm | 20 | -- | y\n",
     ["KL"]),
    ("Date      Vaccine    Lot     Initials\n12/03/22  Hexyon     R3K41   GLT\n"
     "13/06/22  Neisvac    X1      jt\n", ["GLT", "jt"]),
    ("Date\tVaccine\tLot\tInit\n12/03/22\tHexyon\tR3K41\tGLT\n", ["GLT"]),  # tabs: the cell's rank
])  # fmt: skip
def test_a_flowsheet_column_headed_for_initials_holds_signers(text: str, expected: list[str]) -> None:
    assert initials(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # the table ended at the blank line
    (" TIME | BP     | HR | init\n 1108 | 172/94 | 82 | ms\n\nLater 5 ms at rest.\n", ["ms"]),
    (" TIME | BP     | HR | dose\n 1108 | 172/94 | 82 | ms\n", []),  # no initials column
    (" TIME | INIT\n 1108 | yes\n 1138 | Sarah\n 1208 | n/a\n", []),  # no initials in the cell
    ("Seen by\tdone\n12:00\tat\n", []),  # a header's word in a sentence's cell is no header
    # a US prescription's "Sig" holds directions
    ("Drug          Qty    Sig\nLisinopril    30     QD\nAtorvastatin  30     qhs\n", []),
    ("Setting    Initial    Target\nMode       AC         PS\n", []),  # a setting's first value
    ("Time | Drug | Dose | Init\n0800 | Metoprolol | 25mg | HELD\n1200 | Insulin | 4u | ref\n", []),
    ("Time  | Given | By\n0800  | insulin | self\n1200  | para | mum\n", []),  # who gave it
    ("Fecha | Visa\n12/03 | IDE\n13/03 | enf\n", []),  # a role
])  # fmt: skip
def test_cells_outside_an_initials_column_are_not_signers(text: str, expected: list[str]) -> None:
    assert initials(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("RPPS 10100927415\n\nHD/ml\nCopies : Mme S.", ["HD", "ml"]),  # "ml" is the typist, alone on its line
    ("Pharm check: CMcK", ["CMcK"]),  # a Scottish surname's initials keep their "Mc"
    ("AMacL/lb\n", ["AMacL", "lb"]),
])  # fmt: skip
def test_initials_that_look_like_a_unit_or_keep_a_prefix_are_found(text: str, expected: list[str]) -> None:
    assert initials(text) == expected


@pytest.mark.parametrize("text", ["Insulin 100 IU/ml\n", "PSA 0.1 NG/ml\n", "Hgb 12.0 GM/dl\n", "PO/ml\n",
                                  "Paracetamol 1g PO/stat\n", "Metoprolol 25mg PO/qam\n", "Pharm check: NO"])
def test_a_unit_or_a_frequency_after_capitals_is_no_typist(text: str) -> None:
    assert initials(text) == []


@pytest.mark.parametrize(("text", "expected"), [
    ("lun 07/11 soir — jlp\nCible : comportement", ["jlp"]),
    ("14/08 AM – J-P.R.\nflorin se lève", ["J-P.R."]),
    ("3/2/24 0745 - dh\nUp in chair", ["dh"]),
    ("mer 12/03 7h50 — KL\nLevée", ["KL"]),
    ("sáb 12/03 — jlp\nDeambula", ["jlp"]),
    ("jueves 12/03 — LG\nDeambula", ["LG"]),
])  # fmt: skip
def test_the_signer_at_the_end_of_a_dated_entry_header_is_found(text: str, expected: list[str]) -> None:
    assert initials(text) == expected


@pytest.mark.parametrize("text", [
    "12/03 22h00 — RAS\n",  # nothing to report
    "12/03 — Chute\n",  # the entry's subject
    "Pain 4/10 - ok\n",
    "Note 12/03 - AB\n",  # "Note" is no weekday
    "12/03 — AEG\n",  # no weekday and no clock: a date and the entry's subject
    "3/2 0800 - UTI\n",  # a subject in capitals
    "12/03 nuit - rien\n",  # a word
    "12/03 nuit — R.A.S.\n",  # dotted, still nothing to report
    "3/2 0800 - Fall\n",
])  # fmt: skip
def test_an_entry_header_that_ends_with_no_signer_gives_none(text: str) -> None:
    assert initials(text) == []


@pytest.mark.parametrize(("text", "expected"), [
    ("Réf. : PD/ml               Strasbourg, le 3 mars", ["PD", "ml"]),  # the label proves the pair
    ("Hora   TA       Diur.  Ini\n08:00  112/64   80     MRT\n", ["MRT"]),  # Spanish "Ini." heads initials
])  # fmt: skip
def test_a_reference_label_and_a_short_header_prove_the_initials(text: str, expected: list[str]) -> None:
    assert initials(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Dictated 12/03/24, typed 14/03/24  NG/sc\n\ncc: Dr A", ["NG", "sc"]),  # "sc" is a route elsewhere
    ("Dictated: 03/02/2024  Typed: 05/02/2024   HC/ml\n", ["HC", "ml"]),
    ("Heparin 5000 units  NG/sc\n", []),  # no dictation on the line: a dose and its route
    ("T: 37.8 HR 92 PSA 0.1 NG/ml\n", []),  # a temperature's "T:", no dictation; a value's unit
])  # fmt: skip
def test_a_unit_like_typist_ends_the_dictation_line(text: str, expected: list[str]) -> None:
    assert initials(text) == expected
