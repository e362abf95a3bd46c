"""A job told by its cue: "ancienne couturière", "retraité (soudeur)", "Retired rice farmer",
"works as a delivery driver", "trabaja como administrativa", "jubilado de la construcción".

A job is a quasi-identifier (MEDDOCAN's PROFESION, the guideline of the realistic corpus): with a
town and an age it narrows a patient down. The words that announce one are few in each
language; the job is the one to four words after them, up to a preposition that starts the
employer or the place ("chez", "at", "en", "for") or a punctuation mark. Habits that follow the
same cues ("ancien fumeur", "former smoker") are not jobs.

Most jobs in notes written by others come without those words (issue 29: 42 jobs left on the
realistic corpus's train notes): after an age ("58 year old primary school teacher", "(55 ans),
cariste", "mom (29, dental hygienist)"), after "is a" ("Son Omar is a cardiologist", "fue
albañil"), or before their employer ("dental hygienist at Sloan's Lake Dental Group", "chauffeur
de bus à la RATP"). There the job must be a word of the job lists (``deid.rules.job_words``): a
care job (a nurse, a pharmacist) only after the cues that describe a patient or a relative, never
before an employer alone (the note's own staff). The employer named right after a job ("at Duke
Energy", "(Boeing)", "chez Transports Girard", "de Renfe") is an ORG: it narrows the patient down
as much as the job.
"""

from __future__ import annotations

import re
from typing import ClassVar

from deid.labels import Label
from deid.rules.base import Patterns, RegexRecognizer, drop_nested
from deid.rules.job_words import is_job
from deid.rules.registry import register
from deid.spans import Span

_I = re.IGNORECASE
_STOP = (r"(?:chez|at|in|en|for|pour|au|aux|à|a|from|since|depuis|desde|hasta|until|jusqu|con|avec|with|"
         r"and|et|y|who|qui|que|dans|for|por|para|del|de\s+la|de\s+l|on|sur|until|à\s+la)")
_WORD = r"(?!" + _STOP + r"\b)(?:\d{1,2}(?:st|nd|rd|th)\b|[^\W\d_][\w'’\-]*)"  # "3rd grade teacher"
_JOB = rf"(?P<phi>{_WORD}(?:[ \t]+(?:de[ \t]+|d['’]|du[ \t]+|of[ \t]+|&[ \t]+)?{_WORD}){{0,3}})"
_HABITS = re.compile(r"(?:fumeu[rs]e?|tabagique|smoker|drinker|user|[ée]thylique|alcoolique|fumador[a]?|"
                     r"bebedor[a]?|"
                     r"patient|paciente|combattant|militaire|sportif|sportive|athlete|atleta|heavy|toxicómano|"
                     r"iv|consumidor[a]?)\b", _I)


@register("profession", priority=85)
class ProfessionRecognizer(RegexRecognizer):
    name = "profession"
    label = Label.PROFESSION
    patterns: ClassVar[Patterns] = {
        "fr": (
            # "ancien" before its noun is "former" ("ancienne couturière"); after one, "old" ("HTA
            # ancienne traitée", "PTG G ancienne"): not after an acronym of one to four capitals (case
            # kept: the pattern ignores case; "LEROY ancienne institutrice" is a surname), never glued
            re.compile(rf"\b(?:(?-i:(?<!\b[A-Z][ \t])(?<!\b[A-Z]{{2}}[ \t])(?<!\b[A-Z]{{3}}[ \t])"
                       rf"(?<!\b[A-Z]{{4}}[ \t]))ancien(?:ne)?(?=[ \t])|ex-|retrait[ée]e?[ \t]*\(|"
                       rf"retrait[ée]e?[ \t]+de[ \t]+l[ae']?|"
                       rf"profession[ \t]*:|profession[ \t]+de|m[ée]tier[ \t]*:|"
                       rf"travaill(?:e|ait)(?:[ \t]+[^\W\d_]{{1,12}}){{0,3}}[ \t]+comme|"
                       rf"exerce[ \t]+comme|en[ \t]+tant[ \t]+que)[ \t]*{_JOB}", _I),
        ),
        "es": (
            re.compile(rf"\b(?:trabaja(?:ba)?[ \t]+(?:como|de)|"
                       rf"trabaj[óo][ \t]+(?:toda[ \t]+la[ \t]+vida[ \t]+)?de|"
                       rf"jubilad[oa][ \t]+de|ex-|profesi[óo]n[ \t]*:|ocupaci[óo]n[ \t]*:|laboral[ \t]*:|"
                       rf"trabajo[ \t]+(?:como|de)|"
                       rf"de[ \t]+profesi[óo]n)"
                       rf"[ \t]*{_JOB}", _I),
        ),
        "en": (
            re.compile(rf"\b(?:retired|former|"
                       rf"(?:works?|worked|working)(?:[ \t]+[\w\-]{{1,12}})?[ \t]+as\b(?:[ \t]+an?\b)?|"
                       rf"occupation[ \t]*:|employed[ \t]+as[ \t]+an?|job[ \t]*:|work[ \t]*:|"
                       rf"employment[ \t]*:)[ \t]*{_JOB}", _I),
        ),
    }

    def label_for(self, text: str, match: re.Match[str], language: str) -> Label | None:
        return None if _HABITS.match(match.group("phi")) else self.label

    def find(self, text: str, language: str) -> list[Span]:
        jobs = {(s.start, s.end): s for s in super().find(text, language)}
        for start, end in _listed_jobs(text, language):
            jobs.setdefault((start, end), Span(start, end, self.label, f"rules.{self.name}"))
        found = drop_nested(jobs.values())
        employers = [e for job in found if (e := _employer(text, job.end, language)
                                            or _company_after_comma(text, job.end)) is not None]
        employers += _employers_by_cue(text, language)
        return sorted([*found, *(Span(a, b, Label.ORG, f"rules.{self.name}") for a, b in employers)])


