"""Synthetic French clinical notes with exact gold spans (all identities invented).

Four kinds of note (compte-rendu d'hospitalisation, lettre de liaison, ordonnance, compte-rendu
opératoire) are assembled from fragments; every PHI mention is appended through ``_Builder.phi``
so its span is exact by construction. A ``Patient`` is drawn once and reused by
``generate_patient_series`` so consecutive notes of one patient agree (names, birth date, IPP...).
"""

from __future__ import annotations

import random
import unicodedata
from dataclasses import dataclass, field
from datetime import date, timedelta

from deid.lab.synth import vocab as V
from deid.labels import Label
from deid.spans import Document, Span


class _Builder:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.spans: list[Span] = []
        self.length = 0

    def text(self, s: str) -> _Builder:
        self.parts.append(s)
        self.length += len(s)
        return self

    def phi(self, s: str, label: Label) -> _Builder:
        if s:
            self.spans.append(Span(self.length, self.length + len(s), label))
        return self.text(s)

    def build(self, doc_id: str, language: str) -> Document:
        return Document(doc_id, "".join(self.parts), language, tuple(sorted(self.spans)))


@dataclass(frozen=True)
class Person:
    first: str
    last: str
    female: bool


@dataclass
class Patient:
    person: Person
    birth: date
    city: str
    postcode: str
    street: str
    phone: str
    ipp: str
    nir: str
    profession: str
    relative: Person
    relation: str
    gp: Person
    hospital: str
    service: str
    visits: list[str] = field(default_factory=list)


def _person(rng: random.Random, female: bool | None = None) -> Person:
    f = rng.random() < 0.5 if female is None else female
    return Person(rng.choice(V.FIRST_F if f else V.FIRST_M), rng.choice(V.LAST), f)


def _phone(rng: random.Random) -> str:
    digits = [rng.choice("0") + rng.choice("1234567")] + [f"{rng.randrange(100):02d}" for _ in range(4)]
    sep = rng.choice([" ", ".", "", "-"])
    s = sep.join(digits)
    return "+33 " + s[1:] if rng.random() < 0.1 else s


def _nir(rng: random.Random, p: Person, birth: date) -> str:
    parts = [
        "2" if p.female else "1", f"{birth.year % 100:02d}", f"{birth.month:02d}",
        f"{rng.randrange(1, 96):02d}", f"{rng.randrange(1, 999):03d}", f"{rng.randrange(1, 999):03d}",
        f"{rng.randrange(1, 97):02d}",
    ]  # fmt: skip
    return (" " if rng.random() < 0.6 else "").join(parts)


def new_patient(rng: random.Random) -> Patient:
    person = _person(rng)
    birth = date(1925, 1, 1) + timedelta(days=rng.randrange(0, 365 * 95))
    city, postcode = rng.choice(V.CITIES)
    relative = _person(rng)
    hosp = rng.choice(V.HOSPITALS).format(city=rng.choice(V.CITIES)[0])
    return Patient(
        person=person, birth=birth, city=city, postcode=postcode,
        street=f"{rng.randrange(1, 180)} {rng.choice(V.STREET_TYPES)} {rng.choice(V.STREET_NAMES)}",
        phone=_phone(rng), ipp=str(rng.randrange(10**7, 10**10)), nir=_nir(rng, person, birth),
        profession=rng.choice(V.PROFESSIONS), relative=relative,
        relation=rng.choice(V.RELATIONS_F if relative.female else V.RELATIONS_M),
        gp=_person(rng), hospital=hosp, service=rng.choice(V.SERVICES),
    )  # fmt: skip


def fmt_date(rng: random.Random, d: date) -> str:
    k = rng.randrange(9)
    if k == 0:
        return f"{d.day:02d}/{d.month:02d}/{d.year}"
    if k == 1:
        return f"{d.day}/{d.month}/{d.year % 100:02d}"
    if k == 2:
        return f"{d.day:02d}.{d.month:02d}.{d.year}"
    if k == 3:
        return f"{d.day} {V.MONTHS[d.month - 1]} {d.year}"
    if k == 4:
        return f"{'1er' if d.day == 1 else d.day} {V.MONTHS[d.month - 1]}"
    if k == 5:
        return f"{d.year}-{d.month:02d}-{d.day:02d}"
    if k == 6:
        return f"{d.day:02d}-{d.month:02d}-{d.year}"
    if k == 7:
        return f"{V.MONTHS[d.month - 1]} {d.year}"
    return f"{d.day:02d}/{d.month:02d}"


