"""Organisations told by their kind word: "Ajuntament de Girona", "Concello de Vigo", "UDAF de
Haute-Savoie", "Funeraria Los Arenales", "Pompes Funèbres Générales", "CVS Pharmacy", "Co-op
Funeralcare", "Derbyshire Advocacy Partnership", "Aspire Living Ltd", "Creu Roja".

Notes name the bodies around a patient (the town council that pays the home help, the guardianship
association, the undertaker, the pharmacy, the care provider) without a cue such as "works for":
with a town they narrow the patient down (issue 29: ORG leaked most on the realistic corpus).
Three kinds of evidence, each a property of how such bodies are named:

- **a kind word before the name** in French and Spanish (and Catalan, Galician): a council or a
  social body and its place ("Ajuntament de", "Ayuntamiento de", "Mairie de", "CCAS de"; a
  department of it, "Servicios Sociales del", is not the body), an undertaker and its name
  ("Funeraria", "Pompes Funèbres");
- **a kind word after capitalised words** in English: "Ltd", "Inc", "Pharmacy", "Funeralcare",
  "Partnership", "Charity", "Council"... At least one of those words must be a name, not a word
  of the kind ("Community Pharmacy", "Adult Social Care" are services, not one organisation);
- **national charities by name** ("Red Cross", "Cruz Roja", "Age UK", "Croix-Rouge"), few and
  fixed: they need no kind word.
"""

from __future__ import annotations

import re

from deid.labels import Label
from deid.rules.base import drop_nested
from deid.rules.registry import register
from deid.spans import Span

_CAP = r"[A-ZÀ-Þ][\w'’\-]{0,30}"
_NAME = rf"{_CAP}(?:[ \t](?:(?:de|del|la|las|los|el|y|i|et|du|des|d['’])[ \t]?)?{_CAP}){{0,3}}"
_OF = r"[ \t]+(?:de[ \t]+la[ \t]+|de[ \t]+l['’]|de[ \t]+|del[ \t]+|d['’]|du[ \t]+|des[ \t]+)"
# A body and its place: "Ajuntament de Girona", "Mairie de Lyon", "UDAF de Haute-Savoie".
_BODY_OF_PLACE = re.compile(
    rf"\b(?:Ajuntament|Ayuntamiento|Concello|Mairie|CCAS|UDAF|CLIC|Diputación|Diputació|"
    rf"Conseil[ \t]+(?:départemental|general|général|régional))(?P<place>{_OF}{_NAME})"
)
# An undertaker or a body whose kind word opens its name: "Funeraria Los Arenales" (not
# "Fundación": Spanish hospitals are named so, "Fundación Jiménez Díaz").
_KIND_FIRST = re.compile(
    rf"\b(?:Funeraria|Tanatorio|Pompes[ \t]+[Ff]unèbres|Asociación|"
    rf"Associació|Association)[ \t]+(?P<name>{_NAME})"
)
# English: capitalised words, then the kind word ("CVS Pharmacy", "Aspire Living Ltd").
_KIND_LAST = re.compile(
    r"\b(?:Ltd|Limited|Inc|LLC|plc|PLC|Pharmacy|Funeralcare|Funeral[ \t]+(?:Home|Directors|Services)|"
    r"Partnership|Charity|Council|Housing[ \t]+Association|Homecare|Home[ \t]+Care)\b\.?"
)
_WORD_BEFORE = re.compile(r"(?<![\w'’\-])((?:[A-ZÀ-Þ][\w'’&\-]{0,30}|&|[A-Z]{2,5})|of|and)[ \t]{1,2}$")
_MAX_WORDS = 4
# Words of a kind, not a name: a service named by them alone is no one organisation.
_GENERIC = frozenset({
    "community", "hospital", "outpatient", "inpatient", "local", "national", "county", "city", "town",
    "district", "borough", "parish", "social", "adult", "child", "children", "health", "care", "mental",
    "the", "a", "an", "our", "your", "his", "her", "their", "of", "and", "nhs", "clinical", "retail",
    "online", "specialist", "palliative", "home", "primary", "main", "dispensing", "independent",
    "advocacy", "equipment", "support", "services", "service", "funeral", "&", "pharmacy", "contact",
    "call", "via", "from", "to", "at", "with", "by", "per", "see", "ask", "tell", "phone", "nominated",
    "usual", "regular", "new", "old", "private", "public", "or",
})  # fmt: skip
# Words after an employer's cue that name no employer: a place of work in general, a time, a pronoun.
_NOT_EMPLOYER = frozenset({
    "nhs", "night", "nights", "weekends", "weekend", "present", "moment", "times", "i", "he", "she", "we",
    "they", "it", "this", "that", "casa", "domicile", "maison", "home", "school", "university", "college",
    "work", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "mr", "mrs",
    "ms", "dr", "pt", "patient",
})  # fmt: skip
_DETERMINERS = frozenset({"the", "a", "an", "our", "your", "his", "her", "their", "my"})
# A charity's name inside a hospital's ("Hospital Cruz Roja de Bilbao") is the hospital's.
_CHARITIES = re.compile(
    r"(?<!Hospital )(?<!Hôpital )\b(?:Age[ \t]UK|Red[ \t]Cross|Cruz[ \t]Roja|Creu[ \t]Roja|Croix-Rouge|"
    r"Macmillan|Samaritans|"
    r"Secours[ \t](?:Populaire|Catholique)|Restos[ \t]du[ \t]C(?:œ|oe)ur|Emmaüs|Cáritas|Caritas|"
    r"Alzheimer's[ \t]Society|France[ \t]Alzheimer|Salvation[ \t]Army)\b"
)


