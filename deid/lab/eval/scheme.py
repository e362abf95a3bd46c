"""Scoring under a corpus's own annotation scheme (``deid eval --scheme``).

The product tags more than any one corpus annotates: ages in eds-pseudo notes (whose guideline has
no age label), relative dates ("hace 3 meses", tagged so the temporal mechanism can replace them;
MEDDOCAN and eds-pseudo leave them out), patient/staff/relative where eds-pseudo and ECHR only say
"person". Under the default scoring every such span is a false positive or a wrong label. The
projection asks the question the corpus was built to answer instead; before matching, each
predicted span is put into the corpus's label inventory:

- a label the corpus has stays;
- a label the corpus expresses more coarsely is renamed, for the listed pairs only
  (PATIENT/STAFF/RELATIVE -> PERSON, BIRTH_DATE -> DATE, HOSPITAL <-> ORG, any place -> LOCATION
  when that is the corpus's only place label);
- a label of a category the corpus does not annotate at all is dropped (AGE in eds-pseudo);
- a label the product keeps in the text by default (``KEPT_BY_DEFAULT``: SEX) is dropped where the
  corpus does not annotate it (the realistic corpus's guideline): such a span changes nothing in
  the output;
- a relative named by kinship alone ("son fils", "le père": lower case) is dropped where the
  corpus has no relative label: eds-pseudo and ECHR annotate persons by their names;
- anything else stays as predicted and is scored (an URL where the corpus only knows e-mails is
  still an error);
- a predicted date that lies inside a relative temporal expression is dropped where the corpus's
  guideline leaves those out (MEDDOCAN, eds-pseudo), whichever component found it;
- a predicted date that is a directed duration and nothing else ("in 3 months", "il y a 2 ans":
  ``deid.substitution.simple.is_duration``, which the profiles keep as written) is dropped where
  the guideline marks durations as no PHI (the realistic corpus); a weekday or a date stays.

The gold side is never touched. Both figures are worth reporting: the default one says how the
output matches the corpus, this one how the detector does on the corpus's own task.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from deid.lab.corpora.mapping import COARSER, TABLES
from deid.labels import KEPT_BY_DEFAULT, Category, Label
from deid.spans import Span
from deid.substitution.simple import is_duration

if TYPE_CHECKING:
    from deid.protocols import Recognizer

# Which corpus of the mapping table a reader format holds.
CORPUS_OF_FORMAT = {
    "brat": "meddocan",
    "eds-jsonl": "eds-pseudo",
    "eds-templates": "eds-pseudo",
    "echr-tsv": "echr",
}

# Corpora whose guideline marks a relative named by a kinship word alone ("su madre"), and in which
# language: the detector runs under that convention when it is scored on them (``deid eval``,
# ``bench/detection_sets.py``; ``DetectionSettings.kinship_words_phi``), the gold untouched.
KINSHIP_PHI: dict[str, frozenset[str]] = {"meddocan": frozenset({"es"})}

# Corpora whose guideline does not annotate relative temporal expressions.
_NO_RELATIVE_DATES = frozenset({"meddocan", "eds-pseudo"})


@dataclass(frozen=True)
class Scheme:
    corpus: str
    labels: frozenset[Label]
    drops_relative_dates: bool
    drops_durations: bool = False

    def project(self, spans: Iterable[Span], text: str, language: str) -> list[Span]:
        """Predicted spans of one text put into this corpus's inventory (module docstring)."""
        relative = relative_dates(text, language) if self.drops_relative_dates else []
        categories = {lab.category for lab in self.labels}
        out: list[Span] = []
        for span in spans:
            if span.label.category is Category.DATE and any(
                    r.start <= span.start and span.end <= r.end for r in relative):  # fmt: skip
                continue
            if (self.drops_durations and span.label.category is Category.DATE
                    and is_duration(text[span.start : span.end], language)):  # fmt: skip
                continue
            if span.label in self.labels:
                out.append(span)
                continue
            if span.label in KEPT_BY_DEFAULT:
                continue
            if span.label is Label.RELATIVE and text[span.start : span.end].islower():
                continue
            if span.label.category not in categories:
                continue
            coarser = next((lab for lab in COARSER.get(span.label, ()) if lab in self.labels), None)
            if coarser is not None:
                span = Span(span.start, span.end, coarser, span.source, span.score)
            out.append(span)
        return out


@cache
def _relative_date_recognizer() -> Recognizer:
    from deid.rules import build_recognizers

    (recognizer,) = build_recognizers(["relative_date"])
    return recognizer


def relative_dates(text: str, language: str) -> Sequence[Span]:
    """The relative temporal expressions of ``text`` ("hace 3 años"), as the rule finds them."""
    return _relative_date_recognizer().find(text, language)


def scheme_for(corpus: str) -> Scheme:
    """The scheme of a corpus named in ``deid.lab.corpora.mapping.TABLES``."""
    if corpus not in TABLES:
        raise KeyError(f"no annotation scheme for corpus {corpus!r}")
    labels = frozenset(lab for lab in TABLES[corpus].values() if lab is not None)
    return Scheme(corpus, labels, corpus in _NO_RELATIVE_DATES)


def scheme_for_format(fmt: str) -> Scheme:
    """The scheme of the corpus a reader format holds (``brat`` is MEDDOCAN's; ``realistic`` the
    project's own corpus, ``corpora/realistic/GUIDELINE.md``, whose labels are the project's)."""
    if fmt == "realistic":
        from deid.lab.corpora.realistic import LABELS

        return Scheme("realistic", frozenset(Label(name) for name in LABELS), drops_relative_dates=False,
                      drops_durations=True)
    if fmt not in CORPUS_OF_FORMAT:
        raise KeyError(f"no annotation scheme for format {fmt!r}")
    return scheme_for(CORPUS_OF_FORMAT[fmt])
