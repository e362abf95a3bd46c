"""A span covers the whole of what it names: parts left beside it are grown in (issue 29).

A part left outside a span is copied into the output as it is: a leak however well the rest is
replaced. Seen on notes written by others ("ECH24-[QID]", "Vandœuvre-lès-[LOC]", "2 [LOC]" for
"2 Mill Lane", "[PER], REMEDIOS", "Aimee [PER]", "[PER] E"). Each rule is a property of how
these things are written, not of one corpus:

- **identifiers, places and institutions glued by a hyphen or a slash**: an identifier's prefix
  or suffix ("ECH24-", "-4471"), a compound town's other words ("Vandœuvre-lès-", "Nuits-"), an
  institution's ("BIO-ALSACE", "BUMC-T");
- **a house number** before a street (English, French: "2 Mill Lane", "12 bis rue ...", "7/2
  Baxter Park Terrace", "Flat 2, 41 ...") or after it (Spanish: "Calle Pureza 45, 3º B");
- **the rest of an institution's name** in English notes ("Kennington Home Care Ltd", "Royal
  National Hospital for Rheumatic Diseases", "Guy's and St Thomas' NHS Foundation Trust");
- **the rest of a person's name**: a given name the name tables know just before or after a
  detected name ("Aimee Dupuis", "ROMERO GARCÍA Amparo", "OCAÑA VILLALBA, REMEDIOS"), also
  capitalised beside a surname in capitals ("GIMENEZ Amparo", "Paulette DURAND"), a surname in
  capitals and a comma before a detected given name ("FEATHERSTONE, Olive": the inverted form of
  headers and lists), a lone capital initial right after one ("FENNIMORE, ROSE E", "Pruitt,
  Savannah L", also after a name grown to its comma: "CASTELLANO, VIRGINIA R"), and a capital
  initial with its point right before one ("M. Trewin"); in Spanish, the second surname after a
  given name and a first one, where the name ends ("Lidia Fuentes Olmo ·");
- **the weekday of a date** written just before its day number ("Fri 11/15", "jeudi 12/03").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from deid.labels import Category
from deid.rules.names import TITLES_AND_PARTICLES, fold, given_names
from deid.spans import Span

_GLUED = re.compile(r"[^\W_]+(?:[-/][^\W_]+)*")
_NUMBER_BEFORE = re.compile(
    r"(?:(?:flat|apt|apartment|unit|suite)\s+\w{1,4},?\s+)?\b\d{1,5}(?:/\d{1,3})?[A-Za-z]?"
    r"(?:\s?(?:bis|ter))?,?\s+$", re.IGNORECASE)
_NUMBER_AFTER = re.compile(
    r",?\s+(?:n[º°o]\.?\s*)?\d{1,4}(?!\d)(?:\s?-\s?\d{1,4}(?!\d))?[A-Za-z]?"
    r"(?:,?\s+(?:\d{1,2}\s?[º°ªo]\.?(?:\s?[A-Za-z]{1,5}\.?)?|bajo(?:\s+(?:izq|izda|dcha|drcha)\.?)?"
    r"|(?:esc|bloque|portal|piso|pta|puerta)\.?\s*\w{1,3}))*")
_NAME_WORD_BEFORE = re.compile(r"(?<![^\W_])([^\W\d_]{2,})(,?[ \t]+)$")
_NAME_WORD_AFTER = re.compile(r"(,?[ \t]+)([^\W\d_]{2,})\b")
_COMMA_INITIAL = re.compile(r",[ \t]?[A-Z]\.(?:[ \t]?[A-Z]\.)*")
_INITIAL_AFTER = re.compile(r"[ \t]([A-Z])\.?(?=\s|$|[,;)])")
# A capital initial with its point right before a name, on its line ("M. Trewin", "J. Oduya"): the
# rest of the name, whose letter its initials echo ("MT"); also the Spanish "M.ª", "Mª" (María).
_INITIAL_BEFORE = re.compile(r"(?<![\w.'’\-])([A-Z])(?:\.[ªº]?|[ªº])[ \t]?$")


def _given_name(word: str) -> bool:
    """A given name the tables know; beside a detected name, one that is also a common word
    ("Amparo", "Pascal") is a name too."""
    f = fold(word)
    return f in given_names() and f not in TITLES_AND_PARTICLES


# Words in capitals that label a field rather than belong to the name beside them.
_FIELD_WORDS = frozenset({
    "PATIENT", "PATIENTE", "PACIENTE", "NOM", "NAME", "NOMBRE", "PRENOM", "PRÉNOM", "APELLIDOS", "MRN",
    "DOB", "DDN", "AGE", "ÂGE", "EDAD", "SEXE", "SEX", "SEXO", "NHC", "IPP", "NDA", "ROOM", "BED", "DR",
    "MD", "RN", "MR", "MRS", "MS", "MME", "MLLE", "SR", "SRA", "HOSPITAL", "SERVICE", "SERVICIO", "UNIT",
    "WARD", "DATE", "FECHA", "REF", "ID", "NHS", "NO", "RE", "CC", "TO", "FROM", "DE", "POUR", "PARA",
})  # fmt: skip
# Care roles in capitals that sign after a given name ("Kévin IDE nuit", "Yaiza TCAE tarde", "Jen RN"):
# "IDE" is also a given name of the tables, yet after a name it is the role, never the name's part
_CARE_ROLES = frozenset({"IDE", "IDEL", "IADE", "IBODE", "AS", "ASH", "AES", "AMP", "TCAE", "DUE", "ATS",
                         "RN", "LPN", "LVN", "CNA", "HCA", "SN", "RMN", "RGN", "DN", "RM", "NP", "PA", "SHO"})
_CAPS_WORD_BEFORE = re.compile(r"(?<![^\W_])([A-ZÀ-Þ][A-ZÀ-Þ'’\-]{2,})([ \t]+)$")
_CAPS_WORD_AFTER = re.compile(r"([ \t]+)([A-ZÀ-Þ][A-ZÀ-Þ'’\-]{2,})(?![\w'’\-])")


def _grow_capitals(span: Span, text: str) -> Span:
    """A name in capitals takes the words in capitals beside it on its line ("CIFUENTES" before
    "BARROSO, EUSEBIO", "JIANGUO" after "WANG"), up to three each side, not a field's label."""
    name = text[span.start : span.end]
    if not name.isupper() or not any(c.isalpha() for c in name):
        return span
    start, end = span.start, span.end
    for _ in range(3):
        m = _CAPS_WORD_BEFORE.search(text, max(0, start - 40), start)
        if m is None or m[1] in _FIELD_WORDS:
            break
        start = m.start(1)
    for _ in range(3):
        m = _CAPS_WORD_AFTER.match(text, end)
        if m is None or m[2] in _FIELD_WORDS or m[2] in _CARE_ROLES:
            break
        end = m.end(2)
    return Span(start, end, span.label, span.source, span.score)


