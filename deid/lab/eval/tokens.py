"""Token-level binary PHI scoring, the i2b2 convention: labels and span boundaries do not matter,
only whether each token of the text was flagged.

Tokens are runs of word characters and single punctuation marks; a token is PHI (gold or
predicted) if any of its characters lies in a (gold or predicted) span.
"""

from __future__ import annotations

import re

from deid.lab.eval.scores import Score

TOKEN = re.compile(r"\w+|[^\w\s]")


def tokenize(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in TOKEN.finditer(text)]


def token_counts(text: str, gold_mask: bytearray, pred_mask: bytearray) -> tuple[Score, int]:
    """The binary PHI score over the tokens of ``text``, and how many tokens it has.
    ``gold_mask``/``pred_mask``: one byte per character, 1 inside a span (``char_mask``)."""
    n_gold = n_pred = hits = 0
    tokens = tokenize(text)
    for start, end in tokens:
        g = gold_mask.find(1, start, end) != -1
        p = pred_mask.find(1, start, end) != -1
        n_gold += g
        n_pred += p
        hits += g and p
    return Score(n_gold, n_pred, hits, hits), len(tokens)
