from __future__ import annotations

import pytest
from hl7_samples import sample


@pytest.fixture
def fr_oru() -> bytes:
    return sample("oru_r01_fr.hl7")


@pytest.fixture
def en_oru() -> bytes:
    return sample("oru_r01_en.hl7")


@pytest.fixture
def fr_mdm() -> bytes:
    return sample("mdm_t02_fr.hl7")


@pytest.fixture
def ed_oru() -> bytes:
    return sample("oru_r01_ed.hl7")
