"""The hybrid detection stage: rule recognizers and (optionally) the NER model, merged recall first."""

from __future__ import annotations

import re
from collections.abc import Sequence

from deid.convention import conform
from deid.detect import Detector
from deid.labels import Label
from deid.merge import merge
from deid.rules import RuleDetector
from deid.spans import Span

# "Mme PALSKY, 28 Oct 1990": a date right after a person's name and a comma is that person's
# birth date (every such pair in the French training corpora: 10 of 10). MEDDOCAN tags every
# Spanish date FECHAS, so Spanish dates keep DATE, as in the date rule.
_NAME_DATE_GAP = re.compile(r"[ \t]*,[ \t]*")  # same line: a signature's date on the next line is not


def birth_dates_after_names(spans: Sequence[Span], text: str, language: str) -> list[Span]:
    """``spans`` with each DATE that directly follows a PATIENT or PERSON name relabelled BIRTH_DATE."""
    if language == "es":
        return list(spans)
    out = list(spans)
    for i in range(1, len(out)):
        prev, cur = out[i - 1], out[i]
        if (cur.label is Label.DATE and prev.label in (Label.PATIENT, Label.PERSON)
                and _NAME_DATE_GAP.fullmatch(text, prev.end, cur.start)):  # fmt: skip
            out[i] = Span(cur.start, cur.end, Label.BIRTH_DATE, cur.source, cur.score)
    return out


class HybridDetector:
    """Runs the rules and the model on the same batch and merges their spans per text."""

    def __init__(self, rules: RuleDetector, model: Detector | None = None) -> None:
        self.rules = rules
        self.model = model

    @property
    def model_name(self) -> str:
        if self.model is None:
            return self.rules.model_name
        return f"{self.model.model_name}+{self.rules.model_name}"

    @property
    def model_version(self) -> str:
        if self.model is None:
            return self.rules.model_version
        return f"{self.model.model_version}+{self.rules.model_name}-{self.rules.model_version}"

    def detect(self, texts: Sequence[str], languages: Sequence[str]) -> list[list[Span]]:
        if len(texts) != len(languages):
            raise ValueError("texts and languages differ in length")
        rule_spans = self.rules.detect(texts, languages)
        if self.model is None:
            return rule_spans
        model_spans = self.model.detect(texts, languages)
        return [combine(r, m, t, lang) for r, m, t, lang in zip(rule_spans, model_spans, texts, languages,
                                                                 strict=True)]


def combine(rule_spans: Sequence[Span], model_spans: Sequence[Span], text: str, language: str) -> list[Span]:
    """One text's rule and model spans as the hybrid detector outputs them: the model's spans put
    under the span convention, merged recall first, birth dates told apart."""
    return birth_dates_after_names(merge(rule_spans, conform(model_spans, text), text), text, language)
