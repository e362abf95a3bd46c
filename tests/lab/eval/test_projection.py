"""What the convention changes in a corpus's gold, counted (deid eval --convention)."""

from __future__ import annotations

from deid.lab.eval.projection import gold_changes
from deid.labels import Label
from deid.spans import Document, Span


def test_every_kind_of_change_is_counted() -> None:
    text = "Mme Anne X, le 3 mars, Jean DUPONT, ,"
    raw = Document("d", text, "fr", (
        Span(0, 10, Label.PERSON),   # "Mme Anne X" -> trimmed ("Anne X")
        Span(12, 21, Label.DATE),    # "le 3 mars" -> trimmed
        Span(23, 27, Label.PERSON),  # "Jean" + "DUPONT" -> joined
        Span(28, 34, Label.PERSON),
        Span(36, 37, Label.DATE),    # "," -> dropped
    ))
    projected = Document("d", text, "fr", (Span(4, 10, Label.PERSON), Span(15, 21, Label.DATE),
                                           Span(23, 34, Label.PERSON)))
    assert gold_changes([raw], [projected]) == {"unchanged": 0, "trimmed": 2, "split": 0, "joined": 2,
                                                "dropped": 1}
    address = Document("a", "28 rue X, 75001 Paris", "fr", (Span(0, 21, Label.STREET),))
    parts = Document("a", address.text, "fr", (Span(0, 8, Label.STREET), Span(10, 15, Label.POSTCODE),
                                               Span(16, 21, Label.CITY)))
    assert gold_changes([address], [parts])["split"] == 1
