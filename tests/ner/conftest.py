"""Session fixtures for the NER tests: the base encoder and tokenizer are loaded once."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(scope="session")
def e5_tokenizer() -> Any:
    from deid.ner.e5 import load_tokenizer

    return load_tokenizer()


@pytest.fixture(scope="session")
def e5_model() -> Any:
    import torch

    from deid.ner.e5 import load_e5

    torch.set_num_threads(1)
    return load_e5()[0]
