"""The GPU path (issue 36): windows packed end to end without padding read each token as the
padded path does. On a CPU the packed encoder attends window by window (flash attention's
variable-length kernel needs a GPU), which makes it the exact reference of the GPU kernel: the
same spans, the same per-token probabilities to float32 rounding, over passes of any size."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from deid.ner import DEFAULT_MODEL_DIR
from deid.ner.infer import InferenceConfig, NerDetector
from deid.ner.packed import PackedEncoder, varlen_attention

NOTES = [
    "Mme Lefebvre Odile, née le 12/03/1951, vue le 4 mars 2024 au CHU de Rennes par le Dr Garnier.",
    "Paciente: Rosa Martínez Ibáñez, 67 años, NHC 4478213. Vive en C/ Mayor 12, 3º B, Teruel.",
    "",
    "Pt is a 58 y/o M seen by Dr. Okafor at St. Brendan's on 3/14. Wife Maureen at bedside. Tel 555-0142.",
]


def _long_note(seed: int, sentences: int) -> str:
    rng = random.Random(seed)
    given = ["Ana", "Jules", "Hélène", "Tomás", "Priya", "Kwame"]
    sur = ["Moreau", "Quintana", "Delacroix", "Nakamura", "Oyelaran", "Brennan"]
    parts = []
    for _ in range(sentences):
        parts.append(f"Le {rng.randrange(1, 28)}/{rng.randrange(1, 12)}/20{rng.randrange(10, 24)}, "
                     f"{rng.choice(given)} {rng.choice(sur)} a appelé le 06 {rng.randrange(10, 99)} "
                     f"{rng.randrange(10, 99)} {rng.randrange(10, 99)} {rng.randrange(10, 99)}; "
                     f"TA 128/76, EVA 3/10, créat {rng.randrange(50, 120)} µmol/L.")
    return " ".join(parts)


@pytest.fixture(scope="module")
def detectors() -> tuple[NerDetector, NerDetector]:
    import torch

    torch.set_num_threads(1)
    config = InferenceConfig(overlap=8, token_budget=600)  # passes of a few windows each
    padded = NerDetector.from_path(DEFAULT_MODEL_DIR, device="cpu", dtype="float32", packed=False,
                                   config=config)
    packed = NerDetector.from_path(DEFAULT_MODEL_DIR, device="cpu", dtype="float32", packed=True,
                                   config=config)
    return padded, packed


def test_the_packed_encoder_finds_the_spans_of_the_padded_path(detectors: Any) -> None:
    padded, packed = detectors
    texts = NOTES + [_long_note(s, 40) for s in range(3)]  # notes of several windows each
    langs = ["fr", "es", "fr", "en", "fr", "fr", "fr"]
    want = padded.detect(texts, langs)
    got = packed.detect(texts, langs)
    assert [[(s.start, s.end, s.label) for s in spans] for spans in got] == [
        [(s.start, s.end, s.label) for s in spans] for spans in want
    ]
    assert sum(map(len, want)) > 40  # the comparison is about real spans
    # packed passes feed no padding: every token fed is a window's own
    assert packed.timings.padded == packed.timings.tokens


def test_every_token_reads_the_same_probabilities_packed_or_padded(detectors: Any) -> None:
    padded, packed = detectors
    texts = [_long_note(7, 30), NOTES[0], NOTES[3]]
    _, want = padded.token_predictions(texts)
    _, got = packed.token_predictions(texts)
    for w, g in zip(want, got, strict=True):
        assert np.array_equal(w.tag[w.p_o < 0.99], g.tag[w.p_o < 0.99])  # where a PHI tag may matter
        assert np.allclose(w.p_o, g.p_o, atol=1e-4)
        assert np.allclose(w.p_tag, g.p_tag, atol=1e-4)


def test_a_pass_never_exceeds_its_token_budget_and_no_window_is_lost(detectors: Any) -> None:
    _, packed = detectors
    seen: list[int] = []
    launch = packed._packed

    def spy(ids: np.ndarray, cu: np.ndarray, max_len: int) -> Any:
        seen.append(int(cu[-1]))
        assert len(ids) == int(cu[-1]) and max_len == int(np.diff(cu).max())
        return launch(ids, cu, max_len)

    clone = packed.with_config(packed.config)
    clone._packed = spy
    clone.detect([_long_note(3, 60)], ["fr"])
    assert len(seen) > 1 and max(seen) <= packed.config.token_budget


def test_no_variable_length_kernel_on_a_cpu_so_the_packed_encoder_says_it_attends_window_by_window(
    detectors: Any,
) -> None:
    import torch

    kernel, why = varlen_attention("cpu", torch.float32)
    assert kernel is None and "CPU" in why
    assert detectors[1].kernel.startswith("SDPA window by window")
    assert detectors[1].backend == "torch-packed-fp32"


def test_the_packed_encoder_refuses_a_model_it_would_misread(detectors: Any) -> None:
    import copy

    import torch

    model = copy.deepcopy(detectors[0]._model)
    model.config.hidden_act = "gelu_new"
    with pytest.raises(ValueError, match="erf GELU"):
        PackedEncoder(model, "cpu", torch.float32, 0)