def _name(rng: random.Random, p: Person, title: bool = True) -> tuple[str, str, str]:
    """(prefix outside the span, the name, suffix) in one of several styles."""
    k = rng.randrange(6)
    civ = ("Mme " if p.female else "M. ") if title and rng.random() < 0.7 else ""
    if k == 0:
        return civ, f"{p.first} {p.last}", ""
    if k == 1:
        return civ, f"{p.last.upper()} {p.first}", ""
    if k == 2:
        return civ, f"{p.first[0]}. {p.last}", ""
    if k == 3:
        return civ, p.last, ""
    if k == 4:
        return civ, f"{p.last} {p.first}", ""
    return civ, f"{p.first} {p.last.upper()}", ""


def _add_name(b: _Builder, rng: random.Random, p: Person, label: Label, title: bool = True) -> None:
    pre, name, post = _name(rng, p, title)
    b.text(pre).phi(name, label).text(post)


def _doctor(b: _Builder, rng: random.Random, p: Person) -> None:
    b.text(rng.choice(["Dr ", "Dr. ", "Docteur ", "Pr ", "Professeur "]))
    b.phi(rng.choice([f"{p.first} {p.last}", p.last, f"{p.first[0]}. {p.last}", p.last.upper()]), Label.STAFF)


def _ascii(s: str) -> str:
    return unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode().lower().replace("'", "")


def _age(d: date, birth: date) -> int:
    return d.year - birth.year - ((d.month, d.day) < (birth.month, birth.day))


def _header(b: _Builder, rng: random.Random, pt: Patient, when: date, staff: Person) -> None:
    b.phi(pt.hospital, Label.HOSPITAL).text("\nService de " + pt.service + "\n")
    if rng.random() < 0.6:
        b.text(rng.choice(["Secrétariat : ", "Tél. : ", "Tel : "])).phi(_phone(rng), Label.PHONE).text("\n")
    if rng.random() < 0.3:
        b.text("Fax : ").phi(_phone(rng), Label.FAX).text("\n")
    if rng.random() < 0.3:
        local = _ascii(f"{staff.first[0]}.{staff.last}".replace(" ", ""))
        domain = rng.choice(["chu-", "ch-", "aphp.", "clinique-"]) + _ascii(pt.city.split("-")[0])
        email = f"{local}@{domain}.fr"
        b.text("Courriel : ").phi(email, Label.EMAIL).text("\n")
    b.text("\n")
    b.text(rng.choice(["Patient(e) : ", "Nom : ", "Patient : ", ""]))
    _add_name(b, rng, pt.person, Label.PATIENT)
    b.text(rng.choice([", né(e) le ", "\nDate de naissance : ", " - DDN : ", " (né le "]))
    b.phi(fmt_date(rng, pt.birth), Label.BIRTH_DATE)
    b.text(")\n" if b.parts[-2].startswith(" (") else "\n")
    if rng.random() < 0.8:
        b.text(rng.choice(["IPP : ", "N° IPP ", "IPP: ", "Identifiant patient : "])).phi(
            pt.ipp, Label.ID_PATIENT
        )
        b.text(rng.choice(["  ", "\n", " - "]))
    if rng.random() < 0.5:
        nda = pt.visits[-1] if pt.visits else str(rng.randrange(10**8, 10**9))
        b.text(rng.choice(["NDA : ", "N° de séjour : ", "Venue n° "])).phi(nda, Label.ID_VISIT).text("\n")
    if rng.random() < 0.35:
        b.text(rng.choice(["NIR : ", "N° SS : ", "N° de sécurité sociale : "])).phi(
            pt.nir, Label.ID_SSN
        ).text("\n")
    if rng.random() < 0.5:
        b.text("Adresse : ").phi(pt.street, Label.STREET).text(", ").phi(pt.postcode, Label.POSTCODE).text(
            " "
        )
        b.phi(pt.city, Label.CITY).text("\n")
    if rng.random() < 0.4:
        b.text("Téléphone : ").phi(pt.phone, Label.PHONE).text("\n")
    b.text("\n")
    del when


