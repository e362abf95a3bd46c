"""The hybrid detection stage: rule recognizers and (optionally) the NER model, merged recall first."""

from __future__ import annotations

import re
from collections.abc import Sequence

from deid.detect import Detector
from deid.labels import Category
from deid.merge import merge
from deid.rules import RuleDetector
from deid.spans import Span

# Courtesy titles and honorifics are not part of a name in any of the corpora (MEDDOCAN,
# eds-pseudo): the model sometimes tags them, so they are trimmed off person spans.
_TITLE = re.compile(
    r"(?:m|mr|mme|mlle|mrs|ms|dr|dre|dra|pr|prof|sr|sra|srta|don|doña|docteur|professeur|madame|"
    r"monsieur|mademoiselle|señor|señora|doctor|doctora)\.?(?:\s+|$)",
    re.IGNORECASE,
)


def trim_titles(spans: Sequence[Span], text: str) -> list[Span]:
    """Person spans without their leading courtesy titles; a span that is only a title goes."""
    out: list[Span] = []
    for s in spans:
        if s.label.category is not Category.PER:
            out.append(s)
            continue
        start = s.start
        while (m := _TITLE.match(text, start, s.end)) is not None and m.end() > start:
            start = m.end()
        if start < s.end:
            out.append(Span(start, s.end, s.label, s.source, s.score) if start != s.start else s)
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
        return [merge(r, trim_titles(m, t), t)
                for r, m, t in zip(rule_spans, model_spans, texts, strict=True)]
