"""The English dev set: synthetic notes and hand-written ones, never trained on.

``deid/lab/eval/data/english_dev.txt`` holds the notes as committed text with inline markup
(``[[surface|LABEL]]``, ``deid.lab.synth.english.parse``), notes separated by a line ``=====``:

- 60 synthetic notes drawn once by ``deid.lab.synth.english.english_markup(60, seed=1_000_017)``
  (a seed reserved for evaluation: training draws below ``DEV_SEED_BASE``), nursing notes and
  discharge summaries in turn;
- 12 hand-written notes (nursing, respiratory therapy, social work, triage, progress, case
  management, oncology), written for this set without the generator's templates, so that rules
  written against the generator are also measured on text they were not written for.

Annotation scheme: the product's (every name, date, age, identifier, phone, place, hospital,
unit and ward name; the patient's sex), so relaxed label-agnostic scores read directly; ages
under 90 and sex are not PHI under HIPAA Safe Harbor, and ``hipaa_view`` drops them from gold and
predictions alike for a HIPAA-style figure. Kinship words without a name ("daughter"), "today"
and "tomorrow", generic unit types (MICU) are not annotated.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from importlib import resources

from deid.lab.synth.english import parse
from deid.labels import Label
from deid.spans import Document, Span

SEPARATOR = "\n=====\n"
N_SYNTHETIC = 60


def english_dev_markup() -> list[str]:
    text = resources.files("deid.lab.eval").joinpath("data/english_dev.txt").read_text(encoding="utf-8")
    return [note.strip("\n") for note in text.split(SEPARATOR)]


def english_dev() -> list[Document]:
    docs = []
    for i, markup in enumerate(english_dev_markup()):
        text, spans = parse(markup)
        kind = "synth" if i < N_SYNTHETIC else "hand"
        docs.append(Document(f"en-dev-{kind}-{i}", text, "en", spans))
    return docs


_NUMBER = re.compile(r"\d+")
# The wards and units the generator writes ("5 West", "Ward 4B", "Unit 3C").
_WARD = re.compile(r"(?i:ward|unit|pod)\s+\d{1,2}[A-Z]?|\d{1,2}\s?(?:East|West|North|South)")


def without_wards(spans: Iterable[Span], text: str) -> list[Span]:
    """``spans`` without ward and unit names. The generator marks them as places; the realistic
    corpus's guideline, HIPAA's list and the detector since issue 30 leave out a ward without
    its hospital: this view scores the generator's notes under that convention."""
    return [s for s in spans if not _WARD.fullmatch(text[s.start : s.end])]


def hipaa_view(spans: Iterable[Span], text: str) -> list[Span]:
    """``spans`` without what HIPAA Safe Harbor does not count as PHI: ages under 90 and sex."""
    out = []
    for s in spans:
        if s.label is Label.SEX:
            continue
        if s.label is Label.AGE:
            m = _NUMBER.search(text, s.start, s.end)
            if m is not None and int(m.group()) < 90:
                continue
        out.append(s)
    return out
