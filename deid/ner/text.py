"""Words, BIO labels, token windows and word-level decoding for the token classifier.

The text is pre-split into words at punctuation before subword tokenization: the XLM-R
vocabulary glues punctuation to digits ("03." is one piece), which would cap strict F1 at 0.929
even with perfect predictions (PLATFORM.md). A word takes the tag of its first subword, and an
entity breaks only at a new B- or an O, with the majority label of its words.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from deid.labels import BIO_TAGS, Label
from deid.spans import Span

# A word: a run of letters/digits, or one other visible character.
_WORD = re.compile(r"[^\W_]+|\S", re.UNICODE)

TAG2ID: dict[str, int] = {t: i for i, t in enumerate(BIO_TAGS)}


# Not frozen: a frozen dataclass sets each field through object.__setattr__, and building the
# words of a note was the largest part of tokenization (0.86 -> 0.52 ms a 2.3 kB note). Nothing
# assigns to a Word; it stays hashable.
@dataclass(slots=True, unsafe_hash=True)
class Word:
    start: int
    end: int


# The class of each code point under ``_WORD``, filled in from the pattern itself the first time a
# code point is seen: 0 whitespace, 1 letter or digit (joins a run), 2 any other character (a word
# alone). A note's word offsets from these classes by numpy take a quarter of ``finditer``'s time
# (issue 36).
_SPACE, _RUN, _ALONE, _UNSEEN = 0, 1, 2, 255
_CLASS = np.full(0x110000, _UNSEEN, np.uint8)
_RUN_CHAR = re.compile(r"[^\W_]", re.UNICODE)
_SPACE_CHAR = re.compile(r"\s", re.UNICODE)


def _classes(codes: np.ndarray) -> np.ndarray:
    cls = _CLASS[codes]
    unseen = cls == _UNSEEN
    if unseen.any():
        # threads may fill the same entry at once: each writes the same value
        for c in np.unique(codes[unseen]).tolist():
            ch = chr(c)
            _CLASS[c] = _RUN if _RUN_CHAR.fullmatch(ch) else _SPACE if _SPACE_CHAR.fullmatch(ch) else _ALONE
        cls = _CLASS[codes]
    return cls


def word_bounds(text: str) -> tuple[np.ndarray, np.ndarray]:
    """The start and end offsets of ``split_words(text)`` (no cuts) as two int64 arrays: every
    run of letters and digits, and every other visible character alone."""
    # surrogatepass: a lone surrogate is one code point, one visible character, as ``re`` reads it
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    cls = _classes(codes)
    run = cls == _RUN
    run_start = run.copy()
    run_start[1:] &= ~run[:-1]
    run_end = run.copy()
    run_end[:-1] &= ~run[1:]
    starts = np.flatnonzero(run_start | (cls == _ALONE))
    ends = starts + 1
    ends[run_start[starts]] = np.flatnonzero(run_end) + 1
    return starts, ends


def split_words(text: str, cuts: Iterable[int] = ()) -> list[Word]:
    """Split at whitespace and punctuation; also at every offset in ``cuts`` (gold boundaries)."""
    cut_set = set(cuts)
    if not cut_set:
        starts, ends = word_bounds(text)
        return list(map(Word, starts.tolist(), ends.tolist()))
    words: list[Word] = []
    for m in _WORD.finditer(text):
        start, end = m.start(), m.end()
        if cut_set:
            inner = sorted(c for c in cut_set if start < c < end)
            for c in inner:
                words.append(Word(start, c))
                start = c
        words.append(Word(start, end))
    return words


def word_tags(words: Sequence[Word], spans: Sequence[Span]) -> list[str]:
    """BIO tag of each word from gold spans (a word belongs to a span it lies inside)."""
    tags = ["O"] * len(words)
    ordered = sorted(spans, key=lambda s: (s.start, -s.end))
    wi = 0
    for span in ordered:
        while wi < len(words) and words[wi].end <= span.start:
            wi += 1
        first = True
        j = wi
        while j < len(words) and words[j].start < span.end:
            if words[j].start >= span.start and words[j].end <= span.end and tags[j] == "O":
                tags[j] = ("B-" if first else "I-") + span.label.value
                first = False
            j += 1
    return tags


def decode_words(
    words: Sequence[Word],
    tags: Sequence[str],
    scores: Sequence[float] | None = None,
    source: str = "ner",
    text: str | None = None,
) -> list[Span]:
    """Word tags to spans: break only at a B- or an O; the entity takes its majority label.

    With ``text``, a B- of the label of the word just before, one space away, continues that
    entity for names, relatives, organisations and streets: the model sometimes restarts inside
    one ("hermano B-gemelo"), and the corpora almost never write two of them one space apart
    (9 pairs in 15,754 MEDDOCAN spans). Places are left split: "28036 Madrid" is two LOCATION
    spans there (473 pairs).
    """
    spans: list[Span] = []
    cur: list[int] = []

    def flush() -> None:
        if not cur:
            return
        labels = Counter(tags[i][2:] for i in cur)
        best = max(labels.items(), key=lambda kv: (kv[1], -_first_index(cur, tags, kv[0])))[0]
        score = 1.0 if scores is None else min(scores[i] for i in cur)
        spans.append(Span(words[cur[0]].start, words[cur[-1]].end, Label(best), source, score))
        cur.clear()

    for i, tag in enumerate(tags):
        if tag == "O":
            flush()
        elif (tag.startswith("B-") and not _continues(words, tags, i, text)) or (
                text is not None and i > 0 and breaks_line(text, words[i - 1], words[i])):
            flush()
            cur.append(i)
        else:
            cur.append(i)
    flush()
    return spans


def breaks_line(text: str, before: Word, word: Word) -> bool:
    """A line break between two words ends the entity in progress, whatever their tags: no gold
    span of the corpora crosses one (0 of 8,433 realistic train, 5,801 MEDDOCAN dev, 11,333
    MEDDOCAN train, 5,201 eds-pseudo generated, 1,409 ECHR FR), while the model's I- tags ran on
    into the next line ("Dr M Okafor" + "Widcombe Surgery", "0127." + "6h30": 87 spans on the
    realistic train split), making two mentions one and taking the next line's clinical text."""
    return any(c in "\n\r" for c in text[before.end : word.start])


