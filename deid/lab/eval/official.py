"""The shared task's own scores (MEDDOCAN evaluation script, after i2b2 2014), on the corpus's tags.

The MEDDOCAN script (PlanTL-GOB-ES/MEDDOCAN-Evaluation-Script, ``classes.py``) scores a system's
BRAT files against the gold ones, per document, as sets, and micro-averages over documents:

- **NER, strict** (subtrack 1, the headline): a hit is a system annotation with the same start,
  end and corpus tag as a gold one (``CENTRO_SALUD`` is not ``HOSPITAL``);
- **span, strict** (subtrack 2): the same start and end, any tag;
- **span, merged** (subtrack 2): spans of each side first merged when only non-alphanumeric
  characters lie between them; a strict or merged hit counts, and a span contained in a hit is
  neither missed nor spurious.

Gold spans are the corpus's own, untouched (``read_corpus(..., convention=False)``), with the
corpus tag each reader keeps in ``Span.source``. Predictions are written in the corpus's tags by
a fixed table (``deid.lab.corpora.mapping.export_label``), as a participant's output writer would:
a project label the corpus has no name for keeps its own and matches nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from deid.lab.corpora.mapping import TABLES, export_label
from deid.lab.corpora.readers import corpus_label
from deid.lab.eval.scores import Score
from deid.spans import Span

NER_STRICT = "ner_strict"
SPAN_STRICT = "span_strict"
SPAN_MERGED = "span_merged"


def gold_tag(span: Span) -> str:
    """The corpus's own tag of a gold span."""
    return corpus_label(span) or span.label.value


def pred_tag(span: Span, corpus: str | None) -> str:
    """A predicted span's tag as a participant's writer puts it in ``corpus``'s tags."""
    if corpus is None or corpus not in TABLES:
        return span.label.value
    return export_label(corpus, span.label)


def _merged(spans: Iterable[tuple[int, int]], text: str) -> set[tuple[int, int]]:
    """Sorted spans, each joined to the previous one when only non-alphanumerics lie between."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and not any(c.isalnum() for c in text[out[-1][1] : start]):
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return set(out)


def _contained(span: tuple[int, int], container: Iterable[tuple[int, int]]) -> bool:
    return any(a <= span[0] and span[1] <= b for a, b in container)


def official_counts(
    gold: Iterable[Span], pred: Iterable[Span], text: str, corpus: str | None
) -> dict[str, Score]:
    """One document's counts under the three official measures (module docstring)."""
    gold, pred = list(gold), list(pred)
    g_ner = {(gold_tag(s), s.start, s.end) for s in gold}
    p_ner = {(pred_tag(s, corpus), s.start, s.end) for s in pred}
    tp = len(g_ner & p_ner)
    out = {NER_STRICT: Score(len(g_ner), len(p_ner), tp, tp)}
    g_span = {(s.start, s.end) for s in gold}
    p_span = {(s.start, s.end) for s in pred}
    tp = len(g_span & p_span)
    out[SPAN_STRICT] = Score(len(g_span), len(p_span), tp, tp)
    hits = (g_span & p_span) | (_merged(g_span, text) & _merged(p_span, text))
    fp = {s for s in p_span - g_span if not _contained(s, hits)}
    fn = {s for s in g_span - p_span if not _contained(s, hits)}
    tp = len(hits)
    out[SPAN_MERGED] = Score(tp + len(fn), tp + len(fp), tp, tp)
    return out
