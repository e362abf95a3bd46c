"""Synthetic longitudinal patients in French, Spanish and English (US and UK feeds), with their
families, doctors and addresses, and notes whose gold spans are exact and say which person and
which address each mention is, and in what shape it is written.

Made for the coherence benchmark (``bench/coherence.py``): every mention carries a ``shape``, a
template such as ``"Mme {G} {S1:upper}"`` or ``"su hija {G} {S1} {S2}"``, from which the surrogate's
given name, surnames and initials can be read back out of the de-identified note without the
code under test. A person shape may also put words outside the gold spans, between ``<`` and
``>``, as the model cuts them: ``"<Sra. >{S1} {S2}"`` (the title before the span),
``"<his wife >{G}"``, ``"{S1:upper}<, >{G:upper}"`` ("SMITH, MARY" as two spans, one mention
each); ``":mail"`` writes a name as an e-mail address does (``"{G:mail}.{S1:mail}@gmail.com"``).
Identities are invented: given names and surnames are drawn from the name lists of the
language (``deid/data/names.json``), towns from the shipped address tables.
"""

from __future__ import annotations

import random
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date

from deid.labels import Label
from deid.spans import Span
from deid.surrogates import gazetteer as gz
from deid.surrogates import identity, names


@dataclass(frozen=True)
class Someone:
    pid: str
    gender: str  # "female" | "male"
    given: str
    surnames: tuple[str, ...]


@dataclass(frozen=True)
class Address:
    aid: str
    region: str
    street: str
    town: str
    postcode: str
    admin: str  # state code (US), nation (GB), department (FR), "" (ES)


@dataclass
class Mention:
    span: Span
    kind: str  # "person" | "address"
    ref: str  # person or address id
    shape: str  # template of the mention
    part: str = ""  # for an address: street | postcode | town | admin


@dataclass
class SynthNote:
    text: str
    language: str
    locale: str
    mentions: list[Mention]
    document_date: date

    @property
    def spans(self) -> list[Span]:
        return [m.span for m in self.mentions]


@dataclass
class Family:
    language: str
    locale: str
    patient: Someone
    spouse: Someone
    child: Someone
    doctor: Someone
    address: Address
    people: dict[str, Someone] = field(default_factory=dict)


def _given(rng: random.Random, lang: str, gender: str) -> str:
    pool = [
        n
        for n in names.name_lists()[lang][gender]
        if " " not in n and "-" not in n and identity.gender_of_given(n, lang) == gender
    ]
    return rng.choice(pool)


def _surname(rng: random.Random, lang: str) -> str:
    pool = [n for n in names.name_lists()[lang]["last"] if " " not in n and not identity.is_given(n)]
    return rng.choice(pool)


def new_family(rng: random.Random, lang: str, locale: str, n: int) -> Family:
    g = rng.choice(("female", "male"))
    other = "male" if g == "female" else "female"
    if lang == "es":
        p = Someone(f"p{n}", g, _given(rng, lang, g), (_surname(rng, lang), _surname(rng, lang)))
        s = Someone(f"s{n}", other, _given(rng, lang, other), (_surname(rng, lang), _surname(rng, lang)))
        father, mother = (p, s) if g == "male" else (s, p)
        cg = rng.choice(("female", "male"))
        c = Someone(f"c{n}", cg, _given(rng, lang, cg), (father.surnames[0], mother.surnames[0]))
    else:
        last = _surname(rng, lang)
        p = Someone(f"p{n}", g, _given(rng, lang, g), (last,))
        s = Someone(f"s{n}", other, _given(rng, lang, other), (last,))
        cg = rng.choice(("female", "male"))
        c = Someone(f"c{n}", cg, _given(rng, lang, cg), (last,))
    dg = rng.choice(("female", "male"))
    d = Someone(
        f"d{n}",
        dg,
        _given(rng, lang, dg),
        (_surname(rng, lang),) + ((_surname(rng, lang),) if lang == "es" else ()),
    )
    region = gz.region_of(lang, locale.split("-")[1])
    table = gz.gazetteer(region)
    t = table.towns[rng.randrange(min(len(table.towns), 1500))]
    if region in ("FR", "US"):
        pc = t.postcodes[0]
    elif region == "ES":
        pc = f"{t.area}{rng.randint(1, 99):02d}0"
    else:
        pc = f"{t.area}{rng.randint(1, 9)} {rng.randint(1, 9)}AB"
    admin = {"FR": t.admin2_name, "US": t.admin1_code, "GB": t.admin1_name, "ES": ""}[region]
    num = rng.randint(1, 150)
    street = {"fr": f"{num} rue des Tilleuls", "es": f"Calle del Olmo {num}", "en": f"{num} Cedar Road"}[lang]
    a = Address(f"a{n}", region, street, t.name, pc, admin)
    fam = Family(lang, locale, p, s, c, d, a)
    fam.people = {x.pid: x for x in (p, s, c, d)}
    return fam


# ------------------------------------------------------------------------------------ shapes

