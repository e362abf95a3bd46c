"""Issue 18's inference plumbing: one tokenizer call per batch, windows cut at line and sentence
starts without stretching the last one, the operating threshold, long notes in pieces."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from deid.labels import BIO_TAGS, Label
from deid.ner.chunked import ChunkedDetector, split_long
from deid.ner.encode import encode_text, encode_texts, unit_starts
from deid.ner.infer import InferenceConfig, TokenPreds, _batches, _plan, decode_predictions
from deid.ner.text import Window, make_aligned_windows, split_words
from deid.spans import Span


def test_one_tokenizer_call_gives_what_one_call_per_text_gives(e5_tokenizer: Any) -> None:
    texts = ["Mme Lefebvre, née le 12/03/1951.", "", "   ", "Paciente: Rosa Martínez, 67 años.\nAlta."]
    for one, many in zip([encode_text(e5_tokenizer, t) for t in texts], encode_texts(e5_tokenizer, texts),
                         strict=True):
        assert one == many


@pytest.mark.parametrize("seed", range(30))
def test_aligned_windows_cover_every_token_once_within_the_size(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randrange(1, 3000)
    size = rng.choice([30, 126, 254])
    overlap = rng.randrange(0, size // 2)
    starts = sorted(rng.sample(range(n), min(n, rng.randrange(0, 200))))
    windows = make_aligned_windows(n, size, overlap, starts)
    assert windows[0].start == 0 and windows[-1].end == n
    assert [k for w in windows for k in range(w.keep_start, w.keep_end)] == list(range(n))
    for w in windows:
        assert 0 < w.end - w.start <= size
        assert w.start <= w.keep_start <= w.keep_end <= w.end


def test_aligned_windows_end_at_sentence_starts_when_there_is_slack() -> None:
    # a sentence every 20 tokens; 900 tokens need 5 windows of 254, which leaves room to align
    starts = list(range(20, 900, 20))
    windows = make_aligned_windows(900, 254, 64, starts)
    assert len(windows) == 5
    assert all(w.end in starts for w in windows[:-1])
    assert all(w.start == 0 or w.start in starts for w in windows[:-1])
    assert sum(w.end - w.start for w in windows) < 900 + 4 * 64 + 4 * 20


def test_aligned_windows_are_as_few_as_the_overlap_allows_and_even() -> None:
    # 1000 tokens in windows of 254 overlapping by 64 need 5: alignment never costs a sixth
    windows = make_aligned_windows(1000, 254, 64, list(range(20, 1000, 20)))
    assert len(windows) == 5
    # no stretched last window: a note just over one window is read as two halves
    assert make_aligned_windows(300, 254, 64) == [Window(0, 182, 0, 150), Window(118, 300, 150, 300)]


@pytest.mark.parametrize("n", [255, 400, 564, 1000, 2999])
def test_aligned_windows_feed_about_n_plus_one_overlap_per_cut(n: int) -> None:
    size, overlap = 254, 64
    fewest = -(-(n - overlap) // (size - overlap))
    windows = make_aligned_windows(n, size, overlap)
    assert len(windows) == fewest
    assert sum(w.end - w.start for w in windows) == n + (fewest - 1) * overlap
    lengths = [w.end - w.start for w in windows]
    assert max(lengths) - min(lengths) <= 1


def test_unit_starts_are_line_and_sentence_starts(e5_tokenizer: Any) -> None:
    text = "Premier mot. Deuxième phrase\nligne deux"
    enc = encode_text(e5_tokenizer, text)
    starts = {text[enc.words[enc.word_of[k]].start:].split()[0] for k in unit_starts(text, enc)}
    assert starts == {"Deuxième", "ligne"}


def test_batches_sort_windows_by_length_so_padding_stays_small(e5_tokenizer: Any) -> None:
    rng = random.Random(3)
    texts = [" ".join("mot" for _ in range(rng.randrange(5, 400))) for _ in range(50)]
    encoded = encode_texts(e5_tokenizer, texts)
    config = InferenceConfig(max_len=128, overlap=32, token_budget=2048, pad_multiple=1)
    jobs = _plan(encoded, texts, config)
    fed = padded = 0
    for batch in _batches(jobs, config):
        lengths = [jobs[j][1].end - jobs[j][1].start + 2 for j in batch]
        assert max(lengths) * len(batch) <= 2048 or len(batch) == 1
        fed += sum(lengths)
        padded += max(lengths) * len(batch)
    assert padded < 1.10 * fed


def _preds(p_o: list[float], p_tag: list[float], tag: str = "B-PATIENT") -> TokenPreds:
    n = len(p_o)
    return TokenPreds(np.full(n, BIO_TAGS.index(tag)), np.asarray(p_tag, np.float32),
                      np.asarray(p_o, np.float32))


def test_the_operating_threshold_trades_precision_for_recall(e5_tokenizer: Any) -> None:
    text = "Jean Paul Marie"
    (enc,) = encode_texts(e5_tokenizer, [text])
    first = [k for k, f in enumerate(enc.first) if f]
    assert len(first) == 3
    p_o = np.ones(len(enc.ids))
    p_tag = np.zeros(len(enc.ids))
    # P(O) per word: 0.2 (clearly a name), 0.55 (O wins the argmax), 0.9 (clearly not)
    for k, po in zip(first, (0.2, 0.55, 0.9), strict=True):
        p_o[k], p_tag[k] = po, (1 - po) * 0.8
    preds = [_preds(p_o.tolist(), p_tag.tolist())]
    id2label = dict(enumerate(BIO_TAGS))

    def found(config: InferenceConfig) -> list[str]:
        return [text[s.start : s.end] for s in decode_predictions([text], [enc], preds, id2label, config)[0]]

    assert found(InferenceConfig()) == ["Jean"]  # argmax: O wins at 0.55
    assert found(InferenceConfig(min_phi_prob=0.4)) == ["Jean Paul"]
    assert found(InferenceConfig(min_phi_prob=0.05)) == ["Jean Paul Marie"]
    assert found(InferenceConfig(min_phi_prob=0.9)) == []


class _Rules:
    """A stand-in detector: every word "Zorglub" is a patient name."""

    model_name = "stub"
    model_version = "0"

    def __init__(self) -> None:
        self.calls: list[int] = []

    def detect(self, texts: Any, languages: Any) -> list[list[Span]]:
        self.calls.append(len(texts))
        out = []
        for t in texts:
            out.append([Span(w.start, w.end, Label.PATIENT, "stub") for w in split_words(t)
                        if t[w.start : w.end] == "Zorglub"])
        return out


def test_split_long_cuts_at_line_ends_and_covers_the_text() -> None:
    text = "".join(f"Ligne {i} avec Zorglub.\n" for i in range(3000))
    pieces = split_long(text, 5000)
    assert "".join(p for _, p in pieces) == text
    assert all(len(p) <= 5000 for _, p in pieces)
    assert all(p.endswith("\n") for _, p in pieces[:-1])
    assert [off for off, _ in pieces] == [sum(len(p) for _, p in pieces[:i]) for i in range(len(pieces))]
    assert split_long("x" * 25, 10) == [(0, "x" * 10), (10, "x" * 10), (20, "x" * 5)]


def test_chunked_detector_maps_pieces_back_and_leaves_short_notes_alone() -> None:
    inner = _Rules()
    long_text = "".join(f"Ligne {i} avec Zorglub.\n" for i in range(3000))
    done: list[int] = []
    det = ChunkedDetector(inner, max_chars=5000, batch=4, progress=lambda ps: done.append(sum(map(len, ps))))
    short = "Zorglub est là."
    out = det.detect([short, long_text], ["fr", "fr"])
    assert out[0] == inner.detect([short], ["fr"])[0]
    assert len(out[1]) == 3000 and all(long_text[s.start : s.end] == "Zorglub" for s in out[1])
    assert sum(done) == len(short) + len(long_text)
    assert max(inner.calls[:-1]) <= 4
