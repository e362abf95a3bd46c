"""Scores of a concept tagger (``deid.concepts``) against gold concept mentions, sentence by sentence.

Strict figures follow conlleval: a predicted mention is correct when its offsets and its type are
exactly those of a gold mention; precision, recall and F1 are micro averages (pooled counts), per
type and overall, and a ratio over nothing is 0 (conlleval's convention), never a division error.
Each side is deduplicated first, so a mention predicted twice counts once.

The relaxed figure ignores types and boundaries: a gold mention is found when any prediction
overlaps it, a prediction is correct when it overlaps any gold mention.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from deid.concepts import CONCEPT_TYPES, Concept


@dataclass(frozen=True, slots=True)
class ConceptScore:
    """Counts of one row. Strict rows have ``found == correct`` (the true positives)."""

    n_gold: int = 0
    n_pred: int = 0
    found: int = 0  # gold mentions matched (recall numerator)
    correct: int = 0  # predictions matching (precision numerator)

    def __post_init__(self) -> None:
        if not (0 <= self.found <= self.n_gold and 0 <= self.correct <= self.n_pred):
            raise ValueError("inconsistent counts")

    @property
    def precision(self) -> float:
        return self.correct / self.n_pred if self.n_pred else 0.0

    @property
    def recall(self) -> float:
        return self.found / self.n_gold if self.n_gold else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def __add__(self, other: ConceptScore) -> ConceptScore:
        return ConceptScore(self.n_gold + other.n_gold, self.n_pred + other.n_pred,
                            self.found + other.found, self.correct + other.correct)

    def to_dict(self) -> dict[str, Any]:
        return {"n_gold": self.n_gold, "n_pred": self.n_pred, "found": self.found, "correct": self.correct,
                "precision": self.precision, "recall": self.recall, "f1": self.f1}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ConceptScore:
        return cls(int(data["n_gold"]), int(data["n_pred"]), int(data["found"]), int(data["correct"]))


@dataclass(frozen=True, slots=True)
class ConceptRunInfo:
    """What was measured and how long the tagger took (not part of the metrics)."""

    corpus: str
    n_sentences: int
    tagger_version: str
    seconds: float  # time spent in the tagger

    @property
    def sentences_per_s(self) -> float | None:
        return self.n_sentences / self.seconds if self.seconds > 0 else None

    def to_dict(self) -> dict[str, Any]:
        return {"corpus": self.corpus, "n_sentences": self.n_sentences, "tagger_version": self.tagger_version,
                "seconds": self.seconds, "sentences_per_s": self.sentences_per_s}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ConceptRunInfo:
        return cls(str(data["corpus"]), int(data["n_sentences"]), str(data["tagger_version"]),
                   float(data["seconds"]))


@dataclass(frozen=True, slots=True)
class ConceptReport:
    """Strict scores per concept type (every type of ``CONCEPT_TYPES``, then any other type seen),
    their micro average, and the relaxed (overlap, any type) micro figure."""

    strict: dict[str, ConceptScore]
    relaxed: ConceptScore
    run: ConceptRunInfo | None = field(default=None)

    @property
    def micro(self) -> ConceptScore:
        out = ConceptScore()
        for score in self.strict.values():
            out = out + score
        return out

    def with_run(self, run: ConceptRunInfo) -> ConceptReport:
        return ConceptReport(self.strict, self.relaxed, run)

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": "concepts",
            "run": self.run.to_dict() if self.run is not None else None,
            "strict": {
                "types": {k: v.to_dict() for k, v in self.strict.items()},
                "micro": self.micro.to_dict(),
            },
            "relaxed": {"micro": self.relaxed.to_dict()},
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ConceptReport:
        run = data.get("run")
        return cls(
            strict={k: ConceptScore.from_dict(v) for k, v in data["strict"]["types"].items()},
            relaxed=ConceptScore.from_dict(data["relaxed"]["micro"]),
            run=ConceptRunInfo.from_dict(run) if run is not None else None,
        )

    def to_table(self) -> str:
        lines: list[str] = []
        if self.run is not None:
            r = self.run
            lines.append(f"corpus: {r.corpus} (conll), {r.n_sentences} sentences")
            rate = f", {r.sentences_per_s:.1f} sentences/s" if r.sentences_per_s is not None else ""
            lines.append(f"concept tagger: {r.tagger_version}, tagging {r.seconds:.2f} s{rate}")
            lines.append("")
        width = max([len("micro"), len("type"), *map(len, self.strict)]) + 2
        header = f"{'type':<{width}}" + "".join(f"{h:>8}" for h in ("gold", "pred", "tp", "P", "R", "F1"))
        lines += ["strict: exact offsets and type (conlleval), micro", header, "-" * len(header)]

        def row(name: str, s: ConceptScore) -> str:
            ratios = (f"{x:.3f}" for x in (s.precision, s.recall, s.f1))
            cells = [str(s.n_gold), str(s.n_pred), str(s.found), *ratios]
            return f"{name:<{width}}" + "".join(f"{c:>8}" for c in cells)

        lines += [row(name, score) for name, score in self.strict.items()]
        lines += ["-" * len(header), row("micro", self.micro), ""]
        x = self.relaxed
        lines.append(
            f"relaxed (overlap, any type): gold found {x.found}/{x.n_gold}, predictions correct "
            f"{x.correct}/{x.n_pred}, P {x.precision:.3f}, R {x.recall:.3f}, F1 {x.f1:.3f}"
        )
        return "\n".join(lines) + "\n"


_Key = tuple[int, int, str]


class ConceptEvaluator:
    """Accumulates the counts of sentences one at a time."""

    def __init__(self) -> None:
        self._gold: Counter[str] = Counter()
        self._pred: Counter[str] = Counter()
        self._tp: Counter[str] = Counter()
        self._relaxed = ConceptScore()

    def add(self, gold: Iterable[Concept], predicted: Iterable[Concept]) -> None:
        g: set[_Key] = {(c.start, c.end, c.type) for c in gold}
        p: set[_Key] = {(c.start, c.end, c.type) for c in predicted}
        self._gold.update(t for _, _, t in g)
        self._pred.update(t for _, _, t in p)
        self._tp.update(t for _, _, t in g & p)
        found = sum(any(_overlap(a, b) for b in p) for a in g)
        correct = sum(any(_overlap(b, a) for a in g) for b in p)
        self._relaxed = self._relaxed + ConceptScore(len(g), len(p), found, correct)

    def report(self) -> ConceptReport:
        seen = sorted((self._gold.keys() | self._pred.keys()) - set(CONCEPT_TYPES))
        strict = {t: ConceptScore(self._gold[t], self._pred[t], self._tp[t], self._tp[t])
                  for t in (*CONCEPT_TYPES, *seen)}
        return ConceptReport(strict, self._relaxed)


def _overlap(a: _Key, b: _Key) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def evaluate_concepts(
    gold: Sequence[Iterable[Concept]], predicted: Sequence[Iterable[Concept]]
) -> ConceptReport:
    """Score ``predicted[i]`` against ``gold[i]`` (the mentions of sentence ``i``) over a corpus."""
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold sentences but {len(predicted)} predictions")
    evaluator = ConceptEvaluator()
    for g, p in zip(gold, predicted, strict=True):
        evaluator.add(g, p)
    return evaluator.report()