_CONTINUABLE = frozenset({"PATIENT", "STAFF", "RELATIVE", "PERSON", "HOSPITAL", "ORG", "STREET"})


def _continues(words: Sequence[Word], tags: Sequence[str], i: int, text: str | None) -> bool:
    label = tags[i][2:]
    if text is None or i == 0 or label not in _CONTINUABLE or tags[i - 1][2:] != label:
        return False
    before = words[i - 1]
    # a stray tag on punctuation ("Dra B-. B-María") starts nothing worth extending
    return text[before.end : words[i].start] == " " and any(
        c.isalnum() for c in text[before.start : before.end]
    )


def _first_index(cur: list[int], tags: Sequence[str], label: str) -> int:
    for i in cur:
        if tags[i][2:] == label:
            return i
    return len(tags)


@dataclass(frozen=True, slots=True)
class Window:
    """A slice ``[start, end)`` of a document's subword tokens fed to the model at once.

    ``keep_start``/``keep_end`` is the part of it whose predictions are used: with overlapping
    windows each token is read from the window where it has the most context.
    """

    start: int
    end: int
    keep_start: int
    keep_end: int


def make_windows(n_tokens: int, size: int, overlap: int) -> list[Window]:
    """Cover ``n_tokens`` with windows of at most ``size`` tokens that overlap by ``overlap``."""
    if size <= 0 or not 0 <= overlap < size:
        raise ValueError("need size > 0 and 0 <= overlap < size")
    if n_tokens <= size:
        return [Window(0, n_tokens, 0, n_tokens)]
    step = size - overlap
    starts = [*range(0, n_tokens - size, step), n_tokens - size]
    windows: list[Window] = []
    for k, s in enumerate(starts):
        e = s + size
        keep_s = 0 if k == 0 else (s + windows[-1].end) // 2
        windows.append(Window(s, e, keep_s, n_tokens))
        if k > 0:
            prev = windows[-2]
            windows[-2] = Window(prev.start, prev.end, prev.keep_start, keep_s)
    return windows


def make_aligned_windows(n_tokens: int, size: int, overlap: int,
                         unit_starts: Sequence[int] = ()) -> list[Window]:
    """Windows of at most ``size`` tokens, as few as the overlap allows and of even length, cut
    where a line or sentence starts when one is near.

    A note is covered by the fewest windows that fit (``k`` windows overlapping by ``overlap``), each
    aimed at the same length, ``(n + (k - 1) * overlap) / k``, re-aimed after every cut: a note
    of 564 tokens is read as three windows of about 231 tokens (692 tokens fed) where full windows
    with the last one stretched back fed 762. A window ends at the last unit start from an eighth of
    ``size`` before its aim to a sixteenth after it (never past ``size``, and never so early that
    the rest would need one window more); the next one starts ``overlap`` tokens
    earlier, or at a unit start up to a quarter overlap before that, so no window's edge cuts a
    sentence when it can help it. Each token is read from the window where it sits farther from
    the edge (the overlap is cut in its middle, leaving at least ``overlap / 2`` tokens of
    context on each side).
    """
    if size <= 0 or not 0 <= overlap < size:
        raise ValueError("need size > 0 and 0 <= overlap < size")
    if n_tokens <= size:
        return [Window(0, n_tokens, 0, n_tokens)]
    starts = sorted(set(unit_starts))
    step = size - overlap
    out: list[Window] = []
    s, keep_s = 0, 0
    while n_tokens - s > size:
        left = -(-(n_tokens - s - overlap) // step)  # windows still needed, this one included
        aim = s + -(-(n_tokens - s + (left - 1) * overlap) // left)
        # a cut earlier than this would leave more than ``left - 1`` windows to read the rest
        earliest = n_tokens - (left - 1) * step
        e = aim
        i = bisect.bisect_right(starts, min(s + size, aim + size // 16)) - 1
        if i >= 0 and starts[i] > max(aim - size // 8, s + overlap, earliest - 1):
            e = starts[i]
        lo = e - overlap
        # the latest unit start at most a quarter overlap earlier: more overlap, never less
        j = bisect.bisect_right(starts, lo) - 1
        nxt = lo
        if j >= 0 and starts[j] >= max(lo - overlap // 4, earliest - overlap):
            nxt = starts[j]
        nxt = max(nxt, s + 1)  # always move on, whatever the sizes
        cut = max((nxt + e) // 2, keep_s)
        out.append(Window(s, e, keep_s, cut))
        s, keep_s = nxt, cut
    out.append(Window(s, n_tokens, keep_s, n_tokens))
    return out
