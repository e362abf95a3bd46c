"""US conventions in English notes: phone numbers, SSNs, insurance and Medicare ids after their
labels, month/day dates and two-digit years in a date context, names after a courtesy title in
any case, hospitals named before the word for one, wards and units, "City, ST".

Each pattern wants the context that makes it a mention: a month/day "3/14" only after a word
that introduces a date ("on 3/14", "admitted 3/14"), never alone (blood pressures, blood gases
and ratios are written the same way: "88/46", "7.32/45/88", "BUN/Cr 32/1.4"); a two-digit year
only after "in", "since", a month or an apostrophe; a lower-case name only right after "dr",
"mr", "mrs" or "ms", one word, not a common word. Written against ``deid.lab.synth.english`` and
measured on the English dev set (``deid.lab.eval.english``: its hand-written notes were not used to
write them); see ``docs/benchmarks/ner.md``.
"""

from __future__ import annotations

import re
from typing import ClassVar

from deid.labels import Label
from deid.rules.base import Patterns, RegexRecognizer
from deid.rules.lexicon import month_regex
from deid.rules.names import COMMON_WORDS, TITLES_AND_PARTICLES, fold, is_given_name
from deid.rules.registry import register
from deid.spans import Span

_I = re.IGNORECASE
# Every pattern runs in time linear in the note (``tests/rules/test_linear_time.py``): a repeat
# that could run across the starting points of other attempts ("a-a-a-...", "MBI-MBI-...") is
# bounded, here to 61 characters (a name word, hyphens included, a hospital's word, the part of an
# insurance id before its first digit); two runs of blanks side by side are possessive.
_LONGEST = 60


@register("us_phone", priority=41)
class UsPhoneRecognizer(RegexRecognizer):
    """(617) 555-0134, 617-555-0134, 617.555.0134, +1 617 555 0134."""

    name = "us_phone"
    label = Label.PHONE
    patterns: ClassVar[Patterns] = {
        "en": (
            re.compile(
                r"(?<![\w+@/.\-])(?:\+?1[ .\-]?)?(?:\(\d{3}\)\s?|\d{3}[.\-])\d{3}[.\-]\d{4}(?![\w@]|[.\-/]\d)"
            ),
            re.compile(r"(?<![\w+@/.\-])\+1[ ]\d{3}[ ]\d{3}[ ]\d{4}(?![\w@]|[.\-/]\d)"),
        ),
    }

    def label_for(self, text: str, match: re.Match[str], language: str) -> Label | None:
        before = text[max(0, match.start() - 25) : match.start()].lower()
        return Label.FAX if "fax" in before else Label.PHONE


# Labels of US insurance and government ids; the value may hold letters anywhere ("1EG4-TE5-MK73",
# "XYZ123456789", "MA70011842").
_INSURANCE_LABEL = (r"medicare(?:\s+(?:id|number|no\.?|#|mbi))?|medicaid(?:\s+(?:id|number|no\.?|#))?|"
                    r"MBI|HICN|"
                    r"member\s*(?:id|number|no\.?|#)|subscriber\s*(?:id|number|no\.?|#)|"
                    r"policy\s*(?:id|number|no\.?|#)|insurance\s+(?:id|number|no\.?|#)|"
                    r"group\s*(?:id|number|no\.?|#)|plan\s+(?:id|number|no\.?|#)")  # fmt: skip
# The first digit within 61 characters: an unbounded look-ahead rescanned "MBI-MBI-MBI-..." from
# every label (quadratic).
_VALUE = rf"(?=[A-Z0-9-]{{0,{_LONGEST}}}\d)[A-Z0-9]{{2,}}(?:-[A-Z0-9]{{2,}}){{0,3}}"


