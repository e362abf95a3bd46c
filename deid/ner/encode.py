"""Documents to model inputs: words, subword ids, windows (shared by training and inference)."""

from __future__ import annotations

import operator
import re
import threading
from collections import OrderedDict, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain, compress, repeat
from typing import Any, cast

import numpy as np

from deid.ner.text import Word, make_windows, split_words, word_bounds

IGNORE = -100


@dataclass(frozen=True, slots=True)
class EncodedText:
    words: list[Word]
    ids: list[int]  # subword ids, no special tokens
    word_of: list[int]  # word index of each subword
    first: list[bool]  # whether the subword is its word's first


def encode_text(tokenizer: Any, text: str, cuts: tuple[int, ...] = ()) -> EncodedText:
    words = split_words(text, cuts)
    if not words:
        return EncodedText([], [], [], [])
    enc = tokenizer(
        [text[w.start : w.end] for w in words],
        is_split_into_words=True,
        add_special_tokens=False,
        verbose=False,  # a whole note is longer than the model's limit: windows handle it
    )
    return _from_pieces(words, enc["input_ids"], enc.word_ids())


def _from_pieces(words: list[Word], ids: Sequence[int], word_ids: Sequence[int | None]) -> EncodedText:
    """``words`` and the tokenizer's pieces of them (``ids`` and the word of each): the pieces of
    no word dropped, each word's first piece flagged."""
    kept, word_of = _word_ids(ids, word_ids)
    of = np.fromiter(word_of, np.int64, len(word_of))
    first = np.ones(len(of), bool)
    first[1:] = of[1:] != of[:-1]
    return EncodedText(words, list(kept), word_of, first.tolist())


def special_ids(tokenizer: Any) -> tuple[int, int, int]:
    cls = tokenizer.cls_token_id if tokenizer.cls_token_id is not None else tokenizer.bos_token_id
    sep = tokenizer.sep_token_id if tokenizer.sep_token_id is not None else tokenizer.eos_token_id
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    return int(cls), int(sep), int(pad)


def token_windows(n_tokens: int, max_len: int, overlap: int) -> list[Any]:
    """Windows over content tokens leaving room for the two special tokens."""
    size = max_len - 2
    return make_windows(n_tokens, size, min(overlap, size - 1))


def encode_texts(tokenizer: Any, texts: Sequence[str], cache: WordCache | None = None) -> list[EncodedText]:
    """``encode_text`` for a whole batch with one tokenizer call: the fast tokenizer then splits the
    texts in parallel in Rust instead of paying Python's per-call overhead once per note. With a
    ``cache`` (``WordCache``, built on this ``tokenizer``) known words are not tokenized again:
    the same output, token for token."""
    if cache is not None and cache.exact:
        return _encode_cached(cache, texts)
    words = [split_words(t) for t in texts]
    todo = [i for i, w in enumerate(words) if w]
    out = [EncodedText([], [], [], []) for _ in texts]
    if not todo:
        return out
    enc = tokenizer(
        [[texts[i][w.start : w.end] for w in words[i]] for i in todo],
        is_split_into_words=True,
        add_special_tokens=False,
        verbose=False,
    )
    for row, i in enumerate(todo):
        out[i] = _from_pieces(words[i], enc["input_ids"][row], enc.word_ids(row))
    return out


# words per pre-tokenized sequence when the cache tokenizes the words it lacks
_CHUNK = 512


