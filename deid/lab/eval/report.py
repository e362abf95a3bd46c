"""The evaluation of a detector on a gold corpus: one report, serializable to JSON.

``evaluate`` is a pure function of the gold documents and the predicted spans; ``Evaluator`` is
the same computation fed one document at a time, so a caller can stream a corpus through a
detector in batches.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from deid.lab.eval.coverage import Coverage, document_coverage
from deid.lab.eval.matching import (
    add_into,
    by_category,
    char_mask,
    relaxed_counts,
    relaxed_errors,
    strict_counts,
)
from deid.lab.eval.official import official_counts
from deid.lab.eval.scores import Score, total
from deid.lab.eval.tokens import token_counts
from deid.labels import Category, Label
from deid.spans import Document, Span

_LABEL_ORDER = {lab.value: i for i, lab in enumerate(Label)}
_CATEGORY_ORDER = {cat.value: i for i, cat in enumerate(Category)}


@dataclass(frozen=True, slots=True)
class RunInfo:
    """What was measured and how long it took (not part of the metrics)."""

    corpus: str
    format: str
    n_docs: int
    detector: str
    detector_version: str
    seconds: float  # time spent in the detector
    language: str | None = None
    labels: tuple[str, ...] | None = None  # the --labels restriction, if any
    scheme: str | None = None  # the corpus whose scheme predictions were projected onto (--scheme)
    gold_convention: bool = False  # gold projected onto the project's span convention (--convention)
    # with --convention: how many of the corpus's gold spans it left unchanged, trimmed, split,
    # joined or dropped (deid.lab.eval.projection)
    gold_changes: dict[str, int] | None = None
    split: str | None = None  # the realistic corpus's split scored (--split), None for all notes

    @property
    def docs_per_s(self) -> float | None:
        return self.n_docs / self.seconds if self.seconds > 0 else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "corpus": self.corpus,
            "format": self.format,
            "split": self.split,
            "language": self.language,
            "n_docs": self.n_docs,
            "detector": self.detector,
            "detector_version": self.detector_version,
            "seconds": self.seconds,
            "docs_per_s": self.docs_per_s,
            "labels": list(self.labels) if self.labels is not None else None,
            "scheme": self.scheme,
            "gold": "convention" if self.gold_convention else "corpus",
            "gold_changes": self.gold_changes,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunInfo:
        labels = data.get("labels")
        return cls(
            corpus=str(data["corpus"]),
            format=str(data["format"]),
            n_docs=int(data["n_docs"]),
            detector=str(data["detector"]),
            detector_version=str(data["detector_version"]),
            seconds=float(data["seconds"]),
            language=data.get("language"),
            labels=tuple(labels) if labels is not None else None,
            scheme=data.get("scheme"),
            gold_convention=data.get("gold") == "convention",
            gold_changes=data.get("gold_changes"),
            split=data.get("split"),
        )


@dataclass(frozen=True, slots=True)
class EvalReport:
    """Span scores keyed by fine label (``strict``, ``relaxed``) and by coarse category
    (``category``, strict offsets); micro averages are the pooled counts of the rows.

    Relaxed rows: recall counts gold spans of that label overlapped by any prediction; precision
    counts predictions of that label overlapping any gold span.
    """

    strict: dict[str, Score]
    relaxed: dict[str, Score]
    category: dict[str, Score]
    tokens: Score
    coverage: Coverage
    run: RunInfo | None = field(default=None)
    # the shared task's own measures on the corpus's tags (``deid.lab.eval.official``): ner_strict
    # (the headline), span_strict, span_merged
    official: dict[str, Score] = field(default_factory=dict)
    n_tokens: int = 0  # every token of the corpus (``deid.lab.eval.tokens``), PHI or not

    @property
    def clinical_changed_per_1000(self) -> float | None:
        """Tokens outside every gold span that some prediction covers, per 1,000 such tokens: the
        clinical text an analyst loses to over-redaction (precision read on the reader's side)."""
        clinical = self.n_tokens - self.tokens.n_gold
        return 1000 * (self.tokens.n_pred - self.tokens.correct) / clinical if clinical > 0 else None

    @property
    def strict_micro(self) -> Score:
        return total(self.strict)

    @property
    def relaxed_micro(self) -> Score:
        return total(self.relaxed)

    @property
    def category_micro(self) -> Score:
        return total(self.category)

    def with_run(self, run: RunInfo) -> EvalReport:
        return EvalReport(self.strict, self.relaxed, self.category, self.tokens, self.coverage, run,
                          self.official, self.n_tokens)

    def to_dict(self) -> dict[str, Any]:
        def rows(scores: dict[str, Score]) -> dict[str, Any]:
            return {k: v.to_dict() for k, v in scores.items()}

        return {
            "run": self.run.to_dict() if self.run is not None else None,
            "official": {k: v.to_dict() for k, v in self.official.items()},
            "strict": {"labels": rows(self.strict), "micro": self.strict_micro.to_dict()},
            "relaxed": {"labels": rows(self.relaxed), "micro": self.relaxed_micro.to_dict()},
            "category_strict": {"categories": rows(self.category), "micro": self.category_micro.to_dict()},
            "tokens": self.tokens.to_dict(),
            "n_tokens": self.n_tokens,
            "clinical_changed_per_1000": self.clinical_changed_per_1000,
            "coverage": self.coverage.to_dict(),
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EvalReport:
        def rows(section: dict[str, Any]) -> dict[str, Score]:
            return {k: Score.from_dict(v) for k, v in section.items()}

        return cls(
            strict=rows(data["strict"]["labels"]),
            relaxed=rows(data["relaxed"]["labels"]),
            category=rows(data["category_strict"]["categories"]),
            tokens=Score.from_dict(data["tokens"]),
            coverage=Coverage.from_dict(data["coverage"]),
            run=RunInfo.from_dict(data["run"]) if data.get("run") is not None else None,
            official={k: Score.from_dict(v) for k, v in data.get("official", {}).items()},
            n_tokens=int(data.get("n_tokens", 0)),
        )

    @classmethod
    def from_json(cls, text: str) -> EvalReport:
        return cls.from_dict(json.loads(text))


class Evaluator:
    """Accumulates the scores of documents one at a time.

    ``labels``: evaluate only these fine labels; gold and predicted spans of other labels are
    dropped on both sides before matching, as if neither corpus nor detector knew them.
    ``corpus``: the corpus of ``deid.lab.corpora.mapping.TABLES`` whose tags the official scores
    write predictions in (``deid.lab.eval.official``).
    """

    def __init__(self, labels: Collection[Label] | None = None, corpus: str | None = None) -> None:
        self.labels = frozenset(labels) if labels is not None else None
        self.corpus = corpus
        self._official: dict[str, Score] = {}
        self._strict: dict[str, Score] = {}
        self._relaxed: dict[str, Score] = {}
        self._category: dict[str, Score] = {}
        self._tokens = Score()
        self._n_tokens = 0
        self._coverage = Coverage()

    def add(self, doc: Document, predicted: Iterable[Span]) -> None:
        gold = self._keep(doc.spans)
        pred = self._keep(predicted)
        length = len(doc.text)
        add_into(self._strict, strict_counts(gold, pred))
        add_into(self._relaxed, relaxed_counts(gold, pred, length))
        add_into(self._category, strict_counts(gold, pred, by_category))
        add_into(self._official, official_counts(gold, pred, doc.text, self.corpus))
        gold_mask = char_mask(((s.start, s.end) for s in gold), length)
        pred_mask = char_mask(((s.start, s.end) for s in pred), length)
        tokens, n_tokens = token_counts(doc.text, gold_mask, pred_mask)
        self._tokens = self._tokens + tokens
        self._n_tokens += n_tokens
        self._coverage = self._coverage + document_coverage(doc.text, gold_mask, pred_mask)

    def report(self) -> EvalReport:
        def ordered(scores: dict[str, Score], order: dict[str, int]) -> dict[str, Score]:
            return dict(sorted(scores.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))

        return EvalReport(
            strict=ordered(self._strict, _LABEL_ORDER),
            relaxed=ordered(self._relaxed, _LABEL_ORDER),
            category=ordered(self._category, _CATEGORY_ORDER),
            tokens=self._tokens,
            coverage=self._coverage,
            official=dict(self._official),
            n_tokens=self._n_tokens,
        )

    def errors(self, doc: Document, predicted: Iterable[Span]) -> list[tuple[str, Span]]:
        """The relaxed errors of one document under the same label filter as the scores
        (``relaxed_errors``): what ``deid eval --errors`` lists."""
        return relaxed_errors(self._keep(doc.spans), self._keep(predicted), len(doc.text))

    def _keep(self, spans: Iterable[Span]) -> list[Span]:
        if self.labels is None:
            return list(spans)
        return [s for s in spans if s.label in self.labels]


def evaluate(
    gold: Sequence[Document],
    predicted: Sequence[Iterable[Span]],
    labels: Collection[Label] | None = None,
    corpus: str | None = None,
) -> EvalReport:
    """Score ``predicted[i]`` against ``gold[i].spans`` over the whole corpus."""
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold documents but {len(predicted)} predictions")
    evaluator = Evaluator(labels, corpus)
    for doc, pred in zip(gold, predicted, strict=True):
        evaluator.add(doc, pred)
    return evaluator.report()
