"""Issue 36's exact speed-ups of the shipped detector path: the word -> subword-ids cache gives the
ids and windows the tokenizer call gives, and the decoder that loops over the PHI words only gives
the spans of the former decoder (every word through ``decode_words``)."""

from __future__ import annotations

import random
import unicodedata
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from deid.labels import BIO_TAGS
from deid.ner import DEFAULT_MODEL_DIR
from deid.ner.encode import EncodedText, WordCache, encode_texts
from deid.ner.infer import InferenceConfig, TokenPreds, _plan, decode_predictions
from deid.ner.text import decode_words, split_words
from deid.spans import Span

TEXTS = [
    "Compte-rendu d'hospitalisation. Mme Martine Lefebvre, née le 12/03/1951, a été hospitalisée "
    "du 02/02/2024 au 09/02/2024. Rendez-vous avec le Dr Antoine Mercier le 15 mars 2024.",
    "Paciente: Dña. María Luisa Fernández García, NHC 3456789.\nFecha de nacimiento: 23/07/1951 "
    "(72 años).\nIngresa el 10/01/2024 por neumonía. Ñandú, pingüino, acción, corazón.",
    "Discharge summary. Patient: John Miller, born 04/11/1948, was admitted on 02/01/2023 with "
    "chest pain. Seen by Dr. Sarah Thompson. Follow-up on March 3, 2023. Tel +1 (555) 010-9999.",
    # odd Unicode: combining marks, ligatures, full width, zero width, emoji, RTL, CJK, NBSP, tabs
    "Th\u00e9re\u0300se Zo\u0308e \ufb01n \ufb02ux \uff21\uff42\uff43\uff11\uff12 a\u200bb c\u200dd "
    "\u00a0x\u2009y\u202fz\t\tw\r\n\u2028 \U0001f600\U0001f469\u200d\U0001f4bb \u05e9\u05dc\u05d5\u05dd "
    "\u0645\u0631\u062d\u0628\u0627 \u65e5\u672c\u8a9e \ud55c\uad6d\uc5b4 \u0130stanbul Stra\u00dfe "
    "\u00b5g \u2126 \u212b \u00bd \u2460 \u00b2 \u2019 \u2014 \u00ab\u00bb \u20ac \u00a7 "
    "\u0000 \u0007 \ufeff.",
    # long words: runs of letters and digits that the tokenizer cuts into many pieces
    "anticonstitutionnellement " + "x" * 300 + " " + "1234567890" * 40 + " "
    + "Pneumonoultramicroscopicsilicovolcanoconiosis" * 5 + " " + "é" * 120,
    "",
    "   \n\t ",
    ".,;:!?()[]{}<>/\\|@#$%^&*-_=+~`'\"",
]


def _varied_texts(seed: int, n: int) -> list[str]:
    """The texts above, cut, shuffled and mutated with random characters of many scripts."""
    rng = random.Random(seed)
    words = [t[w.start : w.end] for t in TEXTS for w in split_words(t)]
    alphabet = [chr(c) for c in range(0x20, 0x2FFF) if unicodedata.category(chr(c)) != "Cs"]
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randrange(0, 120)):
            r = rng.random()
            if r < 0.75:
                parts.append(rng.choice(words))
            elif r < 0.9:
                parts.append("".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 12))))
            else:
                parts.append(rng.choice(["\n", ".", "\n\n", " - ", "/", "  "]))
        out.append(rng.choice([" ", "", "\n"]).join(parts) if rng.random() < 0.2 else " ".join(parts))
    return out


def test_the_shipped_tokenizer_reads_each_word_on_its_own(e5_tokenizer: Any) -> None:
    assert WordCache(e5_tokenizer).exact


@pytest.mark.parametrize("max_words", [100_000, 7])
def test_cached_ids_and_windows_are_the_tokenizer_calls(e5_tokenizer: Any, max_words: int) -> None:
    cache = WordCache(e5_tokenizer, max_words=max_words)
    config = InferenceConfig(max_len=64, overlap=16)  # small windows: every long text is cut
    batches = [TEXTS, TEXTS, *(_varied_texts(seed, 12) for seed in range(6)), TEXTS[::-1]]
    for texts in batches:
        plain = encode_texts(e5_tokenizer, texts)
        cached = encode_texts(e5_tokenizer, texts, cache)
        assert cached == plain
        assert _plan(cached, texts, config) == _plan(plain, texts, config)
        assert len(cache) <= max_words
    assert cache.hits > 0 and cache.misses > 0


