"""Relabelling steps after the merge: they change a span's label, never its extent, never drop it."""

from __future__ import annotations

import re
from collections.abc import Sequence

from deid.labels import Label
from deid.rules.dates import birth_cue_before
from deid.spans import Span

# "Mme PALSKY, 28 Oct 1990": a date right after a person's name and a comma is that person's
# birth date (every such pair in the French training corpora: 10 of 10); not applied to Spanish,
# where no corpus says so (a Spanish birth date is told by its field: ``birth_cue_before``).
_COMMA_GAP = re.compile(r"[ \t]*,[ \t]*")  # same line: a signature's date on the next line is not


# "Date de sortie : 21-09-2088", "Date of discharge:": a field that names another date than the
# birth ("Date de naissance" is the birth date's own field). French and English fields only.
_OTHER_DATE_FIELD = re.compile(
    r"\bdate\s+(?:de|d['’]|du|des|of)\s*(?:l['’]\s*|la\s+)?"
    r"(?!naissance|birth|mise\s+au\s+monde)[^\W\d][\w'’ ]{1,30}?\s*:\s*$", re.IGNORECASE
)


# How far back a field's name may start: the longest one the pattern allows, with its spaces.
_FIELD_REACH = 60


def _line_start(text: str, pos: int, reach: int) -> int:
    """Where the line holding ``pos`` starts, looking back ``reach`` characters at most (a long
    line of many dates would otherwise be scanned once per date)."""
    return text.rfind("\n", max(0, pos - reach), pos) + 1 or max(0, pos - reach)


def tell_birth_dates(spans: Sequence[Span], text: str, language: str) -> list[Span]:
    """``spans`` with each DATE that its field or verb names a birth date ("Fecha de nacimiento:",
    "née le", "DOB:"; every language) or, in French and English, that directly follows a PATIENT
    or PERSON name and a comma relabelled BIRTH_DATE, and each BIRTH_DATE in a field named for
    another date relabelled DATE."""
    out = list(spans)
    for i, cur in enumerate(out):
        prev = out[i - 1] if i else None
        after_name = (language != "es" and prev is not None and prev.label in (Label.PATIENT, Label.PERSON)
                      and _COMMA_GAP.fullmatch(text, prev.end, cur.start) is not None)  # fmt: skip
        if cur.label is Label.DATE and (after_name or birth_cue_before(text, cur.start)):
            out[i] = Span(cur.start, cur.end, Label.BIRTH_DATE, cur.source, cur.score)
        elif cur.label is Label.BIRTH_DATE and _OTHER_DATE_FIELD.search(
                text, _line_start(text, cur.start, _FIELD_REACH), cur.start):  # fmt: skip
            out[i] = Span(cur.start, cur.end, Label.DATE, cur.source, cur.score)
    return out


# "CLINIQUE DE SAINT CLOUD, MESNARD-LA-BAROTIERE, standard : ...": what follows a hospital and a
# comma is where it is. In the training corpora no hospital follows another one that way (24 of
# 24 are streets, towns or regions); the model still reads a town in capitals as the hospital.
_HOSPITAL_WORD = re.compile(r"\b(?:h[oô]pital|hospital|clini|centre|centro|chu\b|ch\b|complejo|institut)",
                            re.IGNORECASE)


def tell_hospital_towns(spans: Sequence[Span], text: str) -> list[Span]:
    """``spans`` with a HOSPITAL that follows another one after a comma on its line, without a word
    for a hospital or a digit of its own, relabelled CITY."""
    out = list(spans)
    for i in range(1, len(out)):
        prev, cur = out[i - 1], out[i]
        words = text[cur.start : cur.end]
        if (prev.label is cur.label is Label.HOSPITAL and _COMMA_GAP.fullmatch(text, prev.end, cur.start)
                and not _HOSPITAL_WORD.search(words) and not any(c.isdigit() for c in words)):  # fmt: skip
            out[i] = Span(cur.start, cur.end, Label.CITY, cur.source, cur.score)
    return out
