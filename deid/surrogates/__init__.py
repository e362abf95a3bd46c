"""Surrogate generators: names, places, format-preserving contacts and identifiers."""
