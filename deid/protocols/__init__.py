"""The detection protocols: what a rule recognizer and a whole detection stage look like (texts
in, spans out; rules and the model behind one call). The concept tagger's is
``deid.concepts.ConceptTagger``, beside the concepts. What a detector promises includes answering
within its deadline: the deadline it is handed and checks is ``deid.protocols.deadline``.

Detection is synchronous and CPU/GPU bound: the worker runs it off the event loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

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
