"""What the audit counts as a clinical number changed (issue 29): a number of a French postal
address beside the town ("35033 Rennes Cedex 9") is part of the address, not a clinical fact."""

from __future__ import annotations

from deid.lab.corpora.realistic import Mention, Note
from deid.lab.eval.audit import NoteAudit, align, broken_facts

TEXT = "CHU, 2 rue Henri Le Guilloux, 35033 Rennes Cedex 9. EVA 4/10."


def _note() -> Note:
    mentions = [
        Mention(TEXT.index(w), TEXT.index(w) + len(w), label, w, "a1")
        for w, label in (("35033", "POSTCODE"), ("Rennes", "CITY"))
    ]
    return Note("w99-001", "w99-p01", "fr", "FR", "letter", "doctor", "2024-03-15", "", {}, TEXT, mentions)


def _audit(pairs: list[tuple[str, str]]) -> NoteAudit:
    """The note with each (original, surrogate) replaced in order, as the audit aligns it."""
    out, placed, pos, length = [], [], 0, 0
    for original, surrogate in pairs:
        i = TEXT.index(original, pos)
        out.append(TEXT[pos:i])
        length += i - pos
        placed.append((length, length + len(surrogate), "X", "random"))
        out.append(surrogate)
        length += len(surrogate)
        pos = i + len(original)
    out.append(TEXT[pos:])
    output = "".join(out)
    return NoteAudit(_note(), output, align(TEXT, output, placed))


def test_a_sorting_office_number_is_no_clinical_number() -> None:
    address = _audit([("35033", "29000"), ("Rennes Cedex 9", "Quimper")])
    assert broken_facts([address], {}, None) == []


def test_a_score_replaced_is_still_a_clinical_number_changed() -> None:
    score = _audit([("35033", "29000"), ("Rennes", "Quimper"), ("4/10", "[DATE]")])
    assert [f.kind for f in broken_facts([score], {}, None)] == ["clinical_value"]
