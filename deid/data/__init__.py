"""Surrogate tables shipped with the package (names, places); sources and licences in SOURCES.md."""
