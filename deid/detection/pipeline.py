"""The detection post-processing, one ordered pipeline of named steps.

What runs between the recognizers and substitution, in this order (``PIPELINE``):

1. ``conform`` (model spans): the project's span convention (``deid.detection.convention``):
   titles, articles, separators trimmed off the model's spans; whole French addresses are not
   split here. A span the convention has no place for (a title alone, "today", an article) is
   kept as ``Label.PHI``.
2. ``measurements`` (model spans): a date its context proves a score or a measurement ("EVA
   4/10", "TA 13/8", "23/30", "off work 2/52"), and a score's name read as a person ("EVA"),
   are dropped (``deid.detection.measures``): the one step that drops, on proof, not on doubt.
   ``own_words`` (model spans): a span whose every word is a kinship word, a language, a
   department or ward word, a clock time, or the modal "Will" is dropped on that proof
   (``deid.detection.own_words``).
3. ``plausible`` (model spans): dates widened over the number they cut, a name grown over the
   initial glued before it; a span no reading of the text supports (a score written like a date,
   an elided article alone, a generic public service, "family" of "family doctor", a blood gas or
   a clock time read as a date) is kept as ``Label.PHI`` (``deid.detection.plausibility``).
4. ``merge`` (rules + model): the recall-first merge of ``deid.detection.merge``: overlapping
   spans become one over the union of their characters, or the rules' exact extent plus what
   else the model flagged; no flagged alphanumeric character is lost.
5. ``extents``: a span grown over the parts of what it names left beside it: an identifier's or
   a town's hyphenated parts, a house number, the rest of a person's name (a known given name,
   an initial) (``deid.detection.extents``).
6. ``us_addresses``: a US address line ("16151 19 Mile Rd, Clinton Township, MI 48038") read as
   its parts, each labelled STREET, CITY, LOCATION or POSTCODE over what the merge made there
   (``deid.detection.addresses``): a relabel and a cut, every covered character still covered.
7. ``name_echoes``: a name found once is a name wherever its words, a nickname, a pet form or its
   initials appear again in the note (``deid.detection.echoes``): spans added, never removed.
8. ``hospital_towns``: a hospital right after another one and a comma is its town
   (``deid.detection.relabel``): a relabel.
9. ``birth_dates``: a date its field or verb names a birth date ("Fecha de nacimiento:", "née le",
   "DOB:"; every language) or, in French and English, right after a person's name and a comma is
   a birth date; a birth date in a field named for another date is a date: a relabel.
10. ``lines``: a span across a line break is cut into one span a line (no gold span of any corpus
   crosses one; the model's decoder already ends an entity there, ``deid.ner.text.breaks_line``):
   every character of a line stays covered; only the line breaks between leave the span.

Recall first: no step but ``measurements`` and ``own_words`` drops a span that a recognizer or
the model found (those drop on proof, not on doubt). A span a step doubts
is downgraded to the generic ``Label.PHI`` and still replaced; trimming removes only
whitespace, separators, titles and articles (``tests/detection/test_detection_pipeline.py`` feeds
every step a span it doubts and checks every alphanumeric character is still covered).

The evidence each step rests on (official strict F1 and label-agnostic relaxed recall on dev
and on the frozen held-out splits, the step on vs off, on the same cached model output) is in
``docs/benchmarks/ner.md`` (``bench/detection_sets.py --without STEP``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from deid.detection.addresses import read_us_addresses
from deid.detection.convention import conform
from deid.detection.echoes import echo_names
from deid.detection.extents import whole_extents
from deid.detection.measures import drop_measurements
from deid.detection.merge import merge
from deid.detection.own_words import drop_own_words
from deid.detection.plausibility import plausible
from deid.detection.relabel import tell_birth_dates, tell_hospital_towns
from deid.labels import DOUBTFUL
from deid.protocols.deadline import Deadline, check
from deid.spans import Span


@dataclass(frozen=True)
class Spans:
    """One text's spans as they go through the steps: the rules' and the model's until the
    merge, then ``merged``."""

    text: str
    language: str
    rules: tuple[Span, ...]
    model: tuple[Span, ...]
    merged: tuple[Span, ...] | None = field(default=None)
    # languages whose relatives named by a kinship word alone are PHI (MEDDOCAN's guideline;
    # ``DetectionSettings.kinship_words_phi``): none by default
    kinship_phi: frozenset[str] = field(default=frozenset())

    def output(self) -> list[Span]:
        if self.merged is None:
            raise ValueError("the pipeline has no merge step")
        return list(self.merged)


@dataclass(frozen=True)
class Step:
    name: str
    run: Callable[[Spans], Spans]
    what: str


def _conform(s: Spans) -> Spans:
    return replace(s, model=tuple(conform(s.model, s.text, doubtful=DOUBTFUL)))


def _measurements(s: Spans) -> Spans:
    return replace(s, model=tuple(drop_measurements(s.model, s.text, s.language)))


def _own_words(s: Spans) -> Spans:
    return replace(s, model=tuple(drop_own_words(s.model, s.text, s.language, kinship_phi=s.kinship_phi)))


def _plausible(s: Spans) -> Spans:
    return replace(s, model=tuple(plausible(s.model, s.text)))


def _merge(s: Spans) -> Spans:
    return replace(s, merged=tuple(merge(s.rules, s.model, s.text)))


def _after_merge(fn: Callable[[Spans], list[Span]]) -> Callable[[Spans], Spans]:
    def run(s: Spans) -> Spans:
        return replace(s, merged=tuple(fn(s)))

    return run


def split_at_lines(spans: Sequence[Span], text: str) -> list[Span]:
    """Every span cut at its line breaks into one span a line, each with the span's label; a piece
    of white space alone goes. No gold span of any corpus the project reads crosses a line break;
    a rule's or an extent's span that did made two mentions one ("Lincoln Ave" + "Chicago")."""
    out: list[Span] = []
    for s in spans:
        piece = text[s.start : s.end]
        if "\n" not in piece and "\r" not in piece:
            out.append(s)
            continue
        for m in _LINE_PIECE.finditer(piece):
            out.append(Span(s.start + m.start(), s.start + m.end(), s.label, s.source, s.score))
    return out


_LINE_PIECE = re.compile(r"[^\s](?:[^\r\n]*[^\s])?")  # a line's text, white space at its ends left out
PIPELINE: tuple[Step, ...] = (
    Step("conform", _conform, "model spans under the span convention; doubtful ones kept as PHI"),
    Step("measurements", _measurements, "model dates proven scores or measurements dropped"),
    Step("own_words", _own_words, "model spans whose own words name no one dropped (kinship, ward, clock)"),
    Step("plausible", _plausible, "model dates widened, initials joined; implausible ones kept as PHI"),
    Step("merge", _merge, "rules and model merged recall first"),
    Step("extents", _after_merge(lambda s: whole_extents(s.merged or (), s.text, s.language)),
         "spans grown over the glued parts, house numbers and name parts beside them"),
    Step("us_addresses", _after_merge(lambda s: read_us_addresses(s.merged or (), s.text, s.language)),
         "a US address line's street, town, state and ZIP code labelled as such"),
    Step("name_echoes", _after_merge(lambda s: echo_names(s.merged or (), s.text, s.language)),
         "a detected name's words, nicknames, pet forms and initials wherever they appear again"),
    Step("hospital_towns", _after_merge(lambda s: tell_hospital_towns(s.merged or (), s.text)),
         "a hospital after a hospital and a comma is its town"),
    Step("birth_dates", _after_merge(lambda s: tell_birth_dates(s.merged or (), s.text, s.language)),
         "a birth date by its field, or a date after a name and comma; not in another date's field"),
    Step("lines", _after_merge(lambda s: split_at_lines(s.merged or (), s.text)),
         "a span across a line break cut into one a line"),
)
STEP_NAMES: tuple[str, ...] = tuple(step.name for step in PIPELINE)


def run_pipeline(
    rule_spans: Sequence[Span], model_spans: Sequence[Span], text: str, language: str,
    steps: Sequence[Step] = PIPELINE, deadline: Deadline | None = None,
    kinship_phi: frozenset[str] = frozenset(),
) -> list[Span]:  # fmt: skip
    """One text's rule and model spans through ``steps`` (default: the whole pipeline), checking
    ``deadline`` (``deid.protocols.deadline``) before each step."""
    state = Spans(text, language, tuple(rule_spans), tuple(model_spans), kinship_phi=kinship_phi)
    for step in steps:
        check(deadline, step.name)
        state = step.run(state)
    return state.output()


def without(*names: str) -> tuple[Step, ...]:
    """The pipeline less the named steps (for measuring what each one buys); the merge stays."""
    unknown = set(names) - set(STEP_NAMES)
    if unknown or "merge" in names:
        raise ValueError(f"cannot leave out {sorted(unknown) or ['merge']}")
    return tuple(step for step in PIPELINE if step.name not in names)


def combine(rule_spans: Sequence[Span], model_spans: Sequence[Span], text: str, language: str,
            deadline: Deadline | None = None, kinship_phi: frozenset[str] = frozenset()) -> list[Span]:
    """One text's rule and model spans as the hybrid detector outputs them (``PIPELINE``)."""
    return run_pipeline(rule_spans, model_spans, text, language, deadline=deadline, kinship_phi=kinship_phi)
