"""A name in brackets after a kinship word, in French and Spanish notes: "sa fille aînée (Fanta)",
"(hija, Yokasta)", "su esposo (Wilmer)".

Notes name a relative by the given name alone beside the kinship word, often a name the name
tables do not hold ("Fanta", "Yokasta"): the given-name rule cannot see it, the model often misses
it, and each one left names the family (issue 29). What a bracket after a kinship word holds (or
what follows its comma inside a bracket) is the relative's name, an age or a state; a capitalised
word there, not an eponymous disease ("mère (Alzheimer)") nor a state ("père (décédé)"), is a
RELATIVE. A kinship word followed by a bare capitalised word is left to the other rules: family
history lists write diseases so ("mère Alzheimer, père Parkinson"). English has the same forms in
``deid.rules.us``. In every language, words in small letters between a kinship word and an age in
brackets are the relative's name ("son will boudreaux (38)", "sa fille marie (45 ans)").
"""

from __future__ import annotations

import re

from deid.labels import Label
from deid.rules.names import TITLES_AND_PARTICLES, fold, is_given_name
from deid.rules.registry import register
from deid.rules.us import KINSHIP_EN
from deid.spans import Span

_KIN: dict[str, str] = {
    "fr": (
        r"fille|fils|[ée]pouse|[ée]poux|mari|femme|compagne|compagnon|conjointe?|m[èe]re|p[èe]re|"
        r"s[œo]eur|fr[èe]re|petite-fille|petit-fils|ni[èe]ce|neveu|belle-fille|beau-fils|gendre|"
        r"belle-s[œo]eur|beau-fr[èe]re|tante|oncle|cousine?|amie?|voisine?|aidante?"
    ),
    "es": (
        r"hija|hijo|esposa|esposo|marido|mujer|pareja|madre|padre|hermana|hermano|nieta|nieto|"
        r"sobrina|sobrino|nuera|yerno|cu[ñn]ada|cu[ñn]ado|t[íi]a|t[íi]o|prima|primo|suegra|suegro|"
        r"amiga|amigo|vecina|vecino|cuidadora|cuidador"
    ),
}
# an adjective that may stand between the kinship word and its bracket ("fille aînée", "hija mayor")
_ADJECTIVE = (
    r"a[îi]n[ée]e?|cadette?|benjamine?|unique|jumelle?|cadet|"
    r"mayor|menor|peque[ñn][oa]|median[oa]|[úu]nic[oa]|gemel[oa]"
)
_NAME = r"[A-ZÀ-Þ][a-zß-ÿ'’\-]{1,20}"
_PATTERNS = {
    lang: re.compile(
        rf"(?<![\w\-])(?i:{kin})(?:[ \t]+(?i:{_ADJECTIVE}))?"
        rf"(?:[ \t]?\([ \t]?|(?<=\w),[ \t](?=[^()\n]{{1,24}}\)))(?P<name>{_NAME}(?:[ \t]{_NAME})?)[ \t]?\)"
    )
    for lang, kin in _KIN.items()
}
# A name in small letters between a kinship word and the relative's age in brackets: "son will
# boudreaux (38)", "dtr rose guidry (41)", "sa fille marie (45 ans)", "su hija rosa (41 años)".
# Notes typed in small letters list the family so; the first word must be a given name (or an
# English nickname) the tables know: a family history writes a disease there ("mother breast ca
# (45)", "mère cancer (60 ans)", "padre iam (60 años)"). A capitalised name is the model's and the
# other rules' to read.
_LOWER_WORD = r"[a-zß-ÿ][a-zß-ÿ'’\-]{1,20}"
_AGE_IN_BRACKETS = r"\([ \t]?\d{1,3}(?:[ \t]?(?:y/?o|years?|yrs?|y|ans?|a|años|a[ñn]os)\.?)?[ \t]?\)"
_AGED = {
    lang: re.compile(rf"(?<![\w\-])(?i:{kin})[ \t]+(?P<name>{_LOWER_WORD}(?:[ \t]{_LOWER_WORD})?)"
                     rf"[ \t]{_AGE_IN_BRACKETS}")
    for lang, kin in {**_KIN, "en": KINSHIP_EN}.items()
}
# What the bracket holds that is no name: a state, an eponymous disease.
_NOT_NAMES = frozenset({
    "decede", "decedee", "fallecido", "fallecida", "vivant", "vivante", "vivo", "viva", "tutrice",
    "tuteur", "tutor", "tutora", "curatrice", "curateur", "referente", "referent", "aidant", "aidante",
    "alzheimer", "parkinson", "crohn", "hodgkin", "huntington", "addison", "cushing", "wilson", "marfan",
    "down", "turner", "lynch", "basedow", "hashimoto", "raynaud", "paget", "charcot", "horton",
    "biermer", "kahler", "steinert", "duchenne", "recklinghausen", "graves",
})  # fmt: skip


_ADJECTIVE_WORD = re.compile(rf"(?i:{_ADJECTIVE})")
# Words that stand between a kinship word and an age without naming anyone ("son aged (38)",
# "fille aînée (45 ans)", "hijo mayor (12 años)").
_NOT_AGED_NAMES = frozenset({
    "aged", "age", "now", "is", "was", "eldest", "oldest", "youngest", "younger", "older", "ainee", "aine",
    "twin", "little", "baby", "only", "adopted", "step", "jumeau", "jumelle", "gemelo", "gemela",
    "cadette", "cadet", "mayor", "menor", "de", "du", "la", "le", "el", "of", "and", "et", "y", "who", "qui",
    "que", "alive", "deceased", "died", "vivant", "vivante", "vivo", "viva",
})  # fmt: skip


@register("kin_name", priority=64)
class KinNameRecognizer:
    name = "kin_name"

    def find(self, text: str, language: str) -> list[Span]:
        spans = []
        for pattern in (_PATTERNS.get(language), _AGED.get(language)):
            if pattern is None:
                continue
            for m in pattern.finditer(text):
                words = m.group("name").split()
                if any(fold(w) in _NOT_NAMES or fold(w) in TITLES_AND_PARTICLES or fold(w) in _NOT_AGED_NAMES
                       or _ADJECTIVE_WORD.fullmatch(w) for w in words):
                    continue
                if pattern is _AGED.get(language) and not is_given_name(words[0]):
                    continue  # "mother breast ca (45)", "mère cancer (60 ans)": a family history
                spans.append(Span(m.start("name"), m.end("name"), Label.RELATIVE, f"rules.{self.name}"))
        return sorted(spans)
