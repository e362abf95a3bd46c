"""Differential-privacy mechanisms and the per-note budget split (PRIVACY.md)."""

from deid.privacy.budget import epsilon_of, split_micro
from deid.privacy.mechanisms import (
    BoundedLaplace,
    discrete_laplace,
    exponential_mechanism,
    exponential_tail,
    exponential_weights,
    geometric,
    laplace,
    laplace_metric,
    planar_laplace,
)

__all__ = [
    "BoundedLaplace",
    "discrete_laplace",
    "epsilon_of",
    "exponential_mechanism",
    "exponential_tail",
    "exponential_weights",
    "geometric",
    "laplace",
    "laplace_metric",
    "planar_laplace",
    "split_micro",
]
