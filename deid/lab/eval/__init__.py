"""Evaluation of a detector against gold annotations: span-level strict and relaxed scores per
label and per category, token-level binary PHI scores (i2b2), and residual PHI per document."""

from deid.lab.eval.coverage import Coverage
from deid.lab.eval.report import EvalReport, Evaluator, RunInfo, evaluate
from deid.lab.eval.scores import Score
from deid.lab.eval.table import render_table
from deid.lab.eval.tokens import tokenize

__all__ = ["Coverage", "EvalReport", "Evaluator", "RunInfo", "Score", "evaluate", "render_table", "tokenize"]
