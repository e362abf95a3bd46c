"""Substitution: replace detected mentions by surrogates (operators registered by name, each
mention routed by its label and strategy to the operator that declares it in ``handles``, one
engine that plans, accounts, draws, commits and renders note by note)."""

from deid.substitution.engine import Substituter
from deid.substitution.profiles import PROFILES, build_substituter, deidentify_text, profile_settings

__all__ = ["PROFILES", "Substituter", "build_substituter", "deidentify_text", "profile_settings"]