# Cues after which a listed job (``deid.rules.job_words``) is the patient's or a relative's: an
# age ("58 year old", "28 yo single F,", "(55 ans),", "de 40 años,"), "is a", "(29, ".
# ``True``: a care job counts too. Blanks are possessive where two runs could meet.
# A job in brackets counts only when it closes them or names its employer ("(bricklayer, Hartley &
# Sons)", "(scaffolder at Avon Access)"), not a word of a name ("(Baker Act)").
_OPEN_BRACKET = re.compile(r"\((?=[^\W\d_])")
_AGE_EN = (r"\b\d{1,3}[ \t-](?:years?|yrs?)[ \t-]old|\b\d{1,3}[ \t]?(?:yo|y/o|y\.o\.)")
_CUES: dict[str, tuple[tuple[re.Pattern[str], bool], ...]] = {
    "en": (
        (re.compile(rf"(?:{_AGE_EN})[ \t]++(?:(?:single|married|divorced|widowed|[MF]|male|female)"
                    rf"[ \t]*+,?[ \t]++){{0,2}}", _I), True),
        (re.compile(r"\b(?:is|was|works?|worked)[ \t]++(?:as[ \t]++)?an?[ \t]++", _I), True),
        (re.compile(r"\(\d{1,3},[ \t]*+"), True),
        (_OPEN_BRACKET, False),
    ),
    "fr": (
        (re.compile(r"\b\d{1,3}[ \t]*+ans\)?[ \t]*+,[ \t]*+", _I), True),
        (re.compile(r"\b(?:est|était)[ \t]++(?:une?[ \t]++)?", _I), True),
        (re.compile(r"\(\d{1,3}(?:[ \t]*+ans)?,[ \t]*+"), True),
        (re.compile(r"\b(?:puis|toujours)[ \t]++", _I), False),
        (re.compile(r"\bcomme[ \t]++(?:une?[ \t]++)?", _I), True),
        (_OPEN_BRACKET, False),
    ),
    "es": (
        (re.compile(r"\b\d{1,3}[ \t]*+años\)?[ \t]*+,[ \t]*+", _I), True),
        (re.compile(r"\b(?:es|era|fue)[ \t]++(?:una?[ \t]++)?", _I), True),
        (re.compile(r"\(\d{1,3}(?:[ \t]*+años)?,[ \t]*+"), True),
        (re.compile(r"\bantes[ \t]++", _I), False),
        (re.compile(r"\bcomo[ \t]++(?:una?[ \t]++)?", _I), True),
        (_OPEN_BRACKET, False),
    ),
}
_TOKEN = re.compile(r"\d{1,2}(?:st|nd|rd|th)\b|[^\W\d_][\w'’\-]{0,40}")
_GAP = re.compile(r"[ \t]{1,3}")
_MAX_MODIFIERS = 3
# Words that end a job's phrase (English modifiers come before the job word, French and Spanish
# complements after it).
_NOT_MODIFIERS = frozenset({
    "a", "an", "the", "and", "or", "with", "who", "is", "was", "at", "for", "in", "on", "to", "of",
    "her", "his", "their", "my", "w", "pt", "patient", "he", "she", "they", "not", "no", "now",
    "et", "ou", "y", "o", "en", "chez", "pour", "avec", "con", "para", "por", "que", "qui", "depuis",
    "desde", "jusqu", "hasta", "dans", "sur", "le", "la", "les", "el", "los", "las", "un", "une", "una",
    "au", "aux", "du", "del", "des", "as", "comme", "como", "de", "à", "d",
})  # fmt: skip
_COMPLEMENT = re.compile(r"[ \t]+(?:de|à|a|d['’])[ \t]*([a-zà-ÿ][\w'’\-]{0,30})")
_ADJECTIVE = re.compile(r"[ \t]+([a-zà-ÿ][\w'’\-]{0,30})(?![\w'’\-])")


