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
from deid.rules.names import fold
from deid.rules.registry import register
from deid.spans import Span
from deid.temporal.lexicon import WEEKDAY_ABBREVIATIONS, WEEKDAYS

# "HK/mlg", "AB - cd", "JKL:mno" (a colon only glued: "CV: RRR" is a heading and its text)
_SEP = r"(?:[ \t]?[/\-][ \t]?|:(?=[a-z]))"
# Scottish and Irish surnames keep their prefix in initials: "CMcK", "AMacL"
_MC = r"[A-Z]M(?:a)?c[A-Z]"
_PAIR = (rf"(?P<a>{_MC}|[A-Z]{{2,4}}){_SEP}(?P<b>{_MC}|[A-Za-z]{{2,4}})"
         rf"(?:{_SEP}(?P<c>[A-Za-z]{{2,4}}))?(?![\w/])")
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
# initials in brackets after a role: "Physio (JL)", "NSGY PA (KB)", "IDE (MT)", "Triage (KO)"
_ROLE_PAREN = re.compile(
    r"\b(?:PA|NP|RN|MD|DO|physio|PT|OT|SLT|SW|IDE|AS|ASH|nurse|CNA|HCA|FY1|FY2|SHO|SpR|reg|registrar|RT|"
    r"RRT|pharm(?:acist)?|kin[ée]|interne|externe|enfermer[oa]|auxiliar|TCAE|fisio|sage-femme|midwife|"
    r"SN|NA|tech|MA|CRNA|anesth\w*|surgeon|scrub|porter|(?P<urgent>triage|ENP|ANP|ACP|ECP|paramedic))\b"
    r"[ \t]*\((?P<a>[A-Z]{2,3})\)", re.IGNORECASE)
# a French nurse's or aide's initials after the role and a colon: "IDE : CL", "AS: JBR" (a
# signature of the transmissions; the role is in capitals, the initials two or three capitals)
_ROLE_COLON = re.compile(r"\b(?:IDE|AS|ASH|IBODE|IADE|ASD|AMP)[ \t]?:[ \t]?(?P<a>[A-Z]{2,3})(?!\w)")
# an English theatre or pharmacy field that takes a person's initials ("Anaesthetist: JP",
# "Scrub: MO", "Screened: RK (pharm)", "Dispensed: 02/09/21 DF"), maybe after the field's date
_ROLE_FIELD = re.compile(
    r"\b(?i:an(?:a)?esthetist|scrub(?:[ ]nurse)?|circulat(?:ing|or)(?:[ ]nurse)?|screened|checked|"
    r"dispensed|verified|witness(?:ed)?|scribe|counter-?signed|co-?signed|pharm(?:acy|acist)?[ ]check)"
    r"(?:[ ](?i:by))?[ \t]?:[ \t]?(?:\d{1,2}/\d{1,2}/\d{2,4}[ \t]+)?(?P<a>" + _MC + r"|[A-Z]{2,3})(?![\w/])")
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
# The signer at the end of a dated entry's header line, after a dash: transmissions and shift logs
# open each entry so ("lun 07/11 soir — jlp", "14/08 AM – J-P.R.", "3/2 0745 - dh", "mer 12/03 — KL").
# The header holds a weekday or a clock or a shift beside its day and month (a score or a fraction
# at a line's start has neither); the signer is two or three letters in one case or dotted capitals,
# and nothing else on the line (a subject, "12/03 — Chute", is a word).
_ENTRY_SIGNER = re.compile(
    r"(?m)^[ \t]*+(?P<lead>[^\W\d_]{3,9}\.?[ \t]++)?\d{1,2}/\d{1,2}(?:/\d{2,4})?"
    r"(?P<time>[ \t]++(?i:\d{1,2}[h:]\d{2}|\d{4}|soir|matin|nuit|midi|am|pm|night|days?|early|late|ma[ñn]ana|"
    r"tarde|noche))?"
    r"[ \t]*+[—–-][ \t]*+(?P<a>(?:[A-Z]\.-?|[A-Z]-){1,3}[A-Z]\.?|[A-Za-z]{2,3})[ \t]*$")
