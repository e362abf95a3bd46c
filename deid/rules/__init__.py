"""Rule recognizers (FR/ES/EN) by name, and the ``RuleDetector`` that runs them.

Importing this package registers every recognizer (see ``registry`` for the priority order).
"""

from deid.rules import (  # noqa: F401  (registration)
    ages,
    contact,
    dates,
    facilities,
    given_names,
    hospital_acronyms,
    hospital_names,
    hospitals,
    identifiers,
    initials,
    kin_names,
    nicknames,
    organisations,
    postcodes,
    professions,
    sex,
    short_ages,
    staff_roles,
    streets,
    towns,
    us,
    weekdays,
)
from deid.rules.detector import RuleDetector
from deid.rules.registry import build_recognizers, register, registered

__all__ = ["RuleDetector", "build_recognizers", "register", "registered"]
