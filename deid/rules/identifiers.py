"""Identifiers: French NIR, Spanish DNI/NIE, IBAN (each with its check), and hospital identifiers
introduced by their usual label (IPP, NDA, NHC, NASS, MRN, RPPS, nº colegiado...).

For a labelled identifier the span is the identifier only, not the label word ("NHC: 1234567"
-> "1234567"; "CIPA: nhc-150679" -> "150679"), as in MEDDOCAN.
"""

from __future__ import annotations

import re
from typing import ClassVar

from deid.labels import Label
from deid.locales import nhs_check_digit_ok
from deid.rules.base import ANY, Patterns, RegexRecognizer
from deid.rules.checks import dni_ok, iban_ok, nir_key_ok
from deid.rules.registry import register

_I = re.IGNORECASE

# label word -> label; matched case-insensitively, longest first.
_KEYWORDS: tuple[tuple[str, Label], ...] = (
    # patient
    (r"N\.?\s?H\.?\s?C\.?", Label.ID_PATIENT),
    (r"(?:n[º°o]\.?\s*|n[úu]m(?:ero|\.)?\s*)(?:de\s+)?historia(?:\s+cl[íi]nica)?|historia\s+cl[íi]nica",
     Label.ID_PATIENT),
    (r"CIPA?", Label.ID_PATIENT),
    (r"IPP", Label.ID_PATIENT),
    (r"NIP", Label.ID_PATIENT),
    (r"MRN", Label.ID_PATIENT),
    (r"medical\s+record(?:\s+(?:number|no\.?|#))?", Label.ID_PATIENT),
    (r"hospital\s+(?:number|no\.?)", Label.ID_PATIENT),
    (r"patient\s+(?:id|number|no\.?|#)", Label.ID_PATIENT),
    (r"(?:n[º°o]\.?|num[ée]ro|identifiant|id)\s*(?:de\s+|du\s+)?patient", Label.ID_PATIENT),
    (r"(?:n[º°o]\.?|num[ée]ro)\s*(?:de\s+)?dossier(?:\s+patient)?", Label.ID_PATIENT),
    # visit
    (r"NDA", Label.ID_VISIT),
    (r"(?:n[º°o]\.?|num[ée]ro)\s*(?:de\s+|d')?(?:s[ée]jour|venue|admission|passage)", Label.ID_VISIT),
    (r"(?:n[º°o]\.?\s*|n[úu]m(?:ero|\.)?\s*)?(?:de\s+)?episodio", Label.ID_VISIT),
    (r"(?:n[º°o]\.?\s*|n[úu]m(?:ero|\.)?\s*)(?:de\s+)?ingreso", Label.ID_VISIT),
    (r"(?:encounter|visit|episode|admission|account|acct)\s*(?:id|number|no\.?|#)", Label.ID_VISIT),
    # social security / insurance
    (r"N\.?\s?A\.?\s?S\.?\s?S\.?", Label.ID_SSN),
    (r"(?:n[º°o]\.?\s*|n[úu]m(?:ero|\.)?\s*)(?:de\s+(?:la\s+)?)?(?:seguridad\s+social|afiliaci[óo]n)",
     Label.ID_SSN),
    (r"tarjeta\s+sanitaria(?:\s+individual)?|TSI", Label.ID_SSN),
    (r"(?:n[º°o]\.?\s*|num[ée]ro\s*)?(?:de\s+)?(?:s[ée]curit[ée]\s+sociale|s[ée]cu|SS)\b", Label.ID_SSN),
    (r"NIR|NSS|SSN", Label.ID_SSN),
    (r"social\s+security(?:\s+(?:number|no\.?|#))?|NHS\s+(?:number|no\.?)|insurance\s+(?:number|no\.?|id)",
     Label.ID_SSN),
    # staff
    (r"N[º°o]\s*+\.?\s*+Col\.?|(?:n[º°o]\.?\s*|n[úu]m(?:ero|\.)?\s*)?(?:de\s+)?colegiad[oa](?:\s+n[º°o]\.?)?",
     Label.ID_STAFF),
    (r"(?:n[º°o]\.?\s*)?RPPS|(?:n[º°o]\.?\s*)?ADELI", Label.ID_STAFF),
    (r"(?:NPI|GMC|license|licence)(?:\s+(?:number|no\.?|#))?", Label.ID_STAFF),
    # national identity
    (r"DNI|NIE|NIF|pasaporte|passport(?:\s+(?:number|no\.?))?|CNI|carte\s+d'identit[ée]", Label.ID_NATIONAL),
)

_KEYWORD_RES = [(re.compile(r"(?:" + k + r")$", _I), lab) for k, lab in _KEYWORDS]
_ALL_KEYWORDS = "|".join(k for k, _ in sorted(_KEYWORDS, key=lambda kv: len(kv[0]), reverse=True))

