"""HIPAA Safe Harbor's geographic element for ZIP codes (45 CFR 164.514(b)(2)(i)(B)).

A ZIP code may keep its first three digits when the area of all ZIP codes sharing them holds more
than 20,000 people (current Census data); otherwise those digits become "000". The restricted
areas are a public list (``deid/data/zip3_restricted.txt``, source and year in
``deid/data/SOURCES.md``). The digits removed are written as ``*``, so that no reader takes
"02100" for a real ZIP code: "02139" -> "021**", "02139-4307" -> "021**-****", "03601" -> "000**".
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

US_ZIP = re.compile(r"(\d{5})(?:[- ]?(\d{4}))?")


@cache
def restricted_zip3() -> frozenset[str]:
    """Three-digit ZIP areas of 20,000 people or fewer (the list's lines that are not comments)."""
    text = resources.files("deid.data").joinpath("zip3_restricted.txt").read_text(encoding="utf-8")
    return frozenset(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#"))


def is_us_zip(text: str) -> bool:
    """Written as a US ZIP code: five digits, or ZIP+4."""
    return US_ZIP.fullmatch(text.strip()) is not None


def zip3(text: str) -> str:
    """The Safe Harbor form of a US ZIP code in its own shape: the first three digits, or "000"
    for a restricted area, every other digit ``*``."""
    digits = [c for c in text if c.isdigit()]
    head = "".join(digits[:3])
    head = "000" if head in restricted_zip3() else head
    out, seen = [], 0
    for c in text:
        if c.isdigit():
            out.append(head[seen] if seen < 3 else "*")
            seen += 1
        else:
            out.append(c)
    return "".join(out)