def test_words_read_through_transformers_wrapper_give_the_same_ids(e5_tokenizer: Any) -> None:
    class Wrapper:  # no backend_tokenizer: the words go through the wrapper's own call
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            return e5_tokenizer(*args, **kwargs)

    texts = TEXTS + _varied_texts(99, 10)
    cache = WordCache(Wrapper())
    assert cache.exact
    assert encode_texts(e5_tokenizer, texts, cache) == encode_texts(e5_tokenizer, texts)


def test_the_cache_drops_the_least_recently_used_word(e5_tokenizer: Any) -> None:
    cache = WordCache(e5_tokenizer, max_words=3)
    cache.lookup(["un", "deux", "trois"])
    cache.lookup(["un"])  # now the most recent
    cache.lookup(["quatre"])
    assert set(cache._ids) == {"trois", "un", "quatre"}
    # a batch with more distinct words than the cache holds is still read whole
    got = cache.lookup(["a", "b", "c", "d", "e"])
    assert set(got) == {"a", "b", "c", "d", "e"} and len(cache) == 3


def test_a_tokenizer_that_cannot_be_probed_gets_no_cache(e5_tokenizer: Any) -> None:
    class Broken:
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            raise TypeError("no")

    cache = WordCache(Broken())
    assert not cache.exact
    # encode_texts then calls the tokenizer it is given, as without a cache
    assert encode_texts(e5_tokenizer, TEXTS, cache) == encode_texts(e5_tokenizer, TEXTS)


# --------------------------------------------------------------------------------------------
# decoding


def _reference_decode(texts: Any, encoded: Any, preds: Any, id2label: dict[int, str],
                      config: InferenceConfig) -> list[list[Span]]:
    """decode_predictions as it was before the PHI-only loop: a tag for every word, then
    decode_words."""
    out: list[list[Span]] = []
    for text, enc, pr in zip(texts, encoded, preds, strict=True):
        tags = ["O"] * len(enc.words)
        scores = [1.0] * len(enc.words)
        if enc.ids:
            first = np.flatnonzero(np.asarray(enc.first, dtype=bool))
            word_of = np.asarray(enc.word_of, dtype=np.int64)[first]
            p_tag, p_o, tag = pr.p_tag[first], pr.p_o[first], pr.tag[first]
            phi = p_tag > p_o if config.min_phi_prob is None else (1.0 - p_o) >= config.min_phi_prob
            best = np.where(phi, p_tag, p_o)
            if config.min_score > 0:
                phi &= best >= config.min_score
            for w, is_phi, t, p in zip(word_of.tolist(), phi.tolist(), tag.tolist(), best.tolist(),
                                       strict=True):
                scores[w] = p
                if is_phi:
                    tags[w] = id2label.get(t, "O")
        out.append(decode_words(enc.words, tags, scores, text=text))
    return out


def _as_tuples(spans: list[list[Span]]) -> list[list[tuple[Any, ...]]]:
    return [[(s.start, s.end, s.label, s.source, s.score) for s in ss] for ss in spans]


CONFIGS = [
    InferenceConfig(),
    InferenceConfig(min_phi_prob=0.1),
    InferenceConfig(min_phi_prob=0.5),
    InferenceConfig(min_score=0.4),
    InferenceConfig(min_phi_prob=0.2, min_score=0.6),
]

# the labels whose B- may continue an entity one space before, and a few others
_NAMES = [t for t in BIO_TAGS
          if t[2:] in ("PATIENT", "STAFF", "RELATIVE", "PERSON", "HOSPITAL", "ORG", "STREET")]


def _random_preds(rng: random.Random, enc: EncodedText) -> TokenPreds:
    """Label runs as a model writes them (B- then I-, restarts, stray tags), probabilities that
    sometimes tie."""
    n = len(enc.ids)
    tags = np.zeros(n, np.int64)
    k = 0
    while k < n:
        run = rng.randrange(1, 6)
        name = rng.choice(_NAMES + list(BIO_TAGS[1:])) if rng.random() < 0.7 else rng.choice(BIO_TAGS[1:])
        label = name[2:]
        for j in range(k, min(n, k + run)):
            prefix = "B-" if j == k or rng.random() < 0.2 else "I-"
            if rng.random() < 0.1:
                label = rng.choice(BIO_TAGS[1:])[2:]
            tags[j] = BIO_TAGS.index(prefix + label) if rng.random() > 0.03 else 10_000  # unknown id
        k += run
    p_o = np.asarray([rng.choice([0.0, 0.05, 0.3, 0.5, 0.7, 0.95, 1.0, rng.random()]) for _ in range(n)],
                     np.float32)
    p_tag = np.asarray([rng.choice([float(po), 1 - float(po), rng.random() * (1 - float(po))])
                        for po in p_o], np.float32)
    return TokenPreds(tags, p_tag, p_o)