@register("us_ids", priority=11)
class UsIdRecognizer(RegexRecognizer):
    """SSNs by their shape, insurance / Medicare / Medicaid ids after their labels."""

    name = "us_ids"
    label = Label.ID_SSN
    patterns: ClassVar[Patterns] = {
        "en": (
            re.compile(r"(?<![\w\-/.])(?P<phi>\d{3}-\d{2}-\d{4})(?![\w\-/]|\.\d)"),
            # blanks possessive (and in the date cue below): see _LONGEST
            re.compile(
                rf"\b(?:{_INSURANCE_LABEL})(?:\s*+(?:ID|#|no\.?|number))?\s*+[:#]?\s*+(?P<phi>{_VALUE})\b", _I
            ),
        ),
    }

    def label_for(self, text: str, match: re.Match[str], language: str) -> Label | None:
        phi = match.group("phi")
        if sum(c.isdigit() for c in phi) < 5:
            return None
        if text[max(0, match.start()) : match.start("phi")].lower().startswith("group"):
            return Label.ID
        return self.label


_MONTH = month_regex("en")
# Words after which a bare month/day is a date: "on 3/14", "admitted 3/14", "DOS: 3/14".
_DATE_CUE = (r"on|since|from|until|till|thru|through|to|dated|date|admitted|admission|discharged|discharge|"
             r"seen|started|stopped|visit|DOS|DOA|DOD|by|before|after|last|next|as\s+of|echo|EKG|ECG|CXR|"
             r"CT|MRI|note|dictated|signed|f/u|follow-up")  # fmt: skip


@register("us_date", priority=51)
class UsDateRecognizer(RegexRecognizer):
    """Month/day without a year after a date cue, two-digit years ('92), "March '92"."""

    name = "us_date"
    label = Label.DATE
    patterns: ClassVar[Patterns] = {
        "en": (
            re.compile(
                rf"\b(?:{_DATE_CUE})\s*+:?\s*+(?P<phi>(?P<m>[01]?\d)/(?P<d>[0-3]?\d))(?![/\d]|\.\d|\s*(?:mg|mmHg|%))",
                _I,
            ),
            # a month/day before a clock time or a shift: "11/9 18:45", "NURSING NOTE 8/20 0700-1900"
            re.compile(
                r"(?<![\w/.])(?P<phi>(?P<m>[01]?\d)/(?P<d>[0-3]?\d))"
                r"(?=[ \t]+(?:[0-2]?\d:[0-5]\d|[0-2]\d[0-5]\d\b))"
            ),
            # the date closing a signature line: "Dictated by: DR. ORR  10/20"
            re.compile(
                r"^(?:dictated|signed|electronically\s+signed|--).*?[ \t]"
                r"(?P<phi>(?P<m>[01]?\d)/(?P<d>[0-3]?\d))[ \t]*$",
                _I | re.MULTILINE,
            ),
            # to 3/6, - 3/6: the second date of a range whose first one is a full date or a cue
            re.compile(r"(?<=\d)\s*(?:-|to|–)\s*(?P<phi>(?P<m>[01]?\d)/(?P<d>[0-3]?\d))(?![/\d.])"),
            re.compile(r"(?<![\w'’])(?P<phi>['’]\d{2})(?![\w'’])"),
            re.compile(rf"\b(?:{_MONTH})\.?\s+['’]\d{{2}}\b", _I),
            # 14-Mar-2091, 14-Mar-91
            re.compile(rf"\b[0-3]?\d-(?:{_MONTH})-(?:\d{{4}}|\d{{2}})\b", _I),
        ),
    }

    def label_for(self, text: str, match: re.Match[str], language: str) -> Label | None:
        groups = match.groupdict()
        month, day = groups.get("m"), groups.get("d")
        if month and day and not (1 <= int(month) <= 12 and 1 <= int(day) <= 31):
            return None
        return self.label


