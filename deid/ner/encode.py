"""Documents to model inputs: words, subword ids, windows (shared by training and inference)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

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


def encode_texts(tokenizer: Any, texts: Sequence[str]) -> list[EncodedText]:
    """``encode_text`` for a whole batch with one tokenizer call: the fast tokenizer then splits the
    texts in parallel in Rust instead of paying Python's per-call overhead once per note."""
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