# keyword, optional "n°" / ":" / "#", optional lower-case prefix like "nhc-", then the identifier.
# The blanks are possessive, here and in "Nº Col": runs of them side by side would split a long run
# of spaces after a label in every way (quadratic; tests/rules/test_linear_time.py).
_CHUNK = r"(?:[A-Z]{1,3}-?)?\d[\dA-Z]*"
_LABELLED = re.compile(
    r"(?<![\w])(?P<kw>" + _ALL_KEYWORDS + r")(?![\w])"
    r"[ \t]*+(?:[:#=]|n[º°o]\.?|num(?:éro|ero)?\.?|is|est|es)?[ \t]*+(?::[ \t]*+)?(?:[a-z]{2,4}-)?"
    r"(?P<phi>" + _CHUNK + r"(?:(?:[ \-./]|[ ]-[ ])\d[\dA-Z]*)*)(?![\w])",
    _I,
)


_DATE_LIKE = re.compile(r"\d{1,2}[/.\-]\d{1,2}[/.\-]\d{2,4}|\d{4}[/.\-]\d{1,2}[/.\-]\d{1,2}")


@register("labelled_id", priority=10)
class LabelledIdRecognizer(RegexRecognizer):
    name = "labelled_id"
    label = Label.ID
    patterns: ClassVar[Patterns] = {ANY: (_LABELLED,)}

    def label_for(self, text: str, match: re.Match[str], language: str) -> Label | None:
        phi = match.group("phi")
        if sum(c.isdigit() for c in phi) < 4 or _DATE_LIKE.fullmatch(phi):
            return None
        keyword = re.sub(r"\s+", " ", match.group("kw"))
        for pattern, label in _KEYWORD_RES:
            if pattern.match(keyword):
                return label
        return Label.ID


_SEP = r"[ .\-]?"


@register("nir", priority=20)
class NirRecognizer(RegexRecognizer):
    """French social security number: sex, year, month, department (2A/2B), commune, order, key."""

    name = "nir"
    label = Label.ID_SSN
    patterns: ClassVar[Patterns] = {
        ANY: (
            re.compile(r"(?<![\w])[1-478]" + _SEP + r"\d{2}" + _SEP + r"\d{2}" + _SEP + r"(?:\d{2}|2[AB])"
                       + _SEP
                       + r"\d{3}" + _SEP + r"\d{3}" + _SEP + r"\d{2}(?![\w])", _I),
        ),
    }

    def label_for(self, text: str, match: re.Match[str], language: str) -> Label | None:
        return self.label if nir_key_ok(match.group(0)) else None


@register("nir_unkeyed", priority=25)
class UnkeyedNirRecognizer(RegexRecognizer):
    """A French NIR written without its key (13 characters), often digit by digit in scanned or
    dictated notes: no check digit, so the structure is checked instead (sex 1/2, month 01-12 or
    20-42 (unknown month), department 01-99/2A/2B). French notes only."""

    name = "nir_unkeyed"
    label = Label.ID_SSN
    patterns: ClassVar[Patterns] = {
        "fr": (
            re.compile(r"(?<![\w\-])[12](?:[ .\-]?\d){4}[ .\-]?(?:\d[ .\-]?\d|2[ .\-]?[AB])(?:[ .\-]?\d){6}"
                       r"(?:(?:[ .\-]?\d){2})?(?![ .\-]?\d|\w)", _I),
        ),
    }

    def label_for(self, text: str, match: re.Match[str], language: str) -> Label | None:
        raw = re.sub(r"[ .\-]", "", match.group(0)).upper()
        if len(raw) == 15:
            return self.label if nir_key_ok(raw) else None
        month = int(raw[3:5]) if raw[3:5].isdigit() else 0
        if not (1 <= month <= 12 or 20 <= month <= 42):
            return None
        return self.label


@register("dni", priority=20)
class DniRecognizer(RegexRecognizer):
    name = "dni"
    label = Label.ID_NATIONAL
    patterns: ClassVar[Patterns] = {
        ANY: (
            re.compile(r"(?<![\w\-])(?:\d{8}|[XYZ][\s\-]?\d{7})[\s\-]?[A-Z](?![\w])", _I),
        ),
    }

    def label_for(self, text: str, match: re.Match[str], language: str) -> Label | None:
        return self.label if dni_ok(match.group(0)) else None


