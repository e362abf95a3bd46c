"""Which language a text is written in, read from the text itself (never from a file name).

The runtime needs this where a note comes without its language (``deid redact`` without
``--lang``, and to warn when ``--lang`` contradicts the text); the lab uses the same reading to
refuse a corpus scored with the wrong rules (``deid.lab.corpora.language``). The check counts a
few very frequent function words of each language (closed-class words: articles, prepositions,
conjunctions, pronouns) that the other two languages do not share.

Pure: no I/O, no logging; the counts are of kinds of word, never values of the note.
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
# The winner must outnumber the runner-up by this factor to count as evidence.
MARGIN = 2.0
# Marker words one note needs before its text decides: a short note says little, and below this
# its reading would be a guess (a corpus asks for more: ``deid.lab.corpora.language``).
NOTE_EVIDENCE = 5


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


def read_language(
    texts: Iterable[str], min_evidence: int = NOTE_EVIDENCE, margin: float = MARGIN
) -> str | None:
    """The language ``texts`` are written in: the one with the most marker words when it has at
    least ``min_evidence`` of them and ``margin`` times the runner-up's; else None (too little
    to tell)."""
    ranked = sorted(marker_counts(texts).items(), key=lambda kv: -kv[1])
    (best, n), (_, second) = ranked[0], ranked[1]
    if n < min_evidence or n < margin * second:
        return None
    return best
