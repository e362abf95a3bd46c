"""Compatibility path: the substitution engine lives in ``deid.substitution``."""

from deid.substitution import MODES, Substituter, deidentify_text, mode_settings

__all__ = ["MODES", "Substituter", "deidentify_text", "mode_settings"]
