"""Phone and fax numbers, e-mail addresses, URLs and IP addresses."""

from __future__ import annotations

import ipaddress
import re
from typing import ClassVar

from deid.labels import Label
from deid.rules.base import ANY, Patterns, RegexRecognizer
from deid.rules.registry import register

_I = re.IGNORECASE
_SEP = r"[ .\-]?"
_EDGE_L = r"(?<![\w+@/.\-])"
_EDGE_R = r"(?![\w@]|[.\-/]\d)"
_EXT = r"(?:\s?(?:ext|extensión|extension|poste)\.?\s?\d{1,5}\b)?"  # MEDDOCAN keeps the extension

# The nearest keyword before a number says whether it is a fax.
_KEYWORD = re.compile(
    r"(?P<fax>fax|télécopie|telecopie|télécopieur|telefax)|(?:t[ée]l[ée]?phone|tel|tél|t[ée]l[ée]fono|tfno|"
    r"tlfno|tlf|telf|telfs|tf|móvil|movil|portable|mobile|phone|cell|contacto|gsm|bip|poste|ext)",
    _I,
)


_INTL_BODY = (r"\d{1,3}" + _SEP + r"(?:\(0\)" + _SEP + r")?(?:\(?\d{1,4}\)?" + _SEP + r")?\d{2,4}(?:"
               + _SEP + r"\d{2,4}){1,4}" + _EDGE_R + _EXT)

_INTL_WITH_PLUS = re.compile(r"(?:(?<![\w+@/\-])\+|(?<![\w+@/.\-])00)" + _INTL_BODY)

# A day, a month and a four-digit year split by slashes or dots: a phone is never written so.
_DATE_INSIDE = re.compile(r"(?<!\d)\d{1,2}[/.]\d{1,2}[/.](?:1[89]|20)\d{2}(?!\d)")
_BOTH = re.compile(r"(?:tel|tél|tfno|tlf|phone)[\w.]*\s*(?:y|et|and|/|-|&)\s*fax", _I)


@register("phone", priority=40)
class PhoneRecognizer(RegexRecognizer):
    name = "phone"
    label = Label.PHONE
    patterns: ClassVar[Patterns] = {
        "fr": (
            # International: +33 6 12 34 56 78, 0033 (0)1..., +1 (555) 123-4567, with the "+"
            # (eds-pseudo's convention); Spanish text has its own form below (MEDDOCAN's).
            _INTL_WITH_PLUS,
            # 01 23 45 67 89, 01.23.45.67.89, 0123456789, (33) 01 71 12 77 06, and digit-by-digit
            # spellings "0 4 2 6 4 4 6 2 6 3", "0 4 - 0 7 - 4 3 - 3 6 - 4 0"
            re.compile(r"(?<![\w+@/.\-])(?:\(\s?\d{1,3}\s?\)\s?|\+\s?\d(?:\s?\d){1,2}\s?)?"
                       r"0(?:(?:[ \t]?[.\-/][ \t]?|[ \t])?\d){9}"
                       r"(?!(?:[ \t]?[.\-/][ \t]?|[ \t])?\d|\w)" + _EXT),
        ),
        "es": (
            # 913 908 121, 91 336 87 85, 630 75 89 15, 848 422179, 985-27-36-14, 93 2607982, 913908121
            re.compile(_EDGE_L + r"[6789]\d{2}" + _SEP + r"\d{3}" + _SEP + r"\d{3}" + _EDGE_R + _EXT),
            re.compile(_EDGE_L + r"[6789]\d{2}" + _SEP + r"\d{2}" + _SEP + r"\d{2}" + _SEP + r"\d{2}"
                       + _EDGE_R + _EXT),
            re.compile(_EDGE_L + r"[6789]\d" + _SEP + r"\d{3}" + _SEP + r"\d{2}" + _SEP + r"\d{2}"
                       + _EDGE_R + _EXT),
            re.compile(_EDGE_L + r"[6789]\d" + _SEP + r"\d{7}" + _EDGE_R + _EXT),
            re.compile(_EDGE_L + r"[6789]\d{2}" + _SEP + r"\d{6}" + _EDGE_R + _EXT),
            # MEDDOCAN leaves the "+" out of the span: "+34 913 908 121", "+ 34 93 693 29 05";
            # and the country code may come without it: "34- 963864175", "34-607819141"
            re.compile(r"(?:(?<![\w+@/\-])\+\s?|(?<![\w+@/.\-])(?=00))(?P<phi>" + _INTL_BODY + ")"),
            re.compile(_EDGE_L + r"34[ \-]{1,2}[6789]\d{2}" + _SEP + r"\d{3}" + _SEP + r"\d{3}"
                       + _EDGE_R + _EXT),
        ),
        "en": (
            _INTL_WITH_PLUS,
            # (555) 123-4567, 555-123-4567, 555.123.4567
            re.compile(_EDGE_L + r"(?:\(\d{3}\)\s?|\d{3}[.\-])\d{3}[.\-]\d{4}" + _EDGE_R + _EXT),
            # UK: 020 7946 0958, 07700 900123
            re.compile(_EDGE_L + r"0\d{2,4}\s\d{3,4}\s?\d{3,4}" + _EDGE_R + _EXT),
        ),
    }

    def label_for(self, text: str, match: re.Match[str], language: str) -> Label | None:
        digits = sum(c.isdigit() for c in match.group(0))
        if not 8 <= digits <= 15:
            return None
        if _DATE_INSIDE.search(match.group(0)):
            return None  # "né le 07/11/1968 - 52 ans": a date and an age, not "07 11 19 68 52"
        window = text[max(0, match.start() - 40) : match.start()]
        keywords = list(_KEYWORD.finditer(window))
        # "Tel. y Fax:", "Tél/Fax" introduce a line that is both: a phone first.
        if keywords and keywords[-1].group("fax") and not _BOTH.search(window):
            return Label.FAX
        return Label.PHONE


