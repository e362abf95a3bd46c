"""The product's windows (issue 32): 256 tokens sharing 8 with their neighbour, cut at line or
sentence starts when one is within reach, every token read, none past the model's length."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from deid.ner.encode import encode_texts, unit_starts
from deid.ner.infer import InferenceConfig, _plan
from deid.ner.text import make_aligned_windows
from deid.settings import ModelSettings

SETTINGS = ModelSettings()
CONFIG = InferenceConfig(max_len=SETTINGS.window_tokens, overlap=SETTINGS.window_stride)
SIZE = CONFIG.max_len - 2  # two special tokens a window


def test_the_default_windows_share_8_tokens() -> None:
    assert (SETTINGS.window_tokens, SETTINGS.window_stride) == (256, 8)


def test_an_inference_config_built_without_windows_takes_the_products_windows() -> None:
    # the lab's evaluations, the benches and a detector loaded from a path read notes as the
    # worker does (``load_detector_from_settings``), not with windows of their own
    default = InferenceConfig()
    assert (default.max_len, default.overlap) == (SETTINGS.window_tokens, SETTINGS.window_stride)


def _note_of_about(e5_tokenizer: Any, rng: random.Random, n_tokens: int) -> str:
    """Sentences of 6 to 19 words until the note has ``n_tokens`` tokens."""
    words = ["patient", "admitted", "with", "fever", "and", "cough", "treated", "discharged", "home"]
    sentences: list[str] = []
    while not sentences or len(encode_texts(e5_tokenizer, [" ".join(sentences)])[0].ids) < n_tokens:
        sentences.append(" ".join(rng.choice(words) for _ in range(rng.randrange(6, 20))) + ".")
    return " ".join(sentences)


@pytest.mark.parametrize("seed", range(5))
def test_windows_end_at_a_sentence_start_when_one_is_within_reach(e5_tokenizer: Any, seed: int) -> None:
    # about 600 tokens need three windows of 254 sharing 8, which could read 746: the slack
    # leaves every cut free to move to a sentence start (one every 7 to 21 tokens)
    text = _note_of_about(e5_tokenizer, random.Random(seed), 600)
    (enc,) = encode_texts(e5_tokenizer, [text])
    starts = set(unit_starts(text, enc))
    windows = [w for _, w in _plan([enc], [text], CONFIG)]
    assert len(windows) == 3
    assert all(w.end in starts for w in windows[:-1])


@pytest.mark.parametrize("seed", range(20))
def test_every_token_is_read_once_by_windows_of_at_most_the_size(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randrange(1, 5000)
    starts = sorted(rng.sample(range(n), min(n, rng.randrange(0, 300))))
    windows = make_aligned_windows(n, SIZE, CONFIG.overlap, starts)
    assert windows[0].start == 0 and windows[-1].end == n
    assert [k for w in windows for k in range(w.keep_start, w.keep_end)] == list(range(n))
    for w in windows:
        assert 0 < w.end - w.start <= SIZE
        assert w.start <= w.keep_start <= w.keep_end <= w.end


def test_a_long_note_without_punctuation_gets_windows_of_at_most_the_size(e5_tokenizer: Any) -> None:
    text = " ".join(["paciente"] * 3000)  # no line, no sentence: nowhere to align a cut
    (enc,) = encode_texts(e5_tokenizer, [text])
    assert unit_starts(text, enc) == []
    windows = [w for _, w in _plan([enc], [text], CONFIG)]
    assert all(0 < w.end - w.start <= SIZE for w in windows)
    assert [k for w in windows for k in range(w.keep_start, w.keep_end)] == list(range(len(enc.ids)))


@pytest.mark.parametrize("n", [255, 564, 1000, 2999])
def test_the_windows_feed_one_short_overlap_per_cut(n: int) -> None:
    windows = make_aligned_windows(n, SIZE, CONFIG.overlap)
    fewest = -(-(n - CONFIG.overlap) // (SIZE - CONFIG.overlap))
    assert len(windows) == fewest
    assert sum(w.end - w.start for w in windows) == n + (fewest - 1) * CONFIG.overlap
    # each kept token keeps at least half the overlap of context on the side of a cut
    for left, right in itertools.pairwise(windows):
        assert left.end - left.keep_end >= CONFIG.overlap // 2
        assert right.keep_start - right.start >= CONFIG.overlap // 2