# A name after a courtesy title: capitalised words (two at most), initials, or one lower-case
# word that is not a common one ("dr smith", not "dr to see").
_COMMON = frozenset(
    [
        "a",
        "an",
        "the",
        "to",
        "at",
        "in",
        "on",
        "of",
        "and",
        "or",
        "is",
        "was",
        "will",
        "be",
        "been",
        "has",
        "had",
        "have",
        "here",
        "there",
        "aware",
        "notified",
        "paged",
        "called",
        "said",
        "says",
        "note",
        "notes",
        "order",
        "orders",
        "team",
        "office",
        "visit",
        "service",
        "on-call",
        "call",
        "see",
        "saw",
        "seen",
        "from",
        "with",
        "for",
        "by",
        "who",
        "which",
        "that",
        "this",
        "re",
        "regarding",
        "please",
    ]
)
# one line: the next line's first word is no part of the name ("GP: Dr Yeung\nBorn in Spain")
_NAME = (
    r"(?:[A-Z]\.[ \t]?){1,2}[A-Z][a-zA-Z'’\-]+|[A-Z][a-zA-Z'’\-]+(?:[ \t][A-Z][a-zA-Z'’\-]+)?(?![a-z])|"
    r"[A-Z][A-Z'’\-]+(?:[ \t][A-Z][A-Z'’\-]+)?|[a-z][a-z'’\-]{2,}"
)
# "MR" and "MS" in capitals are also mitral regurgitation and multiple sclerosis: titles only
# before a name in capitals ("MR. JONES", not "mod MR. Cardiology").
_TITLE = r"(?i:dr|doctor)|Mr|mr|Mrs|MRS|mrs|Ms|ms|Miss|(?:MR|MS)(?=\.?\s+[A-Z]{2})"
_TITLED = re.compile(rf"\b(?P<title>{_TITLE})\.?\s+(?P<phi>{_NAME})")


@register("titled_name", priority=64)
class TitledNameRecognizer(RegexRecognizer):
    """Names after "Dr", "Mr", "Mrs", "Ms" in any case (English notes write "dr smith")."""

    name = "titled_name"
    label = Label.PERSON
    patterns: ClassVar[Patterns] = {"en": (_TITLED,)}

    def label_for(self, text: str, match: re.Match[str], language: str) -> Label | None:
        name = match.group("phi")
        title = match.group("title")
        if name.lower() in _COMMON or (len(title) > 3 and text.startswith(".", match.end("title"))):
            return None  # "her own doctor. Her husband": a word ending a sentence is no title
        return Label.STAFF if match.group("title").lower() in ("dr", "doctor") else Label.PERSON


_HOSPITAL_KIND = (r"(?:General[ ]|Community[ ]|Regional[ ]|Children's[ ]|University[ ])?"
                  r"(?:Hospital|Medical\s+Cent(?:er|re)|Health\s+Cent(?:er|re)|Clinic|Infirmary|"
                  r"Nursing\s+Home|Rehab(?:ilitation)?\s+Cent(?:er|re)|Skilled\s+Nursing(?:\s+Facility)?|"
                  r"Assisted\s+Living)")  # fmt: skip
# A word of the name: possessive and bounded, since a word may hold hyphens and every capital
# after a hyphen starts another attempt ("A-A-A-..." was quadratic). A space always follows it.
_CAP = rf"(?:St\.|Saint|[A-Z][a-zA-Z'’\-]{{1,{_LONGEST}}}+)"
# Not MD nor PA: after a name they are its degree ("Patel, MD"), not Maryland or Pennsylvania.
_STATES = [
    "AL",
    "AK",
    "AZ",
    "AR",
    "CA",
    "CO",
    "CT",
    "DE",
    "FL",
    "GA",
    "HI",
    "ID",
    "IL",
    "IN",
    "IA",
    "KS",
    "KY",
    "LA",
    "ME",
    "MA",
    "MI",
    "MN",
    "MS",
    "MO",
    "MT",
    "NE",
    "NV",
    "NH",
    "NJ",
    "NM",
    "NY",
    "NC",
    "ND",
    "OH",
    "OK",
    "OR",
    "RI",
    "SC",
    "SD",
    "TN",
    "TX",
    "UT",
    "VT",
    "VA",
    "WA",
    "WV",
    "WI",
    "WY",
    "DC",
]
# Every code of the Postal Service, MD and PA too (with a ZIP code after them they are no degrees),
# with the territories: what a full address line may name (``deid.detection.addresses``)
STATE_CODES: tuple[str, ...] = (*_STATES, "MD", "PA", "PR", "GU", "VI", "AS", "MP")


