"""Postcodes in address context: "75013 Paris", "28034 Madrid", "C.P. 28034", "code postal : 75013";
US ZIP codes after a state or a label; UK postcodes by their own shape ("SW1A 2AA").

A five-digit number alone is too often a dose or a count; it counts as a postcode only next to a
city-like capitalised word or after a postcode label.
"""

from __future__ import annotations

import re
from typing import ClassVar

from deid.labels import Label
from deid.rules.base import Patterns, RegexRecognizer
from deid.rules.registry import register
from deid.rules.streets import WAY_TYPES

_I = re.IGNORECASE
# A city: one or more capitalised words ("Paris", "Boulogne-Billancourt", "SAINT DENIS", "La Rochelle"),
# not a unit or an abbreviation (UI, mg).
_CITY = r"(?:[A-ZÀ-Ý][a-zà-ÿ]+|[A-ZÀ-Ý]{3,})(?:[\s\-](?:[A-ZÀ-Ý][a-zà-ÿ]+|[A-ZÀ-Ý]{2,}|sur|de|la|en|le|les))*"
_NOT_CITY = re.compile(r"(?:UI|IU|mg|ml|kg|cell|cells|copies|plaquettes|leucocytes|hématies|unités|unidades|"
                       r"CEDEX)\b", _I)
_FR_CODE = r"(?:0[1-9]|[1-8]\d|9[0-8]|2[AB])\s?\d{3}"
_ES_CODE = r"(?:0[1-9]|[1-4]\d|5[0-2])\d{3}"
# A full UK postcode: outward code (area letters, district digit, optional letter or digit), a
# space, inward code (digit + two letters from the Royal Mail set): "SW1A 2AA", "LS1 4AP", "M1 1AE".
# The shape is specific enough to stand alone (an outward code alone, "LS1", is not matched).
_UK_CODE = r"[A-PR-UWYZ][A-HK-Y]?\d[A-HJKMNPR-Y\d]?\s?\d[ABD-HJLNP-UW-Z]{2}"
_US_CODE = r"\d{5}(?:-\d{4})?"
# A whole mention written as a postcode of any supported country (the substitution reads a place
# the model labelled a town or a location as a postcode when it has this shape).
POSTCODE_SHAPE = re.compile(rf"{_FR_CODE}|(?:E-)?{_ES_CODE}|{_US_CODE}|{_UK_CODE}")


@register("postcode", priority=70)
class PostcodeRecognizer(RegexRecognizer):
    """Possessive blanks around the label's colon: two runs side by side would split a long run of
    spaces in every way (quadratic; tests/rules/test_linear_time.py)."""

    name = "postcode"
    label = Label.POSTCODE
    patterns: ClassVar[Patterns] = {
        "fr": (
            re.compile(r"(?<![\w,.])(?P<phi>" + _FR_CODE + r")(?![\w,.]\d)"
                       r"(?=,?[ \t]+(?P<city>" + _CITY + r"))"),
            re.compile(r"\b(?:code\s+postal|CP|C\.P\.)\s*+:?\s*+(?P<phi>" + _FR_CODE + r")(?!\d)", _I),
            # after a street: "12 rue de la Paix, 75002"
            re.compile(r"\b\d{1,4}(?:\s?(?:bis|ter))?,?\s+(?:" + WAY_TYPES + r")(?![\w\-])"
                       r"[^\n\d]{2,60}?,?\s+(?P<phi>" + _FR_CODE + r")(?!\d)", _I),
        ),
        "es": (
            re.compile(r"(?<![\w,.])(?P<phi>" + _ES_CODE + r")(?![\w,.]\d)"
                       r"(?=,?[ \t]+(?P<city>" + _CITY + r"))"),
            re.compile(r"\b(?:c[óo]digo\s+postal|CP|C\.P\.)\s*+:?\s*+(?P<phi>" + _ES_CODE + r")(?!\d)", _I),
            # the international form "E-41013" names itself a Spanish postcode
            re.compile(r"(?<![\w\-])(?P<phi>E-" + _ES_CODE + r")(?!\d)"),
        ),
        "en": (
            re.compile(r"\b(?:zip(?:\s+code)?|postcode|postal\s+code)\s*+:?\s*+"
                       r"(?P<phi>" + _US_CODE + r")(?!\d)", _I),
            re.compile(r"\b[A-Z]{2}\s(?P<phi>" + _US_CODE + r")(?!\d)"),  # US: "MA 02115"
            re.compile(r"(?<![\w\-])(?P<phi>" + _UK_CODE + r")(?![\w\-])"),  # UK: "LS1 4AP"
        ),
    }

    def label_for(self, text: str, match: re.Match[str], language: str) -> Label | None:
        city = match.groupdict().get("city")
        if city is not None and _NOT_CITY.match(city):
            return None
        return self.label