def _hospitalisation(b: _Builder, rng: random.Random, pt: Patient, when: date, staff: Person) -> None:
    out = when + timedelta(days=rng.randrange(1, 20))
    b.text("COMPTE-RENDU D'HOSPITALISATION\n\n")
    b.text(rng.choice(["Hospitalisation du ", "Séjour du ", "Dates du séjour : du "]))
    b.phi(fmt_date(rng, when), Label.DATE).text(" au ").phi(fmt_date(rng, out), Label.DATE).text("\n\n")
    b.text(rng.choice(["Motif d'hospitalisation : ", "Motif : "])).text(rng.choice(V.DIAGNOSES) + ".\n\n")
    b.text("Histoire de la maladie : ")
    _add_name(b, rng, pt.person, Label.PATIENT)
    b.text(", ").phi(f"{_age(when, pt.birth)} ans", Label.AGE)
    b.text(rng.choice([", ", ", ancien ", ", "]) + "").phi(pt.profession, Label.PROFESSION)
    b.text(rng.choice([", vivant à ", ", domicilié à ", ", habitant "])).phi(pt.city, Label.CITY)
    b.text(", adressé(e) par son médecin traitant le ")
    _doctor(b, rng, pt.gp)
    b.text(" pour " + rng.choice(V.DIAGNOSES) + ". ")
    b.text("Antécédent d'hospitalisation au ").phi(
        rng.choice(V.HOSPITALS).format(city=rng.choice(V.CITIES)[0]), Label.HOSPITAL
    )
    b.text(" en ").phi(str(when.year - rng.randrange(1, 15)), Label.DATE).text(".\n")
    b.text("Mode de vie : vit avec son ").text(pt.relation).text(" ")
    _add_name(b, rng, pt.relative, Label.RELATIVE, title=False)
    b.text(rng.choice([" (joignable au ", " (tél. "])).phi(_phone(rng), Label.PHONE).text(").\n\n")
    b.text("Évolution : favorable sous traitement. Scanner réalisé le ").phi(
        fmt_date(rng, when + timedelta(days=1)), Label.DATE
    ).text(". Avis du ")
    _doctor(b, rng, _person(rng))
    b.text(" (" + rng.choice(V.SERVICES) + ").\n\n")
    b.text("Traitement de sortie :\n- " + rng.choice(V.DRUGS) + "\n- " + rng.choice(V.DRUGS) + "\n\n")
    b.text("Rendez-vous de contrôle le ").phi(fmt_date(rng, out + timedelta(days=30)), Label.DATE)
    b.text(" avec le ")
    _doctor(b, rng, staff)
    b.text(".\n")


def _lettre(b: _Builder, rng: random.Random, pt: Patient, when: date, staff: Person) -> None:
    b.phi(pt.city, Label.CITY).text(", le ").phi(fmt_date(rng, when), Label.DATE).text("\n\n")
    b.text("LETTRE DE LIAISON\n\nCher confrère,\n\n")
    b.text("Je vous adresse ")
    _add_name(b, rng, pt.person, Label.PATIENT)
    b.text(", ").phi(f"{_age(when, pt.birth)} ans", Label.AGE).text(", que j'ai vu(e) en consultation le ")
    b.phi(fmt_date(rng, when), Label.DATE).text(" pour " + rng.choice(V.DIAGNOSES) + ".\n")
    b.text("La personne de confiance est son ").text(pt.relation).text(", ")
    _add_name(b, rng, pt.relative, Label.RELATIVE)
    b.text(", ").phi(pt.street, Label.STREET).text(" ").phi(pt.postcode, Label.POSTCODE).text(" ").phi(
        pt.city, Label.CITY
    )
    b.text(".\nJe reste à votre disposition.\n\nBien confraternellement,\n\n")
    _doctor(b, rng, staff)
    if rng.random() < 0.5:
        b.text("\nRPPS ").phi(str(rng.randrange(10**10, 10**11)), Label.ID_STAFF)
    b.text("\nCopie : ")
    _doctor(b, rng, pt.gp)
    b.text(", ").phi(pt.city, Label.CITY).text("\n")


