"""Embedding-neighbour replacement of words: every-token mode (Abdalla et al. 2020) and PHI-token
pseudonymisation (Friedrich et al. 2019), over a precomputed neighbour table."""

from deid.neighbours.replace import DEFAULT_N, replace_tokens
from deid.neighbours.table import NeighbourTable, load_table

__all__ = ["DEFAULT_N", "NeighbourTable", "load_table", "replace_tokens"]