def _listed_jobs(text: str, language: str) -> list[tuple[int, int]]:
    """Jobs of the lists after a patient's cue, or before an employer (module docstring)."""
    out: list[tuple[int, int]] = []
    for cue, care in _CUES.get(language, ()):
        for m in cue.finditer(text):
            job = _job_after(text, m.end(), language, care)
            if job is None:
                continue
            if cue is _OPEN_BRACKET and not (_ends_a_bracket(text, job[1])
                                              or _employer(text, job[1], language)):
                continue  # "(teacher)", "(bricklayer, Hartley & Sons)", "(scaffolder at ...)"
            out.append(job)
    for m in _TOKEN.finditer(text):
        if is_job(m.group(), language, care=False) and not _in_a_proper_name(text, m, language):
            job = _job_around(text, m, language)
            if _employer(text, job[1], language, bracket=False) or _employer(text, m.end(), language,
                                                                              bracket=False):
                out.append(job)
    return out


# French and Spanish write a job in lower case; a job word capitalised in mid-sentence is a word of
# an institution's or an office's name ("el Tribunal Administrativo de X", "du Secrétaire d'État"),
# whose "de X" is no employer (ECHR court text, held-out set).
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\n(\-–•*])[ \t]*$")


def _in_a_proper_name(text: str, m: re.Match[str], language: str) -> bool:
    if language == "en" or not m.group()[0].isupper():
        return False
    return _SENTENCE_START.search(text, max(0, m.start() - 4), m.start()) is None


def _ends_a_bracket(text: str, end: int) -> bool:
    return re.match(r"[ \t]*[,)]", text[end : end + 4]) is not None


def _job_after(text: str, start: int, language: str, care: bool) -> tuple[int, int] | None:
    """The job phrase starting at ``start``: in English up to three modifiers and the job word
    ("primary school teacher"), in French and Spanish the job word and a complement ("maestra de
    primaria", "mecánico naval")."""
    pos = start
    for i in range(_MAX_MODIFIERS + 1 if language == "en" else 1):
        m = _TOKEN.match(text, pos)
        if m is None or (i and m.group().lower() in _NOT_MODIFIERS):
            return None
        if is_job(m.group(), language, care=care):
            return start, _complement_end(text, m.end(), language)
        gap = _GAP.match(text, m.end())
        if gap is None:
            return None
        pos = gap.end()
    return None


def _complement_end(text: str, end: int, language: str) -> int:
    """A job word's end, grown over what completes it: a second job word in English ("teacher
    assistant"), "de"/"à" and a word or an adjective in French and Spanish ("livreur à vélo")."""
    if language == "en":
        nxt = re.match(r"[ \t]+([^\W\d_][\w'’\-]{0,40})", text[end : end + 44])
        if nxt and is_job(nxt[1], language, care=True):
            return end + nxt.end(1)
        return end
    for pattern in (_COMPLEMENT, _ADJECTIVE):
        m = pattern.match(text, end)
        if m and m[1].lower().split("'")[0].split("’")[0] not in _NOT_MODIFIERS and m[1].isalpha():
            return m.end(1)
    return end


def _job_around(text: str, m: re.Match[str], language: str) -> tuple[int, int]:
    """A job word found before its employer, with its modifiers before it in English ("Software
    engineer", "head chef") and its complement after it in French and Spanish."""
    if language != "en":
        return m.start(), _complement_end(text, m.end(), language)
    start = m.start()
    for _ in range(2):
        before = re.search(r"(?<![\w'’\-])([^\W\d_][\w\-]{0,30}|\d{1,2}(?:st|nd|rd|th))[ \t]{1,3}$",
                           text[max(0, start - 40) : start])
        if before is None or before[1].lower() in _NOT_MODIFIERS or before[1].lower() in _NOT_JOB_MODIFIERS:
            break
        start -= len(before.group())
    return start, m.end()