def _ordonnance(b: _Builder, rng: random.Random, pt: Patient, when: date, staff: Person) -> None:
    b.text("ORDONNANCE\n\n")
    _doctor(b, rng, staff)
    b.text("\nN° RPPS : ").phi(str(rng.randrange(10**10, 10**11)), Label.ID_STAFF).text("\n")
    b.text("Le ").phi(fmt_date(rng, when), Label.DATE).text("\n\n")
    _add_name(b, rng, pt.person, Label.PATIENT)
    b.text(rng.choice([", ", " - "])).phi(f"{_age(when, pt.birth)} ans", Label.AGE)
    b.text(rng.choice([", poids 72 kg\n\n", "\n\n"]))
    for _ in range(rng.randrange(1, 4)):
        b.text(
            rng.choice(V.DRUGS) + " : 1 cp matin et soir pendant " + str(rng.randrange(5, 30)) + " jours\n"
        )
    b.text("\nÀ renouveler " + str(rng.randrange(1, 4)) + " fois.\n")


def _operatoire(b: _Builder, rng: random.Random, pt: Patient, when: date, staff: Person) -> None:
    b.text("COMPTE-RENDU OPÉRATOIRE\n\nDate de l'intervention : ").phi(fmt_date(rng, when), Label.DATE)
    b.text("\nOpérateur : ")
    _doctor(b, rng, staff)
    b.text("\nAide : ")
    _doctor(b, rng, _person(rng))
    b.text("\nAnesthésiste : ")
    _doctor(b, rng, _person(rng))
    b.text("\nIBODE : ")
    _add_name(b, rng, _person(rng), Label.STAFF)
    b.text("\n\nPatient(e) : ")
    _add_name(b, rng, pt.person, Label.PATIENT)
    b.text(", ").phi(f"{_age(when, pt.birth)} ans", Label.AGE).text(".\n")
    b.text("Indication : " + rng.choice(V.DIAGNOSES) + ".\nInstallation en décubitus dorsal. ")
    b.text("Suites simples. Sortie prévue le ").phi(fmt_date(rng, when + timedelta(days=3)), Label.DATE).text(
        ".\n"
    )


_KINDS = {
    "hospitalisation": _hospitalisation,
    "lettre": _lettre,
    "ordonnance": _ordonnance,
    "operatoire": _operatoire,
}


def _note(rng: random.Random, pt: Patient, when: date, kind: str, doc_id: str) -> Document:
    b = _Builder()
    staff = _person(rng)
    _header(b, rng, pt, when, staff)
    _KINDS[kind](b, rng, pt, when, staff)
    return b.build(doc_id, "fr")


def generate_notes(n: int, seed: int = 0, language: str = "fr") -> list[Document]:
    """``n`` synthetic notes of independent invented patients, with exact gold spans."""
    if language != "fr":
        raise ValueError("only French synthetic notes are implemented")
    rng = random.Random(seed)
    docs = []
    for i in range(n):
        pt = new_patient(rng)
        when = date(2015, 1, 1) + timedelta(days=rng.randrange(0, 365 * 10))
        docs.append(_note(rng, pt, when, rng.choice(list(_KINDS)), f"synth-{seed}-{i}"))
    return docs


def generate_patient_series(
    n_patients: int, notes_per_patient: int = 3, seed: int = 0, language: str = "fr"
) -> list[list[Document]]:
    """For each invented patient, a chronological series of notes that agree on their identity."""
    if language != "fr":
        raise ValueError("only French synthetic notes are implemented")
    rng = random.Random(seed)
    out = []
    for p in range(n_patients):
        pt = new_patient(rng)
        when = date(2015, 1, 1) + timedelta(days=rng.randrange(0, 365 * 8))
        series = []
        for k in range(notes_per_patient):
            pt.visits.append(str(rng.randrange(10**8, 10**9)))
            kind = "hospitalisation" if k == 0 else rng.choice(list(_KINDS))
            series.append(_note(rng, pt, when, kind, f"synth-{seed}-p{p}-{k}"))
            when += timedelta(days=rng.randrange(7, 200))
        out.append(series)
    return out
