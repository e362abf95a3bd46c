"""Long notes in line-bounded chunks, so that detection's time and memory grow linearly.

The model already reads a note window by window, but the rules, the merge and the checks on the
model's spans work on whole texts, and a whole 2 MB note also means one tokenizer call and one
array of probabilities for all of it. Cutting it into pieces of at most ``max_chars`` at blank
lines (else line ends, else sentence ends, else spaces) bounds every stage per piece; PHI does
not run across a blank line or a line end in the notes we see. Notes shorter than ``max_chars``
are passed as they are, so their output is exactly the wrapped detector's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from deid.protocols import Detector
from deid.protocols.deadline import Deadline, check, detect_within
from deid.spans import Span

DEFAULT_MAX_CHARS = 20_000

# Where to cut, best first: after a blank line, a line end, a sentence end, any whitespace.
_CUTS = (re.compile(r"\n[ \t]*\n"), re.compile(r"\n"), re.compile(r"[.!?][ \t]+"), re.compile(r"\s"))


def split_long(text: str, max_chars: int = DEFAULT_MAX_CHARS) -> list[tuple[int, str]]:
    """``(offset, piece)`` pairs covering ``text`` in order, each at most ``max_chars`` long, cut at
    the best boundary found in the second half of each piece (a hard cut when there is none)."""
    if max_chars < 2:
        raise ValueError("max_chars must be at least 2")
    out: list[tuple[int, str]] = []
    start = 0
    n = len(text)
    while n - start > max_chars:
        lo, hi = start + max_chars // 2, start + max_chars
        cut = hi
        for pattern in _CUTS:
            last = None
            for m in pattern.finditer(text, lo, hi):
                last = m
            if last is not None:
                cut = last.end()
                break
        out.append((start, text[start:cut]))
        start = cut
    out.append((start, text[start:]))
    return out


class ChunkedDetector:
    """A ``Detector`` that feeds the wrapped one line-bounded pieces of long notes, ``batch``
    pieces at a time, and hands the pieces done to ``progress`` after each call."""

    def __init__(self, inner: Detector, max_chars: int = DEFAULT_MAX_CHARS, batch: int = 16,
                 progress: Callable[[Sequence[str]], None] | None = None) -> None:
        self.inner = inner
        self.max_chars = max_chars
        self.batch = batch
        self.progress = progress

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    @property
    def model_version(self) -> str:
        return self.inner.model_version

    def detect(self, texts: Sequence[str], languages: Sequence[str], *,
               deadline: Deadline | None = None) -> list[list[Span]]:
        if len(texts) != len(languages):
            raise ValueError("texts and languages differ in length")
        pieces: list[tuple[int, int, str, str]] = []  # text index, offset, piece, language
        for i, (text, lang) in enumerate(zip(texts, languages, strict=True)):
            for off, piece in split_long(text, self.max_chars):
                pieces.append((i, off, piece, lang))
        out: list[list[Span]] = [[] for _ in texts]
        for k in range(0, len(pieces), self.batch):
            check(deadline, "chunks")
            chunk = pieces[k : k + self.batch]
            found = detect_within(self.inner, [p[2] for p in chunk], [p[3] for p in chunk], deadline)
            for (i, off, _, _), spans in zip(chunk, found, strict=True):
                out[i].extend(
                    s if off == 0 else Span(s.start + off, s.end + off, s.label, s.source, s.score)
                    for s in spans
                )
            if self.progress is not None:
                self.progress([p[2] for p in chunk])
        return out