def _fake_encoding(rng: random.Random, text: str) -> EncodedText:
    """Words with 0 to 3 subwords each (a word without any is an O word to both decoders)."""
    words = split_words(text)
    ids: list[int] = []
    word_of: list[int] = []
    first: list[bool] = []
    for wi in range(len(words)):
        n = rng.choice([0, 1, 1, 1, 2, 3]) if rng.random() < 0.5 else 1
        for j in range(n):
            ids.append(5)
            word_of.append(wi)
            first.append(j == 0)
    return EncodedText(words, ids, word_of, first)


@pytest.mark.parametrize("seed", range(40))
def test_phi_only_decoding_gives_the_former_spans_on_random_labels(seed: int) -> None:
    rng = random.Random(seed)
    texts = [t.replace("  ", " ") for t in _varied_texts(seed, 8)] + TEXTS
    encoded = [_fake_encoding(rng, t) for t in texts]
    preds = [_random_preds(rng, e) for e in encoded]
    id2label = dict(enumerate(BIO_TAGS))
    if seed % 4 == 0:  # a label map that lacks some tags: those read as O
        for i in rng.sample(sorted(id2label)[1:], 5):
            del id2label[i]
    for config in CONFIGS:
        assert _as_tuples(decode_predictions(texts, encoded, preds, id2label, config)) == _as_tuples(
            _reference_decode(texts, encoded, preds, id2label, config))


@pytest.mark.skipif(not (DEFAULT_MODEL_DIR / "model.safetensors").is_file(), reason="no shipped model")
def test_phi_only_decoding_gives_the_former_spans_on_the_shipped_models_output() -> None:
    import torch

    from deid.lab.synth import generate_notes
    from deid.ner import load_default_detector

    torch.set_num_threads(1)
    det = load_default_detector(device="cpu")
    texts = TEXTS[:4] + [d.text for d in generate_notes(6, seed=7)]
    encoded, preds = det.token_predictions(texts)
    assert encoded == encode_texts(det._tokenizer, texts)  # through the detector's own cache
    id2label = det._id2label
    found = 0
    for config in [*CONFIGS, replace(det.config, min_score=0.0)]:
        got = decode_predictions(texts, encoded, preds, id2label, config)
        assert _as_tuples(got) == _as_tuples(_reference_decode(texts, encoded, preds, id2label, config))
        found += sum(map(len, got))
    assert found > 50


# --------------------------------------------------------------------------------------------
# GPU settings


def test_tf32_is_on_for_a_gpu_pass_only_and_put_back_after() -> None:
    import torch

    from deid.ner.infer import _gpu_kernels

    before = torch.get_float32_matmul_precision()
    try:
        torch.set_float32_matmul_precision("highest")
        with _gpu_kernels(torch, tf32=True):
            assert torch.get_float32_matmul_precision() == "high"
            assert not torch.backends.cuda.cudnn_sdp_enabled()
            assert torch.backends.cuda.flash_sdp_enabled() and torch.backends.cuda.math_sdp_enabled()
        assert torch.get_float32_matmul_precision() == "highest"
        assert torch.backends.cuda.cudnn_sdp_enabled()
        with _gpu_kernels(torch, tf32=False):  # half precision: the precision is not touched
            assert torch.get_float32_matmul_precision() == "highest"
        torch.set_float32_matmul_precision("medium")  # a process that chose its own keeps it
        with _gpu_kernels(torch, tf32=True):
            assert torch.get_float32_matmul_precision() == "medium"
        assert torch.get_float32_matmul_precision() == "medium"
    finally:
        torch.set_float32_matmul_precision(before)


def test_the_cpu_forward_never_enters_the_gpu_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    from transformers import BertConfig, BertForTokenClassification

    import deid.ner.infer as infer

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("GPU settings on the CPU path")

    monkeypatch.setattr(infer, "_gpu_kernels", refuse)
    config = BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, num_labels=len(BIO_TAGS))
    forward = infer.torch_forward(BertForTokenClassification(config).eval(), "cpu", tf32=True)
    probs = forward(np.ones((2, 8), np.int64), np.ones((2, 8), np.int64))
    assert probs.shape == (2, 8, len(BIO_TAGS))
