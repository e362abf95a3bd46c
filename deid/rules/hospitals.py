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
import unicodedata
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


# French names in small letters after the capitalised word for one, with the kind's adjectives in
# between: "Clinique Mutualiste de l'Estuaire", "Hôpital gériatrique Les Bateliers", "Hôpital
# neurologique et neurochirurgical Pierre Wertheimer", "Centre Cardio-thoracique de Reims". The model
# reads the name's words as a person or a town and leaves the kind's words in clear. A name word is
# capitalised; particles join them; at most five words, then punctuation or the line's end. The kind
# may follow an elided article ("l'EHPAD Les Glycines").
_FR_KEY = (r"(?:Centre[ \t]+[Hh]ospitalier|Groupe[ \t]+[Hh]ospitalier|Polyclinique|Clinique|H[ôo]pital|"
           r"Centre|EHPAD|Maison[ \t]+de[ \t]+retraite)")
_FR_ADJECTIVE = r"[a-zà-ÿ][a-zà-ÿ\-]{2,24}(?:ique|al|aire|if|ive|ier|i[eè]re)s?(?![\w'’\-])"
# Capitalised words of the kind: a name made of them alone is a kind of centre ("Centre
# Médico-Psychologique", "Centre Hospitalier Régional"), not one centre.
_FR_KIND_WORDS = frozenset({
    "hospitalier", "hospitaliere", "universitaire", "regional", "departemental", "intercommunal",
    "psychiatrique", "specialise", "general", "generale", "prive", "public", "medical", "medicale",
    "medico-psychologique", "medico-social", "geriatrique", "pediatrique", "sante", "soins", "suite",
    "readaptation", "reeducation", "cardiologique", "oncologique", "antalgique", "hospitalo-universitaire",
    "ssr", "chu", "chr",
})  # fmt: skip
_FR_NAME_WORD = (r"(?!(?:Service|Unit[ée]|P[ôo]le|Consultations?|Urgences|Secr[ée]tariat|T[ée]l|Fax|Adresse|"
                 r"Jour|Nuit|Semaine|De|Du|Des|La|Le|Et)\b)"
                 r"[A-ZÀ-Ý][\wÀ-ÿ]{1,24}(?:-[A-ZÀ-Ýa-zà-ÿ][\wÀ-ÿ]{0,24}){0,3}(?![\w'’\-])")
_FR_NAME_PARTICLE = r"(?:(?:de|du|des|de[ \t]+la|les|Les|La|Le)[ \t]+|(?:d|l|de[ \t]+l|L)['’])"
_FR_NAMED = re.compile(
    rf"(?<![\w\-]){_FR_KEY}(?P<rest>(?:[ \t]+(?:et[ \t]+)?{_FR_ADJECTIVE}){{0,3}}[ \t]+{_FR_NAME_PARTICLE}?"
    rf"{_FR_NAME_WORD}(?:[ \t]+{_FR_NAME_PARTICLE}?{_FR_NAME_WORD}|"
    rf"{_FR_NAME_PARTICLE}{_FR_NAME_WORD}){{0,4}})"
    # where a name ends is known only at punctuation or a line end ("Clinique Pervenche Saturation
    # en baisse" in a note without punctuation is no name of three words)
    r"(?=[ \t]*(?:[,.;:)(\n–]|[ \t]-[ \t]|$))"
)
# The town after the name, alone at the end of its line: "EHPAD Les Ajoncs, Pornichet".
_FR_TOWN_AFTER = re.compile(r",[ \t]*(?P<town>[A-ZÀ-Ý][a-zà-ÿ'’]{1,24}(?:-[A-Za-zÀ-ÿ'’]{1,24}){0,4})"
                            r"[ \t]*(?=\n|$)")
# Spanish homes: "Residencia San Juan de Dios" (capitalised words, "de", "del", "la" between).
_ES_RESIDENCE = re.compile(
    r"(?<![\w'’\-])Resid[eè]ncia[ \t]+(?:(?:de|del|la|los|las)[ \t]+)?[A-ZÀ-Ý][\wÀ-ÿ'’\-]{1,24}"
    r"(?:[ \t]+(?:(?:de|del|la|los|las|y|i)[ \t]+){0,2}[A-ZÀ-Ý][\wÀ-ÿ'’\-]{1,24}){0,4}"
)
_FR_CAPITALISED = re.compile(r"[A-ZÀ-Ý][\wÀ-ÿ\-]*")


def _fold(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c)).lower()


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
        if language == "fr":
            for m in _FR_NAMED.finditer(text):
                words = _FR_CAPITALISED.findall(m.group("rest"))
                # a name in capitals is the first pattern's, with its own extent ("Hôpital COCHIN")
                if all(_fold(w) in _FR_KIND_WORDS for w in words) or all(w.isupper() for w in words):
                    continue
                out.append(Span(*m.span(), self.label, f"rules.{self.name}"))
                town = _FR_TOWN_AFTER.match(text, m.end())
                if town is not None:
                    out.append(Span(*town.span("town"), Label.CITY, f"rules.{self.name}"))
        if language == "es":
            source = f"rules.{self.name}"
            out.extend(Span(*m.span(), self.label, source) for m in _ES_RESIDENCE.finditer(text))
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
