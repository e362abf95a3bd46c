"""Which language a corpus is written in, read from its text (never from its file name).

A corpus's language decides which rules run on it, so ``deid eval`` takes it from ``--lang`` or
from the format's documented language (MEDDOCAN is Spanish, eds-pseudo French) and checks it
against the text: a Spanish file named ``FR-...`` or a French corpus read as Spanish would
otherwise be scored with the wrong rules and nobody would notice. The marker words and their
count are the runtime's (``deid.rules.language``, which ``deid redact`` reads a note's language
with); a corpus only asks for more evidence than one note.
"""

from __future__ import annotations

from collections.abc import Iterable

from deid.rules.language import LANGUAGES, marker_counts, read_language

__all__ = ["LANGUAGES", "MIN_EVIDENCE", "check_language", "identify", "marker_counts"]

# Below this many marker words the text says too little to contradict what the caller gave.
MIN_EVIDENCE = 30


def identify(texts: Iterable[str]) -> str | None:
    """The language the texts are written in, or None when they say too little to tell."""
    return read_language(texts, MIN_EVIDENCE)


def check_language(texts: Iterable[str], language: str) -> str | None:
    """None when ``texts`` are compatible with ``language``; else the language they read as."""
    found = identify(texts)
    return found if found is not None and found != language else None
