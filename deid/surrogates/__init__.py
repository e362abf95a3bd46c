"""Surrogate generators: names, places, format-preserving contacts and identifiers."""

from deid.surrogates.registry import STRATEGIES, resolve_strategy

__all__ = ["STRATEGIES", "resolve_strategy"]
