"""English hospitals named before their kind: "Front Range Presbyterian Medical Center",
"Guidry Memorial Hospital", "Teche Family Medicine", "Whitestone Harbor Nursing & Rehab".

English puts the kind of institution last (French and Spanish put it first: ``deid.rules.
hospitals``). One to five capitalised words, then the kind, capitalised too; the words are the
name, the kind is kept with them (MEDDOCAN and i2b2 mark the whole name). A kind alone ("the
Hospital", "Medical Center") or after a generic word only ("General Hospital") is no name.
"""

from __future__ import annotations

import re

from deid.labels import Label
from deid.rules.registry import register
from deid.spans import Span

_KINDS = (
    r"(?:Hospital|HOSPITAL|Medical[ \t]+Cent(?:er|re)|MEDICAL[ \t]+CENT(?:ER|RE)|Infirmary|INFIRMARY|"
    r"Health[ \t]+Cent(?:er|re)|Health[ \t]+System|Healthcare|Clinic|CLINIC|Nursing[ \t]+(?:&|and)[ \t]+Rehab"
    r"(?:ilitation)?(?:[ \t]+Cent(?:er|re))?|Nursing[ \t]+Home|Care[ \t]+Cent(?:er|re)|Rehabilitation[ \t]+"
    r"Cent(?:er|re)|Medical[ \t]+Practice|MEDICAL[ \t]+PRACTICE|Surgery|SURGERY|Family[ \t]+Medicine|"
    r"Internal[ \t]+Medicine[ \t]+Associates|Hospice|Health[ \t]+Cent(?:er|re)|Counseling|Counselling)"
)
_WORD = r"(?:St\.|Ste\.|[A-Z][A-Za-z'’\-]{1,24})"
_PATTERN = re.compile(rf"(?<![\w'’\-])(?P<name>{_WORD}"
                      rf"(?:[ \t]+(?:&[ \t]+|of[ \t]+|the[ \t]+)?{_WORD}){{0,4}})[ \t]+{_KINDS}(?![\w'’])")
_GENERIC = frozenset({
    "the", "general", "community", "regional", "county", "university", "state", "memorial", "children's",
    "city", "district", "our", "your", "this", "that", "a", "an", "private", "local", "same", "outside",
    "va", "teaching", "rural", "psychiatric", "mental", "primary", "urgent", "walk-in", "free", "dental",
    "eye", "cancer", "heart", "pain", "sleep", "fertility", "travel", "anticoagulation", "diabetes",
    "transplant", "oncology", "cardiology", "dermatology", "orthopedic", "orthopaedic", "surgical",
})  # fmt: skip


@register("hospital_name", priority=72)
class HospitalNameRecognizer:
    name = "hospital_name"

    def find(self, text: str, language: str) -> list[Span]:
        if language != "en":
            return []
        spans = []
        for m in _PATTERN.finditer(text):
            words = [w.lower() for w in re.findall(r"[A-Za-z'’\-]+", m.group("name"))]
            if all(w in _GENERIC for w in words):
                continue
            spans.append(Span(m.start(), m.end(), Label.HOSPITAL, f"rules.{self.name}"))
        return spans
