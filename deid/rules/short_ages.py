"""Ages written short or by their context: "88a", "72 a.", "58y", "4y 3m", "AGE: 91Y", "d. at
71", "MI at 58", "sister (58)", "daughter (now 10)".

The age rule (``deid.rules.ages``) reads ages with their unit word; notes also write them with a
letter ("a" for años or ans, "y" and "m" for years and months) or with nothing, the context
telling the age: a relative's age in brackets after the kinship word, an age at death or at a
diagnosis. Each pattern is bounded (a fixed window after its cue), so that no input makes it
backtrack. An age and its unit are written on one line: no pattern takes a line break ("Age: 79"
at a line's end is "79", not "79" and the line break).
"""

from __future__ import annotations

import re
from typing import ClassVar

from deid.labels import Label
from deid.rules.base import ANY, Patterns, RegexRecognizer
from deid.rules.registry import register
from deid.spans import Span

_I = re.IGNORECASE
_KIN = (r"mother|father|son|daughter|dtr|sister|sis|brother|bro|wife|husband|partner|mom|mum|dad|"
        r"niece|nephew|aunt|uncle|grand(?:son|daughter|mother|father|child)|cousin|"
        r"m[èe]re|p[èe]re|fils|fille|s[oœ]eur|fr[èe]re|[ée]pouse|[ée]poux|mari|ni[èe]ce|neveu|tante|oncle|"
        r"petit-fils|petite-fille|madre|padre|hijo|hija|hermano|hermana|esposo|esposa|marido|"
        r"sobrino|sobrina|t[íi]o|t[íi]a|nieto|nieta|abuelo|abuela|primo|prima|"
        r"children|child|kids|sons|daughters|grandchildren|enfants|hijos|hijas|nietos")
_TEMPERATURE_BEFORE = re.compile(
    r"(?:\b(?:t|temp|temperature|tmax|tc|febrile|fever|afebrile|size|sz|gauge)\b|°|#)[^\n]{0,8}$", _I)
# "16F Foley", "8 F NGT": a French gauge of a tube, not an age
_GAUGE_AFTER = re.compile(
    r"[ \t]*(?:foley|cath(?:eter)?|ng|ngt|og|ogt|tube|sheath|ett|drain|trach|suction|introducer|"
    r"pigtail|coude|silicone|latex|fr\b|french|3-way|2-way|three-way|two-way)", _I)
# A duration in years, not an age: "x 19 yrs", "for 5 yrs", "x ~2 yrs", "in 3 yr" (issue 29)
_DURATION_BEFORE = re.compile(r"\b(?:x|for|in|over|past|last|within|every|since|lasting)[ \t]*~?[ \t]*$", _I)
_YEARS_SHORT = re.compile(r"\d{1,3}[ \t]?(?:y|Y|yr|yrs)")
# A stage or a class written with a letter: "ERC estadio 3a", "stage 3a", "stade 4a"
_STAGE_BEFORE = re.compile(r"\b(?:estadio|stage|stade|grado|grade|tipo|type|clase|classe|NYHA|CKD|ERC|IRC)"
                           r"[ \t]*:?[ \t]*$", _I)
_THRESHOLD_BEFORE = re.compile(r"\((?:[ \t]*(?i:[âa]ge|edad|age))?[ \t]*[<>≤≥]=?[ \t]*$")
_NOT_AFTER_NUMBER = r"(?!\s*(?:%|mg|mcg|kg|g\b|mm|cm|ml|mL|am\b|pm\b|h\b|hrs?\b|min|d\b|wks?\b|\.\d|,\d|/))"


