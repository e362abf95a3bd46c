"""Documents to model inputs: words, subword ids, windows (shared by training and inference)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np

from deid.ner.text import Word, make_windows, split_words

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
    ids = list(enc["input_ids"])
    word_of: list[int] = []
    first: list[bool] = []
    prev = -1
    keep_ids: list[int] = []
    for tid, wid in zip(ids, enc.word_ids(), strict=True):
        if wid is None:
            continue
        # a lone metaspace piece carries nothing; drop it so a word starts on its content
        keep_ids.append(tid)
        word_of.append(wid)
        first.append(wid != prev)
        prev = wid
    return EncodedText(words, keep_ids, word_of, first)


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
    words = [split_words(t) for t in texts]
    if cache is not None and cache.exact:
        return _encode_cached(cache, texts, words)
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
        ids: list[int] = enc["input_ids"][row]
        word_of: list[int] = []
        first: list[bool] = []
        keep_ids: list[int] = []
        prev = -1
        for tid, wid in zip(ids, enc.word_ids(row), strict=True):
            if wid is None:
                continue
            keep_ids.append(tid)
            word_of.append(wid)
            first.append(wid != prev)
            prev = wid
        out[i] = EncodedText(words[i], keep_ids, word_of, first)
    return out


def _tokenize_words(tokenizer: Any, words: Sequence[str]) -> list[tuple[int, ...]]:
    """Each word's subword ids, as ``encode_texts`` reads them inside a note (pre-tokenized input,
    no special tokens), from one tokenizer call with every word as a one-word text: the Rust
    tokenizer's own when it pads and truncates nothing (half the time of transformers' wrapper,
    which calls it the same way and then builds Python lists of every field)."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is not None and backend.padding is None and backend.truncation is None:
        encs = backend.encode_batch([[w] for w in words], is_pretokenized=True, add_special_tokens=False)
        return [
            tuple(e.ids) if None not in e.word_ids
            else tuple(t for t, wid in zip(e.ids, e.word_ids, strict=True) if wid is not None)
            for e in encs
        ]
    enc = tokenizer([[w] for w in words], is_split_into_words=True, add_special_tokens=False,
                    verbose=False)
    return [
        tuple(tid for tid, wid in zip(enc["input_ids"][row], enc.word_ids(row), strict=True)
              if wid is not None)
        for row in range(len(words))
    ]


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
            alone = _tokenize_words(self._tokenizer, [text[w.start : w.end] for w in whole.words])
        except Exception:
            return False
        return whole.ids == list(chain.from_iterable(alone))

    def __len__(self) -> int:
        return len(self._ids)

    def lookup(self, words: Iterable[str]) -> dict[str, tuple[int, ...]]:
        """The ids of every word in ``words``, the unknown ones tokenized in one call."""
        wanted = dict.fromkeys(words)
        found: dict[str, tuple[int, ...]] = {}
        with self._lock:
            table = self._ids
            missing: list[str] = []
            for w in wanted:
                ids = table.get(w)
                if ids is None:
                    missing.append(w)
                else:
                    table.move_to_end(w)
                    found[w] = ids
            self.hits += len(found)
            self.misses += len(missing)
            if missing:
                for w, ids in zip(missing, _tokenize_words(self._tokenizer, missing), strict=True):
                    table[w] = ids
                    found[w] = ids
                while len(table) > self.max_words:
                    table.popitem(last=False)
        return found


def _first_flags(n: int) -> tuple[bool, ...]:
    """Whether each of a word's ``n`` subwords is its first (memoized: a handful of lengths)."""
    flags = _FIRST.get(n)
    if flags is None:
        flags = _FIRST[n] = (True,) + (False,) * (n - 1) if n else ()
    return flags


_FIRST: dict[int, tuple[bool, ...]] = {}


def _encode_cached(cache: WordCache, texts: Sequence[str], words: list[list[Word]]) -> list[EncodedText]:
    # one C-level pass per field rather than a Python loop per word: tokenization was 65 % of a
    # GPU worker's detection time (bench/gpu_detectors.py, docs/BENCHMARKS.md "Speed on a GPU")
    pieces = [[t[w.start : w.end] for w in ws] for t, ws in zip(texts, words, strict=True)]
    table = cache.lookup(chain.from_iterable(pieces))
    out: list[EncodedText] = []
    for ws, strs in zip(words, pieces, strict=True):
        parts = [table[s] for s in strs]
        lens = list(map(len, parts))
        ids = list(chain.from_iterable(parts))
        word_of = np.repeat(np.arange(len(parts)), lens).tolist()
        first = list(chain.from_iterable(map(_first_flags, lens)))
        out.append(EncodedText(ws, ids, word_of, first))
    return out


def unit_starts(text: str, enc: EncodedText) -> list[int]:
    """Token indices where a line or a sentence begins: the places a window should rather start
    and end at, so that no window cuts a sentence when it can help it."""
    out: list[int] = []
    words = enc.words
    for k, (is_first, wi) in enumerate(zip(enc.first, enc.word_of, strict=True)):
        if not is_first or wi == 0:
            continue
        prev = words[wi - 1]
        if "\n" in text[prev.end : words[wi].start] or (
            prev.end - prev.start == 1 and text[prev.start] in ".!?;"
        ):
            out.append(k)
    return out