_TITLE = {
    "fr": {"female": "Mme", "male": "M."},
    "es": {"female": "Sra.", "male": "Sr."},
    "en": {"female": "Mrs", "male": "Mr"},
}
_DR = {
    "fr": {"female": "Dr", "male": "Dr"},
    "es": {"female": "Dra.", "male": "Dr."},
    "en": {"female": "Dr.", "male": "Dr."},
}
_KIN = {
    "fr": {
        "spouse": {"female": "son épouse", "male": "son époux"},
        "child": {"female": "sa fille", "male": "son fils"},
    },
    "es": {
        "spouse": {"female": "su esposa", "male": "su marido"},
        "child": {"female": "su hija", "male": "su hijo"},
    },
    "en": {
        "spouse": {"female": "his wife", "male": "her husband"},
        "child": {"female": "their daughter", "male": "their son"},
    },
}


# e-mail addresses built on a person's names, as people write them ("claire.rousseau@gmail.com")
_MAIL_SHAPES = ("{G:mail}.{S1:mail}@gmail.com", "{S1:mail}.{G:mail}@orange.fr",
                "{I:mail}{S1:mail}@yahoo.com")


def _full(lang: str) -> str:
    return "{G} {S1} {S2}" if lang == "es" else "{G} {S1}"


# Spanish titles of a given name ("Doña Pilar", "D. Antonio")
_DON = {"female": ("Doña", "Dña."), "male": ("Don", "D.")}


def patient_shapes(lang: str, gender: str) -> list[str]:
    t = _TITLE[lang][gender]
    if lang == "fr":
        return [
            f"{t} {{G}} {{S1:upper}}",
            f"{t} {{S1}}",
            "{G}",
            "{S1:upper} {G}",
            "{S1}, {G}",
            "{I}. {S1}",
            f"{t} {{S1:upper}} ({{G}})",
            f"<{t} >{{S1}}",
            "{S1:upper}<, >{G:upper}",
        ]
    if lang == "es":
        return [
            "{G} {S1} {S2}",
            f"{t} {{S1}}",
            "{G}",
            "{S1} {S2}, {G}",
            "{G} {S1}",
            "{S1:upper} {S2:upper}, {G}",
            f"{t} {{S1}} {{S2}}",
            f"<{t} >{{S1}} {{S2}}",
            *(f"{d} {{G}}" for d in _DON[gender]),
            f"<{_DON[gender][0]} >{{G}}",
            "{I}. {S1} {S2}",
            "{S1:upper} {S2:upper}<, >{G:upper}",
        ]
    return [
        f"{t} {{G}} {{S1}}",
        f"{t} {{S1}}",
        "{G}",
        "{S1:upper}, {G:upper}",
        "{G} {S1}",
        "{I}. {S1}",
        "{S1:upper}<, >{G:upper}",
        f"<{t} >{{S1}}",
    ]


def reads_as_title(lang: str, initial: str) -> bool:
    """An initial before a surname that a reader takes for a title: French "M." (Monsieur),
    Spanish "D." (Don)."""
    return initial.upper() in identity.title_initials(lang)


def _initials_ok(shapes: list[str], lang: str, p: Someone) -> list[str]:
    """The shapes without an initial when the person's own initial would read as a title."""
    return [s for s in shapes if "{I}" not in s] if reads_as_title(lang, p.given[:1]) else shapes


def mail_word(text: str) -> str:
    """A name as an e-mail address writes it: ASCII, lower case, letters, digits and hyphens
    ("Hélène" -> "helene", "Le Goff" -> "legoff"). The benchmark's own, not the code under test's."""
    norm = unicodedata.normalize("NFD", text)
    return "".join(c for c in norm if c.isascii() and (c.isalnum() or c == "-")).lower()


def _render(shape: str, p: Someone) -> str:
    def sub(m: re.Match[str]) -> str:
        slot, _, fmt = m.group(1).partition(":")
        v = {
            "G": p.given,
            "I": p.given[:1],
            "S1": p.surnames[0],
            "S2": p.surnames[1] if len(p.surnames) > 1 else "",
        }[slot]
        return v.upper() if fmt == "upper" else mail_word(v) if fmt == "mail" else v

    return re.sub(r"\{(\w+(?::\w+)?)\}", sub, shape)


class _Builder:
    def __init__(self) -> None:
        self.text = ""
        self.mentions: list[Mention] = []

    def add(self, s: str) -> None:
        self.text += s

    def person(self, p: Someone, shape: str, label: Label) -> None:
        # "<...>" is text outside the spans: each piece between is a mention of its own
        for i, piece in enumerate(re.split(r"<([^>]*)>", shape)):
            if i % 2:
                self.text += piece
            elif piece:
                s = _render(piece, p)
                self.mentions.append(
                    Mention(Span(len(self.text), len(self.text) + len(s), label), "person", p.pid, piece)
                )
                self.text += s

    def place(self, a: Address, part: str, label: Label) -> None:
        s = getattr(a, part)
        self.mentions.append(
            Mention(Span(len(self.text), len(self.text) + len(s), label), "address", a.aid, "", part)
        )
        self.text += s


