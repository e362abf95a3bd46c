"""Span-level matching of one document: strict (exact offsets and label) and relaxed (overlap).

Spans are deduplicated by (offsets, key) on each side first: two recognizers reporting the same
mention are one prediction, not a correct one plus a false positive.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable

from deid.lab.eval.scores import Score
from deid.spans import Span

SpanKey = Callable[[Span], str]


def by_label(span: Span) -> str:
    return span.label.value


def by_category(span: Span) -> str:
    return span.label.category.value


def char_mask(intervals: Iterable[tuple[int, int]], length: int) -> bytearray:
    """One byte per character of the text: 1 where some interval covers it (clipped to the text)."""
    mask = bytearray(length)
    for start, end in intervals:
        start, end = min(start, length), min(end, length)
        if start < end:
            mask[start:end] = b"\x01" * (end - start)
    return mask


def strict_counts(gold: Iterable[Span], pred: Iterable[Span], key: SpanKey = by_label) -> dict[str, Score]:
    """Per key (fine label or category): a match has the same offsets and the same key."""
    g = {(s.start, s.end, key(s)) for s in gold}
    p = {(s.start, s.end, key(s)) for s in pred}
    n_gold = Counter(k for _, _, k in g)
    n_pred = Counter(k for _, _, k in p)
    hits = Counter(k for _, _, k in g & p)
    return {k: Score(n_gold[k], n_pred[k], hits[k], hits[k]) for k in n_gold.keys() | n_pred.keys()}


def relaxed_counts(
    gold: Iterable[Span], pred: Iterable[Span], length: int, key: SpanKey = by_label
) -> dict[str, Score]:
    """Per key, but labels play no part in matching: a gold span is found if any prediction
    overlaps it (counted under the gold span's key); a prediction is correct if it overlaps any
    gold span (counted under its own key)."""
    g = {(s.start, s.end, key(s)) for s in gold}
    p = {(s.start, s.end, key(s)) for s in pred}
    gold_mask = char_mask(((a, b) for a, b, _ in g), length)
    pred_mask = char_mask(((a, b) for a, b, _ in p), length)
    n_gold: Counter[str] = Counter()
    found: Counter[str] = Counter()
    n_pred: Counter[str] = Counter()
    correct: Counter[str] = Counter()
    for start, end, k in g:
        n_gold[k] += 1
        found[k] += pred_mask.find(1, start, end) != -1
    for start, end, k in p:
        n_pred[k] += 1
        correct[k] += gold_mask.find(1, start, end) != -1
    return {k: Score(n_gold[k], n_pred[k], found[k], correct[k]) for k in n_gold.keys() | n_pred.keys()}


def add_into(acc: dict[str, Score], counts: dict[str, Score]) -> None:
    """Accumulate per-key counts of one document into corpus totals."""
    for k, score in counts.items():
        acc[k] = acc[k] + score if k in acc else score


def relaxed_errors(gold: Iterable[Span], pred: Iterable[Span], length: int) -> list[tuple[str, Span]]:
    """The spans ``relaxed_counts`` counts wrong, in text order: ("false_positive", span) for a
    prediction that overlaps no gold span, ("missed", span) for a gold span no prediction
    overlaps. Duplicates (same offsets and label) are listed once."""
    g = sorted({(s.start, s.end, s.label): s for s in gold}.values(), key=lambda s: (s.start, s.end))
    p = sorted({(s.start, s.end, s.label): s for s in pred}.values(), key=lambda s: (s.start, s.end))
    gold_mask = char_mask(((s.start, s.end) for s in g), length)
    pred_mask = char_mask(((s.start, s.end) for s in p), length)
    errors = [("missed", s) for s in g if pred_mask.find(1, s.start, s.end) == -1]
    errors += [("false_positive", s) for s in p if gold_mask.find(1, s.start, s.end) == -1]
    return sorted(errors, key=lambda e: (e[1].start, e[1].end, e[0]))