# An employer or a school after the words that introduce one ("works at", "employed by", "student
# at", "trabaja en", "travaille chez"): "barista at Artifact Coffee", "Works as a CNA at the Barron
# Center". The name is one to four capitalised words; a name of kind words only ("works for the NHS",
# "works from Home") is none.
_EMPLOYER_CUE = {
    "en": (r"(?:works?|working|worked|employed|employee|job|volunteers?|volunteering|studies|studying|"
           r"student|pupil|enrolled|teaches|teaching)(?:[ \t]+(?:part-time|full-time|nights|days))?"
           r"(?:[ \t]+as[ \t]+(?:an?[ \t]+)?[\w\-]{1,24}(?:[ \t][\w\-]{1,24}){0,2})?[ \t]+(?:at|for|by)"),
    "fr": (r"(?:travaille|travaillait|employ[ée]e?|salari[ée]e?|[ée]tudiante?|scolaris[ée]e?|[ée]l[èe]ve)"
           r"(?:[ \t]+comme[ \t]+[\w\-]{1,24}(?:[ \t][\w\-]{1,24}){0,2})?[ \t]+(?:chez|à|au|par|pour)"),
    "es": (r"(?:trabaja|trabajaba|empleada?|estudiante|estudia|alumn[oa])"
           r"(?:[ \t]+como[ \t]+[\w\-]{1,24}(?:[ \t][\w\-]{1,24}){0,2})?[ \t]+(?:en|para)"),
}  # fmt: skip
# A word of the name: not a title (a person follows) nor a capitalised preposition ("Amazon For 3 Years").
_EMPLOYER_WORD = (
    r"(?!(?:Dr|Mr|Mrs|Ms|Miss|Prof|Mme|M|Sr|Sra|For|In|Since|As|At|On|From|To|Until|With|"
    r"Depuis|Desde|Como|Comme)\b)(?:[A-ZÀ-Þ][\w'’\-]{0,30}|&)"
)
_EMPLOYER = {
    lang: re.compile(
        rf"(?<![\w'’\-])(?i:{cue})[ \t]+(?:(?:the|la|le|l['’]|el|los|las)[ \t]*)?"
        rf"(?P<name>{_EMPLOYER_WORD}(?:[ \t]+(?:(?:of|de|del|du|des|la|y|et|and)[ \t]+)?"
        rf"{_EMPLOYER_WORD}){{0,3}})(?![\w'’\-])"
    )
    for lang, cue in _EMPLOYER_CUE.items()
}


@register("organisation", priority=86)
class OrganisationRecognizer:
    name = "organisation"

    def find(self, text: str, language: str) -> list[Span]:
        # keys in the order the passes find them (each pass in text order): a few sorted runs, which
        # drop_nested's sort merges in linear time; a set's hash order made it n log n (x16 for ten
        # times "Age UK " in CI runs, against the linearity check's x15)
        found: dict[tuple[int, int], None] = {}
        if language in ("fr", "es"):
            for m in _BODY_OF_PLACE.finditer(text):
                found[(m.start(), m.end())] = None
            for m in _KIND_FIRST.finditer(text):
                found[(m.start(), m.end())] = None
        if language == "en":
            for m in _KIND_LAST.finditer(text):
                start = _name_start(text, m.start())
                if start is not None:
                    found[(start, m.end())] = None
        for m in _CHARITIES.finditer(text):
            found[m.span()] = None
        employer = _EMPLOYER.get(language)
        if employer is not None:
            for m in employer.finditer(text):
                words = re.findall(r"[\w'’\-]+", m.group("name"))
                if any(w.lower() not in _GENERIC and w.lower() not in _NOT_EMPLOYER for w in words):
                    found[m.span("name")] = None
        return drop_nested(Span(a, b, Label.ORG, f"rules.{self.name}") for a, b in found)


def _name_start(text: str, end: int) -> int | None:
    """The start of the capitalised words before a kind word ending at ``end``, or None when none of
    them is a name."""
    start, named = end, False
    for _ in range(_MAX_WORDS):
        m = _WORD_BEFORE.search(text, max(0, start - 34), start)
        if m is None:
            break
        word = m.group(1)
        if word in ("of", "and"):
            start = m.start()
            continue
        if word.lower() in _DETERMINERS:
            break
        start = m.start()
        named = named or word.lower() not in _GENERIC
    if not named:
        return None
    # A name never starts with "of"/"and" left over from the walk.
    while (lead := re.match(r"(?:of|and)[ \t]+", text[start:end])) is not None:
        start += lead.end()
    return start
