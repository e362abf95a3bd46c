"""Substitution: replace detected mentions by surrogates (operators registered by family, one
engine that plans, accounts, draws, commits and renders note by note)."""

from deid.substitution.engine import Substituter
from deid.substitution.modes import MODES, deidentify_text, mode_settings

__all__ = ["MODES", "Substituter", "deidentify_text", "mode_settings"]
