"""Initials in a letter's reference or signature block: the author's and the typist's.

Dictated letters carry who wrote and who typed them: "Réf. : HK/mlg", "Our ref: JKL/mno",
"N/Réf AB-cd", a line holding only "RBL/mpg", "Transcribed by: dkw". Each group of initials is a
person (STAFF): left in the output it names them. The forms are fixed by secretarial practice:
capitals for the author, often lower case for the typist, a slash, a hyphen or a colon between.

Matched only where that practice puts them (after a reference label, after "typed/transcribed by",
or alone on their line), so that "mg/dl" or "IV/IM" in a sentence are never read as initials.
"""

from __future__ import annotations

import re

from deid.labels import Label
from deid.rules.registry import register
from deid.spans import Span

# "HK/mlg", "AB - cd", "JKL:mno" (a colon only glued: "CV: RRR" is a heading and its text)
_SEP = r"(?:[ \t]?[/\-][ \t]?|:(?=[a-z]))"
_PAIR = rf"(?P<a>[A-Z]{{2,4}}){_SEP}(?P<b>[A-Za-z]{{2,4}})(?:{_SEP}(?P<c>[A-Za-z]{{2,4}}))?(?![\w/])"
_REFERENCE = re.compile(
    r"(?:\b(?:N|V|O|Y)/\s?R[ée]f\b\.?|\bR[ée]f(?:[ée]rences?)?\b\.?|\bOur\s+ref\b\.?|\bYour\s+ref\b\.?|"
    r"\bNuestra\s+ref\b\.?|\bRef\b\.?|\bInitials\b|\bDict(?:ated)?\b\.?/\s?typed\b\.?|\bTyped\b(?=[ \t]*:))"
    rf"[ \t]*+[:\-]?[ \t]*+{_PAIR}\b", re.IGNORECASE)
# alone at the start of its line, maybe followed by the dictation's dates or a dash. Blanks are
# possessive here and above: two runs of them side by side would split a long run of spaces in
# every way (quadratic; tests/rules/test_linear_time.py).
_ALONE = re.compile(rf"(?m)^[ \t]*{_PAIR}(?=[ \t]{{2}}|[ \t]*+(?:$|[.;,]|[-–—|][ \t]|D[DT]?:|T:|"
                   r"\d{1,2}[/.]\d{1,2}[/.]\d{2,4}))")
# the author's capitals and the typist's small letters at the end of a line, after the
# dictation's dates ("T: 11/09/2023   HC/mt"): the secretarial shape itself ("mg/dl" is small
# letters on both sides, "IV/IM" capitals on both)
_AUTHOR_TYPIST_AT_END = re.compile(r"(?<![\w/])(?P<a>[A-Z]{2,4})/(?P<b>[a-z]{2,4})(?=[ \t]*+$)", re.MULTILINE)
# initials in brackets after a role: "Physio (JL)", "NSGY PA (KB)", "IDE (MT)"
_ROLE_PAREN = re.compile(
    r"\b(?:PA|NP|RN|MD|DO|physio|PT|OT|SLT|SW|IDE|AS|ASH|nurse|CNA|HCA|FY1|FY2|SHO|SpR|reg|registrar|RT|"
    r"RRT|pharm(?:acist)?|kin[ée]|interne|externe|enfermer[oa]|auxiliar|TCAE|fisio|sage-femme|midwife|"
    r"SN|NA|tech|MA|CRNA|anesth\w*|surgeon|scrub|porter)\b[ \t]*\((?P<a>[A-Z]{2,3})\)", re.IGNORECASE)
# a French nurse's or aide's initials after the role and a colon: "IDE : CL", "AS: JBR" (a
# signature of the transmissions; the role is in capitals, the initials two or three capitals)
_ROLE_COLON = re.compile(r"\b(?:IDE|AS|ASH|IBODE|IADE|ASD|AMP)[ \t]?:[ \t]?(?P<a>[A-Z]{2,3})(?!\w)")
# an English theatre or pharmacy field that takes a person's initials ("Anaesthetist: JP",
# "Scrub: MO", "Screened: RK (pharm)", "Dispensed: 02/09/21 DF"), maybe after the field's date
_ROLE_FIELD = re.compile(
    r"\b(?i:an(?:a)?esthetist|scrub(?:[ ]nurse)?|circulat(?:ing|or)(?:[ ]nurse)?|screened|checked|"
    r"dispensed|verified|witness(?:ed)?|scribe|counter-?signed|co-?signed)(?:[ ](?i:by))?[ \t]?:[ \t]?"
    r"(?:\d{1,2}/\d{1,2}/\d{2,4}[ \t]+)?(?P<a>[A-Z]{2,3})(?![\w/])")
# a nurse's initials after the role ("handoff to NOC RN DW @ 1930") or before it at the end of a
# line ("SM DN", "KL RN"): how nurses sign an entry
_NURSE = r"RN|DN|HCA|CNA|LPN|RGN|RMN|SN"
_AFTER_ROLE = re.compile(rf"\b(?:{_NURSE})[ ](?P<a>[A-Z]{{2,3}})(?=[ \t]*(?:@|$|[,;.)]|at\b))", re.MULTILINE)
_BEFORE_ROLE = re.compile(rf"^[ \t\-–]*(?P<a>[A-Z]{{2,3}})[ ](?:{_NURSE}|NA|OT|PT|SLT|SW)[ \t]*$",
                          re.MULTILINE)
