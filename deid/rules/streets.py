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
from deid.rules.base import Patterns, RegexRecognizer, drop_nested
from deid.rules.registry import register
from deid.spans import Span

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
# The building, staircase, flat or floor after the street ("14 rue des Tanneurs, bât. B, apt 12"):
# the letter or number of a flat narrows the address as much as the street does.
_COMPLEMENT = (
    r"(?:,?[^\S\n]+(?i:b[âa]t(?:iment)?\.?|esc(?:alier)?\.?|app?t\.?|appartement|porte|"
    r"r[ée]sidence)[^\S\n]*[A-Z0-9]{1,4}(?![\w'’\-])){0,3}"
)
_NUMBERED = (r"(?<![\w,.\-])(?P<phi>" + _NUMBER + r",?" + _GAP + f"(?:{_ANY_CASE_WAY}|{_CAPITALISED_WAY})"
             + _WAY_END + f"(?:{_CAP_NAME}{_CAP_END}|{_LOW_NAME})" + _COMPLEMENT + ")")  # fmt: skip
# A hamlet ("lieu-dit Kervennic") and a sorting box before its postcode ("CS 90632 – 97261
# Fort-de-France Cedex", "BP 204, 29200 Brest"): the address line of a farm or of a hospital.
_LIEU_DIT = r"(?<![\w'’\-])(?P<phi>(?i:lieu[- ]dit)" + _GAP + _CAP_NAME + _CAP_END + ")"
_SORTING_BOX = (r"(?<![\w'’\-])(?P<phi>(?:CS|BP|TSA)[^\S\n]?\d{2,6})(?=[^\S\n]*[,–\-][^\S\n]*"
                + _POSTCODE + ")")  # fmt: skip
_UNNUMBERED = (r"(?<![\w'’\-])(?P<phi>(?:" + _CAPITALISED_STREET_WAY + ")" + _WAY_END + _CAP_NAME
               + _CAP_END + ")")  # fmt: skip

# English and American streets: a house number, one to three capitalised words and the type of
# way ("5380 Hickory Hollow Pkwy", "56 Sterling Pl Apt 4F", "2011 Church St, Suite 600"); without a
# number only a type that is no everyday word and no title ("Mapledene Rd"; not "Dr", "St", "Way").
_EN_WAYS = (r"Street|St|Road|Rd|Avenue|Ave|Av|Boulevard|Blvd|Parkway|Pkwy|Lane|Ln|Drive|Dr|Court|Ct|"
            r"Place|Pl|Terrace|Terr?|Way|Highway|Hwy|Circle|Cir|Crescent|Cres|Close|Square|Sq|Grove|"
            r"Hill|Gardens|Row|Mews|Trail|Trl|Pike|Turnpike|Loop|Plaza")  # fmt: skip
# "Dr", "St", "Ct" and "Pl" before a capitalised word are a title or a saint ("2 x Cardiology Dr Lee").
_EN_NOT_TITLE = (
    r"(?<!\bDr)(?<!\bSt)(?<!\bCt)(?<!\bPl)(?<!\bDr\.)(?<!\bSt\.)"
    r"|(?![^\S\n]+(?!(?:Apt|Apartment|Suite|Ste|Unit|Flat|Floor)\b)[A-Z][a-z])"
)
_EN_UNIT = (
    r"(?:,?[^\S\n]+(?:Apt|Apartment|Suite|Ste|Unit|Flat|Fl|Floor|#)\.?[^\S\n]*#?[A-Z0-9]{1,5}"
    r"(?![\w'’\-]))?"
)
_EN_WORD = r"(?:[A-Z][A-Za-z'’\-]{1,24}|\d{1,3}(?:st|nd|rd|th))"
_EN_NUMBERED = (r"(?<![\w,.\-/])(?P<phi>\d{1,5}[A-Z]?" + _GAP + _EN_WORD + r"(?:[^\S\n]" + _EN_WORD
                + r"){0,2}" + _GAP + r"(?:" + _EN_WAYS + r")\.?(?![\w'’\-])(?:" + _EN_NOT_TITLE + ")"
                + _EN_UNIT + ")")  # fmt: skip
_EN_UNNUMBERED = (r"(?<![\w'’\-])(?P<phi>(?!(?:The|A|An|On|At|In|Of|To|From|Per|Via|Nr|Near|Off)[^\S\n])"
                  r"[A-Z][a-z]{2,24}(?:[^\S\n][A-Z][a-z]{2,24})?[^\S\n](?:Rd|Ave|Blvd|Pkwy|Ln)\.?)"
                  r"(?![\w'’\-])")  # fmt: skip

# A British address line ending with its postcode: "Combe Park, Bath BA1 3NG", "Flat B, 17 Lyncombe
# Hill, Bath BA2 4PQ". The part before the town's comma is the street (with its house or flat).
_UK_POSTCODE = r"[A-PR-UWYZ][A-HK-Y]?\d[A-HJKMNPR-Y\d]?[^\S\n]?\d[ABD-HJLNP-UW-Z]{2}"
_UK_ADDRESS_LINE = re.compile(
    r"^[^\S\n]*(?P<street>(?:[A-Z0-9][\w'’\-]{0,24})(?:[^\S\n]{1,3}[A-Z0-9][\w'’\-]{0,24}){0,4}"
    r"(?:,[^\S\n]*(?:[A-Z0-9][\w'’\-]{0,24})(?:[^\S\n]{1,3}[A-Z0-9][\w'’\-]{0,24}){0,4})?),[^\S\n]*"
    r"[A-Z][a-z'’\-]{1,24}(?:[^\S\n][A-Z][a-z'’\-]{1,24}){0,2}[^\S\n]+" + _UK_POSTCODE + r"[^\S\n]*$",
    re.MULTILINE,
)
# A county, a parish, a borough or a town named with its kind: "Hennepin County", "Ellicott City".
_EN_AREA = re.compile(
    r"(?<![\w'’\-])(?!(?:The|This|That|Our|Your|Inner|Big|Capital|Home|Each|Every|Same|Local|Any|Which|What|"
    r"Out|New)[^\S\n])[A-Z][a-z]{2,24}(?:[^\S\n][A-Z][a-z]{2,24})?[^\S\n](?P<kind>County|Parish|Borough|City)"
    r"(?![\w'’\-])"
)


@register("street", priority=65)
class StreetRecognizer(RegexRecognizer):
    name = "street"
    label = Label.STREET
    patterns: ClassVar[Patterns] = {
        "fr": (
            re.compile(_NUMBERED),
            # without a house number, only an unambiguous type opens one ("Passage en SDN" is not)
            re.compile(_UNNUMBERED),
            re.compile(_LIEU_DIT),
            re.compile(_SORTING_BOX),
        ),
        "en": (re.compile(_EN_NUMBERED), re.compile(_EN_UNNUMBERED)),
    }

    def find(self, text: str, language: str) -> list[Span]:
        spans = super().find(text, language)
        if language != "en":
            return spans
        source = f"rules.{self.name}"
        # a British address line: what stands before the town and its postcode is the street
        for m in _UK_ADDRESS_LINE.finditer(text):
            spans.append(Span(*m.span("street"), Label.STREET, source))
        for m in _EN_AREA.finditer(text):
            label = Label.CITY if m.group("kind") == "City" else Label.LOCATION
            spans.append(Span(*m.span(), label, source))
        return drop_nested(spans)
