"""Scoring under a corpus's own annotation scheme (``deid eval --scheme``).

The product tags more than any one corpus annotates: ages in eds-pseudo notes (whose guideline has
no age label), relative dates ("hace 3 meses", tagged so the temporal mechanism can replace them;
MEDDOCAN and eds-pseudo leave them out), patient/staff/relative where eds-pseudo and ECHR only say
"person". Under the default scoring every such span is a false positive or a wrong label. The
projection asks the question the corpus was built to answer instead: each predicted span is put
into the corpus's label inventory before matching:

- a label the corpus has stays;
- a label whose coarse category the corpus covers with exactly one label becomes that label
  (PATIENT -> PERSON in eds-pseudo, BIRTH_DATE -> DATE in MEDDOCAN, ORG -> HOSPITAL in eds-pseudo);
- a label whose category the corpus does not annotate at all is dropped (AGE in eds-pseudo);
- anything else (a category the corpus splits several ways) stays as predicted and is scored.

Spans of a recognizer whose expressions the corpus guideline excludes are dropped too (relative
dates for MEDDOCAN and eds-pseudo). The gold side is never touched. Both figures are worth
reporting: the default one says how the output matches the corpus, this one how the detector
does on the corpus's own task.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from deid.corpora.mapping import TABLES
from deid.labels import Label
from deid.spans import Span

# Which corpus of the mapping table a reader format holds.
CORPUS_OF_FORMAT = {
    "brat": "meddocan",
    "eds-jsonl": "eds-pseudo",
    "eds-templates": "eds-pseudo",
    "echr-tsv": "echr",
}

# Recognizers whose expressions a corpus's guideline does not annotate.
_EXCLUDED_SOURCES = {
    "meddocan": frozenset({"rules.relative_date"}),
    "eds-pseudo": frozenset({"rules.relative_date"}),
    "echr": frozenset(),
}


@dataclass(frozen=True)
class Scheme:
    corpus: str
    labels: frozenset[Label]
    excluded_sources: frozenset[str]

    def project(self, spans: Iterable[Span]) -> list[Span]:
        """Predicted spans put into this corpus's inventory (see the module docstring)."""
        out: list[Span] = []
        for span in spans:
            if span.source in self.excluded_sources:
                continue
            if span.label in self.labels:
                out.append(span)
                continue
            same_category = [lab for lab in self.labels if lab.category is span.label.category]
            if not same_category:
                continue
            if len(same_category) == 1:
                out.append(Span(span.start, span.end, same_category[0], span.source, span.score))
            else:
                out.append(span)
        return out


def scheme_for(corpus: str) -> Scheme:
    """The scheme of a corpus named in ``deid.corpora.mapping.TABLES``."""
    if corpus not in TABLES:
        raise KeyError(f"no annotation scheme for corpus {corpus!r}")
    labels = frozenset(lab for lab in TABLES[corpus].values() if lab is not None)
    return Scheme(corpus, labels, _EXCLUDED_SOURCES.get(corpus, frozenset()))


def scheme_for_format(fmt: str) -> Scheme:
    """The scheme of the corpus a reader format holds (``brat`` is MEDDOCAN's)."""
    if fmt not in CORPUS_OF_FORMAT:
        raise KeyError(f"no annotation scheme for format {fmt!r}")
    return scheme_for(CORPUS_OF_FORMAT[fmt])