def _same_case_style(word: str, name: str, gap: str) -> bool:
    """The word is written as the name is: capitals with capitals, capitalised otherwise; or a
    given name capitalised right beside a surname in capitals ("GIMENEZ Amparo", "Paulette
    DURAND"), the French and Spanish way of writing a name (not across a comma: "León, DIAVERUM"
    is a name and then its employer)."""
    if name.isupper() and len(name) > 1:
        capitalised = word[0].isupper() and word[1:].islower()
        return word.isupper() or ("," not in gap and capitalised and _given_name(word))
    return word[0].isupper()


def _surname_before_comma(word: str, gap: str, name: str) -> bool:
    """ "FEATHERSTONE, Olive": a surname in capitals and a comma before a capitalised name (the
    inverted form of headers and lists), not a field's label."""
    return ("," in gap and word.isupper() and len(word) >= 4 and word not in _FIELD_WORDS
            and word not in _ROLE_WORDS and name[:1].isupper() and not name.isupper())


# Roles written in capitals before a comma and the name of who holds them ("his CPN, Marek ...",
# "IMCA, Will ..."): three letters or fewer are never taken (most roles), these four-letter ones
# neither.
_ROLE_WORDS = frozenset({"IMCA", "IDVA", "AMHP", "CHPN", "CRNA", "APRN", "LCSW", "RMHN", "NURSE", "CARER",
                         "SISTER", "MATRON", "CONSULTANT", "REGISTRAR", "ADVOCATE", "KEYWORKER"})


def _inverted_in_capitals(name: str, gap: str, word: str) -> bool:
    """ "CIFUENTES BARROSO, EUSEBIO": a surname in capitals, a comma, a given name in capitals (a
    header's or a label's way), whatever the name tables hold."""
    return "," in gap and name.isupper() and word.isupper() and len(word) >= 2


