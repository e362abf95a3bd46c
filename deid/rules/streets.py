"""French street addresses: "12 rue de la Paix", "1, boulevard élodie bourdon", "Avenue Luce Millet".

The house number and the type of way ("rue", "avenue"...) make the mention; the street name runs
to the next comma, line end or postcode. Words that are also common nouns in clinical French
("voie", "cours", "place", "passage", "route") count as a type of way only when capitalised and
after a house number, and a mention without a house number needs a capitalised unambiguous type
("Avenue X"), so that "la voie orale", "2 cours de chimiothérapie", "Passage en SDN" or "mise en
place" are not addresses. A lower-case street name must end at a comma, a line end or a postcode.
"""

from __future__ import annotations

import re
from typing import ClassVar

from deid.labels import Label
from deid.rules.base import Patterns, RegexRecognizer
from deid.rules.registry import register

# Unambiguous types of way: any case when a house number comes first.
_WAYS = ("rue", "avenue", "av.", "boulevard", "bd", "bld", "impasse", "allée", "allee", "quai", "chemin",
         "square", "faubourg", "fbg", "esplanade", "rond-point", "parvis")  # fmt: skip
# Types of way that are also everyday words: capitalised only.
_COMMON_WORD_WAYS = ("place", "cours", "route", "voie", "passage", "cité", "résidence", "promenade",
                     "chaussée", "sentier", "hameau", "lotissement", "villa")  # fmt: skip
# Every type of way, as an alternation; a following postcode confirms even the common-word ones.
WAY_TYPES = "|".join(re.escape(w) for w in sorted(_WAYS + _COMMON_WORD_WAYS, key=len, reverse=True))


def _capitalised(words: tuple[str, ...]) -> str:
    forms = {form for w in words for form in (w.capitalize(), w.upper())}
    return "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))


_ANY_CASE_WAY = "(?i:" + "|".join(re.escape(w) for w in sorted(_WAYS, key=len, reverse=True)) + ")"
_CAPITALISED_WAY = _capitalised(_WAYS + _COMMON_WORD_WAYS)
_CAPITALISED_STREET_WAY = _capitalised(_WAYS)
_NUMBER = r"\d{1,4}(?:-\d{1,4})?(?:[^\S\n]?(?:bis|ter|[A-D])\b)?"
_GAP = r"[^\S\n]+"
_POSTCODE = r"(?:\d{2}|2[AB])[^\S\n]?\d{3}\b"
_NOT_NAME = r"(?!" + _POSTCODE + r"|(?i:t[ée]l|fax|e-?mail|cedex|bp)\b)"  # a postcode, a contact label
# A capitalised street name, with its particles: "du Général de Gaulle", "de l'Hôpital", "du 8 Mai 1945".
_PARTICLE = r"(?:(?:de|du|des|la|le|les|sur|sous|en|aux|au|et)" + _GAP + r"|[ld]['’])"
_CAP_WORD = _NOT_NAME + r"(?:[A-ZÀ-Ý][a-zà-ÿ]{0,2}\.(?=[^\S\n]+\w)|[A-ZÀ-Ý0-9][\w'’\-]*)"
_CAP_NAME = f"{_PARTICLE}*{_CAP_WORD}(?:{_GAP}{_PARTICLE}*{_CAP_WORD}){{0,6}}"
_CAP_END = r"(?![\w'’\-])"
# An all-lower-case name ("1, boulevard élodie bourdon") only up to a comma, line end or postcode.
_LOW_WORD = _NOT_NAME + r"[^\W_][\w'’\-]*"
_LOW_NAME = f"{_LOW_WORD}(?:{_GAP}{_LOW_WORD}){{0,5}}" + r"(?=[^\S\n]*(?:[,;\n]|" + _POSTCODE + "|$))"
_WAY_END = r"(?![\w\-])[^\S\n]*"
_NUMBERED = (r"(?<![\w,.\-])(?P<phi>" + _NUMBER + r",?" + _GAP + f"(?:{_ANY_CASE_WAY}|{_CAPITALISED_WAY})"
             + _WAY_END + f"(?:{_CAP_NAME}{_CAP_END}|{_LOW_NAME}))")  # fmt: skip
_UNNUMBERED = (r"(?<![\w'’\-])(?P<phi>(?:" + _CAPITALISED_STREET_WAY + ")" + _WAY_END + _CAP_NAME
               + _CAP_END + ")")  # fmt: skip


@register("street", priority=65)
class StreetRecognizer(RegexRecognizer):
    name = "street"
    label = Label.STREET
    patterns: ClassVar[Patterns] = {
        "fr": (
            re.compile(_NUMBERED),
            # without a house number, only an unambiguous type opens one ("Passage en SDN" is not)
            re.compile(_UNNUMBERED),
        ),
    }
