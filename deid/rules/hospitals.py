"""Hospitals written in capitals after the word for one: "HOPITAL PRIVÉ DES PEUPLIERS",
"CHU AVICENNE", "Hôpital CLINIQUE DE SAINT CLOUD", "HOSPITAL UNIVERSITARIO LA PAZ".

Why capitals only: the model reads "Hôpital Necker" or "Clinique Pervenche" from context, but
letterheads in capitals are where it misses (eds-pseudo dev). A capitalised name is no proof of
its end ("Clinique Pervenche Saturation en baisse" in notes without punctuation); a run of words in
capitals is. The mention includes the word for a hospital (MEDDOCAN and eds-pseudo gen_dataset
do), but starts at the second one when two follow each other ("Hôpital CLINIQUE DE SAINT CLOUD":
the first is the letterhead's heading). A department in capitals after the name ("CHU DE BORDEAUX
SERVICE DE CARDIOLOGIE") is not part of it.
"""

from __future__ import annotations

import re
from typing import ClassVar

from deid.labels import Label
from deid.rules.base import Patterns, RegexRecognizer
from deid.rules.registry import register
from deid.spans import Span

_KEYWORDS = {
    "fr": (r"centre\s+hospitalier(?:\s+(?:universitaire|r[ée]gional|intercommunal|sp[ée]cialis[ée]))?|"
           r"groupe\s+hospitalier|h[oô]pital(?:\s+priv[ée])?|polyclinique|clinique|CHU|CHR|CHI|CHS|GHU"),
    "es": (r"complejo\s+hospitalario(?:\s+universitario)?|hospital(?:\s+(?:universitario|general|"
           r"cl[íi]nico|comarcal|materno[- ]infantil))*|cl[íi]nica|centro\s+de\s+salud"),
    "en": r"hospital|medical\s+cent(?:er|re)|clinic|infirmary",
}  # fmt: skip
# Two characters at least ("C/ Mayor" is a street), an apostrophe or hyphen only between them
# ("D'ARLES", "SAINT-LOUIS"; "L'" alone is an article).
_CAPS_WORD = r"[A-ZÀ-ÖØ-Þ](?:[A-ZÀ-ÖØ-Þ0-9]|['’\-](?=[A-ZÀ-ÖØ-Þ0-9]))+(?![\w'’\-/])"
_PARTICLE = (r"(?:(?:DE|DU|DES|LA|LE|LES|SUR|SOUS|EN|ET|DEL|LOS|LAS|Y|OF|THE|de|du|des|la|le|les|del|of)"
             r"[ \t]+|[DL]['’])")
# Capitalised words that open a department, a unit or a heading, not a hospital's name
# ("HÔPITAL DE JOUR", "Hospital ICU", the headings "HOSPITAL COURSE", "Hospital Medicine"), nor a
# particle alone.
_NOT_NAME = (r"(?!(?:SERVICE|SERVICIO|UNIT[ÉE]|UNIDAD|UNIT|D[ÉE]PARTEMENT|DEPARTAMENTO|DEPARTMENT|P[ÔO]LE|"
             r"CONSULTATION|CONSULTA|URGENCES|URGENCIAS|SECR[ÉE]TARIAT|T[ÉE]L|FAX|ADRESSE|COMPTE|"
             r"CR|INFORME|JOUR|NUIT|SEMAINE|D[ÍI]A|ICU|ER|ED|UCI|UCIN|USI|USIC|REA|SAU|HDJ|"
             r"COURSE|MEDICINE|STAY|NOTE|SUMMARY|ADMISSION|DISCHARGE|"
             r"DE|DU|DES|LA|LE|LES|SUR|SOUS|EN|ET|DEL|LOS|LAS|Y|OF|THE)\b)")  # fmt: skip
_PARTICLE_START = re.compile(_PARTICLE)
# Possessive repeats: a run of "L'L'L'..." can be split into articles in many ways, and a plain
# repeat would try them all.
_NAME = rf"(?:{_PARTICLE}*+{_NOT_NAME}{_CAPS_WORD})(?:[ \t]+{_PARTICLE}*+{_NOT_NAME}{_CAPS_WORD}){{0,7}}"