_SENTENCES = {
    "fr": (
        "Patient(e) : ",
        " vu(e) en consultation. ",
        " va mieux. Domicile : ",
        ". Accompagné(e) par ",
        ". Adressé(e) par le ",
        ". Courrier au ",
        ". Revoir ",
        " dans trois mois.",
    ),
    "es": (
        "Paciente: ",
        " acude a consulta. ",
        " refiere mejoría. Domicilio: ",
        ". Acompañado/a por ",
        ". Remitido/a por el/la ",
        ". Informe al ",
        ". Revisar a ",
        " en tres meses.",
    ),
    "en": (
        "Patient: ",
        " seen in clinic. ",
        " is better. Address: ",
        ". Came with ",
        ". Referred by ",
        ". Letter to ",
        ". Review ",
        " in three months.",
    ),
}


def family_notes(fam: Family, rng: random.Random, n_notes: int, start: date) -> list[SynthNote]:
    lang = fam.language
    out: list[SynthNote] = []
    # "M. Dupont" reads as Monsieur, not Marc; "D. Martínez" as Don, not Diego
    shapes = _initials_ok(patient_shapes(lang, fam.patient.gender), lang, fam.patient)
    dt = _DR[lang][fam.doctor.gender]
    doctor_short = [f"{dt} {{S1}}", f"{dt} {{I}}. {{S1}}"]
    if lang == "es":  # "Dra. Martínez García", the title in the span or before it
        doctor_short += [f"{dt} {{S1}} {{S2}}", f"<{dt} >{{S1}} {{S2}}"]
    doctor_short = _initials_ok(doctor_short, lang, fam.doctor)
    a = fam.address
    for k in range(n_notes):
        b = _Builder()
        w = _SENTENCES[lang]
        b.add(w[0])
        b.person(fam.patient, shapes[0] if k == 0 else rng.choice(shapes), Label.PATIENT)
        b.add(w[1])
        b.person(fam.patient, rng.choice(shapes[1:]), Label.PATIENT)
        b.add(w[2])
        b.place(a, "street", Label.STREET)
        b.add(", ")
        if a.region == "US":
            b.place(a, "town", Label.CITY)
            b.add(", ")
            b.place(a, "admin", Label.LOCATION)
            b.add(" ")
            b.place(a, "postcode", Label.POSTCODE)
        elif a.region == "GB":
            b.place(a, "town", Label.CITY)
            b.add(" ")
            b.place(a, "postcode", Label.POSTCODE)
            b.add(", ")
            b.place(a, "admin", Label.LOCATION)
        else:
            b.place(a, "postcode", Label.POSTCODE)
            b.add(" ")
            b.place(a, "town", Label.CITY)
            if a.admin:
                b.add(" (")
                b.place(a, "admin", Label.LOCATION)
                b.add(")")
        b.add(w[3])
        rel, who = (("spouse", fam.spouse), ("child", fam.child))[k % 2]
        kin = _KIN[lang][rel][who.gender]
        b.person(
            who,
            rng.choice([f"{kin} {_full(lang)}", f"<{kin} >{_full(lang)}", f"<{kin} >{{G}}"]),
            Label.RELATIVE,
        )
        if rng.random() < 0.5:  # the relative again, as a header writes them ("SMITH, MARY" in two spans)
            b.add(" (")
            b.person(who, "{S1:upper}<, >{G:upper}", Label.RELATIVE)
            b.add(")")
        if rng.random() < 0.5:  # the relative's address at a public mail service
            b.add(", ")
            b.person(who, rng.choice(_MAIL_SHAPES), Label.EMAIL)
        b.add(w[4])
        b.person(fam.doctor, f"{dt} {{G}} {{S1}}" + (" {S2}" if lang == "es" else ""), Label.STAFF)
        b.add(w[5])
        b.person(fam.doctor, rng.choice(doctor_short), Label.STAFF)
        b.add(w[6])
        b.person(fam.patient, rng.choice(shapes), Label.PATIENT)
        b.add(w[7])
        out.append(SynthNote(b.text, lang, fam.locale, b.mentions, start.replace(year=start.year + k)))
    return out


LOCALES = (("fr", "fr-FR"), ("es", "es-ES"), ("en", "en-US"), ("en", "en-GB"))


def generate_families(
    n_per_locale: int, notes_per_patient: int = 3, seed: int = 0
) -> list[tuple[Family, list[SynthNote]]]:
    """``n_per_locale`` families per feed locale (fr-FR, es-ES, en-US, en-GB), each with
    ``notes_per_patient`` notes about its patient (kin and doctor named too)."""
    rng = random.Random(seed)
    out = []
    n = 0
    for lang, locale in LOCALES:
        for _ in range(n_per_locale):
            fam = new_family(rng, lang, locale, n)
            n += 1
            out.append((fam, family_notes(fam, rng, notes_per_patient, date(2019, 1, 15))))
    return out
