"""English hospitals named before their kind: "Front Range Presbyterian Medical Center",
"Guidry Memorial Hospital", "Teche Family Medicine", "Whitestone Harbor Nursing & Rehab".

English puts the kind of institution last (French and Spanish put it first: ``deid.rules.
hospitals``). One to five capitalised words, then the kind, capitalised too; the words are the
name, the kind is kept with them (MEDDOCAN and i2b2 mark the whole name). A kind alone ("the
Hospital", "Medical Center") or after a generic word only ("General Hospital") is no name. The kind
starts with a capital and may be in capitals ("SCIOTO VALLEY COMMUNITY HOSPITAL"; "SNF", a skilled nursing
facility, in capitals only: "Magnolia Terrace SNF"); British bodies
are kinds too ("North Bristol NHS Trust", "Swansea Bay University Health Board", "Western Health
and Social Care Trust"), and so is "NHS" before a capitalised region ("NHS Grampian").
"""

from __future__ import annotations

import re

from deid.labels import Label
from deid.rules.registry import register
from deid.spans import Span

# Capitalised, or in capitals: the first letter is checked, the rest of the kind is read in any case.
_KINDS = (
    r"(?=[A-Z])(?i:Hospital|Medical[ \t]+Cent(?:er|re)|Infirmary|"
    r"Health[ \t]+Cent(?:er|re)|Health[ \t]+System|Healthcare|Clinic|Nursing[ \t]+(?:&|and)[ \t]+Rehab"
    r"(?:ilitation)?(?:[ \t]+Cent(?:er|re))?|Nursing[ \t]+Home|Care[ \t]+Cent(?:er|re)|Rehabilitation[ \t]+"
    r"Cent(?:er|re)|Medical[ \t]+Practice|Surgery|Family[ \t]+Medicine|"
    r"Internal[ \t]+Medicine[ \t]+Associates|Hospice|Counseling|Counselling|"
    r"NHS[ \t]+(?:Foundation[ \t]+)?Trust|Health[ \t]+Board|Health[ \t]+and[ \t]+Social[ \t]+Care[ \t]+Trust|"
    r"Medical[ \t]+Group|Pa?ediatrics|Urgent[ \t]+Care|Care[ \t]+Home|Family[ \t]+Health|Eye[ \t]+Institute|"
    r"Endoscopy[ \t]+Cent(?:er|re)|Neurology[ \t]+Associates|Sports[ \t]+Medicine|Practice|"
    r"Skilled[ \t]+Nursing(?:[ \t]+Facility)?|(?-i:SNF|CHC|FQHC)|Cent(?:er|re))"
)
_WORD = r"(?:St\.|Ste\.|[A-Z][A-Za-z'’\-]{1,24})"
_JOINER = r"(?:&[ \t]+|of[ \t]+|the[ \t]+|and[ \t]+)"
_PATTERN = re.compile(rf"(?<![\w'’\-])(?P<name>{_WORD}"
                      rf"(?:[ \t]+{_JOINER}?{_WORD}){{0,4}})[ \t]+{_KINDS}(?![\w'’])")
# "St. Clare's", "St Luke's": a saint's name with its possessive is a hospital, a hospice or a school
# (the plant, "St John's wort", and the feast, "St Patrick's Day", are not one).
_SAINTS = re.compile(r"(?<![\w'’\-])(?:St\.?|Saint)[ \t]+[A-Z][a-z]{2,20}['’]s?(?![\w'’])"
                     r"(?![ \t]+(?:[Ww]ort|[Dd]ay)\b)")
# A branch after a name in capitals, to the end of its line: "KETTERING HEALTH URGENT CARE - CENTERVILLE".
_BRANCH = re.compile(r"[ \t]+[-–][ \t]+[A-Z][A-Z'’\-]{2,24}(?:[ \t][A-Z][A-Z'’\-]{2,24}){0,2}[ \t]*(?=\n|$)")
# "NHS Grampian", "NHS Lothian": a Scottish health board; not the number, the service or a nation.
_NHS_REGION = re.compile(r"(?<![\w'’\-])NHS[ \t]+(?!(?i:No|Number|England|Digital|Direct|Scotland|Wales|App|"
                         r"Trust|Foundation|Choices|Login|Constitution|Health|Pension|Jobs|Professionals)\b)"
                         r"[A-Z][A-Za-z]{3,20}(?![\w'’\-])")
_GENERIC = frozenset({
    "the", "general", "community", "regional", "county", "university", "state", "memorial", "children's",
    "city", "district", "our", "your", "this", "that", "a", "an", "private", "local", "same", "outside",
    "va", "teaching", "rural", "psychiatric", "mental", "primary", "urgent", "walk-in", "free", "dental",
    "eye", "cancer", "heart", "pain", "sleep", "fertility", "travel", "anticoagulation", "diabetes",
    "transplant", "oncology", "cardiology", "dermatology", "orthopedic", "orthopaedic", "surgical",
    # words before the kinds of practice and care ("Best Practice", "General Pediatrics")
    "best", "good", "clinical", "nursing", "nurse", "group", "family", "sports", "developmental",
    "adolescent", "neonatal", "pediatric", "paediatric", "emergency", "residential", "women's", "care",
    "medical", "health", "nhs", "social", "internal", "specialist", "advanced", "acute", "respiratory",
    "integrated", "neurology", "endoscopy", "their", "his", "her", "new", "old",
    "per", "to", "from", "at", "via", "medicare", "medicaid",  # "Per SNF", "Medicare SNF benefit"
    # words before a centre that name a service or a rank, not a place ("Level I Trauma Center")
    "trauma", "poison", "control", "level", "i", "ii", "iii", "iv", "call", "data", "shopping", "wellness",
    "simulation", "infusion", "dialysis", "imaging", "burn", "stroke", "comprehensive", "day", "resource",
    "recovery", "treatment", "assessment", "admissions", "admission", "test", "testing", "vaccination",
    "student", "job", "visitor", "visitors", "information", "command", "operations",
    # a specialty before "Surgery" or "Centre", a form's field ("Thoracic Surgery", "Diabetes &
    # Endocrine Centre", "Transfer Center", "DATE OF SURGERY"): a service, no place
    "thoracic", "cardiothoracic", "colorectal", "vascular", "plastic", "breast", "bariatric", "spinal",
    "hepatobiliary", "upper", "lower", "maxillofacial", "endocrine", "transfer", "date", "time", "of",
    "and", "type", "site", "day-case",
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
            end = m.end()
            branch = _BRANCH.match(text, end) if m.group() == m.group().upper() else None
            if branch is not None:
                end = branch.end()
            spans.append(Span(m.start(), end, Label.HOSPITAL, f"rules.{self.name}"))
        for m in _SAINTS.finditer(text):
            spans.append(Span(*m.span(), Label.HOSPITAL, f"rules.{self.name}"))
        for m in _NHS_REGION.finditer(text):
            spans.append(Span(*m.span(), Label.HOSPITAL, f"rules.{self.name}"))
        return sorted(spans)
