"""Fuzz the note text through detection: the rule recognizers and the post-processing pipeline
(``deid.detection``), with a stub model standing in for the token classifier (no weights: fast).

Whatever the text (random unicode, adversarial repetitions of what the patterns repeat, clinical
fragments glued together) and whatever the stub model flags (spans anywhere, any label), the
detector's spans lie inside the text, are sorted and do not overlap, and the CPU time is bounded
linearly in the text's length. ``tests/rules/test_linear_time.py`` times each recognizer alone on
100k characters; here the whole detector runs on what hypothesis draws.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pytest
from fuzz_testkit import budget, outcome, within
from hypothesis import given
from hypothesis import strategies as st

from deid.detection import HybridDetector
from deid.labels import Label
from deid.rules import RuleDetector
from deid.spans import Span

LANGUAGES = ("fr", "es", "en")
# 50 ms plus 40 µs per character of CPU (measured: 3 to 5 µs per character on clinical text).
BASE_S, PER_CHAR_S = 0.05, 40e-6
# What the patterns repeat (separators, digit groups, titles, cues) and what the post-processing
# reads (names, initials, kinship words, hospitals, dates, measurements).
PIECES = ("a-", "a:", "- ", ". ", "/", "1/1/", "12 12 ", "a.a.", "Aa Aa ", "-", "@", "(", " ", "\n", "Dr. ",
          "M. ", "MRN ", "IPP: 1-", "n° ", "tel ", "+33 ", "0 1 ", "www.a-", "a@a.", "FR76 ", "1.", "::",
          "J.", "Jean ", "DUPONT ", "de ", "CHU de ", "né le ", "DOB: ", "12/03/1961 ", "EVA 4/10 ", "Mme ",
          "su hija ", "his wife ", "calle ", "rue ", "75013 ", "Lyon, ", "años ", "ans ", "y/o ", "\t", "é")
FRAGMENTS = ("Le patient Jean DUPONT, né le 12/03/1961, est suivi au CHU de Lyon.",
             "Appeler Mme Dupont au 06 12 34 56 78 ou jean.dupont@example.fr.",
             "Paciente de 45 años, DNI 12345678Z, vive en la calle Mayor 3, Madrid.",
             "Seen by Dr. Gregory House on 3/9/2024; MRN 7700123; his wife Margaret called.",
             "EVA 4/10, TA 13/8, IPP: 1-2345, NIR 1 85 03 75 123 456 78.",
             "Hôpital Saint-Louis, Paris 10e; RPPS 10003456789; IBAN FR76 3000 6000 0112 3456 7890 189.")

unicode_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=300)


@st.composite
def adversarial(draw: st.DrawFn) -> str:
    """A piece repeated a few thousand times, maybe between two fragments and with a cue before."""
    piece = draw(st.sampled_from(PIECES) | st.text(min_size=1, max_size=4))
    run = piece * draw(st.integers(1, 20_000 // len(piece)))
    return draw(st.sampled_from(("", *FRAGMENTS))) + run + draw(st.sampled_from(("", "x", ")", *FRAGMENTS)))


glued = st.lists(st.sampled_from(FRAGMENTS) | st.sampled_from(PIECES) | unicode_text,
                 max_size=12).map("".join)
texts = unicode_text | adversarial() | glued


class StubModel:
    """A token classifier's output without a model: the spans ``draw`` chose, non-overlapping and
    sorted as a BIO tagger gives them, of any label."""

    model_name = "stub"
    model_version = "0"

    def __init__(self, spans: Sequence[Span]) -> None:
        self.spans = list(spans)

    def detect(self, texts: Sequence[str], languages: Sequence[str]) -> list[list[Span]]:
        return [list(self.spans) for _ in texts]


@st.composite
def model_spans(draw: st.DrawFn, text: str) -> list[Span]:
    if not text:
        return []
    cuts = sorted(set(draw(st.lists(st.integers(0, len(text)), max_size=12))))
    spans = []
    for start, end in zip(cuts[::2], cuts[1::2], strict=False):
        if start < end:
            spans.append(Span(start, end, draw(st.sampled_from(list(Label))), "ner", draw(st.floats(0, 1))))
    return spans


RULES = RuleDetector()


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    """Word lists and patterns loaded once, untimed: the bound is on each text's own cost."""
    for lang in LANGUAGES:
        HybridDetector(RULES, StubModel([Span(0, 4, Label.PERSON)])).detect([" ".join(FRAGMENTS)], [lang])


def _check_spans(spans: Sequence[Span], text: str) -> None:
    for span in spans:
        assert 0 <= span.start < span.end <= len(text), span
        assert isinstance(span.label, Label)
    assert list(spans) == sorted(spans, key=lambda s: (s.start, s.end)), spans
    for before, after in itertools.pairwise(spans):
        assert before.end <= after.start, (before, after)


@budget(1.5)
@given(st.data(), texts, st.sampled_from(LANGUAGES))
def test_the_detectors_spans_lie_in_the_text_sorted_and_apart(data: st.DataObject, text: str,
                                                              lang: str) -> None:
    stub = StubModel(data.draw(model_spans(text)))
    detector = HybridDetector(RULES, stub)
    spans = within(lambda: detector.detect([text], [lang])[0], size=len(text), base_s=BASE_S,
                   per_unit_s=PER_CHAR_S)
    outcome("spans" if spans else "none")
    _check_spans(spans, text)
    # every character a recognizer or the model flagged stays flagged (recall first), except
    # what the post-processing drops on proof (measurements, a ward's or a kinship word) and
    # what it trims (blanks, separators, titles, articles): checked on letters and digits of
    # the rules' own spans, which nothing drops
    covered = {i for s in spans for i in range(s.start, s.end)}
    for span in RULES.detect([text], [lang])[0]:
        lost = [i for i in range(span.start, span.end) if text[i].isalnum() and i not in covered]
        assert not lost, (span, lost[:5])


@budget(1.0)
@given(texts, st.sampled_from(LANGUAGES))
def test_the_rules_alone_give_spans_in_the_text_in_linear_time(text: str, lang: str) -> None:
    spans = within(lambda: RULES.detect([text], [lang])[0], size=len(text), base_s=BASE_S,
                   per_unit_s=PER_CHAR_S)
    _check_spans(spans, text)