# An internal number alone after the word that calls it: "bleep 1156", "pgr 2291", "ext. 4530",
# "pager 4-2281", "poste 4512", "busca 4417". It reaches one person (a clinician's bleep, a social
# worker's desk), so it is a phone. Three digits at least: "poste 2", "bip 12" are a dialysis
# station and a count. After a whole number the extension is already the phone's (`_EXT`).
_EXTENSION_ALONE = re.compile(
    r"(?<![\w.])(?i:ext|extension|extensi[óo]n|bleep|blp|pager|pgr|beeper|poste|busca|"
    r"buscapersonas|bip|dect)\.?[ \t]?[:#]?[ \t]?(?P<phi>\d{1,2}-\d{4}|\d{3,6})(?![\w/.,]\d|[\w/])"
    # a joint's extension in degrees or per cent ("extension 180°", "extension 100%") is a range of motion
    r"(?![ \t]*+(?:°|%|(?i:deg|degrees?|grad|grados?|º)\b))"
)


@register("phone_extension", priority=40)
class PhoneExtensionRecognizer(RegexRecognizer):
    name = "phone_extension"
    label = Label.PHONE
    patterns: ClassVar[Patterns] = {ANY: (_EXTENSION_ALONE,)}


@register("email", priority=30)
class EmailRecognizer(RegexRecognizer):
    name = "email"
    label = Label.EMAIL
    patterns: ClassVar[Patterns] = {
        ANY: (
            # "E-mail.x@y.es": the label glued to the address is not part of it. The local part is
            # 64 characters at most (RFC 5321): every "%" inside a run may start an attempt, and an
            # unbounded one made "a%a%a%..." quadratic (issue 33).
            re.compile(r"(?<![\w.+\-])(?:e-?mail[.\-:])?"
                       r"(?P<phi>[\w.+\-%]{0,63}\w@[\w\-]+(?:\.[\w\-]+)*\.[a-zA-Z]{2,24})\b", _I),
        ),
    }


@register("url", priority=30)
class UrlRecognizer(RegexRecognizer):
    name = "url"
    label = Label.URL
    patterns: ClassVar[Patterns] = {
        ANY: (
            re.compile(r"\b(?:https?|ftp)://[^\s<>\"'()]+[^\s<>\"'().,;:!?]", _I),
            re.compile(r"(?<![\w@.])www\.[\w\-]+(?:\.[\w\-]+)+(?:/[^\s<>\"'()]*[^\s<>\"'().,;:!?])?", _I),
        ),
    }


@register("ip", priority=30)
class IpRecognizer(RegexRecognizer):
    name = "ip"
    label = Label.IP
    patterns: ClassVar[Patterns] = {
        ANY: (
            re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w]|\.\d)"),
            re.compile(r"(?<![\w:])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![\w:])"),
        ),
    }

    def label_for(self, text: str, match: re.Match[str], language: str) -> Label | None:
        try:
            address = ipaddress.ip_address(match.group(0))
        except ValueError:
            return None
        if address.version == 6 and match.group(0).count(":") < 2:
            return None
        return self.label