# Words before a job that are no part of it ("works", "retired" are cues, kept apart).
_NOT_JOB_MODIFIERS = frozenset({"works", "worked", "working", "retired", "former", "sh", "work", "job",
                                "occupation", "social", "she", "he", "also", "now", "still", "then"})
# An employer: capitalised words after the job and a preposition ("at Duke Energy", "w/ Duke
# Energy", "(Boeing)", "chez Transports Girard", "à la RATP", "de Renfe", "en Avanza Interurbanos").
_EMPLOYER_PREP = {
    "en": r"[ \t]+(?:at|with|w/|for)[ \t]+(?:the[ \t]+)?|[ \t]*\(",
    "fr": (r"[ \t]+(?:chez|à[ \t]+la|à[ \t]+l['’]|a[ \t]+la|au|aux|pour|de[ \t]+la|de|du|d['’])[ \t]*"
           r"|[ \t]*\("),
    "es": r"[ \t]+(?:en[ \t]+(?:el|la)|en|de|del|para|a[ \t]+la)[ \t]+|[ \t]*\(",
}
_ORG_WORD = r"(?:[A-ZÀ-Þ][\w'’&\-]{0,40}|&)"
_EMPLOYER = {
    lang: re.compile(rf"(?:{prep})(?P<org>{_ORG_WORD}"
                     rf"(?:[ \t](?:(?:of|and|de|del|la|y|&)[ \t])?{_ORG_WORD}){{0,5}})")
    for lang, prep in _EMPLOYER_PREP.items()
}
# Capitalised words after a job that are no employer ("at Christmas", "for Mon").
_NOT_EMPLOYERS = frozenset({"the", "a", "i", "dr", "mr", "mrs", "ms", "le", "la", "el"})


# An employer told by its own cue, with or without the job: "works for Kestrel Analytics",
# "travaille chez Renault", "trabaja en Mercadona"; or after a job and a comma when its name says
# it is a company ("delivery driver, Avon Parcels Ltd", "teacher, Dallas ISD").
_WORKS_FOR = {
    "en": re.compile(r"\b(?:works?|worked|working)(?:[ \t]++(?:part|full)-time)?"
                     r"(?=[ \t]+(?:for|at)[ \t])", _I),
    "fr": re.compile(r"\btravaill(?:e|ait)(?=[ \t]+(?:chez|à[ \t]la|à[ \t]l['’]|au)\b)", _I),
    "es": re.compile(r"\b(?:trabaja(?:ba)?|trabajó)(?=[ \t]+(?:en|para)\b)", _I),
}
_COMPANY_WORDS = re.compile(r"\b(?:Ltd|Limited|Inc|LLC|plc|PLC|Corp|Co|Company|Group|ISD|Sons|"
                            r"University|College|School|Academy|Council|SA|SL|SAS|SARL)\b")


def _employers_by_cue(text: str, language: str) -> list[tuple[int, int]]:
    out = []
    cue = _WORKS_FOR.get(language)
    for m in cue.finditer(text) if cue is not None else ():
        if (e := _employer(text, m.end(), language, bracket=False)) is not None:
            out.append(e)
    return out


def _employer(text: str, end: int, language: str, *, bracket: bool = True) -> tuple[int, int] | None:
    """The employer named right after a job ending at ``end``, as (start, end); in brackets
    ("(Boeing)") only when ``bracket`` (a job told by its cue: "Syringe driver (McKinley T34)" is
    a device)."""
    pattern = _EMPLOYER.get(language)
    m = pattern.match(text, end) if pattern is not None else None
    if m is None or (not bracket and "(" in m.group()[: m.start("org") - m.start()]):
        return None
    org = m.group("org").rstrip(".")
    if org.lower() in _NOT_EMPLOYERS or not any(c.isalpha() for c in org):
        return None
    return m.start("org"), m.start("org") + len(org)


def _company_after_comma(text: str, end: int) -> tuple[int, int] | None:
    m = _AFTER_COMMA.match(text, end)
    if m is None or _COMPANY_WORDS.search(m.group("org")) is None:
        return None
    return m.span("org")


_AFTER_COMMA = re.compile(rf",[ \t](?P<org>{_ORG_WORD}(?:[ \t](?:(?:of|and|&)[ \t])?{_ORG_WORD}){{0,5}})")
