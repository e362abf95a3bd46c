"""French towns where an address or a letter puts them: after the postcode ("59 bd Pinel, 69500
Bron"), on the letter's place-and-date line ("Bron, le 16/01/2024", "Fait à Lyon, le 3 mars"), after
a doctor's name at the end of its line ("Médecin traitant : Dr T. NGUYEN-VAN, Rezé").

The model misses one-word towns it never saw (issue 29: CITY leaked on the realistic corpus); the
place in the line, not the word, makes them towns. French only: MEDDOCAN marks "28034 Madrid" its
own way, and a town the model already reads would only change its extent there.
"""

from __future__ import annotations

import re

from deid.labels import Label
from deid.rules.postcodes import _FR_CODE as FR_CODE
from deid.rules.postcodes import _NOT_CITY as NOT_CITY
from deid.rules.registry import register
from deid.spans import Span

# A word of a town: capitalised or in capitals; never "Cedex" or a contact label ("69500 Bron – Tél").
_TOWN_WORD = r"(?!(?i:cedex|t[ée]l|fax)\b)(?:[A-ZÀ-Ý][a-zà-ÿ'’]+|[A-ZÀ-Ý]{2,})"
# Words joined by a hyphen, a blank or particles: "Fort-de-France", "Saint-Jean-de-la-Ruelle".
_TOWN = (rf"{_TOWN_WORD}(?:(?:[ \t]|-)(?:(?:sur|sous|de|la|en|le|les|lès|du|des|aux)[ \t-]){{0,2}}"
         rf"{_TOWN_WORD}){{0,3}}")  # fmt: skip
# Capitalised words that a letter puts before a comma where a town could stand: a role, a document.
_NOT_TOWN = (r"(?!(?i:m[ée]decin|docteur|g[ée]n[ée]raliste|cardiologue|psychiatre|chirurgien(?:ne)?|interne|"
             r"p[ée]diatre|neurologue|rapport|compte|courrier|consultation|service|ordonnance|lettre|"
             r"MT|PH|CCA|praticien(?:ne)?|hospitalier)\b)")  # fmt: skip
# The town after a French postcode, on the postcode's line.
_AFTER_CODE = re.compile(rf"(?<![\w,.])(?:{FR_CODE})(?![\w,.]\d),?[ \t]++(?P<town>{_TOWN})(?![\w'’])")
# The letter's place-and-date line: at a line start, after a wide gap or after "à".
_PLACE_DATE = re.compile(
    rf"(?:^|(?<=[ \t]{{2}})|(?<=\t)|(?<=\bà[ \t])){_NOT_TOWN}(?P<town>{_TOWN}),[ \t]*le[ \t]+\d", re.MULTILINE
)
# The town after a doctor's name, ending its line.
_DOCTOR_TOWN = re.compile(
    rf"\b(?:Dr|Docteur|Pr)\.?[ \t]+[^\n,;()]{{2,40}},[ \t]*{_NOT_TOWN}(?P<town>{_TOWN})[ \t]*$", re.MULTILINE
)


@register("town", priority=70)
class TownRecognizer:
    name = "town"

    def find(self, text: str, language: str) -> list[Span]:
        if language != "fr":
            return []
        found: set[tuple[int, int]] = set()
        for pattern in (_AFTER_CODE, _PLACE_DATE, _DOCTOR_TOWN):
            for m in pattern.finditer(text):
                if not NOT_CITY.match(m.group("town")):
                    found.add(m.span("town"))
        return [Span(a, b, Label.CITY, f"rules.{self.name}") for a, b in sorted(found)]
