"""Facilities named from a public list: "Johns Hopkins Hospital", "seen at Southmead", "ST. BARNABAS
HOSPITAL", "Dayton Children's", and their initials in the same note ("Royal Derby Hospital ... RDH").

The list is ``deid/data/facilities_en.csv.gz`` (US hospitals and VA facilities of the CMS lists,
UK NHS hospitals; built by ``deid.data.build_facilities``, sources in ``deid/data/SOURCES.md``).
English only: the list is of US and UK facilities.

How a form of the list is matched:

- **whole words, longest first**: the note's words (letters and digits; apostrophes dropped, "St",
  "St." and "Ste" read "Saint", "&" read "and") are walked through a trie of the forms, from each
  word, and the longest form that is accepted there wins; the scan goes on after it. Each word is
  looked at a bounded number of times (the longest form has ``_MAX_WORDS`` words): linear time,
  no regex over the list;
- **capitalised**: every word of the mention but a particle ("of", "and", "the") starts with a
  capital or is in capitals ("Johns Hopkins", "JOHNS HOPKINS"); "johns hopkins" in small letters,
  like "mercy" or "general", is a word, not a name;
- **a cue for a form that is no evidence alone** (the list's ``cue`` column: one word, "Mercy",
  "Grady", "Southmead"; a given name first, "Henry Ford", "Mary Free Bed"; a name without a
  facility word, "The Retreat"): it is a facility only after "at", "to", "from", "via" or "into"
  (a "the" between allowed) or before "ED", "ER", "A&E", "ICU" ("Grady ED"). Words that name only
  a kind or a quality ("General", "Memorial", "Regional", "ICU") are no form of the list at all;
- **initials**: a facility named in the note, from the list or by ``hospital_names``' pattern
  ("Scioto Valley Community Hospital"), is also named by its initials there ("Royal Derby
  Hospital" -> "RDH", "SVCH"; the list's abbreviations of that facility too) and by the acronym in
  brackets right after its name ("Ysbyty Gwynedd (YG)"), in capitals, whole words, unless it is a
  clinical abbreviation (``hospital_acronyms.CLINICAL``: "MRI" is never Manchester Royal Infirmary).
"""

from __future__ import annotations

import csv
import gzip
import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from deid.labels import Label
from deid.rules.hospital_acronyms import CLINICAL
from deid.rules.hospital_names import HospitalNameRecognizer
from deid.rules.registry import register
from deid.spans import Span