_WEEKDAY_WORDS = frozenset(
    fold(word)
    for lang in WEEKDAYS
    for word in (*WEEKDAYS[lang], *(short for day in WEEKDAY_ABBREVIATIONS[lang] for short in day))
)


# Capitals those fields and roles also take that are no one's initials.
_CLINICAL = frozenset({"GA", "LA", "IV", "IM", "PO", "SC", "BP", "HR", "ED", "ER", "OR", "GP", "MD", "DO",
                       "PRN", "ICU", "NPO", "NBM", "NA", "OK", "PT", "OT", "CT", "MRI", "ECG", "NG",
                       # a nurse's other roles and degrees ("RN BSN", "RN DN")
                       "RN", "DN", "SN", "EN", "HCA", "CNA", "LPN", "RGN", "RMN", "BSN", "MSN", "CNS", "CCRN",
                       "APRN", "DNP", "FNP", "NP", "PA", "CPN", "MBA", "MPH", "PHD", "CNM", "SRN",
                       # units and teams a grade follows ("AMU SpR", "ITU reg")
                       "AMU", "MAU", "CDU", "SAU", "ITU", "HDU", "CCU", "AE", "OOH", "GIM", "ENT", "MDT",
                       "ANP", "ACP", "ST", "PICU", "NICU", "TBC", "TTO", "NFA", "NKDA", "DNR",
                       # a check's answer ("Pharm check: NO")
                       "YES", "NO", "NIL", "NAD"})
# Triage scales and categories, in brackets after "triage" ("Triage (ESI) 3", "triage (MTS) orange")
_TRIAGE_SCALES = frozenset({"ESI", "MTS", "CTAS", "ATS", "SATS", "CAT", "NTS", "SAT", "ETS"})
# ... and the services, levels and areas of urgent care ("paramedic (ALS)", "ENP (MIU)", "Triage (UTC)")
_URGENT_CARE = frozenset({"ALS", "BLS", "EMT", "CCP", "MIU", "UTC", "OOH", "DNR", "HCP", "PAT", "RAT", "CDU",
                          "SDEC", "AAU", "ICU", "ED", "GP", "RN", "AMU", "MAU"})
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
                        if pattern is _ROLE_PAREN and m.group("urgent") and word in (
                                _TRIAGE_SCALES | _URGENT_CARE | _CLINICAL):
                            continue
                        if pattern is _AUTHOR_TYPIST_AT_END and not (
                                _initials(m.group("b"), False) or _typist_alone(m, "b", text)):
                            continue  # "PSA 0.1 NG/ml": a unit after the capitals, no typist
                        # a typist's initials in capitals after a slash are no unit ("HB/MG")
                        after_slash = group != "a" and word.isupper() and _initials(m.group("a"), False)
                        if (after_slash or _author_of(m, group, text) or _typist_alone(m, group, text)
                                or _initials(word, pattern is _TYPED_BY)):
                            spans[(start, end)] = Span(start, end, Label.STAFF, f"rules.{self.name}")
        for m in _ENTRY_SIGNER.finditer(text):
            if _entry_signer(m):
                spans.setdefault(m.span("a"), Span(*m.span("a"), Label.STAFF, f"rules.{self.name}"))
        for start, end in initials_column(text):
            spans.setdefault((start, end), Span(start, end, Label.STAFF, f"rules.{self.name}"))
        return sorted(spans.values())


# A flowsheet's initials column: observations, dialysis runs, restraint checks, vaccination and
# medication logs sign each row in a column the header names ("TIME | BP | ... | INIT", "Date
# Dose  Signed"). The header proves what the column holds, so a cell there is initials even when
# the letters are a word or a unit elsewhere ("at", "ms"). Tables only: cells split by bars, tabs
# or two blanks or more, each line cut once (linear). Not "Sig" (a US prescription's directions),
# not "Initial" (a setting's first value).
_COLUMN_HEADER = re.compile(
    r"(?:init\.?|inits|initials|ini\.?|sign(?:ed|ature)?|signed[ ]by|by|paraphes?|visa|firma|iniciales|"
    r"r[úu]brica)",
    re.IGNORECASE)