def _tokenize_words(tokenizer: Any, words: Sequence[str], alone: bool = False) -> list[tuple[int, ...]]:
    """Each word's subword ids, as ``encode_texts`` reads them inside a note (pre-tokenized input,
    no special tokens), from one tokenizer call: the Rust tokenizer's own when it pads and truncates
    nothing (half the time of transformers' wrapper, which calls it the same way and then builds
    Python lists of every field), ``_CHUNK`` words a sequence; with ``alone`` or through the
    wrapper, every word as a one-word text."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is not None and backend.padding is None and backend.truncation is None:
        if not alone:
            return _tokenize_chunks(backend, words)
        encs = backend.encode_batch([[w] for w in words], is_pretokenized=True, add_special_tokens=False)
        return [_word_ids(e.ids, e.word_ids)[0] for e in encs]
    enc = tokenizer([[w] for w in words], is_split_into_words=True, add_special_tokens=False,
                    verbose=False)
    return [_word_ids(enc["input_ids"][row], enc.word_ids(row))[0] for row in range(len(words))]


def _word_ids(ids: Sequence[int], word_ids: Sequence[int | None]) -> tuple[tuple[int, ...], list[int]]:
    """The ids that belong to a word, and the word of each: a special token belongs to none."""
    if None not in word_ids:
        return tuple(ids), cast(list[int], list(word_ids))
    kept = [(t, w) for t, w in zip(ids, word_ids, strict=True) if w is not None]
    return tuple(t for t, _ in kept), [w for _, w in kept]


def _tokenize_chunks(backend: Any, words: Sequence[str]) -> list[tuple[int, ...]]:
    """``_tokenize_words`` ``_CHUNK`` words a sequence: a third less time than a sequence per word
    (fewer encodings to build and convert), and the same ids: a pre-tokenized sequence is
    normalized and split word by word, each word on its own, as when it is alone."""
    chunks = [words[i : i + _CHUNK] for i in range(0, len(words), _CHUNK)]
    encs = backend.encode_batch(chunks, is_pretokenized=True, add_special_tokens=False)
    out: list[tuple[int, ...]] = []
    for chunk, enc in zip(chunks, encs, strict=True):
        ids, word_of = _word_ids(enc.ids, enc.word_ids)
        word = np.asarray(word_of, dtype=np.int64)
        if len(word) and (np.diff(word) < 0).any():  # a word's pieces apart: never seen, read alone
            encs1 = backend.encode_batch([[w] for w in chunk], is_pretokenized=True, add_special_tokens=False)
            out.extend(_word_ids(e.ids, e.word_ids)[0] for e in encs1)
            continue
        ends = np.cumsum(np.bincount(word, minlength=len(chunk))).tolist()
        out.extend(ids[i:j] for i, j in zip([0, *ends[:-1]], ends, strict=True))
    return out


# words of several scripts, digits, punctuation and a long word: a tokenizer for which these read
# differently alone than inside one text does not tokenize word by word, and gets no cache
_PROBE = ("Mme", "Lefebvre", ",", "née", "le", "12", "/", "03", "/", "1951", ".", "Paciente", ":",
          "Rosa", "Martínez", "Ñandú", "67", "años", "Straße", "İstanbul", "ﬁn", "Ａｂｃ", "€", "µg",
          "Thérèse", "anticonstitutionnellement", "日本", "\u200b", "x" * 80, "’", "-")


class WordCache:
    """word -> its subword ids, for ``encode_texts``: at most ``max_words`` words, the least
    recently used dropped first; one per detector (per tokenizer).

    Exact because the input is pre-tokenized: the tokenizer normalizes and splits each word on its
    own (the shipped one prefixes every word with the metaspace, ``prepend_scheme: always``), so a
    word's ids never depend on its neighbours. ``exact`` checks that on a probe of varied words when
    the cache is made; a tokenizer that fails it is called as before (``encode_texts`` ignores the
    cache). A lock guards the table, so detectors that share one (``NerDetector.with_config``) may
    be called from several threads (the detector serializes its own calls anyway).
    """

    def __init__(self, tokenizer: Any, max_words: int = 100_000) -> None:
        if max_words < 1:
            raise ValueError("max_words must be at least 1")
        self._tokenizer = tokenizer
        self.max_words = max_words
        self._ids: OrderedDict[str, tuple[int, ...]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self.exact = self._agrees_in_context(_PROBE)

    def _agrees_in_context(self, words: Sequence[str]) -> bool:
        try:
            text = " ".join(words)
            (whole,) = encode_texts(self._tokenizer, [text])
            alone = _tokenize_words(self._tokenizer, [text[w.start : w.end] for w in whole.words], alone=True)
        except Exception:
            return False
        return whole.ids == list(chain.from_iterable(alone))

    def __len__(self) -> int:
        return len(self._ids)

    def lookup(self, words: Iterable[str]) -> dict[str, tuple[int, ...]]:
        """The ids of every word in ``words`` (keys in first-seen order), the unknown ones
        tokenized in one call. Each step runs over every distinct word inside C (``map``,
        ``compress``) rather than a Python loop."""
        wanted = list(dict.fromkeys(words))
        with self._lock:
            table = self._ids
            got = list(map(table.get, wanted))
            known = list(map(operator.is_not, got, repeat(None)))
            hits = list(compress(wanted, known))
            deque(map(table.move_to_end, hits), maxlen=0)  # the words just read: the most recent
            missing = list(compress(wanted, map(operator.not_, known)))
            self.hits += len(hits)
            self.misses += len(missing)
            found = cast(dict[str, tuple[int, ...]], dict(zip(wanted, got, strict=True)))
            if missing:
                new = _tokenize_words(self._tokenizer, missing)
                found.update(zip(missing, new, strict=True))
                table.update(zip(missing, new, strict=True))
                while len(table) > self.max_words:
                    table.popitem(last=False)
        return found


def _encode_cached(cache: WordCache, texts: Sequence[str]) -> list[EncodedText]:
    """``encode_texts`` through the cache, each field built for the whole batch at once (C-level
    ``map``/``chain`` and numpy) and then cut per note: tokenization was 65 % of a GPU worker's
    detection time (issue 36)."""
    # the notes one space apart, split in one pass: a space ends every word, so none spans two notes
    joined = " ".join(texts)
    starts, ends = word_bounds(joined)
    offset = np.cumsum([0, *(len(t) + 1 for t in texts)])[:-1]  # where each note starts in ``joined``
    per_note = np.diff(np.searchsorted(starts, offset), append=len(starts))
    shift = np.repeat(offset, per_note)
    starts_l, ends_l = starts.tolist(), ends.tolist()
    words = [joined[a:b] for a, b in zip(starts_l, ends_l, strict=True)]
    # every word of the batch, note after note: its ids, their count, its index in its note
    table = cache.lookup(words)
    parts = list(map(table.__getitem__, words))
    ids = list(chain.from_iterable(parts))
    n_pieces = np.fromiter(map(len, parts), np.int64, len(parts))
    tok_end = np.cumsum(n_pieces)
    word_in_note = np.arange(len(parts)) - np.repeat(np.cumsum(per_note) - per_note, per_note)
    word_of = np.repeat(word_in_note, n_pieces).tolist()
    first_np = np.zeros(len(ids), bool)
    first_np[(tok_end - n_pieces)[n_pieces > 0]] = True  # each word's first piece, if it has any
    first = first_np.tolist()
    in_note_starts, in_note_ends = (starts - shift).tolist(), (ends - shift).tolist()
    # each note's words and tokens end where those of its last word end
    word_cut = np.cumsum(per_note).tolist()
    tok_cut = np.concatenate(([0], tok_end))[word_cut].tolist()
    out: list[EncodedText] = []
    w0 = t0 = 0
    for w1, t1 in zip(word_cut, tok_cut, strict=True):
        note_words = list(map(Word, in_note_starts[w0:w1], in_note_ends[w0:w1]))
        out.append(EncodedText(note_words, ids[t0:t1], word_of[t0:t1], first[t0:t1]))
        w0, t0 = w1, t1
    return out


# a line end or a one-character ".!?;" word and the spaces after it: a match ends where a line or
# a sentence begins (a word is a run of letters and digits or one other visible character, so the
# next visible character after it starts a word)
_UNIT_START = re.compile(r"[\n.!?;]\s*")
_START = operator.attrgetter("start")


def unit_starts(text: str, enc: EncodedText) -> list[int]:
    """Token indices where a line or a sentence begins: the places a window should rather start
    and end at, so that no window cuts a sentence when it can help it. The first token of each
    word but the first that follows a line end or a one-character ".!?;" word, found by one
    regex scan and numpy rather than a Python loop over the tokens."""
    n_words = len(enc.words)
    if not enc.ids or n_words < 2:
        return []
    starts = np.fromiter(map(_START, enc.words), np.int64, n_words)
    at = np.fromiter((m.end() for m in _UNIT_START.finditer(text)), np.int64)
    k = np.searchsorted(starts, at)
    inside = k < n_words
    k, at = k[inside], at[inside]
    unit = np.zeros(n_words, bool)
    unit[k[starts[k] == at]] = True
    unit[0] = False
    first = np.flatnonzero(np.fromiter(enc.first, bool, len(enc.first)))
    return first[unit[np.fromiter(enc.word_of, np.int64, len(enc.word_of))[first]]].tolist()
