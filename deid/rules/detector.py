"""All rule recognizers behind the ``Detector`` contract."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from deid import __version__
from deid.protocols import Recognizer
from deid.protocols.deadline import Deadline, check
from deid.rules.registry import build_recognizers
from deid.spans import Span, resolve


class RuleDetector:
    """Runs every recognizer (or those named) and resolves their overlaps (longest span's label
    wins, the union of characters is kept)."""

    def __init__(self, names: Iterable[str] | None = None,
                 recognizers: Sequence[Recognizer] | None = None) -> None:
        self.recognizers: list[Recognizer] = (
            list(recognizers) if recognizers is not None else build_recognizers(names)
        )
        self._rank = {f"rules.{r.name}": i for i, r in enumerate(self.recognizers)}

    @property
    def model_name(self) -> str:
        return "rules"

    @property
    def model_version(self) -> str:
        return __version__

    def find(self, text: str, language: str, deadline: Deadline | None = None) -> list[Span]:
        spans: list[Span] = []
        for recognizer in self.recognizers:
            check(deadline, "rules")  # between recognizers: each is linear in the text
            spans.extend(recognizer.find(text, language))
        check(deadline, "rules")
        return resolve(spans, self._choose)

    def _choose(self, group: Sequence[Span]) -> Span:
        """Longest span first; on a tie, the recognizer listed first (the more specific one)."""
        rank = self._rank
        return min(group, key=lambda s: (-s.length, rank.get(s.source, len(rank)), s.start))

    def detect(self, texts: Sequence[str], languages: Sequence[str], *,
               deadline: Deadline | None = None) -> list[list[Span]]:
        if len(texts) != len(languages):
            raise ValueError("texts and languages differ in length")
        return [self.find(t, lang, deadline) for t, lang in zip(texts, languages, strict=True)]
