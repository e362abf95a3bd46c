"""Issue 36's array path of NER tokenization (word offsets from numpy character classes, the word
cache resolved and its ids concatenated for a whole batch at once, unit starts by one regex scan)
gives exactly what the former per-word and per-token Python loops gave: the same words, subword
ids, word indices, first-piece flags, unit starts and windows. The former code is kept here as the
reference."""

from __future__ import annotations

import gc
import math
import random
import re
import time
import unicodedata
from typing import Any

import pytest

from deid.ner.encode import (
    _CHUNK,
    EncodedText,
    WordCache,
    _tokenize_words,
    encode_text,
    encode_texts,
    unit_starts,
)
from deid.ner.infer import InferenceConfig, _plan
from deid.ner.text import Word, split_words, word_bounds

_WORD = re.compile(r"[^\W_]+|\S")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _reference_split_words(text: str) -> list[Word]:
    return [Word(*m.span()) for m in _WORD.finditer(text)]


def _reference_encode_texts(tokenizer: Any, texts: list[str]) -> list[EncodedText]:
    """encode_texts before issue 36's arrays: one tokenizer call, then a loop over the tokens."""
    words = [_reference_split_words(t) for t in texts]
    out = [EncodedText([], [], [], []) for _ in texts]
    todo = [i for i, w in enumerate(words) if w]
    if not todo:
        return out
    enc = tokenizer(
        [[texts[i][w.start : w.end] for w in words[i]] for i in todo],
        is_split_into_words=True,
        add_special_tokens=False,
        verbose=False,
    )
    for row, i in enumerate(todo):
        ids, word_of, first = [], [], []
        prev = -1
        for tid, wid in zip(enc["input_ids"][row], enc.word_ids(row), strict=True):
            if wid is None:
                continue
            ids.append(tid)
            word_of.append(wid)
            first.append(wid != prev)
            prev = wid
        out[i] = EncodedText(words[i], ids, word_of, first)
    return out


def _reference_unit_starts(text: str, enc: EncodedText) -> list[int]:
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


HARD = [
    "",
    " ",
    "\r\n\t \u00a0\u2009\u202f\u2028\u3000",
    "a",
    ".",
    "Th\u00e9re\u0300se Zo\u0308e na\u0131\u0308ve \u0301lone combining mark",
    "\u65e5\u672c\u8a9e\u306e\u6587\u7ae0\u3002\u4e2d\u6587\uff0c\ud55c\uad6d\uc5b4 "
    "\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35",
    "\U0001f600\U0001f469\u200d\U0001f4bb \U0001f1eb\U0001f1f7 \u2764\ufe0f x\U0001d400y",
    "12/03/1951 03.04.2024 +33 (0)6 12 34 56 78 \u0661\u0662\u0663 \u00bd \u00b2 \u2460",
    "...!!!???;;;---___***///\\\\|||\"\"''``~~~",
    "Dr. M\u00fcller;Mme\u00a0Lefebvre.\nNew line\r\nWindows line\rOld Mac\n\n\tTabbed.\tMore; end!",
    "snake_case __init__ _x_ a_b",
    "\ufb01n \ufb02ux \uff21\uff42\uff43\uff11\uff12 \u0130stanbul Stra\u00dfe \u00b5g \u2126 \u212b "
    "a\u200bb c\u200dd \ufeff",
    "x" * 3000 + " " + "1234567890" * 300 + " " + "\u00e9" * 500,
    "\u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627 \u0928\u092e\u0938\u094d\u0924\u0947",
    "lone surrogates \ud800 and \udfff inside wo\ud83drd",
    "\x00\x07\x1b control \x7f\x85 chars",
    "\n.\n.a.b;c!?\n\n d",
]


def _random_texts(seed: int, n: int) -> list[str]:
    """Words of HARD and code points from every plane, joined by runs of whitespace or none."""
    rng = random.Random(seed)
    pool = [t[w.start : w.end] for t in HARD if not _SURROGATE.search(t) for w in _reference_split_words(t)]
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randrange(0, 200)):
            r = rng.random()
            if r < 0.6:
                parts.append(rng.choice(pool)[:40])
            elif r < 0.85:
                cps = (
                    rng.randrange(0x20, 0x3000) if rng.random() < 0.8 else rng.randrange(0x3000, 0x110000)
                    for _ in range(rng.randrange(1, 8))
                )
                parts.append("".join(chr(c) for c in cps if unicodedata.category(chr(c)) != "Cs"))
            else:
                parts.append(rng.choice(["\n", "\r\n", "\t", ".", ". ", "\n\n", "  ", "", "!?", ";\n"]))
        out.append(rng.choice([" ", "", "\n", "\t"]).join(parts))
    return out


TEXTS = HARD + _random_texts(0, 40)
# the Rust tokenizer refuses a lone surrogate (TypeError), before and after: the words have them
TOKENIZABLE = [t for t in TEXTS if not _SURROGATE.search(t)]


def _tuples(words: list[Word]) -> list[tuple[int, int]]:
    return [(w.start, w.end) for w in words]


def test_word_offsets_from_character_classes_are_the_regex_words() -> None:
    for text in TEXTS + _random_texts(1, 200):
        got = split_words(text)
        assert got == _reference_split_words(text), text[:60]
        assert all(type(w.start) is int and type(w.end) is int for w in got)
        starts, ends = word_bounds(text)
        assert list(zip(starts.tolist(), ends.tolist(), strict=True)) == _tuples(got)


