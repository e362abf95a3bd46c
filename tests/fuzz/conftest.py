"""The fuzz budget (issue 33): one hypothesis profile for every test of this directory.

- Default (CI): ``DEFAULT_EXAMPLES`` examples per test, derandomized (the same examples on every
  machine: a failure reproduces with the same command), so that the directory runs in well under
  a minute on a loaded two-core machine.
- On demand: ``DEID_FUZZ_EXAMPLES=5000 python -m pytest -q tests/fuzz`` runs that many examples per
  test (still derandomized: reproducible); ``HYPOTHESIS_PROFILE=explore`` (the project's switch,
  ``tests/conftest.py``) draws fresh examples on each run instead.

The profile is registered here and applied per test (``fuzz_testkit.budget``), never loaded
globally: the rest of the suite keeps its own settings.
"""

from __future__ import annotations

import os

from fuzz_testkit import FUZZ_PROFILE
from hypothesis import HealthCheck, settings

DEFAULT_EXAMPLES = 40
EXAMPLES_ENV = "DEID_FUZZ_EXAMPLES"


def _examples() -> int:
    raw = os.environ.get(EXAMPLES_ENV, "").strip()
    if not raw:
        return DEFAULT_EXAMPLES
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{EXAMPLES_ENV} must be a whole number of examples, got {raw!r}") from None
    if value < 1:
        raise ValueError(f"{EXAMPLES_ENV} must be at least 1")
    return value


settings.register_profile(
    FUZZ_PROFILE,
    max_examples=_examples(),
    # Each test bounds its own time per example (CPU time of the thread, proportional to the
    # input's size): hypothesis's wall-clock deadline would flake on a loaded machine.
    deadline=None,
    derandomize=os.environ.get("HYPOTHESIS_PROFILE", "default") != "explore",
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
                           HealthCheck.large_base_example],
)
