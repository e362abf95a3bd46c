from __future__ import annotations

from collections.abc import Callable

import pytest

from deid.labels import Label
from deid.rules import RuleDetector

Find = Callable[[str, str], list[tuple[str, Label]]]


@pytest.fixture(scope="session")
def detector() -> RuleDetector:
    return RuleDetector()


@pytest.fixture(scope="session")
def find(detector: RuleDetector) -> Find:
    """(surface, label) of every span the full rule detector finds in ``text``."""

    def _find(text: str, language: str) -> list[tuple[str, Label]]:
        return [(text[s.start : s.end], s.label) for s in detector.find(text, language)]

    return _find