# A word of a name; "O'Dee" and "Thomas'" keep their apostrophe (dropped when normalised).
_WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z0-9]+)*['’]?|&")
# What may stand between two words of one name: blanks, a hyphen or a dot ("St. Mary's",
# "Wilkes-Barre"), never a line break.
_GAP = re.compile(r"[ \t]{0,3}[.\-]?[ \t]{0,3}")
_PARTICLES = frozenset({"of", "the", "and", "at", "for", "in", "on", "de", "del", "la", "le", "y", "by"})
_CUE_BEFORE = re.compile(r"(?:^|[^\w])(?:at|to|from|via|into)[ \t]+(?:the[ \t]+)?$", re.IGNORECASE)
_CUE_AFTER = re.compile(r"[ \t]{1,3}(?:ED|ER|A&E|ICU|Emergency)(?![\w&])")
_CUE_WINDOW = 24  # characters looked at before a mention: "transferred to the " fits
_INITIALS = re.compile(r"(?<![\w&])[A-Z][A-Z&]{1,6}(?![\w&])")
# An acronym defined in brackets right after the name: "Ysbyty Gwynedd (YG)".
_DEFINED = re.compile(r"[ \t]{0,2}\((?P<acronym>[A-Z][A-Z&]{1,6})\)")
# The name a place goes by, in brackets right after its name: "Royal Cornwall Hospital (Treliske)".
_NOT_ALIAS = frozenset({
    "Outpatients", "Outpatient", "Inpatient", "Inpatients", "Main", "Site", "Campus", "North", "South",
    "East", "West", "Central", "Annex", "Ward", "Wards", "Dept", "Department", "Maternity", "Paediatrics",
    "Pediatrics", "Emergency", "Radiology", "Imaging", "Private", "Formerly", "Previously", "Now", "Closed",
    "Clinic",
})  # fmt: skip
_ALIAS = re.compile(r"[ \t]{0,2}\((?P<alias>[A-Z][a-z]{2,24}(?:[ \t][A-Z][a-z]{2,24})?)\)")


def normalise(word: str) -> str:
    """A word as the list spells it (``deid.data.build_facilities.normalise``)."""
    w = word.lower().replace("'", "").replace("’", "")
    if w in {"st", "ste"}:
        return "saint"
    return "and" if w == "&" else w


@dataclass
class _Node:
    children: dict[str, _Node] = field(default_factory=dict)
    needs_cue: bool | None = None  # None: no form ends here
    abbreviations: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Lexicon:
    root: _Node
    max_words: int


@cache
def _lexicon() -> _Lexicon:
    root, longest = _Node(), 0
    data = resources.files("deid.data").joinpath("facilities_en.csv.gz").read_bytes()
    for row in csv.DictReader(gzip.decompress(data).decode("utf-8").splitlines()):
        words = row["form"].split()
        node = root
        for w in words:
            node = node.children.setdefault(w, _Node())
        node.needs_cue = row["cue"] == "1"
        node.abbreviations = tuple(a for a in row["abbreviations"].split(";") if a)
        longest = max(longest, len(words))
    return _Lexicon(root, longest)


def _capitalised(word: str) -> bool:
    return word[0].isupper() or word[0].isdigit()


def initials(words: list[str]) -> str:
    """"Royal Derby Hospital" -> "RDH"; a particle gives no letter, "&" stays ("L&D")."""
    return "".join("&" if w == "&" else w[0] for w in words if w.lower() not in _PARTICLES).upper()


@register("facility", priority=73)
class FacilityRecognizer:
    name = "facility"

    def __init__(self) -> None:
        self._names = HospitalNameRecognizer()
        self._lexicon = _lexicon()  # read here, once per process: never inside a note's time

    def find(self, text: str, language: str) -> list[Span]:
        if language != "en":
            return []
        lexicon = self._lexicon
        words = list(_WORD.finditer(text))
        spans: list[Span] = []
        abbreviations: set[str] = set()
        i = 0
        while i < len(words):
            found = self._longest(text, words, i, lexicon)
            if found is None:
                i += 1
                continue
            j, node = found
            start, end = words[i].start(), words[j].end()
            spans.append(Span(start, end, Label.HOSPITAL, f"rules.{self.name}"))
            abbreviations.update(node.abbreviations)
            i = j + 1
        named = [*spans, *self._names.find(text, language)]
        abbreviations.update(initials(_WORD.findall(text, s.start, s.end)) for s in named)
        # two letters are initials of too much ("MH", "SH", "OP"): only an acronym defined in brackets
        wanted = {a for a in abbreviations if len(a) >= 3 or "&" in a}
        for s in named:
            defined = _DEFINED.match(text, s.end)
            if defined:
                wanted.add(defined.group("acronym"))
        wanted -= CLINICAL
        aliases = {a.group("alias") for s in named
                   if (a := _ALIAS.match(text, s.end)) is not None and a.group("alias") not in _NOT_ALIAS}
        if aliases:
            # the alias names the place wherever the note uses it ("back to Treliske next week")
            names = "|".join(map(re.escape, sorted(aliases)))
            alias = re.compile(rf"(?<![\w'’\-])(?:{names})(?![\w'’\-])")
            spans.extend(Span(*m.span(), Label.HOSPITAL, f"rules.{self.name}") for m in alias.finditer(text))
        if wanted:
            covered = {(s.start, s.end) for s in spans}
            for m in _INITIALS.finditer(text):
                if m.group() in wanted and m.span() not in covered:
                    spans.append(Span(*m.span(), Label.HOSPITAL, f"rules.{self.name}"))
        return sorted(spans)

    @staticmethod
    def _longest(text: str, words: list[re.Match[str]], i: int,
                 lexicon: _Lexicon) -> tuple[int, _Node] | None:
        """The last word and trie node of the longest accepted form starting at word ``i``."""
        node, best = lexicon.root, None
        for j in range(i, min(len(words), i + lexicon.max_words)):
            word = words[j].group()
            if j > i and not _GAP.fullmatch(text, words[j - 1].end(), words[j].start()):
                break
            key = normalise(word)
            if key not in _PARTICLES and not _capitalised(word):
                break
            child = node.children.get(key)
            if child is None:
                break
            node = child
            if node.needs_cue is not None and key not in _PARTICLES and (
                not node.needs_cue or _has_cue(text, words[i].start(), words[j].end())
            ):
                best = (j, node)
        return best


def _has_cue(text: str, start: int, end: int) -> bool:
    before = text[max(0, start - _CUE_WINDOW) : start]
    return bool(_CUE_BEFORE.search(before)) or bool(_CUE_AFTER.match(text, end))
