"""A name found once in a note is a name wherever its words appear again in that note (issue 29).

Notes name a person in full once, then by a part ("Mme DURAND Paulette ... Paulette a bien
dormi"), a nickname ("Robert ... Bob tolerated his diet"), a pet form ("Amparo ... Amparín",
"Pierre ... Pierrot", "Remedios ... Reme") or initials ("Thomas Walker ... TW"). The model finds
the full name and often misses the rest; every miss is a leak. This step adds a span of the same
label over each later occurrence that no span covers:

- **the same word**: any word of two letters or more of a detected name, titles and particles
  aside;
- **a nickname** of a detected given name, or the given name of a detected nickname, from the
  English nickname table of the ``nicknames`` package (Apache-2.0) and the Spanish and French
  hypocoristics of ``deid/data/hypocoristics.json`` ("Paco" of "Francisco", "Visi" of
  "Visitación", "Dédé" of "André", "Maite" of "María Teresa");
- **a pet form** of a detected given name: its first four letters or more ("Reme", "Manu"), or
  its stem with a diminutive ending ("Amparín", "Pierrot", "Juanito");
- **initials**: the capitals of a detected name of two or three words ("TW"), or its first three
  when a span runs over four words ("O. M. Featherstone Hosp" -> "OMF"); in lower case alone on
  their line, a signature ("D. Halvorsen RN" then "dh"); or the capitals of an
  institution's name of three capitalised words or more ("FRPMC" after "Front Range Presbyterian
  Medical Center"), or a hospital's acronym that a rule read beside its cue ("TGH ED": every
  later "TGH").

Safeguards for words that are also common words: an occurrence in lower case counts only when
the note writes a detected name in lower case too; a name that is also a common English word
("Will", "Bill", "Rose", "May") counts only capitalised and not at the start of a sentence,
unless a title stands before it ("Dña. Amparo") or its common sense seldom opens a sentence in the
note's language (a word of another language, a place, an adjective that follows its noun:
"Victoire" in English, "Rosa" in Spanish; ``_SELDOM_OPENS``). A note writes names in lower case
when a name span in lower case holds a given name the tables know or a word of a name it writes
capitalised too ("ARJUN MENON", then "pot labelled arjun menon").
A name span the model flagged alone and doubtfully (one word, score under 0.8) or an acronym of
four capitals or fewer spreads nothing: a misread abbreviation must not be replaced everywhere.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from deid.detection.own_words import ALSO_GIVEN_NAMES, is_kinship_word, is_person_word
from deid.labels import Category, Label
from deid.rules.hospital_acronyms import CLINICAL as HOSPITAL_CLINICAL
from deid.rules.names import COMMON_WORDS, TITLES_AND_PARTICLES, fold, given_names, nicknamer
from deid.spans import Span

SOURCE = "echo"
NICKNAME_SOURCE = "rules.nickname"
SIGNATURE_SOURCE = "rules.signature_initials"
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_DIMINUTIVES = ("ito", "ita", "illo", "illa", "ín", "ina", "ot", "otte", "ette", "ou", "ie", "y", "i", "in")
_POSSESSIVE = re.compile(r"(.+)['’]s")
_SENTENCE_END = re.compile(r"(?:^|[.!?:;\n]|\n\s*[-*•])\s*$")


def _nickname_forms(given: str) -> set[str]:
    namer = nicknamer()
    forms = set(namer.nicknames_of(given)) | set(namer.canonicals_of(given))
    return {fold(f) for f in forms if len(f) >= 3} | _hypocoristics().get(given, frozenset())


@lru_cache(maxsize=1)
def _hypocoristics() -> dict[str, frozenset[str]]:
    """Folded given name (one word, or several: "maria teresa") -> its Spanish and French
    hypocoristics of one word, three letters or more, and each such form -> the given names it
    stands for (``deid/data/hypocoristics.json``)."""
    source = resources.files("deid.data").joinpath("hypocoristics.json")
    table = json.loads(source.read_text(encoding="utf-8"))
    out: dict[str, set[str]] = {}
    for lang in ("es", "fr"):
        for given, forms in table[lang].items():
            for form in (fold(f) for f in forms):
                if len(form) >= 3 and " " not in form and form != fold(given):
                    out.setdefault(fold(given), set()).add(form)
                    if " " not in given:
                        out.setdefault(form, set()).add(fold(given))
    return {k: frozenset(v) for k, v in out.items()}


@lru_cache(maxsize=1)
def _compound_given_names() -> tuple[str, ...]:
    """The table's given names of several words ("maria teresa", "jose maria")."""
    return tuple(k for k in _hypocoristics() if " " in k)


