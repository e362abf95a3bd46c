"""Replace every word and number of a text by a nearby stand-in, keeping everything else.

A word in the vocabulary becomes one of its ``n`` nearest neighbours; a word outside it (a rare
name, a code) becomes a random vocabulary word of about its length, a single letter another
letter; a run of digits becomes different random digits of the same length. So no word or number
of the input survives, whatever the vocabulary holds: applied to a whole note this is the
every-token mode (100% PHI recall by construction), applied to a PHI mention it is the
neighbour pseudonymisation strategy. Case style (lower, Title, UPPER), punctuation and whitespace
are kept, so offsets of what is between tokens are stable.
"""

from __future__ import annotations

import random
import re
import string

from deid.neighbours.table import NeighbourTable, load_table, related

DEFAULT_N = 5  # Friedrich et al. test 5..500; Abdalla et al. 3, 5, 7
TOKEN = re.compile(r"[^\W\d_]+|\d+")
_LETTERS = string.ascii_lowercase


def match_case(source: str, word: str) -> str:
    if source.isupper() and (len(source) > 1 or len(word) == 1):
        return word.upper()
    if source[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def _digits(rng: random.Random, s: str) -> str:
    while True:
        out = "".join(rng.choice(string.digits) for _ in s)
        if out != s:
            return out


def _unknown(rng: random.Random, table: NeighbourTable, word: str) -> str:
    if len(word) == 1:
        c = word.lower()
        return rng.choice([x for x in _LETTERS if x != c])
    for width in (0, 1, 2, 3):
        pools = [p for d in sorted({-width, width}) if (p := table.by_length.get(len(word) + d))]
        for _ in range(20 if pools else 0):  # rejection: a related draw ("dupond" for "Dupont") is rare
            w = rng.choice(rng.choice(pools))
            if not related(word, w):
                return w
    return rng.choice([w for w in table.words[:1000] if not related(word, w)])


def replace_word(
    word: str, rng: random.Random, n: int = DEFAULT_N, table: NeighbourTable | None = None
) -> str:
    """One word (letters only) or digit run -> its stand-in, in the source's case style."""
    if word.isdigit():
        return _digits(rng, word)
    table = table or load_table()
    out = table.draw(word, n, rng) or _unknown(rng, table, word)
    return match_case(word, out)


def check_n(n: int, table: NeighbourTable | None = None) -> None:
    k = (table or load_table()).k
    if not 1 <= n <= k:
        raise ValueError(f"the number of neighbours must be between 1 and {k}")


def replace_tokens(
    text: str,
    rng: random.Random,
    n: int = DEFAULT_N,
    *,
    table: NeighbourTable | None = None,
    memo: dict[str, str] | None = None,
) -> str:
    """``text`` with every word and digit run replaced (see the module docstring).

    ``memo`` (word -> stand-in) makes repeated words of one scope (a document, a patient) agree.
    """
    table = table or load_table()
    check_n(n, table)

    def sub(m: re.Match[str]) -> str:
        w = m.group()
        if memo is None:
            return replace_word(w, rng, n, table)
        key = w.lower() if not w.isdigit() else w
        if key not in memo:
            memo[key] = replace_word(key, rng, n, table)
        return match_case(w, memo[key])

    return TOKEN.sub(sub, text)
