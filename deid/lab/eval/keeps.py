"""What each profile keeps on purpose: the one table the audit reads (``deid audit``).

A gold PHI value whose letters or digits survive in the output is a leak unless this table says
the profile keeps that part of it. ``docs/PRIVACY.md`` prints the same table
(``markdown_table``); a test holds the two equal.

Parts:
- ``year``: the year of a date (a four-digit run that is the date's true year);
- ``age<90``: an age under 90 years, whole;
- ``zip3``: the first three digits of a US ZIP code;
- ``state``: a region, state, province or country as a whole (``LOCATION``, ``COUNTRY``);
- ``weekday``: the name of a weekday (only with no day number: "last Monday");
- ``duration``: a relative duration as written ("for 3 weeks", "il y a 2 ans"): not an element of a
  date, kept whole.
"""

from __future__ import annotations

KEPT_ON_PURPOSE: dict[str, dict[str, frozenset[str]]] = {
    "placeholder": {
        "DATE": frozenset({"duration"}),
    },
    "dp": {
        "LOCATION": frozenset({"state"}),
        "COUNTRY": frozenset({"state"}),
    },
    "random": {
        "AGE": frozenset({"age<90"}),
        "DATE": frozenset({"duration", "weekday", "year"}),
        "LOCATION": frozenset({"state"}),
        "COUNTRY": frozenset({"state"}),
    },
    "safe-harbor": {
        "DATE": frozenset({"duration", "year"}),
        "BIRTH_DATE": frozenset({"year"}),
        "AGE": frozenset({"age<90"}),
        "POSTCODE": frozenset({"zip3"}),
        "LOCATION": frozenset({"state"}),
        "COUNTRY": frozenset({"state"}),
    },
}

WHY = {
    "year": "HIPAA Safe Harbor keeps years of dates (of people under 90); one shift of days per "
            "patient (random) leaves most years as they were",
    "age<90": "ages under 90 are not identifying under HIPAA; i2b2 practice keeps them",
    "zip3": "Safe Harbor keeps the first three digits of a ZIP code of more than 20,000 people",
    "state": "regions, states and countries are above the place granularity the profiles replace",
    "weekday": "one secret shift per patient, a whole number of weeks, keeps weekdays",
    "duration": "a relative duration is not an element of a date (HIPAA); placeholder, random and "
                "safe-harbor keep it as written",
}


def kept(profile: str, label: str) -> frozenset[str]:
    return KEPT_ON_PURPOSE.get(profile, {}).get(label, frozenset())


def markdown_table() -> str:
    """The table as ``docs/PRIVACY.md`` prints it."""
    labels = sorted({lab for table in KEPT_ON_PURPOSE.values() for lab in table})
    head = "| label | " + " | ".join(KEPT_ON_PURPOSE) + " |"
    rule = "|---|" + "---|" * len(KEPT_ON_PURPOSE)
    rows = [
        f"| {lab} | " + " | ".join(", ".join(sorted(t.get(lab, ()))) or "-" for t in KEPT_ON_PURPOSE.values())
        + " |"
        for lab in labels
    ]
    return "\n".join([head, rule, *rows])
