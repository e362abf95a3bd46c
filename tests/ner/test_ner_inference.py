"""Inference plumbing with a stand-in model: batching, windows and offsets back to characters."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from deid.labels import BIO_TAGS, Label
from deid.ner.infer import InferenceConfig, NerDetector, predict_spans


class _KeywordTagger:
    """Tags every subword whose id is in ``ids`` as B-PATIENT, everything else O."""

    def __init__(self, ids: set[int]) -> None:
        self.config = SimpleNamespace(id2label=dict(enumerate(BIO_TAGS)))
        self.ids = ids
        self.calls: list[tuple[int, int]] = []

    def __call__(self, input_ids: Any, attention_mask: Any) -> Any:
        import torch

        self.calls.append(tuple(input_ids.shape))
        logits = torch.zeros((*input_ids.shape, len(BIO_TAGS)))
        logits[..., 0] = 1.0
        hit = torch.zeros(input_ids.shape, dtype=torch.bool)
        for i in self.ids:
            hit |= input_ids == i
        logits[..., BIO_TAGS.index("B-PATIENT")] = hit.float() * 5
        return SimpleNamespace(logits=logits)

    def to(self, device: str) -> _KeywordTagger:
        return self

    def eval(self) -> _KeywordTagger:
        return self


@pytest.fixture(scope="module")
def tagger(e5_tokenizer: Any) -> _KeywordTagger:
    ids = e5_tokenizer("Zorglub", add_special_tokens=False)["input_ids"]
    return _KeywordTagger({ids[0]})


def test_long_note_spans_map_back_to_exact_characters(e5_tokenizer: Any, tagger: _KeywordTagger) -> None:
    filler = "Le patient va bien, tension 12/8, pas de fièvre. "
    text = "".join(filler * 3 + f"Vu M. Zorglub le {i}.\n" for i in range(60))
    assert len(e5_tokenizer(text)["input_ids"]) > 1000  # several windows
    spans = predict_spans(tagger, e5_tokenizer, [text], InferenceConfig(max_len=128, overlap=32))[0]
    expected = [i for i in range(len(text)) if text.startswith("Zorglub", i)]
    assert [s.start for s in spans] == expected
    assert all(text[s.start : s.end] == "Zorglub" and s.label == Label.PATIENT for s in spans)
    assert all(s.source == "ner" for s in spans)


def test_batches_respect_the_token_budget(e5_tokenizer: Any, tagger: _KeywordTagger) -> None:
    texts = [f"Note {i}: Zorglub " + "mot " * (i * 7) for i in range(40)]
    tagger.calls.clear()
    out = predict_spans(
        tagger, e5_tokenizer, texts, InferenceConfig(max_len=128, overlap=32, token_budget=512)
    )
    assert len(out) == 40 and all(len(s) == 1 for s in out)
    assert all(rows * cols <= 512 for rows, cols in tagger.calls)
    assert len(tagger.calls) > 1


def test_detector_returns_one_list_per_text(e5_tokenizer: Any, tagger: _KeywordTagger) -> None:
    det = NerDetector(tagger, e5_tokenizer, device="cpu", version="t")
    res = det.detect(["Zorglub est là.", "", "rien"], ["fr", "fr", "fr"])
    assert [len(r) for r in res] == [1, 0, 0]
    assert det.detect([], []) == []
    with pytest.raises(ValueError):
        det.detect(["a"], [])


def test_a_forward_that_launches_asynchronously_gives_the_same_reading_one_batch_ahead(
    e5_tokenizer: Any, tagger: _KeywordTagger
) -> None:
    """The GPU path's one-deep pipeline: batch k+1 is launched before batch k is read back, and
    the predictions are those of the eager loop."""
    import numpy as np
    import torch

    from deid.ner.infer import token_predictions, torch_forward

    eager = torch_forward(tagger)
    events: list[str] = []

    def forward(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return eager(ids, mask)

    def launch(ids: np.ndarray, mask: np.ndarray) -> Any:
        k = sum(e.startswith("launch") for e in events)
        events.append(f"launch {k}")
        probs = eager(ids, mask)

        def wait() -> np.ndarray:
            events.append(f"wait {k}")
            return probs

        return wait

    forward.launch = launch  # type: ignore[attr-defined]
    texts = [f"Note {i}: Zorglub " + "mot " * (i * 9) for i in range(30)]
    config = InferenceConfig(max_len=128, overlap=32, token_budget=512)
    torch.manual_seed(0)
    _, ref = token_predictions(eager, e5_tokenizer, texts, config)
    _, got = token_predictions(forward, e5_tokenizer, texts, config)
    for a, b in zip(ref, got, strict=True):
        assert np.array_equal(a.tag, b.tag) and np.allclose(a.p_o, b.p_o) and np.allclose(a.p_tag, b.p_tag)
    n = sum(e.startswith("launch") for e in events)
    assert n > 2
    assert events[:3] == ["launch 0", "launch 1", "wait 0"]
    assert events[-1] == f"wait {n - 1}" and len(events) == 2 * n


def test_batches_are_padded_to_a_multiple_of_32_within_the_budget(
        e5_tokenizer: Any, tagger: _KeywordTagger) -> None:  # fmt: skip
    """Few distinct shapes (oneDNN builds a kernel per shape), and the token budget still holds;
    the shipped model reads padded batches as unpadded ones (tests/ner/test_cpu_fusion.py)."""
    from dataclasses import replace

    import numpy as np

    from deid.ner.infer import token_predictions, torch_forward

    eager = torch_forward(tagger)
    lengths: list[int] = []

    def forward(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        lengths.append(ids.shape[1])
        assert ids.size <= 512
        return eager(ids, mask)

    texts = [f"Note {i}: Zorglub " + "mot " * (i * 7) for i in range(25)]
    config = InferenceConfig(max_len=128, overlap=32, token_budget=512)
    assert config.pad_multiple == 32
    _, padded = token_predictions(forward, e5_tokenizer, texts, config)
    assert lengths and all(n % 32 == 0 or n == 128 for n in lengths)
    lengths.clear()
    _, exact = token_predictions(forward, e5_tokenizer, texts, replace(config, pad_multiple=1))
    assert any(n % 32 for n in lengths)
    for a, b in zip(exact, padded, strict=True):
        assert np.array_equal(a.tag, b.tag) and np.allclose(a.p_o, b.p_o, atol=1e-5)
