"""Hospitals named by their acronym: "CHIC", "CHUAC", "HUVR", "BRMC", "UHNT", "transféré au CHJC".

Notes name the hospital they send to or come from by its initials. Two kinds of evidence, each
a property of how hospitals are named, not of one corpus:

- **the acronym's own shape**: a French centre hospitalier is "CH" plus its place's initials
  ("CHIC", "CHSF"; "CHU", "CHR", "CHI" alone say only the kind); a Spanish hospital
  "HU"/"HCU"/"HGU"/"CHU" plus its name's ("HUVR", "CHUAC", "HGUGM"); a US medical center ends in
  "MC" ("BRMC", "FRPMC"), a British university hospital starts with "UH" ("UHNT", "UHCW");
- **the sentence around it**: capitals after "transferred to/from", "admitted to", "seen at",
  "ED at", "A&E at", "transféré au", "adressé par le", "hospitalisé au", "trasladado al", "ingresado en el",
  "derivado del", "procedente del".

Clinical acronyms of the same shapes are excluded by name (``CLINICAL``: "CHOP", "HCTZ", "HCC",
"ICU", "MRI", "UCI", ...), and units, wards and examinations never follow a transfer verb alone.
"""

from __future__ import annotations

import re

from deid.labels import Label
from deid.rules.registry import register
from deid.spans import Span

_SHAPES = {
    "fr": re.compile(r"(?<![\w-])(?:CH[A-Z]{2,4}|CHU[A-Z]{1,3}|GH[A-Z]{2,4})(?![\w-])"),
    "es": re.compile(r"(?<![\w-])(?:HU[A-Z]{1,4}|HCU[A-Z]{1,3}|HGU[A-Z]{1,3}|CHU[A-Z]{1,3}|HC[A-Z]{2,3}"
                     r"|HSJD|HSCSP|HSP)(?![\w-])"),
    "en": re.compile(r"(?<![\w-])(?:[A-Z]{1,4}MC|UH[A-Z]{1,3}|[A-Z]{2,3}MH)(?![\w-])"),
}
_AFTER_VERB = {
    "fr": r"(?:transf[ée]r[ée]e?s?|adress[ée]e?s?|hospitalis[ée]e?s?|suivie?s?|opér[ée]e?s?|admise?s?|vue?s?)"
          r"[ \t]+(?:au|à[ \t]+l['’]|à|par[ \t]+le|du|vers[ \t]+le|depuis[ \t]+le)",
    "es": r"(?:trasladad[oa]s?|ingresad[oa]s?|derivad[oa]s?|procedente|remitid[oa]s?|atendid[oa]s?|"
          r"intervenid[oa]s?)[ \t]+(?:al|a[ \t]+el|en[ \t]+el|desde[ \t]+el|del|en)",
    "en": r"(?:(?:transferred|transfer|admitted|seen|discharged|referred|came|sent|presented|taken|followed)"
          r"[ \t]+(?:to|from|at|by)(?:[ \t]+the)?|admitted|d/c[ \t]+from|"
          r"(?:bed|clinic|detox|rehab|admission|stay|(?-i:ED|A&E|ER)|emergency[ \t]+department)[ \t]+at)",
}
_CONTEXT = {lang: re.compile(rf"\b{verb}[ \t]+(?P<name>[A-Z][A-Z&\-]{{1,6}}[A-Z])(?![\w-])", re.IGNORECASE)
            for lang, verb in _AFTER_VERB.items()}
# Where else an English note names a hospital by its initials: its own number ("NBT no BS5562031",
# "QVH No: Q0391887"), a ward of it ("Ward Alaw, YG"), its emergency department ("TGH ED",
# "CHNOLA EMERGENCY DEPT"). Words that label a number themselves ("NHS No", "ED No") are no hospital.
_HOSPITAL_NUMBER = re.compile(r"(?<![\w&/-])(?P<name>[A-Z][A-Z&]{1,5})[ \t]+(?:no|No|NO|number)\.?"
                              r"[ \t]*+:?[ \t]*+(?=[A-Z\-]{0,4}\d)")
_WARD_OF = re.compile(r"\b[Ww]ard[ \t]+[\w ]{1,20}?,[ \t]*+(?P<name>[A-Z][A-Z&]{1,5})(?![\w&-])")
_EMERGENCY_OF = re.compile(r"(?<![\w&/-])(?P<name>[A-Z][A-Z&]{1,5})[ \t]+(?:ED|A&E|EMERGENCY|Emergency)"
                           r"(?![\w&])")
_NAMING = {"en": (_HOSPITAL_NUMBER, _WARD_OF, _EMERGENCY_OF)}
_NUMBER_LABELS = frozenset({
    "NHS", "ID", "MRN", "PMI", "NPI", "SSN", "DL", "REF", "LOT", "SN", "JOB", "TEL", "FAX", "MOB", "PO",
    "BOX", "CASE", "BED", "ROOM", "RM", "LAB", "ACC", "PT", "DOB",
})  # fmt: skip
CLINICAL = frozenset({
    "CHOP", "CHEOPS", "CHAD", "CHARGE", "CHEST", "CHF", "CHD", "CHC", "CHT", "CHRU", "CHU", "CHR",
    "CHI", "CHS", "CHG", "GHU", "HCTZ", "HCC", "HCV", "HCM", "HCG", "HCO", "HUS", "HCQ",
    "ICU", "MICU", "SICU", "CCU", "NICU", "PICU", "CVICU", "ED", "ER", "OR", "PACU", "MRI", "CT", "PET",
    "IRM", "TDM", "TEP", "SAU", "SMUR", "SAMU", "UCI", "UVI", "URG", "REA", "USIC", "USC", "SSR",
    "EHPAD", "HDJ", "HAD", "PCU", "EMS", "EMT", "ACS", "STEMI", "NSTEMI", "CABG", "PCI", "MC", "DMC",
    "HMC", "CMC", "RMC", "NMC", "MMC", "AMC", "BMC", "PMC", "LMC", "SMC", "CPMC", "UHC", "UH",
    "GMC", "HCPC", "GPHC", "NHS",  # British regulators and the service itself: no one hospital
    # an emergency department's areas, levels and readings ("kept in ED at CDU", "ED at GCS 15")
    "RAT", "CDU", "UTC", "MIU", "SDEC", "AAU", "GCS", "ETOH", "ALS", "BLS", "AVPU", "NEWS", "ESI",
})  # fmt: skip


@register("hospital_acronym", priority=71)
class HospitalAcronymRecognizer:
    name = "hospital_acronym"

    def find(self, text: str, language: str) -> list[Span]:
        found: dict[tuple[int, int], Span] = {}
        shape = _SHAPES.get(language)
        if shape is not None:
            for m in shape.finditer(text):
                if m.group() not in CLINICAL:
                    found[m.span()] = Span(*m.span(), Label.HOSPITAL, f"rules.{self.name}")
        context = _CONTEXT.get(language)
        if context is not None:
            for m in context.finditer(text):
                name = m.group("name")
                if name.isupper() and name not in CLINICAL:
                    found[m.span("name")] = Span(*m.span("name"), Label.HOSPITAL, f"rules.{self.name}")
        for pattern in _NAMING.get(language, ()):
            for m in pattern.finditer(text):
                name = m.group("name")
                if name not in CLINICAL and name not in _NUMBER_LABELS:
                    found[m.span("name")] = Span(*m.span("name"), Label.HOSPITAL, f"rules.{self.name}")
        return sorted(found.values())
