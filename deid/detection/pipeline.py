"""The detection post-processing, one ordered pipeline of named steps.

What runs between the recognizers and substitution, in this order (``PIPELINE``):

1. ``conform`` (model spans): the project's span convention (``deid.detection.convention``):
   titles, articles, separators trimmed off the model's spans; whole French addresses are not
   split here. A span the convention has no place for (a title alone, "today", an article) is
   kept as ``Label.PHI``.
2. ``plausible`` (model spans): dates widened over the number they cut, a name grown over the
   initial glued before it; a span no reading of the text supports (a score written like a date,
   an elided article alone, a generic public service, "family" of "family doctor", a blood gas or
   a clock time read as a date) is kept as ``Label.PHI`` (``deid.detection.plausibility``).
3. ``merge`` (rules + model): the recall-first merge of ``deid.detection.merge``: overlapping
   spans become one over the union of their characters, or the rules' exact extent plus what
   else the model flagged; no flagged alphanumeric character is lost.
4. ``hospital_towns``: a hospital right after another one and a comma is its town
   (``deid.detection.relabel``): a relabel.
5. ``birth_dates``: a date its field or verb names a birth date ("Fecha de nacimiento:", "née le",
   "DOB:"; every language) or, in French and English, right after a person's name and a comma is
   a birth date; a birth date in a field named for another date is a date: a relabel.

Recall first: no step drops a span that a recognizer or the model found. A span a step doubts
is downgraded to the generic ``Label.PHI`` and still replaced; trimming removes only
whitespace, separators, titles and articles (``tests/core/test_detection_pipeline.py`` feeds
every step a span it doubts and checks every alphanumeric character is still covered).

The evidence each step rests on (official strict F1 and label-agnostic relaxed recall on dev
and on the frozen held-out splits, the step on vs off, on the same cached model output) is in
``docs/benchmarks/ner.md`` (``bench/detection_steps.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from deid.detection.convention import conform
from deid.detection.merge import merge
from deid.detection.plausibility import plausible
from deid.detection.relabel import tell_birth_dates, tell_hospital_towns
from deid.labels import DOUBTFUL
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


def _plausible(s: Spans) -> Spans:
    return replace(s, model=tuple(plausible(s.model, s.text)))


def _merge(s: Spans) -> Spans:
    return replace(s, merged=tuple(merge(s.rules, s.model, s.text)))


def _after_merge(fn: Callable[[Spans], list[Span]]) -> Callable[[Spans], Spans]:
    def run(s: Spans) -> Spans:
        return replace(s, merged=tuple(fn(s)))

    return run


PIPELINE: tuple[Step, ...] = (
    Step("conform", _conform, "model spans under the span convention; doubtful ones kept as PHI"),
    Step("plausible", _plausible, "model dates widened, initials joined; implausible ones kept as PHI"),
    Step("merge", _merge, "rules and model merged recall first"),
    Step("hospital_towns", _after_merge(lambda s: tell_hospital_towns(s.merged or (), s.text)),
         "a hospital after a hospital and a comma is its town"),
    Step("birth_dates", _after_merge(lambda s: tell_birth_dates(s.merged or (), s.text, s.language)),
         "a birth date by its field, or a date after a name and comma; not in another date's field"),
)
STEP_NAMES: tuple[str, ...] = tuple(step.name for step in PIPELINE)


def run_pipeline(
    rule_spans: Sequence[Span], model_spans: Sequence[Span], text: str, language: str,
    steps: Sequence[Step] = PIPELINE,
) -> list[Span]:  # fmt: skip
    """One text's rule and model spans through ``steps`` (default: the whole pipeline)."""
    state = Spans(text, language, tuple(rule_spans), tuple(model_spans))
    for step in steps:
        state = step.run(state)
    return state.output()


def without(*names: str) -> tuple[Step, ...]:
    """The pipeline less the named steps (for measuring what each one buys); the merge stays."""
    unknown = set(names) - set(STEP_NAMES)
    if unknown or "merge" in names:
        raise ValueError(f"cannot leave out {sorted(unknown) or ['merge']}")
    return tuple(step for step in PIPELINE if step.name not in names)


def combine(rule_spans: Sequence[Span], model_spans: Sequence[Span], text: str, language: str) -> list[Span]:
    """One text's rule and model spans as the hybrid detector outputs them (``PIPELINE``)."""
    return run_pipeline(rule_spans, model_spans, text, language)