@register("us_places", priority=66)
class UsPlaceRecognizer(RegexRecognizer):
    """Hospitals named before the word for one ("St. Mary's Hospital", "Mercy Medical Center") and
    towns with their state ("Salem, OR"). Not wards and units ("5 West", "Ward 4B", "POD 2"): a
    ward without its hospital names no one (the realistic corpus's guideline, HIPAA's list), and
    "POD 2" is the second post-operative day."""

    name = "us_places"
    label = Label.HOSPITAL
    _HOSPITAL = re.compile(rf"(?<![\w'’])(?P<phi>{_CAP}(?:[ ]{_CAP}){{0,3}}[ ]{_HOSPITAL_KIND})\b")
    _CITY = re.compile(rf"\b(?P<city>[A-Z][a-z]+(?:\s[A-Z][a-z]+)?),\s(?P<state>{'|'.join(_STATES)})\b(?!\w)")
    _NOT_NAME = re.compile(r"(?:The|A|An|To|At|In|From|Pt|Patient|Transferred|Admitted|Seen)\s", re.ASCII)
    _NUMBER_AFTER = re.compile(r"[ \t]*+[#:]?[ \t]*+\d")  # possessive: linear on a long run of blanks
    _IDAHO_ZIP = re.compile(r"[ \t]++83[2-8]\d\d(?!\d)")  # Idaho's ZIP codes: 832xx-838xx

    def find(self, text: str, language: str) -> list[Span]:
        if language != "en":
            return []
        out: list[Span] = []
        source = f"rules.{self.name}"
        for m in self._HOSPITAL.finditer(text):
            start = m.start("phi")
            while (lead := self._NOT_NAME.match(text, start, m.end())) is not None:
                start = lead.end()
            if start < m.end() and not re.fullmatch(_HOSPITAL_KIND, text[start : m.end()]):
                out.append(Span(start, m.end(), Label.HOSPITAL, source))
        for m in self._CITY.finditer(text):
            if m["state"] == "ID" and self._NUMBER_AFTER.match(text, m.end()) and not self._IDAHO_ZIP.match(
                    text, m.end()):
                continue  # "Thuy, ID 30418": a name and an identifier's label, not Idaho
            out.append(Span(m.start("city"), m.end("city"), Label.CITY, source))
            out.append(Span(m.start("state"), m.end("state"), Label.LOCATION, source))
        return sorted(out)


# Names that a field, a degree, a kinship word or a case opening introduces, in English notes.
# a capitalised word, its hyphenated parts capitalised or not ("Mbeki-Sanders", "Lindsay-hart")
_CAPWORD = r"[A-Z][a-z'’]{1,30}(?:-[A-Za-z][a-z'’]{0,30}){0,2}"  # bounded: linear on 'Aa-Aa-...'
_CAPNAME = rf"{_CAPWORD}(?:[ ]{_CAPWORD})?"
_ANYNAME = (
    r"[A-Z][a-zA-Z'’\-]+,[ ][A-Z][a-zA-Z'’\-]+|"
    r"(?:[A-Z]\.[ ]?)?[A-Z][a-zA-Z'’\-]+(?:[ ][A-Z][a-zA-Z'’\-]+){0,2}|"
    r"[a-z][a-z'’\-]+(?:[ ][a-z][a-z'’\-]+)?"
)
# The same names before a record number, where every hyphen or colon may start an attempt
# ("a-a-a-...", issue 33): words bounded and possessive (a space, a comma or "(" follows each).
_UPWORD = rf"[A-Z][a-zA-Z'’\-]{{1,{_LONGEST}}}+"
_LOWWORD = rf"[a-z][a-z'’\-]{{1,{_LONGEST}}}+"
_BOUNDED_ANYNAME = (
    rf"{_UPWORD},[ ]{_UPWORD}|"
    rf"(?:[A-Z]\.[ ]?)?{_UPWORD}(?:[ ]{_UPWORD}){{0,2}}|"
    rf"{_LOWWORD}(?:[ ]{_LOWWORD})?"
)
_KIN = (r"dtr|daughter|son|wife|husband|mother|father|mom|dad|sister|brother|niece|nephew|granddaughter|"
        r"grandson|"
        r"partner|spouse|HCP|proxy|friend|neighbor|neighbour")  # fmt: skip