# Spanish names carry two surnames ("Lidia Fuentes Olmo"): a capitalised word after a given name
# and a surname is the second when the name ends with it (a point, a comma, a bracket, a dash, the
# line's end), unless it names a service ("Cardiología", "Urgencias").
_SECOND_SURNAME = re.compile(
    r"[ \t]([A-ZÁÉÍÓÚÑ][a-zñáéíóúü'’\-]{2,20})(?=[ \t]*(?:[·,;.()\n]|$|[ \t][-–—][ \t]))")
# a field's label after a name in a signature block ("Email", "Dirección"), a title
_NOT_SURNAMES = TITLES_AND_PARTICLES | {"email", "e-mail", "correo", "direccion", "telefono", "tel", "tfno",
                                        "fax", "movil", "mail", "web", "nif", "dni", "colegiado", "col"}
_SERVICE_ENDINGS = ("logia", "iatria", "urgencias", "planta", "unidad", "servicio", "hospital", "consulta",
                    "centro", "clinica", "cirugia", "medicina", "enfermeria", "farmacia", "rehabilitacion")


def _second_surname(span: Span, text: str, end: int) -> int:
    """Where the name ends once its second surname is taken in (Spanish; module docstring)."""
    words = text[span.start : end].split()
    if len(words) < 2 or not all(w[:1].isupper() and not w.isupper() for w in words[-2:]):
        return end
    if _given_name(words[-1]) or not _given_name(words[-2]):
        return end  # "Lidia Fuentes" is a given name and a surname; "Ana María" is two given names
    m = _SECOND_SURNAME.match(text, end)
    if m is None or fold(m[1]).endswith(_SERVICE_ENDINGS) or fold(m[1]) in _NOT_SURNAMES:
        return end
    return m.end(1)


def _grow_person(span: Span, text: str, language: str) -> Span:
    name = text[span.start : span.end]
    start, end = span.start, span.end
    if name.endswith("."):
        return span  # a name that ends a sentence: the next word starts another one
    before = _NAME_WORD_BEFORE.search(text, max(0, start - 30), start)
    if before and "\n" not in before[2] and (
            (_given_name(before[1]) and _same_case_style(before[1], name, before[2]))
            or _surname_before_comma(before[1], before[2], name)):
        start = before.start(1)
    elif name[:1].isupper() and (initial := _INITIAL_BEFORE.search(text, max(0, start - 4), start)) and (
            language != "fr" or initial[1] != "M"):  # the French "M." is Monsieur, a title
        start = initial.start(1)
    after = _NAME_WORD_AFTER.match(text, end)
    if after and "\n" not in after[1] and after[2] not in _CARE_ROLES and (
            _same_case_style(after[2], name, after[1])) and (
            _given_name(after[2]) or _inverted_in_capitals(name, after[1], after[2])):
        end = after.end(2)
    elif (initial_after_comma := _COMMA_INITIAL.match(text, end)) is not None:
        end = initial_after_comma.end()
    if language == "es":
        end = _second_surname(span, text, end)
    initial = _INITIAL_AFTER.match(text, end)
    grown = text[start:end]  # "CASTELLANO" grown to "CASTELLANO, VIRGINIA" takes its "R"
    if initial and grown.count(" ") + grown.count(",") >= 1:
        end = initial.end(1) + (1 if text[initial.end(1) : initial.end(1) + 1] == "." else 0)
    return Span(start, end, span.label, span.source, span.score)


# Words that label an identifier rather than belong to it ("nhc-7984385", "IPP-1234")
_ID_LABELS = frozenset({"NHC", "IPP", "MRN", "NDA", "DNI", "NIE", "NIF", "ID", "NO", "NUM", "REF", "CIP",
                        "NIR",
                        "NSS", "NUSS", "SS", "TEL", "FAX", "EXT"})


def _grow_glued(span: Span, text: str, *, letters: bool) -> Span:
    """The span grown over the hyphen- or slash-glued parts of the token it touches: parts with a
    digit or in capitals for an identifier ("ECH24-", "IR-19-"; not the label "nhc-"), parts in
    letters for a town (``letters``: "Vandœuvre-lès-")."""
    start, end = span.start, span.end
    lo, hi = max(0, start - 32), min(len(text), end + 32)
    for m in _GLUED.finditer(text, lo, hi):
        touches = (m.start() < end and start < m.end()) or (m.end() == start and text[start] in "-/") \
            or (m.start() == end and text[end - 1] in "-/")
        whole = (m.start() > lo or lo == 0) and (m.end() < hi or hi == len(text))
        if not (touches and whole):  # a token the window cuts is too long to be one identifier
            continue
        for part in _PART.finditer(text, m.start(), m.end()):
            word = part.group()
            if not _belongs(word, letters):
                continue
            if part.end() <= start and _joins(text, part.end(), start):
                start = part.start()
            elif part.start() >= end and _joins(text, end, part.start()):
                end = part.end()
    return Span(start, end, span.label, span.source, span.score)


