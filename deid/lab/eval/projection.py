"""What projecting gold onto the project's span convention changed (``deid eval --convention``).

The convention (``deid.detection.convention``) rewrites gold spans; the report says how many it
rewrote and how, so a score under the convention is never mistaken for one on the corpus's gold.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from deid.spans import Document

KINDS = ("unchanged", "trimmed", "split", "joined", "dropped")


def gold_changes(raw: Sequence[Document], projected: Sequence[Document]) -> dict[str, int]:
    """Counts of the corpus's gold spans left ``unchanged``, ``trimmed`` (one shorter span),
    ``split`` (into several), ``joined`` (several into one: eds-pseudo first + last names) or
    ``dropped`` (no span left: a title alone, "today", punctuation)."""
    counts: Counter[str] = Counter(dict.fromkeys(KINDS, 0))
    for r, p in zip(raw, projected, strict=True):
        if r.text != p.text:
            raise ValueError(f"{r.doc_id}: the two readings hold different texts")
        for g in r.spans:
            inside = [s for s in p.spans if s.overlaps(g)]
            if not inside:
                counts["dropped"] += 1
            elif len(inside) > 1:
                counts["split"] += 1
            elif (inside[0].start, inside[0].end) == (g.start, g.end):
                counts["unchanged"] += 1
            elif g.start <= inside[0].start and inside[0].end <= g.end:
                counts["trimmed"] += 1
            else:
                counts["joined"] += 1
    return {k: counts[k] for k in KINDS}