KINSHIP_EN = _KIN  # the kinship words of English notes, for the other languages' kin rules
# Kinship words that give a name in brackets ("mother (Keiko)", "Sister (Efua)", "Mum (Amparo)"):
# what a bracket after a kinship word holds is a name, an age or a state, never a sentence.
_KIN_BRACKET = (
    _KIN + r"|mum|mam|mummy|mommy|aunt|auntie|uncle|cousin|grandmother|grandfather|grandma|"
    r"grandpa|granny|stepmother|stepfather|stepson|stepdaughter|fianc[ée]e?|girlfriend|boyfriend|"
    r"guardian|carer"
)
# What such a bracket holds that is no name: a state, or an eponymous disease ("mother (Alzheimer's)").
_NOT_A_NAME_IN_BRACKETS = frozenset({
    "deceased", "alive", "living", "estranged", "adopted", "present", "absent", "nok", "step", "late",
    "alzheimer", "alzheimer's", "parkinson", "parkinson's", "crohn", "crohn's", "hodgkin", "huntington",
    "huntington's", "addison", "cushing", "wilson", "marfan", "down", "down's", "turner", "lynch",
    "graves", "hashimoto", "raynaud", "paget", "asperger", "tourette",
})  # fmt: skip
# What stands before a nurse's or a physician's degree to say which one, never a name
_ROLE_WORDS = frozenset({
    "charge", "primary", "staff", "floor", "night", "day", "float", "travel", "traveler", "agency",
    "triage", "admitting", "bedside", "circulating", "scrub", "oncoming", "outgoing", "receiving",
    "sending", "covering", "attending", "resident", "icu", "ed", "er", "or", "pacu", "unit", "the",
    "psych", "peds", "tele", "rapid", "response", "wound", "case", "home", "hospice", "school",
})  # fmt: skip
# words of a sentence, not of a name written in small letters after a field ("pt: states he ...")
_SENTENCE_WORDS = _COMMON | {"he", "she", "they", "his", "her", "it", "not", "no"}
_NOT_A_NAME = frozenset(
    [
        "pt",
        "patient",
        "he",
        "she",
        "this",
        "the",
        "a",
        "an",
        "who",
        "which",
        "they",
        "family",
        "mother",
        "father",
        "son",
        "daughter",
        "wife",
        "husband",
        "sister",
        "brother",
        "unknown",
        "none",
        "n/a",
        "na",
    ]
)


