"""Which language a corpus is written in, read from its text (never from its file name).

A corpus's language decides which rules run on it, so ``deid eval`` takes it from ``--lang`` or
from the format's documented language (MEDDOCAN is Spanish, eds-pseudo French) and checks it
against the text: a Spanish file named ``FR-...`` or a French corpus read as Spanish would
otherwise be scored with the wrong rules and nobody would notice. The check counts a few very
frequent function words of each language (closed-class words: articles, prepositions,
conjunctions, pronouns) that the other two languages do not share.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

LANGUAGES = ("fr", "es", "en")

# Frequent words of one language that are rare or absent in the two others.
_MARKERS: dict[str, frozenset[str]] = {
    "fr": frozenset({
        "le", "les", "des", "du", "au", "aux", "et", "est", "une", "dans", "pour", "avec", "sur", "qui",
        "ne", "pas", "il", "elle", "cette", "été", "son", "ses", "leur", "où", "ont", "sont",
    }),
    "es": frozenset({
        "el", "los", "las", "del", "y", "es", "una", "por", "para", "con", "que", "se", "lo", "su",
        "sus", "fue", "como", "más", "pero", "este", "esta", "hay", "al",
    }),
    "en": frozenset({
        "the", "and", "of", "to", "is", "was", "with", "for", "on", "at", "by", "an", "this", "that",
        "his", "her", "he", "she", "were", "has", "have", "from",
    }),
}  # fmt: skip
_WORD = re.compile(r"[^\W\d_]+")
# Below this many marker words the text says too little to contradict what the caller gave.
MIN_EVIDENCE = 30
# The winner must outnumber the runner-up by this factor to count as evidence.
_MARGIN = 2.0


def marker_counts(texts: Iterable[str], limit_chars: int = 200_000) -> dict[str, int]:
    """Marker words of each language in ``texts`` (the first ``limit_chars`` characters)."""
    counts = dict.fromkeys(LANGUAGES, 0)
    seen = 0
    for text in texts:
        chunk = text[: max(0, limit_chars - seen)]
        seen += len(chunk)
        for word in _WORD.findall(chunk.lower()):
            for lang, markers in _MARKERS.items():
                if word in markers:
                    counts[lang] += 1
        if seen >= limit_chars:
            break
    return counts


def identify(texts: Iterable[str]) -> str | None:
    """The language the texts are written in, or None when they say too little to tell."""
    counts = marker_counts(texts)
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])
    (best, n), (_, second) = ranked[0], ranked[1]
    if n < MIN_EVIDENCE or n < _MARGIN * second:
        return None
    return best


def check_language(texts: Iterable[str], language: str) -> str | None:
    """None when ``texts`` are compatible with ``language``; else the language they read as."""
    found = identify(texts)
    return found if found is not None and found != language else None
