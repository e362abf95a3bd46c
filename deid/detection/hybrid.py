"""The hybrid detection stage: rule recognizers and (optionally) the NER model, merged recall first
through the ordered steps of ``deid.detection.pipeline``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from deid.detection.pipeline import combine
from deid.protocols import Detector
from deid.protocols.deadline import Deadline, detect_within
from deid.spans import Span

if TYPE_CHECKING:  # deid.rules imports the merge of this package: no import cycle at run time
    from deid.rules import RuleDetector


class HybridDetector:
    """Runs the rules and the model on the same batch and merges their spans per text."""

    def __init__(self, rules: RuleDetector, model: Detector | None = None, *,
                 kinship_phi: frozenset[str] = frozenset()) -> None:
        self.rules = rules
        self.model = model
        self.kinship_phi = kinship_phi  # ``DetectionSettings.kinship_words_phi``

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

    def detect(self, texts: Sequence[str], languages: Sequence[str], *,
               deadline: Deadline | None = None) -> list[list[Span]]:
        """``deadline`` (``deid.protocols.deadline``) goes to the rules, the model and every merge step."""
        if len(texts) != len(languages):
            raise ValueError("texts and languages differ in length")
        rule_spans = self.rules.detect(texts, languages, deadline=deadline)
        if self.model is None:
            return rule_spans
        model_spans = detect_within(self.model, texts, languages, deadline)
        return [combine(r, m, t, lang, deadline, kinship_phi=self.kinship_phi)
                for r, m, t, lang in zip(rule_spans, model_spans, texts, languages, strict=True)]