@register("en_names", priority=63)
class EnglishNameRecognizer(RegexRecognizer):
    """Names after a name field ("Name: Ho, Evelyn", "Pt: terry horton"), before a degree
    ("Carly Perkins, MD", "J. Floyd RN"), after or before a kinship word ("Dtr Melanie",
    "Jackson (son)"), and a case's subject ("HPI: torres is a 47 y/o")."""

    name = "en_names"
    label = Label.PERSON
    patterns: ClassVar[Patterns] = {
        "en": (
            re.compile(rf"\b(?P<field>(?i:name|patient|pt|patient\s+name))[ \t]*:[ \t]*(?P<phi>{_ANYNAME})"),
            re.compile(
                rf"(?P<phi>(?:[A-Z]\.[ ]?)?{_CAPNAME}),?[ ](?P<degree>MD|RN|NP|DO|PA-C|LPN|CNA|RRT|LICSW|"
                rf"CRNA|APRN|FNP|DPT|LCSW|PharmD)\b"
            ),
            # a nurse or a therapist by role and given name: "Charge RN Deb notified", "RT Marcus at
            # bedside" (the name must be a given name or a nickname a table knows: ``label_for``)
            re.compile(r"\b(?P<role>RN|LPN|CNA|RT|RRT|(?i:nurse))[ ](?P<phi>[A-Z][a-z]{1,14})\b"
                       r"(?![ ]?[A-Z.'’\-])"),
            # a role before an initial and a surname: "plastics PA J. Oduya", "RN K. Lozano"
            re.compile(
                r"\b(?P<degree>PA|NP|RN|CRNA|APRN)[ ]"
                r"(?P<phi>[A-Z]\.[ ]?[A-Z][a-z'’]+(?:-[A-Z][a-z'’]+)?)\b"
            ),
            # an officer by rank and name: "security ofc Dukes", "police officer Tran" ("Officer
            # Training" is no one: the full word only after whose officer it is)
            re.compile(
                r"\b(?P<degree>(?i:ofc|sgt|(?:security|police|custody|prison|probation)[ ]"
                r"(?:officer|sergeant|deputy|constable)))\.?[ ](?P<phi>[A-Z][a-z'’\-]+)\b"
            ),
            re.compile(
                r"(?:^|--[ ]|\n)[ \t]*(?P<phi>[a-z][a-z'’\-]+)[ ](?P<degree>rn|md|np)\b", re.MULTILINE
            ),
            re.compile(rf"\b(?P<kin>(?i:{_KIN}))[ ](?P<phi>{_CAPNAME})\b"),
            re.compile(rf"\b(?P<phi>{_CAPNAME})[ ]\((?P<kin>(?i:{_KIN}))\)"),
            re.compile(rf"\b(?P<kin>(?i:{_KIN_BRACKET}))[ ]?\((?P<phi>[A-Z][a-z'’\-]+)\)"),
            re.compile(r"(?:^|:[ \t]*)(?P<phi>[A-Za-z][a-zA-Z'’\-]+)[ ]is[ ]an?[ ]\d", re.MULTILINE),
            re.compile(
                rf"\b(?:Pt|Patient)[ ](?P<phi>(?:[A-Z]\.[ ]?)?{_CAPNAME}|"
                rf"[A-Z][A-Z'’\-]+(?:[ ][A-Z][A-Z'’\-]+)?)"
                rf"(?=[ ]is[ ]an?\b|,)"
            ),
            re.compile(r"\b(?:Pt|Patient)[ ](?P<phi>[a-z][a-z'’\-]+[ ][a-z][a-z'’\-]+)(?=[ ]is[ ]an?[ ]\d)"),
            # a name before its record number: "Discharge Summary - Lawson, Dominique (MRN 8948...)"
            re.compile(
                rf"(?:^|[-–:][ \t]*)(?P<phi>{_BOUNDED_ANYNAME})[ ]\((?:MRN|DOB|Medical\s+Record)",
                re.MULTILINE,
            ),
        ),
    }

    def label_for(self, text: str, match: re.Match[str], language: str) -> Label | None:
        name = match.group("phi")
        first = name.split()[0].strip(",").lower()
        if first in _NOT_A_NAME or name.lower() in _COMMON:
            return None
        if fold(name.rstrip(".")) in TITLES_AND_PARTICLES:
            return None  # "Pt: Mrs O. M. Featherstone": the title alone, the name is after it
        if match.groupdict().get("degree") and first in _ROLE_WORDS:
            return None  # "Charge RN", "Primary RN Kaylee": which nurse, not who
        field = match.groupdict().get("field")
        if field and name.islower() and (field == "PT" or any(w in _SENTENCE_WORDS for w in name.split())):
            # "PT: ambulating 40 ft" is physical therapy's heading; "pt: states he ..." a sentence
            return None
        bracketed = text[match.start("phi") - 1 : match.start("phi")] == "("
        if bracketed and name.lower() in _NOT_A_NAME_IN_BRACKETS:
            return None
        groups = match.groupdict()
        if groups.get("role"):
            known = is_given_name(name) and name.lower() not in COMMON_WORDS
            return Label.STAFF if known else None
        if groups.get("degree"):
            return Label.STAFF
        if groups.get("kin"):
            return Label.RELATIVE
        return Label.PATIENT
