"""Project-wide test configuration."""

from hypothesis import settings

# Property tests run the same examples on every machine: a CI failure reproduces locally, and a
# green run is not a lucky draw. Set HYPOTHESIS_PROFILE=explore to search with fresh randomness.
settings.register_profile("default", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(__import__("os").environ.get("HYPOTHESIS_PROFILE", "default"))