# A United Kingdom health number: the NHS number, Scotland's CHI number and Northern Ireland's
# Health and Care number are all ten digits with the NHS's modulus-11 check digit, written 3-3-4
# with blanks ("328 431 2978") or as one run, after their name. Hyphens are left out: a US
# telephone number is 3-3-4 with hyphens, and one in eleven would pass the check.
_UK_HEALTH_NUMBER = (
    # spaced, not inside a series of numbers ("weights 900 910 1010 g")
    re.compile(r"(?<![\w\-/.])(?<!\d[ \t])(?P<phi>\d{3} \d{3} \d{4})(?![ \t]*+\d|\w|[\-/.]\d)"),
    # run together after its name: "CHI 0511620425", "CHI No: ...", "NHS:4505577104"
    re.compile(r"(?<!\w)(?:NHS|CHI|H&C)(?:[ \t]+(?i:no\.?|number))?[ \t]*+[:#]?[ \t]*+(?P<phi>\d{10})"
               r"(?!\w|[\-/.]\d)"),
)
# The number's name earlier on its line ("NHS No: 943 476 5919", "H&C 328 431 2978", "CHI number"):
# every spaced one of the realistic corpus has it (156 of 156); without it a series of three
# numbers ("weights 900 910 1010") or a US telephone passes the check one time in eleven.
_HEALTH_NUMBER_NAME = re.compile(
    r"(?i:\b(?:NHS|CHI|H&C|H\+C|HCN|health[ \t]+(?:and|&)[ \t]+care)\b)[^\n]{0,30}$")


@register("uk_health_number", priority=20)
class UkHealthNumberRecognizer(RegexRecognizer):
    name = "uk_health_number"
    label = Label.ID_SSN
    patterns: ClassVar[Patterns] = {"en": _UK_HEALTH_NUMBER}

    def label_for(self, text: str, match: re.Match[str], language: str) -> Label | None:
        if " " in match.group("phi") and not _HEALTH_NUMBER_NAME.search(
                text, max(0, match.start() - 45), match.start()):
            return None
        return self.label if nhs_check_digit_ok(match.group("phi").replace(" ", "")) else None


@register("iban", priority=20)
class IbanRecognizer(RegexRecognizer):
    name = "iban"
    label = Label.IBAN
    patterns: ClassVar[Patterns] = {
        ANY: (
            re.compile(r"(?<![\w])[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?(?![\w])"),
        ),
    }

    def label_for(self, text: str, match: re.Match[str], language: str) -> Label | None:
        return self.label if iban_ok(match.group(0)) else None


# A laboratory accession: the lab's letters, the year in two digits, a hyphen and the case's number
# ("S24-08813", "AP20-22871", "H24-00988", "ECH24-118734"): the way pathology, cytology and imaging
# number their cases, whatever word introduces it. Capitals only, whole tokens.
_ACCESSION = re.compile(r"(?<![\w\-/.])(?P<phi>[A-Z]{1,4}\d{2}-\d{4,6})(?![\w\-/]|\.\d)")


@register("accession", priority=12)
class AccessionRecognizer(RegexRecognizer):
    name = "accession"
    label = Label.ID
    patterns: ClassVar[Patterns] = {ANY: (_ACCESSION,)}


# A thing the patient carries or owns, named by its serial number or licence plate ("SN
# LAL2206637", "serial no. T34-229815", "plate 9JK-4RT", "LA plate WKN 418"), or an implant's
# batch ("lot 8319027", "LOT 7L22914"). The label word is the cue; the value has a digit.
_SERIAL_CUE = (r"(?<![\w/])(?:SN|S/N|(?i:serial)(?:[ \t]+(?i:no\.?|number|#))?"
               r"|(?i:plate|plaque|matr[íi]cula|immatriculation|immatricul[ée]e?))")
_LOT_CUE = r"(?<![\w/])(?i:lot|batch)(?:[ \t]+(?i:no\.?|number|#))?"
_VALUE = (r"[ \t]*+[:#]?[ \t]*+(?P<phi>(?=[A-Z\-]{0,14}[ ]?\d)[A-Z0-9][A-Z0-9\-]{2,14}"
          r"(?:[ ][0-9]{2,4}(?!\w))?)(?![\w\-])")


@register("serial_or_lot", priority=13)
class SerialOrLotRecognizer(RegexRecognizer):
    """A lot number must hold four digits: a vaccine's lot ("Engerix-B lot 7K42N") is printed on
    every dose of its batch and names no one, an implant's is longer and goes with the patient."""

    name = "serial_or_lot"
    label = Label.ID
    patterns: ClassVar[Patterns] = {ANY: (re.compile(_SERIAL_CUE + _VALUE), re.compile(_LOT_CUE + _VALUE))}

    def label_for(self, text: str, match: re.Match[str], language: str) -> Label | None:
        digits = sum(c.isdigit() for c in match.group("phi"))
        if match.group(0)[:3].lower() in ("lot", "bat") and digits < 4:
            return None
        return self.label if digits >= 2 else None