_INITIALS_CELL = re.compile(
    r"[ \t]*(?P<a>[A-Z]{2,4}|[a-z]{2,3})(?:/(?P<b>[A-Z]{2,4}|[a-z]{2,3}))?(?=[ \t]{2,}|[ \t]*(?:\||$))")
# What such a column also holds beside ``_CLINICAL``: chart codes, who gave a dose, a role, a grade.
_NOT_A_SIGNER = frozenset({
    "none", "done", "see", "pend", "held", "hold", "ref", "omit", "self", "mum", "mom", "dad", "lab", "poc",
    "day", "stat", "given", "ide", "dr", "enf", "due", "as", "ash", "aide", "sho", "reg",
})  # fmt: skip


def _cells(line: str) -> list[tuple[int, int]]:
    """The cells of a table row as (start, end) in the line: split by bars or tabs, else by two
    blanks or more; a line with one cell is no table row."""
    separator = "|" if "|" in line else "\t" if "\t" in line else ""
    if separator:
        bounds, start = [], 0
        for piece in line.split(separator):
            bounds.append((start, start + len(piece)))
            start += len(piece) + 1
        return bounds if len(bounds) > 1 else []
    cells = [(m.start(), m.end()) for m in re.finditer(r"\S+(?:[ ]\S+)*", line)]
    return cells if len(cells) > 1 else []


def initials_column(text: str) -> list[tuple[int, int]]:
    """Every signer's initials under a header that names the column, in the rows that follow it up
    to the table's end (a blank line or a line that is no row)."""
    found: list[tuple[int, int]] = []
    offset = 0
    header: tuple[int, int, bool] | None = None  # the column's index and start in the header, barred
    for line in text.split("\n"):
        cells = _cells(line)
        if not cells:
            header = None
        elif header is not None and _ranked(line) == header[2]:
            cell = _column_cell(cells, header)
            m = _INITIALS_CELL.match(line, cell[0], cell[1]) if cell else None
            for group in ("a", "b") if m else ():
                word = m.group(group)  # type: ignore[union-attr]
                if word and word.lower() not in _NOT_A_SIGNER and word.upper() not in _CLINICAL:
                    found.append((offset + m.start(group), offset + m.end(group)))  # type: ignore[union-attr]
        else:
            header = None
        if cells and header is None:
            for index, (start, end) in enumerate(cells):
                if _COLUMN_HEADER.fullmatch(line[start:end].strip()):
                    header = (index, start, _ranked(line))
        offset += len(line) + 1
    return found


def _ranked(line: str) -> bool:
    """Cells found by their rank (bars, tabs), not by where they start (blank-aligned tables)."""
    return "|" in line or "\t" in line


def _column_cell(cells: list[tuple[int, int]], header: tuple[int, int, bool]) -> tuple[int, int] | None:
    """The row's cell under the header's: the cell of the same rank between bars or tabs, or the
    cell of a blank-aligned table that starts within two characters of the header's own start."""
    index, start, ranked = header
    if ranked:
        return cells[index] if index < len(cells) else None
    return next((cell for cell in cells if abs(cell[0] - start) <= 2), None)


def _author_of(m: re.Match[str], group: str, text: str) -> bool:
    """The author's capitals before a typist's small letters ("PR/sh", "PR/dmt"), where a letter
    puts them (after a reference, alone at a line's start, or after a wide gap at its end): the
    secretarial shape proves them initials even where the letters are an abbreviation ("PR", "GP");
    "Paracetamol 1g PO/stat" is a route and a frequency."""
    typist = m.groupdict().get("b")
    if not (group == "a" and m.group("a").isupper() and typist is not None and typist.islower()
            and (_initials(typist, False) or _typist_alone(m, "b", text))):
        return False
    gap = text[max(0, m.start() - 2) : m.start()]
    return m.re is not _AUTHOR_TYPIST_AT_END or gap == "  " or gap.endswith("\t")


