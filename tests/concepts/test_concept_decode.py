"""Word tags to concept mentions (``deid.concepts.tagger.decode``): punctuation at a mention's edge
is not part of it (an I- on the "/" between two drugs, a "-" tagged alone)."""

from __future__ import annotations

import numpy as np

from deid.concepts.tagger import decode
from deid.ner.encode import EncodedText
from deid.ner.text import split_words

TAGS = ("O", "B-NORMALIZABLES", "I-NORMALIZABLES")


def mentions(text: str, word_tags: list[str]) -> list[str]:
    from deid.ner.infer import TokenPreds

    words = split_words(text)
    assert len(words) == len(word_tags), [text[w.start : w.end] for w in words]
    tag = np.array([TAGS.index(t) if t != "O" else 1 for t in word_tags])
    p_o = np.array([0.9 if t == "O" else 0.05 for t in word_tags])
    enc = EncodedText(words, list(range(len(words))), list(range(len(words))), [True] * len(words))
    return [text[c.start : c.end] for c in decode(enc, TokenPreds(tag, 1 - p_o, p_o), TAGS, text)]


def test_a_separator_tagged_inside_a_mention_at_its_end_is_left_out() -> None:
    text = "con lopinavir / ritonavir ."
    assert mentions(text, ["O", "B-NORMALIZABLES", "I-NORMALIZABLES", "B-NORMALIZABLES", "O"]) == [
        "lopinavir", "ritonavir"]


def test_punctuation_at_a_mention_start_and_a_punctuation_only_mention_are_left_out() -> None:
    text = "a - bloqueantes y ( 5 - fluorouracilo"
    tags = ["O", "B-NORMALIZABLES", "O", "O", "B-NORMALIZABLES", "I-NORMALIZABLES", "I-NORMALIZABLES",
            "I-NORMALIZABLES"]
    assert mentions(text, tags) == ["5 - fluorouracilo"]


def test_an_ion_keeps_its_final_plus_sign() -> None:
    text = "Na + bajo"
    assert mentions(text, ["B-NORMALIZABLES", "I-NORMALIZABLES", "O"]) == ["Na +"]