# The word for a hospital is capitalised: "clínica de TFNA" is the clinical picture of one.
_PATTERNS = {
    lang: re.compile(rf"(?<![\w'’\-])(?P<key>(?=[A-ZÀ-Ý])(?i:{key}))[ \t]+(?P<name>{_NAME})")
    for lang, key in _KEYWORDS.items()
}


@register("hospital", priority=70)
class HospitalRecognizer(RegexRecognizer):
    name = "hospital"
    label = Label.HOSPITAL
    patterns: ClassVar[Patterns] = {lang: (pattern,) for lang, pattern in _PATTERNS.items()}

    def find(self, text: str, language: str) -> list[Span]:
        pattern = _PATTERNS.get(language)
        if pattern is None:
            return []
        out = []
        for m in pattern.finditer(text):
            key = m.group("key")
            # "Hôpital COCHIN": a heading in small letters before the name in capitals is not part
            # of it (eds-pseudo); Spanish keeps the word ("Hospital POVISA", MEDDOCAN)
            whole = language == "es" or key == key.upper() or _PARTICLE_START.match(m.group("name"))
            start = m.start() if whole else m.start("name")
            out.append(Span(start, m.end(), self.label, f"rules.{self.name}"))
        return out


# Care structures named by the word or acronym of their kind, then their own name in capitals or
# capitalised: "HOSPICES CIVILS DE LYON", "ASSISTANCE PUBLIQUE - HOPITAUX DE PARIS", "MSP
# Château-Sud" (maison de santé pluriprofessionnelle), "CMP adultes de Montreuil" (centre
# médico-psychologique), "EPS Ville-Évrard", "Maternité Port-Royal"; in Spain "CS Almendrales"
# (centro de salud), "HU Cruces", "OSI Bilbao-Basurto" (organización sanitaria integrada), "PADES
# de Girona". The acronyms are matched in capitals only, the words capitalised; the name is one to
# four capitalised words, a particle between them allowed ("Maternité Olympe de Gouges").
_STRUCTURE_KINDS = {
    "fr": (r"(?i:hospices[ \t]+civils|assistance[ \t]+publique[ \t]*[-–][ \t]*h[oô]pitaux)|"
           r"Maison[ \t]+de[ \t]+sant[ée](?:[ \t]+pluri-?professionnelle)?|MSP|"
           r"CMPP?(?:[ \t]+(?:adultes?|enfants?|infanto-juv[ée]nile))?|EPSM?|Maternit[ée]"),
    "es": r"CS|HU|OSI|PADES|CAP",
}  # fmt: skip
_STRUCTURE_PARTICLE = r"(?:(?i:de|du|des|de[ \t]+la|del|de[ \t]+los)[ \t]+|(?i:d|l)['’])"
_STRUCTURE_WORD = (r"(?!(?i:Service|Servicio|Unit[ée]|Unidad|Urgences|Urgencias|Consultation|Consulta|Niveau|"
                   r"Nivel|Secr[ée]tariat|T[ée]l|Fax)\b)"
                   r"[A-ZÀ-Ý][\wÀ-ÿ'’]{1,24}(?:-[A-ZÀ-Ý][\wÀ-ÿ]{0,24}){0,3}(?![\w'’-])")
_STRUCTURE = {
    lang: re.compile(rf"(?<![\w'’\-])(?:{kinds})[ \t]+{_STRUCTURE_PARTICLE}?{_STRUCTURE_WORD}"
                     rf"(?:[ \t]+{_STRUCTURE_PARTICLE}?{_STRUCTURE_WORD}){{0,3}}")
    for lang, kinds in _STRUCTURE_KINDS.items()
}


@register("care_structure", priority=70)
class CareStructureRecognizer(RegexRecognizer):
    name = "care_structure"
    label = Label.HOSPITAL
    patterns: ClassVar[Patterns] = {lang: (pattern,) for lang, pattern in _STRUCTURE.items()}
