"""The registry of rule recognizers by name (spaCy style): ``@register("date")`` on a factory.

A factory is any zero-argument callable returning a ``Recognizer`` (usually the class itself).
Recognizer modules register themselves on import; ``deid.rules`` imports them all. The priority
orders the default pipeline and breaks ties when two recognizers flag the same characters: the more
specific recognizer (a labelled identifier, a checked number) gets the lower number.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from deid.protocols import Recognizer

Factory = Callable[[], Recognizer]
F = TypeVar("F", bound=Factory)

_REGISTRY: dict[str, Factory] = {}
_PRIORITY: dict[str, int] = {}


def register(name: str, priority: int = 50) -> Callable[[F], F]:
    """Register ``factory`` under ``name``; a second registration of one name is a bug."""

    def deco(factory: F) -> F:
        if name in _REGISTRY:
            raise ValueError(f"recognizer {name!r} is already registered")
        _REGISTRY[name] = factory
        _PRIORITY[name] = priority
        return factory

    return deco


def registered() -> tuple[str, ...]:
    """Names of all registered recognizers, by priority then name (the default pipeline order)."""
    return tuple(sorted(_REGISTRY, key=lambda n: (_PRIORITY[n], n)))


def build_recognizers(names: Iterable[str] | None = None) -> list[Recognizer]:
    """Instantiate the recognizers named (all of them when ``names`` is None)."""
    chosen = registered() if names is None else tuple(names)
    unknown = [n for n in chosen if n not in _REGISTRY]
    if unknown:
        raise KeyError(f"unknown recognizer(s): {', '.join(unknown)}; known: {', '.join(_REGISTRY)}")
    return [_REGISTRY[n]() for n in chosen]