@register("short_age", priority=61)
class ShortAgeRecognizer(RegexRecognizer):
    name = "short_age"
    label = Label.AGE
    patterns: ClassVar[Patterns] = {
        ANY: (
            # a relative's age in brackets after the kinship word and, maybe, the name: "sister (58)"
            re.compile(rf"\b(?:{_KIN})\b[^()\n]{{0,40}}\((?P<phi>\d{{1,3}})(?:[ \t]?(?:yo|y/o|y|ans|a|años))?"
                       r"(?=\s*[),;])", _I),
            # an age beside a birth date: "DOB 3/14/1970 (52)", "DOB 1/30/2001, 23M"
            re.compile(r"\d{1,4}[/.\-]\d{1,2}[/.\-]\d{2,4}[ \t]*"
                       r"(?:\((?P<phi>\d{1,3})\)|,[ \t]*(?P<phi2>\d{1,3})"
                       r"(?=[ \t]?[MFmf]\b))"),
        ),
        "en": (
            # 58y, 91Y, 4y 3m, 67yo (the age rule reads "67 yo" and "67-year-old")
            re.compile(r"(?<![\w./-])(?P<phi>\d{1,3}[ \t]?(?:y|Y|yr|yrs|yo)(?:[ \t]?\d{1,2}[ \t]?m)?)"
                       r"(?![\w/])(?!\s+(?:ago|hx|history|of|smoker|pack))"),
            # an age at death or at a diagnosis: "d. at 71", "MI at 58", "diagnosed at 45"
            re.compile(r"\b(?:d\.|died|passed\s+away|deceased|dx(?:'?d)?|diagnosed|MI|CVA|stroke|cancer|ca)"
                       rf"\s+at\s+(?:age\s+)?(?P<phi>\d{{1,3}}){_NOT_AFTER_NUMBER}\b", _I),
            re.compile(rf"\bAGE\s*:\s*(?P<phi>\d{{1,3}}[ \t]?[Yy]?){_NOT_AFTER_NUMBER}\b", _I),
            # an age "now" in brackets after a kinship word or a birth date: "daughter (now 10)",
            # "boy Luca (DOB 17/08/2021, now 3)"; a value that changed is no age ("pain (was 8,
            # now 3)", "Hb (7.2 yesterday, now 9)", "NEWS (now 5)")
            re.compile(rf"(?:\b(?:{_KIN})[ \t]*+\(|\((?i:DOB|D\.O\.B\.|born|b\.)[ :]"
                       r"[^()\n]{0,30}?,[ \t]*+)now[ \t]+(?P<phi>\d{1,3})"
                       r"(?:[ \t]?(?:yo|y/o|y|yrs?|years?))?(?=[ \t]*\))", _I),
            # an age with the sex letter, as headers and handoffs write it: "Olive  91F  rm 318",
            # "54 F  POD 1", "67 yoM", "Pre-op: 23M," (a temperature in Fahrenheit is left: see below)
            re.compile(r"(?<![\w.,/°+-])(?P<phi>\d{1,3}(?:[ \t]?(?:yo|y/o|y))?)[ \t]?(?P<sex>[MF])"
                       r"(?![\w'’/])"),
        ),
        "fr": (
            re.compile(r"(?<![\w/.,-])(?P<phi>\d{1,3}[ \t]?a)(?=\s*[.,;:)]|\s*$)", re.MULTILINE),
            re.compile(r"\b(?:d[ée]c[ée]d[ée]e?|mort|morte|disparue?|diagnostiqu[ée]e?)\b[^.\n]{0,40}?"
                       r"\b[àa]\s+(?P<phi>\d{1,3}\s*ans)\b", _I),
        ),
        "es": (
            re.compile(r"(?<![\w/.,-])(?P<phi>\d{1,3}[ \t]?a\.?)(?=\s*[,;:)]|\s*$|\.(?:\s|$))", re.MULTILINE),
        ),
    }

    def find(self, text: str, language: str) -> list[Span]:
        spans = super().find(text, language)  # in text order, no two with one start
        for pattern in self._patterns(language):  # the second form of the birth-date pattern
            if "phi2" in pattern.groupindex:
                spans += [Span(*m.span("phi2"), self.label, f"rules.{self.name}")
                          for m in pattern.finditer(text) if m.group("phi2")]
        # Two runs in text order (every span has one label and one source, so offsets order them
        # as Span's own order does): sorting them by offsets merges the runs in one pass, where
        # sorted(set(...)) shuffled them by hash and sorted n log n ("1y 1y 1y ...", issue 33).
        ordered = sorted(spans, key=_offsets)
        return [s for i, s in enumerate(ordered) if i == 0 or s != ordered[i - 1]]

    def label_for(self, text: str, match: re.Match[str], language: str) -> Label | None:
        if match.group("phi") is None:
            return None
        digits = re.match(r"\d+", match.group("phi"))
        if digits is None or int(digits.group()) > 115:
            return None
        start = match.start("phi")
        before = text[max(0, start - 16) : start]
        if _STAGE_BEFORE.search(before) or _THRESHOLD_BEFORE.search(before):
            return None  # a stage ("estadio 3a"), a rule's age limit ("PECARN (>=2 yo)")
        if _YEARS_SHORT.fullmatch(match.group("phi")) and _DURATION_BEFORE.search(before):
            return None
        if "sex" in match.groupdict() and (
                _TEMPERATURE_BEFORE.search(text, max(0, match.start() - 16), match.start())
                or _GAUGE_AFTER.match(text, match.end())):
            return None  # "T 101 F": degrees Fahrenheit; "16F Foley": a tube's gauge; not an age
        return self.label


def _offsets(span: Span) -> tuple[int, int]:
    return span.start, span.end
