"""Temporal expressions (dates, relative durations, ages) of FR / ES / EN clinical notes."""

from deid.temporal.expressions import Temporal, parse, render

__all__ = ["Temporal", "parse", "render"]
