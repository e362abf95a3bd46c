"""Word splitting, BIO tagging of words, word-level decoding and window layout."""

from __future__ import annotations

import random

import pytest

from deid.labels import Label
from deid.ner.text import Window, decode_words, make_windows, split_words, word_tags
from deid.spans import Span


def _surface(text: str, words: list) -> list[str]:
    return [text[w.start : w.end] for w in words]


def test_split_words_separates_punctuation_from_digits() -> None:
    text = "Né le 03.04.1962, tél: 06-12."
    assert _surface(text, split_words(text)) == [
        "Né", "le", "03", ".", "04", ".", "1962", ",", "tél", ":", "06", "-", "12", ".",
    ]  # fmt: skip


def test_split_words_cuts_at_given_offsets() -> None:
    text = "M.Dupont"
    assert _surface(text, split_words(text, cuts=(2,))) == ["M", ".", "Dupont"]
    assert _surface("AB12", split_words("AB12", cuts=(2,))) == ["AB", "12"]


def test_word_tags_mark_first_word_b_and_following_i() -> None:
    text = "Vu par Jean-Marc Dupont le 3 mars 2020."
    words = split_words(text)
    spans = [Span(7, 23, Label.STAFF), Span(27, 38, Label.DATE)]
    tags = word_tags(words, spans)
    got = dict(zip(_surface(text, words), tags, strict=True))
    assert got["Jean"] == "B-STAFF" and got["Marc"] == "I-STAFF" and got["Dupont"] == "I-STAFF"
    assert got["3"] == "B-DATE" and got["2020"] == "I-DATE" and got["le"] == "O" and got["."] == "O"


def test_decode_breaks_only_at_b_or_o_and_takes_majority_label() -> None:
    text = "Jean Paul Dupont 12 mars"
    words = split_words(text)
    tags = ["B-PATIENT", "I-STAFF", "I-PATIENT", "B-DATE", "I-DATE"]
    spans = decode_words(words, tags)
    assert spans == [Span(0, 16, Label.PATIENT, "ner"), Span(17, 24, Label.DATE, "ner")]


def test_decode_starts_an_entity_at_a_dangling_i_tag() -> None:
    text = "le 12 mars"
    spans = decode_words(split_words(text), ["O", "I-DATE", "I-DATE"])
    assert spans == [Span(3, 10, Label.DATE, "ner")]


def test_decode_splits_adjacent_entities_at_b() -> None:
    text = "Paris Lyon"
    spans = decode_words(split_words(text), ["B-CITY", "B-CITY"])
    assert [(s.start, s.end) for s in spans] == [(0, 5), (6, 10)]


def test_decode_continues_a_restarted_name_or_relative_one_space_away() -> None:
    text = "un hermano gemelo, Dra . María"
    tags = ["O", "B-RELATIVE", "B-RELATIVE", "O", "O", "B-STAFF", "B-STAFF"]
    spans = decode_words(split_words(text), tags, text=text)
    assert [(text[s.start : s.end], s.label) for s in spans] == [
        ("hermano gemelo", Label.RELATIVE),
        (".", Label.STAFF),
        ("María", Label.STAFF),
    ]


def test_decode_keeps_places_one_space_apart_split() -> None:
    text = "28036 Madrid"
    spans = decode_words(split_words(text), ["B-LOCATION", "B-LOCATION"], text=text)
    assert [(s.start, s.end) for s in spans] == [(0, 5), (6, 12)]


def test_decode_inverts_word_tags_for_word_aligned_spans() -> None:
    rng = random.Random(7)
    text = " ".join(
        rng.choice(["Jean", "12", "/", "mars", "rue", "de", "la", "Paix", ","]) for _ in range(200)
    )
    words = split_words(text)
    gold: list[Span] = []
    i = 0
    while i < len(words):
        n = rng.randrange(1, 4)
        if rng.random() < 0.3 and i + n <= len(words):
            gold.append(Span(words[i].start, words[i + n - 1].end, rng.choice([Label.DATE, Label.CITY])))
            i += n + 1  # keep an O between entities so B/I is unambiguous
        else:
            i += 1
    assert decode_words(words, word_tags(words, gold), source="gold") == gold


@pytest.mark.parametrize("n", [1, 10, 254, 255, 500, 1000, 1234])
def test_windows_cover_every_token_once_in_their_keep_ranges(n: int) -> None:
    windows = make_windows(n, 254, 64)
    assert windows[0].start == 0 and windows[-1].end == n
    kept = [k for w in windows for k in range(w.keep_start, w.keep_end)]
    assert kept == list(range(n))
    for w in windows:
        assert w.end - w.start <= 254
        assert w.start <= w.keep_start <= w.keep_end <= w.end


def test_windows_give_each_kept_token_context_on_both_sides() -> None:
    windows = make_windows(1000, 254, 64)
    for w in windows[1:-1]:
        assert w.keep_start - w.start >= 32 and w.end - w.keep_end >= 31
    assert windows[0] == Window(0, 254, 0, windows[1].keep_start)


def test_windows_reject_bad_sizes() -> None:
    with pytest.raises(ValueError):
        make_windows(10, 8, 8)