def _entry_signer(m: re.Match[str]) -> bool:
    """The header's lead word is a weekday, a weekday or a clock stands beside its date, and its
    last word signs: initials in one case that no stop list holds."""
    lead = m.group("lead")
    if lead is not None and fold(lead.strip().rstrip(".")) not in _WEEKDAY_WORDS:
        return False
    if lead is None and m.group("time") is None:
        return False
    word = m.group("a")
    letters = word.replace(".", "").replace("-", "")
    if not (word.isupper() or word.islower()):
        return False
    return not ({letters.upper()} & (_CLINICAL | _NOT_SIGNERS)) and letters.lower() not in _NOT_INITIALS


# What an entry's header may end with that signs nothing, beside ``_CLINICAL`` and ``_NOT_INITIALS``:
# a finding, a shift's verdict, a subject in capitals (the French, Spanish and English shorthand of a
# nursing entry's target), a short word.
_NOT_SIGNERS = frozenset({
    "RAS", "AM", "PM", "NEW", "SAT", "MAT", "AEG", "TVP", "UTI", "DKA", "SOB", "IRM", "GCS", "IAM", "BM",
    "AVC", "HTA", "EP", "ACR", "FA", "IVU", "EVA", "TA", "FC", "FR", "NEB", "NIV", "VNI", "EKG", "ETT",
    "CP", "ABX", "FBC", "CRP", "UNE", "AUX", "SUR", "VIA", "THE", "FOR",
})  # fmt: skip


def _typist_alone(m: re.Match[str], group: str, text: str) -> bool:
    """A typist's small letters that are also a unit ("HD/ml") after the author's capitals, after a
    reference's label ("Réf. : PD/ml") or the pair alone on its line: no dose or lab value is written
    that way ("PSA 0.1 NG/ml" is one)."""
    if group != "b" or m.groupdict().get("c"):
        return False
    author, typist = m.group("a"), m.group("b")
    capitals = author.isupper() or _MC_FORM.fullmatch(author) is not None
    if m.re is _REFERENCE:
        return typist.islower() and capitals and author.lower() not in _NOT_INITIALS
    if not (typist.islower() and capitals and author.lower() not in _NOT_INITIALS
            and _LINE_END.match(text, m.end()) is not None):
        return False
    before = m.start()
    while before > 0 and text[before - 1] in " \t":  # blanks only back to the line's start
        before -= 1
    if before == 0 or text[before - 1] == "\n":
        return True
    # at the end of the dictation's own line, after a wide gap ("Dictated 12/03/24, typed 14/03/24  NG/sc")
    line_start = text.rfind("\n", 0, before) + 1
    gap = text[max(0, m.start() - 2) : m.start()]
    return (m.re is _AUTHOR_TYPIST_AT_END and (gap == "  " or gap.endswith("\t"))
            and _DICTATION_WORD.search(text, line_start, before) is not None)


_MC_FORM = re.compile(_MC)
_LINE_END = re.compile(r"[ \t]*(?:\n|$)")
_DICTATION_WORD = re.compile(
    r"(?i:\b(?:typed|dictated|transcribed|dict|tap[ée]e?|dactylographi[ée]e?|dict[ée]e?|frapp[ée]e?|"
    r"transcrit[oae]?|mecanografiad[oa]|dictad[oa])\b)")


def _initials(word: str, typed_by: bool) -> bool:
    """Letters that can be someone's initials: all capitals or all small letters ("Cr" of "BUN/Cr"
    is a lab value), not a common word written in lower case."""
    if _MC_FORM.fullmatch(word):
        return True
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
    # a dose's frequency after a route ("PO/bid", "PO/stat")
    "bid", "tid", "qid", "qd", "qhs", "hs", "od", "bd", "tds", "qds", "prn", "qam", "qpm", "qod", "qday",
    "stat", "once", "om", "on", "mane", "nocte", "bds",
    # units whose capitals stand before a volume ("IU/ml", "MEQ/l")
    "iu", "ui", "meq", "mmol", "ug", "mcg",
})  # fmt: skip