_PART = re.compile(r"[^\W_]+")


def _joins(text: str, a: int, b: int) -> bool:
    """Only hyphens, slashes and parts between ``a`` and ``b``: one token."""
    return all(c in "-/" or c.isalnum() for c in text[a:b])


def _belongs(word: str, letters: bool) -> bool:
    if letters:
        return word.isalpha() and word.upper() not in _ID_LABELS
    return (any(c.isdigit() for c in word) or (word.isupper() and len(word) >= 2)) \
        and word.upper() not in _ID_LABELS


def _grow_street(span: Span, text: str, language: str) -> Span:
    start, end = span.start, span.end
    before = text[max(0, start - 30) : start]
    if not re.search(r"\d", text[start : min(end, start + 6)]):
        m = _NUMBER_BEFORE.search(before)
        if m and language in ("en", "fr"):
            start = start - (len(before) - m.start())
    if language == "es" and not re.search(r"\d", text[max(start, end - 6) : end]):
        m = _NUMBER_AFTER.match(text, end)
        if m and m.end() > end:
            end = m.end()
    return Span(start, end, span.label, span.source, span.score)


# The next word of an institution's name on its line: after an optional possessive ("Guy's",
# "St Thomas'") and particle ("Hospital for Rheumatic Diseases", "Guy's and St Thomas'"), a word
# that starts with a capital and is not a field's label ("Address:").
_INSTITUTION_NEXT = re.compile(
    r"(?:['’]s?)?[ \t]+(?:(?:and|for|of|the|de|du|des|la|le|del|y|&)[ \t]+)?"
    r"([A-ZÀ-Þ][\w'’.\-]*)(?![\w'’\-]|[ \t]*:)")
_INSTITUTION_PREVIOUS = re.compile(r"(?<![\w'’\-])([A-ZÀ-Þ][\w'’.\-]*)[ \t]$")
_MAX_INSTITUTION_WORDS = 5
_ACRONYM = re.compile(r"[A-Z][A-Z&]{1,7}")
# An institution's name goes on over these ("Guy's and St Thomas' NHS Foundation Trust", "Mercy
# Hospital"): labels of a field elsewhere, words of a name here.
# It stops at a department of the institution ("Memorial Medical Center ED"): no part of its name.
_INSTITUTION_STOP = (_FIELD_WORDS - {"NHS", "HOSPITAL", "UNIT", "SERVICE", "SERVICIO", "DE"}) | {
    "ED", "ER", "ICU", "MICU", "SICU", "CCU", "CVICU", "NICU", "PICU", "OR", "PACU", "HDU", "ITU", "AE",
    "A&E", "DEPARTMENT", "DEPT", "TEAM", "CLINICS", "OPD", "MAU", "AMU", "SDEC",
}


def _grow_institution(span: Span, text: str) -> Span:
    """A hospital's or an organisation's name takes the capitalised words beside it on its line
    ("Kennington Home Care Ltd", "Royal National Hospital for Rheumatic Diseases", "Guy's and St
    Thomas' NHS Foundation Trust", "MSP Château-Sud"): up to five after and three before, never a
    field's label nor across punctuation other than a possessive."""
    start, end = span.start, span.end
    for _ in range(_MAX_INSTITUTION_WORDS):
        m = _INSTITUTION_NEXT.match(text, end)
        if m is None or m[1].rstrip(".").upper() in _INSTITUTION_STOP:
            break
        end = m.end(1) - (1 if m[1].endswith(".") else 0)
    # an acronym is a whole name: the word before it in small letters after its capital is the
    # sentence's ("Admitted RLI", "Fracture clinic RLI"), not the name's
    acronym = _ACRONYM.fullmatch(text, span.start, span.end) is not None
    for _ in range(3):
        m = _INSTITUTION_PREVIOUS.search(text, max(0, start - 40), start)
        if m is None or m[1].rstrip(".").upper() in _INSTITUTION_STOP or m[1].endswith("."):
            break
        if acronym and not m[1].isupper():
            break
        start = m.start(1)
    return span if (start, end) == (span.start, span.end) else Span(start, end, span.label, span.source,
                                                                     span.score)