def _pet_forms(given: str) -> set[str]:
    """The folded truncations (four letters or more, half the name at least: "Reme" of
    "Remedios") and diminutives ("Amparín" of "Amparo", "Pierrot" of "Pierre") of ``given``."""
    if len(given) < 4:
        return set()
    forms = {given[:k] for k in range(max(4, (len(given) + 1) // 2), len(given))}
    stem = given.rstrip("aeiouy") or given
    if len(stem) >= 3:
        forms.update(stem + fold(end) for end in _DIMINUTIVES)
    forms.discard(given)
    return forms


def _initials(words: Sequence[str]) -> str | None:
    # a kinship word is no part of the name ("Daughter Teresa" has no initials "DT", which is
    # also "dictation typed" in a transcription footer)
    parts = [w for w in words if fold(w) not in TITLES_AND_PARTICLES and not is_person_word(w)]
    if not 2 <= len(parts) <= 3:
        return None
    return "".join(w[0] for w in parts).upper()


def _other_initials(name: str) -> set[str]:
    """The other ways notes write a person's initials (issue 29): the given name first when the
    name is written surname first ("STREET, William John" -> "WJS", "LE GOFF Maryvonne" -> "MLG"),
    a particle or each part of a compound surname counted ("Noor El-Amin" -> "NEA", "J.
    O'Brien-Achterberg" -> "JOBA"), the first two names without a post-nominal ("Fiona Grant
    FRCPath" -> "FG"), the given name and the surname without a middle initial ("Kowalczyk,
    Raymond J" -> "RK"). Two to four letters, never a clinical abbreviation ("MD", "ED")."""
    forms: set[str] = set()
    head, comma, tail = name.partition(",")
    orders = [name]
    if comma and tail.strip():
        orders.append(f"{tail} {head}")
    else:
        caps = re.match(r"\s*((?:[A-ZÀ-Þ'’\-]{2,}\s+)+)(?=[A-ZÀ-Þ][a-zß-ÿ])", name)
        if caps:  # a surname in capitals before the given name ("LE GOFF Maryvonne")
            orders.append(f"{name[caps.end():]} {caps[1]}")
    for i, order in enumerate(orders):
        named = [w for w in re.findall(r"[^\W\d_]+", order) if _name_part(w)]
        last = named[-1] if named else ""
        post_nominal = i == 0 and len(named) == 3 and any(c.isupper() for c in last[1:]) and (
            not last.isupper() or len(last) <= 5)
        choices = [named, named[:2]] if post_nominal else [named]
        tokens = [t.strip(".,") for t in order.split()]
        if i == len(orders) - 1 and len(named) == 3 and len(tokens) == 3 and len(tokens[1]) == 1:
            # a middle initial left out ("Raymond J Kowalczyk": "RK"; not the "N'" of "Aminata N'Diaye")
            choices.append([named[0], named[2]])
        for words in choices:
            letters = "".join(w[0] for w in words).upper()
            if 2 <= len(letters) <= 4:
                forms.add(letters)
            if i == 0 and len(letters) >= 4:  # a span run over a word after the name ("... Hosp")
                forms.add(letters[:3])
    return forms - _CLINICAL_ABBREVIATIONS


def _middle_initials(name: str) -> str | None:
    """The three letters of a name with a middle initial that is also a word ("Cheryl A. Boatwright":
    "CAB", its "A" read as the article): a signature's initials only, never an echo in running text,
    where such letters are often an abbreviation ("LAD", "MAP")."""
    tokens = [t.strip(".,") for t in name.split()]
    if len(tokens) != 3 or len(tokens[1]) != 1 or not tokens[1].isupper():
        return None
    first, last = tokens[0], tokens[2]
    if not (_name_part(first) and _name_part(last) and first[:1].isupper() and last[:1].isupper()):
        return None
    return (tokens[0][0] + tokens[1] + tokens[2][0]).upper()


def _name_part(word: str) -> bool:
    """A word of a name that gives a letter: not a title nor a kinship word; a particle only
    capitalised ("LE GOFF", "El-Amin", not "de")."""
    f = fold(word)
    if f in _PARTICLES:
        return word[0].isupper()
    return f not in TITLES_AND_PARTICLES and not is_person_word(word)


_PARTICLES = frozenset({"de", "du", "des", "del", "della", "la", "le", "les", "los", "las", "van", "von",
                        "der", "den", "da", "di", "dos", "das", "mc", "el", "al", "bin", "ben", "ibn",
                        "abu", "ter", "ten", "op"})
# Initials that are also what notes abbreviate (a name's other initials never echo over them).
_CLINICAL_ABBREVIATIONS = frozenset({
    "MD", "DO", "RN", "PA", "NP", "ED", "ER", "OR", "PT", "OT", "GP", "BP", "HR", "RR", "CT", "MR",
    "MS", "DR", "AM", "PM", "IV", "IM", "PO", "NG", "OK", "NA", "NO", "ID", "DX", "HX", "TX", "RX",
    "SX", "UK", "US", "AF", "MI", "CP", "SOB", "UTI", "CVA", "TIA", "DVT", "COPD", "CHF", "CKD",
    "AKI", "DM", "HTN", "CAD", "ICU", "CCU", "PE", "GI", "ENT", "FY", "ST", "SW", "OD", "PRN", "DNR",
    "MRI", "ECG", "EKG", "CXR", "ABG", "BMP", "CBC", "LFT", "INR", "PEG", "NBM", "NPO", "IDE", "AS",
})  # fmt: skip
# A note's field names and charting abbreviations that are also someone's initials ("Diane O. Brown"
# and "DOB: ...", "Rhys Adams" and "SpO2 96% RA"): with the above, such letters echo a person's
# initials only where initials sign (alone at a line's end, or in a typist's block "FH/ko"). On the
# realistic train split they are 2,000 words as abbreviations and 6 gold initials, each signing.
_FORM_ABBREVIATIONS = frozenset({
    "DOB", "DOD", "MRN", "NHS", "MH", "RA", "PS", "SH", "FH", "HPI", "PMH", "ROS", "BMI", "GCS", "MDT",
    "SNF", "HCP", "NOK", "EDD", "LMP", "CNS", "SALT", "SLT", "ADL", "MSK", "LD", "BP", "HR",
})  # fmt: skip
_NOT_INITIALS_UNLESS_SIGNING = _CLINICAL_ABBREVIATIONS | _FORM_ABBREVIATIONS
# The kind of an institution, a word of its name but never of a person's
_INSTITUTION_KINDS = frozenset({"surgery", "hospital", "clinic", "practice", "centre", "center", "infirmary",
                                "hospice", "hopital", "clinique", "hospitalario", "clinica"})


def _acronyms(words: Sequence[str]) -> list[str]:
    """The initials of an institution's capitalised words ("Front Range Presbyterian Medical
    Center" -> "FRPMC"), three letters at least, and those of its first three words or more: a
    name the note writes whole ("Sheffield Teaching Hospitals NHS Foundation Trust") is abbreviated
    by its head ("STH")."""
    parts = [w for w in words if w[0].isupper() and fold(w) not in TITLES_AND_PARTICLES]
    letters = "".join(w[0] for w in parts).upper()
    return [letters[:n] for n in range(3, len(letters) + 1)]


def _spreads(span: Span, words: Sequence[str]) -> bool:
    if span.source == NICKNAME_SOURCE:
        return True  # a name the note says someone goes by ('Goes by "PJ"'), whatever its shape
    if len(words) == 1 and span.score < 0.8:
        return False
    return not (len(words) == 1 and words[0].isupper() and len(words[0]) <= 4)


# Rules that read a hospital's acronym only beside a cue ("TGH ED", "d/c from WGH", "NBT no"): the
# acronym is then the hospital's wherever the note writes it again. The model's acronyms do not
# spread (a misread abbreviation must not be replaced everywhere).
_CUED_ACRONYM_SOURCES = frozenset({"rules.hospital_acronym"})


def _cued_acronym(span: Span, words: Sequence[str]) -> bool:
    if span.source not in _CUED_ACRONYM_SOURCES or len(words) != 1:
        return False
    word = words[0]
    return (word.isupper() and 2 <= len(word) <= 6 and word not in _CLINICAL_ABBREVIATIONS
            and word not in HOSPITAL_CLINICAL)


@dataclass
class _Known:
    """What the note's detected names give to look for elsewhere in it."""

    words: dict[str, Label] = field(default_factory=dict)  # folded name word -> its first person's label
    forms: dict[str, Label] = field(default_factory=dict)  # folded nickname or pet-form candidate -> label
    initials: dict[str, Label] = field(default_factory=dict)
    signed: dict[str, Label] = field(default_factory=dict)  # initials of a reference or signature block
    given: dict[str, Label] = field(default_factory=dict)  # folded given names met, their forms in ``forms``
    lower_names: bool = False
    lower_seen: set[str] = field(default_factory=set)  # folded words of name spans in lower case
    # initials -> where the names that give them end (a signature line's "Name, RN   nm   date")
    owner_ends: dict[str, list[int]] = field(default_factory=dict)
    signing: dict[str, Label] = field(default_factory=dict)  # initials that count only where they sign
    firsts: dict[str, Label] = field(default_factory=dict)  # folded first words of names of two words or more
    language: str = ""

    def add_org(self, s: Span, found: Sequence[str]) -> None:
        for acro in _acronyms(found):
            self.initials.setdefault(acro, s.label)
        if _cued_acronym(s, found):
            self.initials.setdefault(found[0], s.label)

    def add_person(self, s: Span, found: Sequence[str], text: str) -> None:
        if s.source == SIGNATURE_SOURCE and len(found) == 1 and found[0].isupper():
            # initials a letter's reference or signature block gives ("N/Réf : VA/SL") sign again
            # at its foot ("frappé le 21/05 - SL"): there only, never over a clinical abbreviation
            if found[0] not in _CLINICAL_ABBREVIATIONS:
                self.signed.setdefault(found[0], s.label)
            return
        self.lower_seen.update(fold(w) for w in found if w.islower())  # "pot labelled arjun menon"
        if not found or not _spreads(s, found):
            return
        # the first word of the name once titles and kinship words are set aside, unless the name is
        # written surname first ("SMITH, Florence", "Lincoln, Mary")
        first = "," not in text[s.start : s.end]
        for i, w in enumerate(found):
            f = fold(w)
            if len(f) < 2 or (f in TITLES_AND_PARTICLES and not _english_name_word(w, self.language)):
                continue
            if f in _INSTITUTION_KINDS:
                continue  # a practice the model read as a person ("Bryn Eithin Surgery"): its kind
                # word is no name, echoed it would turn "Thoracic Surgery" into a person
            if is_kinship_word(w) and (i == 0 or f not in ALSO_GIVEN_NAMES):
                # a kinship word the model took into the name ("Hermano Guillermo", "Fille
                # Marie") names no one alone: echoed, it would replace every "Hermano"; one that
                # is also a given name counts after the first word ("Nguyen Van Son")
                continue
            self.lower_names = self.lower_names or w.islower()
            self.words.setdefault(f, s.label)
            if first and i < len(found) - 1 and w[:1].isupper() and not w.isupper():
                self.firsts.setdefault(f, s.label)
            first = False
            self._add_forms(w, f, found, s.label)
        folded = f" {' '.join(fold(w) for w in found)} "
        for compound in _compound_given_names():
            if f" {compound} " in folded:  # "María Teresa" is "Maite"
                self._add(_hypocoristics()[compound], s.label)
        given = [ini] if (ini := _initials(found)) is not None else []
        if len(found) >= 2:
            given += sorted(_other_initials(text[s.start : s.end]))
        for ini in given:
            self.initials.setdefault(ini, s.label)
            self.owner_ends.setdefault(ini, []).append(s.end)
        if (middle := _middle_initials(text[s.start : s.end])) is not None and middle not in self.initials:
            self.signing.setdefault(middle, s.label)
            self.owner_ends.setdefault(middle, []).append(s.end)

    def _add_forms(self, w: str, f: str, found: Sequence[str], label: Label) -> None:
        if f in self.given:
            return
        if f in given_names():
            self.given[f] = label
            self._add(_nickname_forms(f) | _pet_forms(f), label)
            return
        self._add(_hypocoristics().get(f, ()), label)  # a pet form detected: "Paco", then "Francisco"
        if _given_beside_capitals(w, found):  # "FERREIRA Constantino", then "Constant"
            self._add(_pet_forms(f), label)

    def _add(self, forms: Iterable[str], label: Label) -> None:
        for nick in forms:
            self.forms.setdefault(nick, label)

    def settle(self) -> None:
        for ends in self.owner_ends.values():
            ends.sort()
        # the note writes a name in lower case: a known given name, or a word of a name it also
        # writes capitalised ("ARJUN MENON" in the header, "arjun menon" on the pot's label)
        self.lower_names = self.lower_names or any(
            len(f) > 2 and (f in given_names() or f in self.words) for f in self.lower_seen)


def echo_names(spans: Iterable[Span], text: str, language: str) -> list[Span]:
    """``spans`` plus a span over each uncovered occurrence of a detected name's words, nicknames,
    pet forms and initials (module docstring)."""
    spans = sorted(spans, key=lambda s: (s.start, s.end))
    known = _Known(language=language)
    for s in spans:
        if s.label.category is Category.ORG:
            known.add_org(s, _WORD.findall(text, s.start, s.end))
        elif s.label.category is Category.PER:
            known.add_person(s, _WORD.findall(text, s.start, s.end), text)
    known.settle()
    if not known.words and not known.initials and not known.signed:
        return spans
    spans = [_person_not_place(s, text, known.firsts) for s in spans]
    words, forms, initials = known.words, known.forms, known.initials
    added: list[Span] = []
    covered_to, k = 0, 0  # words come in order: one walk over the spans, sorted by start
    for m in _WORD.finditer(text):
        while k < len(spans) and spans[k].start < m.end():
            covered_to = max(covered_to, spans[k].end)
            k += 1
        if covered_to > m.start():
            continue
        w = m.group()
        label = _echo_label(w, words, forms, initials, language)
        end = m.end()
        lower = w.islower()
        signer = (initials.get(w.upper()) or known.signing.get(w.upper())) if lower else known.signed.get(w)
        if label is None and signer is not None and (
                (_signs_alone(text, m.start(), m.end()) and (w.upper() in initials or not lower))
                or (lower and _signs_entry(text, m.start(), m.end(), known.owner_ends.get(w.upper(), ())))
                or (lower and _pair_alone(text, m.start(), m.end()))):
            # "D. Halvorsen RN", then "dh" alone; "N/Réf : VA/SL", then "frappé le 21/05 - SL";
            # "Dana Holt, RN   dh   3/2/24 0745"; "Travis Whitlock ... K. Barnes", then "tw/kb"
            added.append(Span(m.start(), end, signer, SOURCE, 1.0))
            continue
        if label is None and (owner := _POSSESSIVE.fullmatch(w)) is not None:
            w, end = owner[1], m.start() + len(owner[1])  # "KM's consent", "Gigi's songs"
            label = _echo_label(w, words, forms, initials, language)
        if label is None or not _plausible_occurrence(w, text, m.start(), known.lower_names, language):
            continue
        if (w in _NOT_INITIALS_UNLESS_SIGNING and label.category is Category.PER and fold(w) not in words
                and not _signs_alone(text, m.start(), end) and not _typist_block(text, m.start(), end)):
            continue  # "DOB:", "96% RA": the abbreviation, not a person's initials
        added.append(Span(m.start(), end, label, SOURCE, 1.0))
    return sorted([*spans, *added], key=lambda s: (s.start, s.end))


# A place's own context: a preposition that puts someone there ("lives in Florence").
_LOCATIVE_BEFORE = re.compile(
    r"(?i:\b(?:in|into|to|from|at|near|of|via|around|towards?|à|a|au|aux|de|d['’]|en|dans|vers|depuis|pour|sur|"
    r"par|desde|hacia|hasta|entre|al|para|por))[ \t]*$")
# What a person does next: a word in small letters right after the name ("Mirlande will update
# her", "Brooklyn slept"), not a preposition, an article or a conjunction ("Atlanta, Georgia in
# 2001"); a comma, a semicolon, a line's end, a digit or a capitalised word after it leave it a place
# ("Sydney, Australia", "Rome; Florence; Venice", "Barry\nCF62 5AB", "Florence General Hospital").
_VERB_AFTER = re.compile(r"[ \t]++(?!(?:in|on|at|to|from|and|or|the|a|an|of|for|with|near|area|county|city|"
                         r"de|du|la|le|les|et|en|y|el|del|con|por|para|e)\b)[a-zà-ÿ]{2,}\b")


def _person_not_place(s: Span, text: str, firsts: dict[str, Label]) -> Span:
    """A one-word town or place of the model that is the given name a detected person of the note
    opens with, followed by what the person does ("granddaughter Mirlande Pierre-Louis ... Haiti,
    Mirlande will update her"): a person named after a place is a person (the corpus's guideline),
    unless a preposition makes it the place ("lives in Florence")."""
    if s.label not in (Label.CITY, Label.LOCATION) or s.source != "ner":
        return s
    word = text[s.start : s.end]
    label = firsts.get(fold(word))
    if label is None or _WORD.fullmatch(word) is None or word.isupper():
        return s
    if _LOCATIVE_BEFORE.search(text, max(0, s.start - 12), s.start) or not _VERB_AFTER.match(text, s.end):
        return s
    return Span(s.start, s.end, label, s.source, s.score)


def _english_name_word(w: str, language: str) -> bool:
    """A particle of French and Spanish names ("de", "del", "la") is a word of their running text;
    in an English note a capitalised one of three letters or more inside a person's name is a name
    ("Delbert "Del" Fairweather", then "Del resting")."""
    return language == "en" and w[0].isupper() and fold(w) in _LONG_PARTICLES


# The particles of TITLES_AND_PARTICLES of three letters or more (never a title: "Mrs", "Doctor"
# stay out of a name's words in every language)
_LONG_PARTICLES = frozenset({"des", "del", "della", "les", "los", "las", "van", "von", "der", "den", "dos",
                             "das", "ste", "san", "santa", "bin", "ben", "ibn", "abu", "ter", "ten"})


def _echo_label(w: str, words: dict[str, Label], forms: dict[str, Label],
                initials: dict[str, Label], language: str) -> Label | None:
    f = fold(w)
    if f in TITLES_AND_PARTICLES:
        # "de", "del", "la" are words of French and Spanish text; in an English note a capitalised
        # one that is a known person's nickname ("Delbert", then "Del") is that person
        return (words.get(f) or forms.get(f)) if _english_name_word(w, language) else None
    if len(f) >= 2 and f in words and (len(f) > 2 or w[0].isupper()):
        return words[f]
    if w.isupper() and w in initials:
        return initials[w]
    if not w[0].isupper():
        return None
    if f in forms:
        return forms[f]
    if f in given_names():  # the given name of a detected pet form ("Amparín", then "Amparo")
        for known in sorted(_pet_forms(f) & words.keys()):
            return words[known]
    return None


def _given_beside_capitals(word: str, words: Sequence[str]) -> bool:
    """A capitalised word beside a surname in capitals ("FERREIRA Constantino"): the given name,
    whether the name tables know it or not (the French and Spanish way of writing a name)."""
    return (len(word) >= 4 and word[0].isupper() and word[1:].islower() and not is_person_word(word)
            and len(words) <= 3 and any(len(o) >= 3 and o.isupper() for o in words))


def _signs_alone(text: str, start: int, end: int) -> bool:
    """The word ends its line, alone on it, after a slash or a dash, or after the sentence it signs
    ("D. Halvorsen RN / dh", "frappé le 21/05/2024 – SL", "... cambios posturales c/4 h. MRT"):
    a signature."""
    if not 2 <= end - start <= 4:
        return False
    line_end = text.find("\n", end, end + 40)
    if line_end < 0 and len(text) > end + 40:
        return False  # more on the line after it (never copy the rest of a long text per word)
    if text[end : len(text) if line_end < 0 else line_end].strip(" \t."):
        return False
    if _SIGNATURE_DASH.search(text, max(0, start - 4), start):
        return True
    line_start = text.rfind("\n", max(0, start - 40), start) + 1
    return (line_start > 0 or start <= 40) and not text[line_start:start].strip(" \t-–—/")


# a slash or a dash before the initials, or the end of the sentence they sign
_SIGNATURE_DASH = re.compile(r"(?:[ \t][/\-–—][ \t]*|[.!?)][ \t]+)$")

# What may follow a signer's lower-case initials on their line: a closing bracket, credentials in
# capitals, "signed", the entry's date and clock (eight at most: each call reads a bounded stretch,
# whoever calls it), then the line's end or a remark in brackets ("dh RN", "dh   3/2/24 0745",
# "dh   signed 10/25/22 1730", "(dh)", "Nuit (dh) :")
_SIGN_TAIL = re.compile(
    r"\)?+(?:[ \t,]++(?:[A-Z]{2,5}+\b|signed\b|completed\b|reviewed\b|"
    r"\d{1,4}+(?:[/.:h-]\d{1,4}+){0,2}+\b)){0,8}+"
    r"[ \t.:]*+(?:\(|\n|$)")
# ... and what may stand before them on their line: nothing, a dash, a slash, a table's column bar,
# an opening bracket or an "initials:" field ("— dh", "| dh", "(dh)", "initials: dh")
_SIGN_LEAD = re.compile(r"(?:(?m:^)|(?:(?m:^)|[ \t])[|(/\-–—]|\b(?i:initials?|init)[ \t]*:)[ \t]*+$")
# Pairs of letters that are also short words, units or abbreviations ("at", "on", "le", "en", "am",
# "ml", "dl", "hr", "op"): initials only after a column's gap beside the very name they stand for
_SHORT_WORDS = frozenset({
    "at", "on", "in", "to", "of", "or", "by", "is", "it", "as", "an", "be", "do", "go", "he", "if", "me",
    "my", "no", "so", "up", "us", "we", "am", "pm", "op", "ml", "dl", "hr", "mg", "kg", "cm", "mm", "iv",
    "po", "pr", "le", "la", "de", "du", "un", "et", "ou", "se", "si", "ne", "en", "el", "al", "es", "lo",
    "mi", "tu", "ya", "ha", "os", "ir", "va", "vu", "eu", "il", "ce", "sa", "ma", "ta", "qd",
})
_COLUMN_GAP = re.compile(r"(?:[ \t]{2,}|\t)$")


def _signs_entry(text: str, start: int, end: int, owner_ends: Sequence[int]) -> bool:
    """Lower-case initials of a detected name that sign an entry (issue 29): followed on their line
    by credentials, a date or a clock only, and preceded by a signature's lead or, after a column's
    gap, by the very name they stand for earlier on the line ("Dana Holt, RN (on-call)   dh
    10/19/24 0655"; not "Amy Tran saw her at 1400")."""
    if not 2 <= end - start <= 4 or _SIGN_TAIL.match(text, end) is None:
        return False
    line_start = max(text.rfind("\n", max(0, start - 120), start) + 1, start - 120)
    word = text[start:end]
    if (word not in _SHORT_WORDS and word.upper() not in _CLINICAL_ABBREVIATIONS
            and _SIGN_LEAD.search(text, max(line_start, start - 20), start)):
        return True
    if _COLUMN_GAP.search(text, max(line_start, start - 8), start) is None:
        return False
    i = bisect.bisect_right(owner_ends, start)  # the last name ending before them: on their line?
    return i > 0 and owner_ends[i - 1] >= line_start


# A line that holds only an author's and a typist's initials in small letters, slash-joined
# ("tw/kb", "jd/ml/ab"): each pair the initials of a name the note gives is that person.
_PAIR_LINE = re.compile(r"[ \t]*+[^\W\d_]{2,4}+(?:/[^\W\d_]{2,4}+){1,2}+[ \t]*+(?:\n|$)")


def _pair_alone(text: str, start: int, end: int) -> bool:
    line_start = text.rfind("\n", max(0, start - 20), start) + 1
    if line_start == 0 and start > 20:
        return False
    line = _PAIR_LINE.match(text, line_start)
    if line is None or line.end() < end:
        return False
    # "iv/po", "wt/ht", "dc/home", "rt/lt": routes, measures and shorthand, whoever's initials one
    # of them also is; every part of the pair must read as initials
    return not any(part in _SHORT_WORDS or part in _PAIR_SHORTHAND or part.upper() in _CLINICAL_ABBREVIATIONS
                   for part in line.group().strip().split("/"))


# Shorthand written in slash pairs alone on a line that no initials list holds
_PAIR_SHORTHAND = frozenset({
    "wt", "ht", "dc", "rtc", "rt", "lt", "fu", "prn", "ue", "le", "bl", "pt", "ox", "ao", "home", "neg",
    "pos", "yes", "nil", "sob", "nv", "cp", "bs", "gi", "gu", "ms", "hx", "tx", "dx", "rx", "sx",
})  # fmt: skip


_TYPIST_AFTER = re.compile(r"/[^\W\d_]{2,4}\b|[ \t]*/[ \t]*(?:Dr|Mr|Mrs|Ms|Miss|Prof)\b")


def _typist_block(text: str, start: int, end: int) -> bool:
    """Initials beside a slash and letters: an author's and a typist's block ("FH/KO", "PM/sjc"), or
    before the name they stand for ("GP / Dr Gareth Pryce"), or ending their line after a column's
    gap ("Ffion Hughes SLT   FH")."""
    if (_TYPIST_AFTER.match(text, end, end + 12) is not None
            or re.search(r"\b[^\W\d_]{2,4}/$", text[max(0, start - 6) : start]) is not None):
        return True
    return (re.match(r"[ \t]*(?:\n|$)", text[end : end + 20]) is not None
            and re.search(r"(?:[ \t]{2,}|\t)$", text[max(0, start - 4) : start]) is not None)


# A title before a word makes it a name whatever else the word means ("Dña. Amparo", whose point
# is no sentence's end).
_TITLE_BEFORE = re.compile(r"(?<![\w.])(?:Dña|Dª|Sra|Srta|Sr|Mme|Mlle|Mrs|Mr|Ms|Miss|Dr|Dra)\.?[ \t]+$")
# Names that are also common words whose common sense seldom opens a sentence in that language: a
# word of another language ("Victoire", "Amparo" in English), a place ("Sydney"), an adjective
# that follows its noun in French and Spanish ("constant", "rosa", "blanca"). At the start of a
# sentence such a word is still the name the note gave someone. Not the English modals, verbs
# and nouns ("Will", "May", "Hope", "Rose", "Mark") nor "Dolores" ("Dolores abdominales").
_PLACES = ("sydney", "georgia", "dakota", "savannah", "austin", "lourdes", "florence", "lorraine")
_SELDOM_OPENS: dict[str, frozenset[str]] = {
    "en": frozenset({"victoire", "pascal", "pierre", "rosa", "blanca", "mercedes", "pilar", "amparo",
                     "consuelo", "soledad", "felicidad", *_PLACES}),
    "fr": frozenset({"victoire", "constant", "rosa", "blanca", "mercedes", "pilar", "amparo", "consuelo",
                     "soledad", "felicidad", *_PLACES}),
    "es": frozenset({"victoire", "pascal", "pierre", "constant", "rosa", "blanca", "mercedes", "pilar",
                     "amparo", "consuelo", "felicidad", *_PLACES}),
}


def _plausible_occurrence(w: str, text: str, start: int, lower_names: bool, language: str) -> bool:
    if w.islower() and (not lower_names or (language != "es" and is_person_word(w))):
        # "her", "son" in lower case are the words, whatever name holds them; not in Spanish,
        # where MEDDOCAN's guideline marks a relative's kinship word ("su esposa") as PHI
        return False
    if fold(w) in COMMON_WORDS:
        if not w[0].isupper() or w.isupper():
            return False
        if _TITLE_BEFORE.search(text, max(0, start - 8), start):
            return True
        sentence_start = _SENTENCE_END.search(text, max(0, start - 4), start) is not None
        return not sentence_start or fold(w) in _SELDOM_OPENS.get(language, frozenset())
    return True
