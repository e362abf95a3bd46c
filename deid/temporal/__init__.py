"""Temporal expressions (dates, relative durations, ages) of FR / ES / EN clinical notes."""

from deid.temporal.expressions import Temporal, generalize, offset, parse, render, with_offset

__all__ = ["Temporal", "generalize", "offset", "parse", "render", "with_offset"]
