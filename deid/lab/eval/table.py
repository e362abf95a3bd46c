"""A fixed-width text rendering of an ``EvalReport`` for a terminal or a log."""

from __future__ import annotations

from collections.abc import Sequence

from deid.lab.eval.report import EvalReport
from deid.lab.eval.scores import Score

_NAME_W = 12
_SEP = " |"


def _r(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def _pct(num: int, den: int) -> str:
    return f"{100 * num / den:.1f}%" if den else "-"


def _cells(name: str, groups: Sequence[Sequence[tuple[str, int]]]) -> str:
    """``name`` left-aligned, then groups of right-aligned (text, width) cells split by bars."""
    return f"{name:<{_NAME_W}}" + _SEP.join("".join(f"{t:>{w}}" for t, w in g) for g in groups)


def _counts(s: Score) -> list[tuple[str, int]]:
    return [(str(s.n_gold), 7), (str(s.n_pred), 7)]


def _strict(s: Score) -> list[tuple[str, int]]:
    return [(str(s.found), 7), (_r(s.precision), 7), (_r(s.recall), 7), (_r(s.f1), 7)]


def _relaxed(s: Score) -> list[tuple[str, int]]:
    return [(str(s.found), 7), (str(s.correct), 8), (_r(s.precision), 7), (_r(s.recall), 7), (_r(s.f1), 7)]


def _label_rows(report: EvalReport) -> list[str]:
    header = _cells(
        "label",
        [
            [("gold", 7), ("pred", 7)],
            [("tp", 7), ("P", 7), ("R", 7), ("F1", 7)],
            [("found", 7), ("correct", 8), ("P", 7), ("R", 7), ("F1", 7)],
        ],
    )
    title = _cells(
        "", [[("", 14)], [("strict: exact span+label", 28)], [("relaxed: overlap, any label", 36)]]
    )
    lines = [title, header, "-" * len(header)]
    for name, score in report.strict.items():
        relaxed = report.relaxed.get(name, Score())
        lines.append(_cells(name, [_counts(score), _strict(score), _relaxed(relaxed)]))
    lines.append("-" * len(header))
    micro = report.strict_micro
    lines.append(_cells("micro", [_counts(micro), _strict(micro), _relaxed(report.relaxed_micro)]))
    return lines


def _category_rows(report: EvalReport) -> list[str]:
    header = _cells("category", [[("gold", 7), ("pred", 7)], [("tp", 7), ("P", 7), ("R", 7), ("F1", 7)]])
    lines = ["strict by coarse category (exact span, same category)", header, "-" * len(header)]
    for name, score in report.category.items():
        lines.append(_cells(name, [_counts(score), _strict(score)]))
    lines.append("-" * len(header))
    micro = report.category_micro
    lines.append(_cells("micro", [_counts(micro), _strict(micro)]))
    return lines


_OFFICIAL_NAMES = {
    "ner_strict": "NER strict: exact span and corpus tag (headline)",
    "span_strict": "span strict: exact span, any tag",
    "span_merged": "span merged: spans joined over non-alphanumerics",
}


def _official_rows(report: EvalReport) -> list[str]:
    """The shared task's own micro scores, against the corpus's untouched gold and tags."""
    if not report.official:
        return []
    lines = ["official scores (MEDDOCAN evaluation rules, the corpus's own tags), micro:"]
    for key, name in _OFFICIAL_NAMES.items():
        s = report.official.get(key)
        if s is not None:
            lines.append(f"  {name:<52} P {_r(s.precision)}  R {_r(s.recall)}  F1 {_r(s.f1)}"
                         f"  (gold {s.n_gold}, pred {s.n_pred}, tp {s.found})")
    lines.append("")
    return lines


def render_table(report: EvalReport) -> str:
    lines: list[str] = []
    run = report.run
    if run is not None:
        lang = f", {run.language}" if run.language else ""
        part = f", {run.split} split" if run.split else ""
        lines.append(f"corpus: {run.corpus} ({run.format}{lang}{part}), {run.n_docs} documents")
        rate = f", {run.docs_per_s:.1f} docs/s" if run.docs_per_s is not None else ""
        lines.append(f"detector: {run.detector} {run.detector_version}, detection {run.seconds:.2f} s{rate}")
        if run.labels is not None:
            lines.append(f"labels: {' '.join(run.labels)}")
        lines.append("gold: projected onto the project's span convention (--convention)"
                     if run.gold_convention else "gold: the corpus's own annotations, every span untouched")
        if run.gold_changes:
            changed = ", ".join(f"{k} {v}" for k, v in run.gold_changes.items())
            lines.append(f"  the corpus's gold spans under the convention: {changed}")
        if run.scheme is not None:
            lines.append(f"predictions projected onto the {run.scheme} annotation scheme (--scheme)")
        lines.append("")
    lines += _official_rows(report)
    lines += _label_rows(report)
    lines.append("")
    lines += _category_rows(report)
    lines.append("")
    t = report.tokens
    lines.append(
        f"tokens (binary PHI, i2b2): gold {t.n_gold}, pred {t.n_pred}, tp {t.found}, "
        f"P {_r(t.precision)}, R {_r(t.recall)}, F1 {_r(t.f1)}"
    )
    lost = report.clinical_changed_per_1000
    if lost is not None:
        lines.append(f"clinical tokens changed: {t.n_pred - t.correct} of {report.n_tokens - t.n_gold} "
                     f"({lost:.1f} per 1,000)")
    c = report.coverage
    clean = c.n_docs - c.n_docs_with_phi + c.n_fully_covered
    lines.append(
        f"fully de-identified documents: {clean}/{c.n_docs} ({_pct(clean, c.n_docs)}); "
        f"of the {c.n_docs_with_phi} with PHI: {c.n_fully_covered} "
        f"({_pct(c.n_fully_covered, c.n_docs_with_phi)})"
    )
    lines.append(
        f"missed PHI characters: {c.missed_chars}/{c.phi_chars} ({_pct(c.missed_chars, c.phi_chars)})"
    )
    return "\n".join(lines) + "\n"
