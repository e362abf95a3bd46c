"""The detection protocols: what a rule recognizer and a whole detection stage look like (texts
in, spans out; rules and the model behind one call). Formerly ``deid.detect``.

Detection is synchronous and CPU/GPU bound: the worker runs it off the event loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from deid.concepts import Concept
from deid.spans import Span


class Recognizer(Protocol):
    """One rule recognizer (Presidio style): finds spans of some labels in some languages."""

    name: str

    def find(self, text: str, language: str) -> list[Span]: ...


class Detector(Protocol):
    """The whole detection stage over a batch."""

    @property
    def model_name(self) -> str: ...

    @property
    def model_version(self) -> str: ...

    def detect(self, texts: Sequence[str], languages: Sequence[str]) -> list[list[Span]]: ...


class ConceptTagger(Protocol):
    """Concept extraction over a batch (``deid.concepts``): texts in, concept mentions out, with
    offsets into each text."""

    @property
    def model_version(self) -> str: ...

    def tag(self, texts: Sequence[str]) -> list[list[Concept]]: ...

    def tag_sentences(self, texts: Sequence[str]) -> list[list[Concept]]:
        """Each text read whole, as one sentence (a corpus that gives its own sentences)."""
        ...