# A weekday written right before a date's day number is part of that date ("Fri 11/15", "Mon.
# 08/08", "jeudi 12/03", "martes, 4"): the realistic corpus's gold holds 76 such dates whole and 1
# apart. Abbreviations in their capitalised form only ("Sat O2 96%" is a saturation).
_WEEKDAY_BEFORE = re.compile(
    r"(?<![\w'’\-])((?i:monday|tuesday|wednesday|thursday|friday|saturday|sunday|lundi|mardi|mercredi|"
    r"jeudi|vendredi|samedi|dimanche|lunes|martes|mi[ée]rcoles|jueves|viernes|s[áa]bado|domingo)|"
    r"Mon|Tue|Tues|Wed|Weds|Thu|Thur|Thurs|Fri|Sat|Sun|lun|mar|mer|jeu|ven|sam|dim)\.?,?[ \t]$")


def _grow_weekday(span: Span, text: str) -> Span:
    """A date that starts with its day number takes the weekday written just before it."""
    if not text[span.start : span.start + 1].isdigit():
        return span
    m = _WEEKDAY_BEFORE.search(text, max(0, span.start - 12), span.start)
    return span if m is None else Span(m.start(1), span.end, span.label, span.source, span.score)


# The check letter written after an identifier's digits: glued by a hyphen ("NIE X2975031-R",
# "DNI 79216485-S"), or, after a number written in groups, alone after a blank where a table's cell
# or a field ends ("G091 524 181 436 W | RBC", "W0137 19 651077 K   Grupo"). It is computed from the
# digits, so it is part of them. Not a letter that a record's next column often holds after a number
# written whole: a sex, a blood group, a pronoun ("MRN 1234567  F  72", "NHC 123456 H", "1234567 A Rh+").
_GLUED_LETTER = re.compile(r"-[A-Z](?![\w\-])")
_SPACED_LETTER = re.compile(r"[ \t](?![FMHABOI])[A-Z](?=[ \t]?\||[ \t]{2}|\t|[ \t]*$|[,;)])", re.M)


def _grow_check_letter(span: Span, text: str) -> Span:
    if span.end == 0 or not text[span.end - 1].isdigit():
        return span
    m = _GLUED_LETTER.match(text, span.end)
    if m is None and " " in text[span.start : span.end]:
        m = _SPACED_LETTER.match(text, span.end)
    return Span(span.start, m.end(), span.label, span.source, span.score) if m else span


def whole_extents(spans: Iterable[Span], text: str, language: str) -> list[Span]:
    """``spans`` grown over the parts of what they name left beside them (module docstring);
    a span never shrinks, and one grown into another is merged by the caller's resolution."""
    out = []
    for s in spans:
        cat = s.label.category
        if cat is not Category.DATE and any(c.isdigit() for c in text[s.start : s.end]):
            s = _grow_glued(s, text, letters=False)
        if cat is Category.QID:
            s = _grow_check_letter(s, text)
        if s.label.value in ("CITY", "LOCATION", "HOSPITAL", "ORG"):
            # a compound town's and an institution's other parts ("BIO-ALSACE", "BUMC-T")
            s = _grow_glued(s, text, letters=True)
        if cat is Category.DATE:
            s = _grow_weekday(s, text)
        if s.label.value == "STREET":
                s = _grow_street(s, text, language)
        elif cat is Category.PER:
            s = _grow_capitals(_grow_person(s, text, language), text)
        elif s.label.value in ("HOSPITAL", "ORG") and language == "en":
            # English only: MEDDOCAN's and ECHR's gold cut institutions' names otherwise (official
            # strict F1 fell 0.961 -> 0.938 on MEDDOCAN dev with it on, at the same recall)
            s = _grow_institution(s, text)
        out.append(s)
    return _merge_touching(out)


def _merge_touching(spans: list[Span]) -> list[Span]:
    """Spans of one label that now overlap become one (the earlier one's source and score)."""
    spans.sort(key=lambda s: (s.start, s.end))
    merged: list[Span] = []
    for s in spans:
        if merged and merged[-1].label == s.label and s.start < merged[-1].end:
            last = merged[-1]
            merged[-1] = Span(last.start, max(last.end, s.end), last.label, last.source, last.score)
        elif merged and s.start < merged[-1].end:
            # two labels overlap after growing: keep the earlier, cut the later to what is left
            last = merged[-1]
            if s.end > last.end:
                merged.append(Span(last.end, s.end, s.label, s.source, s.score))
        else:
            merged.append(s)
    return merged