# a doctor's initials before a British grade ("HQ FY1 bleep 4417", "discussed w IN SpR"): how a
# ward-round entry signs (a unit before a grade, "AMU SpR", is excluded by name below)
_BEFORE_GRADE = re.compile(r"(?<![\w/])(?P<a>[A-Z]{2,3})[ ](?:FY[12]|F[12]|SHO|SpR|StR|ST[1-8]|CT[1-3])\b")
# initials alone on a note's last line ("FB", "-- KL"): the writer signs the entry
_LAST_LINE = re.compile(r"\n[ \t]*+(?:--?|/)?[ \t]*+(?P<a>[A-Z]{2,3})\s*+\Z")  # possessive: linear
# Capitals those fields and roles also take that are no one's initials.
_CLINICAL = frozenset({"GA", "LA", "IV", "IM", "PO", "SC", "BP", "HR", "ED", "ER", "OR", "GP", "MD", "DO",
                       "PRN", "ICU", "NPO", "NBM", "NA", "OK", "PT", "OT", "CT", "MRI", "ECG", "NG",
                       # a nurse's other roles and degrees ("RN BSN", "RN DN")
                       "RN", "DN", "SN", "EN", "HCA", "CNA", "LPN", "RGN", "RMN", "BSN", "MSN", "CNS", "CCRN",
                       "APRN", "DNP", "FNP", "NP", "PA", "CPN", "MBA", "MPH", "PHD", "CNM", "SRN",
                       # units and teams a grade follows ("AMU SpR", "ITU reg")
                       "AMU", "MAU", "CDU", "SAU", "ITU", "HDU", "CCU", "AE", "OOH", "GIM", "ENT", "MDT",
                       "ANP", "ACP", "ST", "PICU", "NICU", "TBC", "TTO", "NFA", "NKDA", "DNR"})
_TYPED_BY = re.compile(
    r"\b(?:transcribed|typed|dictated|tap[ée]e?|dactylographi[ée]e?|transcrit[oae]?|mecanografiad[oa])"
    r"[ \t]+(?:by|par|por)[ \t]*+:?[ \t]*+(?P<a>[A-Za-z]{2,4})\b(?![ \t]+[a-z])", re.IGNORECASE)


@register("signature_initials", priority=45)
class SignatureInitialsRecognizer:
    name = "signature_initials"

    def find(self, text: str, language: str) -> list[Span]:
        spans: dict[tuple[int, int], Span] = {}
        for pattern in (_REFERENCE, _ALONE, _TYPED_BY, _ROLE_PAREN, _ROLE_COLON, _AUTHOR_TYPIST_AT_END,
                        _ROLE_FIELD, _AFTER_ROLE, _BEFORE_ROLE, _BEFORE_GRADE, _LAST_LINE):
            for m in pattern.finditer(text):
                for group in ("a", "b", "c"):
                    if group in pattern.groupindex and m.group(group):
                        start, end = m.span(group)
                        word = text[start:end]
                        if pattern in (_ROLE_PAREN, _ROLE_COLON) and not word.isupper():
                            continue
                        if (pattern in (_ROLE_FIELD, _AFTER_ROLE, _BEFORE_ROLE, _BEFORE_GRADE, _LAST_LINE)
                                and word in _CLINICAL):
                            continue
                        # a typist's initials in capitals after a slash are no unit ("HB/MG")
                        after_slash = group != "a" and word.isupper() and _initials(m.group("a"), False)
                        if after_slash or _initials(word, pattern is _TYPED_BY):
                            spans[(start, end)] = Span(start, end, Label.STAFF, f"rules.{self.name}")
        return sorted(spans.values())


def _initials(word: str, typed_by: bool) -> bool:
    """Letters that can be someone's initials: all capitals or all small letters ("Cr" of "BUN/Cr"
    is a lab value), not a common word written in lower case."""
    if not (word.isupper() or word.islower()):
        return False
    if typed_by:
        return word.isupper() or (word.islower() and word not in _NOT_INITIALS)
    return word.lower() not in _NOT_INITIALS


# Short words that follow "Ref" or stand alone on a line without being anyone's initials.
_NOT_INITIALS = frozenset({
    "the", "and", "par", "por", "by", "les", "des", "del", "los", "las", "une", "uno", "una", "for",
    "see", "voir", "ver", "cf", "nb", "ps", "pj", "cc", "bcc", "tel", "fax", "ok", "na", "sans", "dr", "mr",
    "ms", "mrs", "pt", "pts", "hx", "dx", "tx", "rx", "sx",
    "mg", "ml", "dl", "kg", "cm", "mm", "min", "hr", "iv", "im", "sc", "po", "pr", "ct", "mri",
})  # fmt: skip