def test_every_code_point_splits_as_the_regex_does() -> None:
    # each code point alone, between letters and between spaces: its class decides all three
    text = "".join(f"a{chr(c)}a {chr(c)} " for c in range(0, 0x110000, 7))
    assert split_words(text) == _reference_split_words(text)


@pytest.mark.parametrize("max_words", [100_000, 50, 1])
def test_cached_batches_give_the_former_encodings_and_windows(e5_tokenizer: Any, max_words: int) -> None:
    cache = WordCache(e5_tokenizer, max_words=max_words)
    assert cache.exact
    config = InferenceConfig(max_len=32, overlap=8)  # small windows: unit starts decide the cuts
    pool = TOKENIZABLE
    batches = [pool[:8], pool[8:], pool, pool[::-1], [], [""], ["", " ", ""], _random_texts(2, 5)]
    for texts in batches:
        ref = _reference_encode_texts(e5_tokenizer, texts)
        for got in (encode_texts(e5_tokenizer, texts, cache), encode_texts(e5_tokenizer, texts)):
            assert got == ref
            for enc in got:
                assert all(type(x) is int for x in enc.ids + enc.word_of)
                assert all(type(x) is bool for x in enc.first)
            assert _plan(got, texts, config) == _plan(ref, texts, config)
        assert len(cache) <= max_words


def test_a_lone_surrogate_is_refused_as_before(e5_tokenizer: Any) -> None:
    text = "Patient \ud800 Martin"
    with pytest.raises(TypeError):
        _reference_encode_texts(e5_tokenizer, [text])
    with pytest.raises(TypeError):
        encode_texts(e5_tokenizer, [text], WordCache(e5_tokenizer))
    assert split_words(text) == _reference_split_words(text)


def test_unit_starts_are_the_former_ones_with_and_without_cuts(e5_tokenizer: Any) -> None:
    rng = random.Random(3)
    for text, enc in zip(TOKENIZABLE, _reference_encode_texts(e5_tokenizer, TOKENIZABLE), strict=True):
        assert unit_starts(text, enc) == _reference_unit_starts(text, enc)
        cuts = tuple(sorted(rng.sample(range(len(text) + 1), min(len(text) + 1, 25))))
        cut_enc = encode_text(e5_tokenizer, text, cuts)
        assert unit_starts(text, cut_enc) == _reference_unit_starts(text, cut_enc)


def test_words_tokenized_many_to_a_sequence_read_as_each_alone(e5_tokenizer: Any) -> None:
    words = list(
        dict.fromkeys(t[w.start : w.end] for t in TOKENIZABLE + _random_texts(4, 60) for w in split_words(t))
    )
    assert len(words) > 2 * _CHUNK  # several sequences, the last one short
    assert _tokenize_words(e5_tokenizer, words) == _tokenize_words(e5_tokenizer, words, alone=True)


# Pieces repeated to 10k and 100k characters: one long word, words, punctuation runs, line ends,
# combining marks, CJK, emoji, zero-width characters (tests/rules/test_linear_time.py for rules).
LINEAR_SHAPES = ("a", "a ", ". ", "\n", "_", "1.", "e\u0301 ", "\u65e5", "\U0001f600 ", "a\u200b", ".\n")
MAX_RATIO = 15  # ten times the text: linear is x10, quadratic x100 (the rules' bound)
# the whole path allocates a Word and cache entries a word: 100k fresh objects read x12-14 on an
# idle box (CJK, a word a character), so its bound sits between that and a quadratic's x100
MAX_RATIO_WHOLE = 30
FLOOR_S = 1e-3  # a ratio is taken against 1 ms at least: shorter times are noise


def _least_time(fn: Any, text: str, tries: int = 5) -> float:
    """The least time over ``tries`` runs, garbage collection off: a full collection walks the whole
    heap (the model, the tokenizer), whatever the input (tests/rules/test_linear_time.py does the same)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        best = math.inf
        for _ in range(tries):
            start = time.process_time()  # every thread: the Rust tokenizer may run in its own
            fn(text)
            best = min(best, time.process_time() - start)
    finally:
        if was_enabled:
            gc.enable()
    return best


@pytest.mark.parametrize("shape", LINEAR_SHAPES)
def test_tokenization_is_linear_in_the_text(e5_tokenizer: Any, shape: str) -> None:
    def tokenize(text: str) -> None:  # words, the cache's misses and unit starts, as a detector does
        (enc,) = encode_texts(e5_tokenizer, [text], WordCache(e5_tokenizer))
        unit_starts(text, enc)

    small, large = ((shape * (n // len(shape) + 1))[:n] for n in (10_000, 100_000))
    # the offsets alone: split_words adds a Word object a word as before, and allocating 100k of
    # them at once reads x12-14 with the former code too (fresh memory, not the input)
    for fn in (word_bounds, tokenize):
        fn(small)  # warm: character classes, the tokenizer's threads
        ratio = _least_time(fn, large) / max(_least_time(fn, small), FLOOR_S)
        bound = MAX_RATIO if fn is word_bounds else MAX_RATIO_WHOLE
        if ratio > bound:  # a loaded box: timed again, more tries, before it condemns
            ratio = _least_time(fn, large, tries=9) / max(_least_time(fn, small, tries=9), FLOOR_S)
        assert ratio <= bound, (fn.__name__, repr(shape), ratio)
