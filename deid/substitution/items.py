"""What the substitution steps pass between them: one mention to replace, one note's context.

An ``Item`` is one detected mention after overlaps were merged; an operator fills its memo key(s)
when it plans, and renders it from the memo after the commit. ``NoteContext`` is what every
operator may read about the note being substituted (never the wall clock: dates are anchored at
the note's own document date).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from deid.events import RawNote
from deid.labels import Label
from deid.settings import Settings
from deid.spans import Span
from deid.store.keys import KeyHasher


@dataclass
class Item:
    """One mention to substitute."""

    span: Span
    text: str
    strategy: str
    key: str = ""  # memo key of the value (HMAC); "" for a placeholder
    costed: bool = False  # its first release spends privacy budget
    extra_keys: tuple[str, ...] = ()  # other memo entries it reads (a surname, the patient's shift...)
    unit: str = ""  # the metric its epsilon is per (day, month, year, feature...), for costed items
    data: Any = None  # the operator's own parsed form of the mention (a Temporal, name parts...)
    # (surrogate text, strategy) decided at render time
    out: tuple[str, str] | None = None

    @property
    def label(self) -> Label:
        return self.span.label

    def memo_keys(self) -> tuple[str, ...]:
        return tuple(k for k in (self.key, *self.extra_keys) if k)


@dataclass
class NoteContext:
    """One note being substituted, with what its operators share."""

    note: RawNote
    patient: str  # the patient's keyed pseudonym
    hasher: KeyHasher
    settings: Settings
    rng: random.Random
    date_order: str = "dmy"  # "dmy" or "mdy": how numeric dates are read and written
    region: str = ""  # place conventions of the feed: "FR", "ES", "US", "GB"
    # The words of the note's person and organisation mentions: no drawn name may be one of them
    # ("PETIT" -> "DUPONT" in a note about M. Dupont would put a real name back), whichever
    # operator draws it (a person, an e-mail's owner, a clinic named after someone).
    name_words: frozenset[str] = frozenset()
    shared: dict[str, Any] = field(default_factory=dict)  # operator-to-operator facts of this note

    @property
    def language(self) -> str:
        return self.note.language

    @property
    def document_date(self) -> date | None:
        return self.note.document_date

    def key(self, label: Label, value: str) -> str:
        return self.hasher.value(self.patient, label, value)


def placeholder(label: Label) -> str:
    return f"[{label.category.value}]"
