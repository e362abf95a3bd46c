"""The project's single PHI label set and its coarse categories.

Fine labels are what substitution needs to tell apart (a street is not a city, a patient is not a
member of staff); each maps onto one coarse category of Table 1 of Tchouka, Couchot and Laiymani
(2023): PER, DATE, LOC, ORG, AGE, TEL, REF, QID, plus OTHER for quasi-identifiers that fit none.
"""

from __future__ import annotations

from enum import StrEnum


class Category(StrEnum):
    PER = "PER"
    DATE = "DATE"
    LOC = "LOC"
    ORG = "ORG"
    AGE = "AGE"
    TEL = "TEL"
    REF = "REF"  # references tied to a person: e-mail, URL, IP address
    QID = "QID"  # any identifier
    OTHER = "OTHER"


class Label(StrEnum):
    # persons
    PATIENT = "PATIENT"
    STAFF = "STAFF"
    RELATIVE = "RELATIVE"
    PERSON = "PERSON"  # a person whose role the source does not say
    # time
    DATE = "DATE"
    BIRTH_DATE = "BIRTH_DATE"
    AGE = "AGE"
    # places
    STREET = "STREET"
    CITY = "CITY"
    POSTCODE = "POSTCODE"
    COUNTRY = "COUNTRY"
    LOCATION = "LOCATION"  # region, province, other place
    # organisations
    HOSPITAL = "HOSPITAL"
    ORG = "ORG"
    # contact
    PHONE = "PHONE"
    FAX = "FAX"
    EMAIL = "EMAIL"
    URL = "URL"
    IP = "IP"
    # identifiers
    ID_PATIENT = "ID_PATIENT"  # IPP, NHC, MRN
    ID_VISIT = "ID_VISIT"  # NDA, episode / encounter number
    ID_SSN = "ID_SSN"  # NIR, NASS, social security / insurance number
    ID_NATIONAL = "ID_NATIONAL"  # DNI, NIE, passport
    ID_STAFF = "ID_STAFF"  # RPPS, colegiado number
    IBAN = "IBAN"
    ID = "ID"  # any other identifier
    # other quasi-identifiers
    PROFESSION = "PROFESSION"
    OTHER = "OTHER"
    # Added after the labels the shipped model was trained on, so that their B-/I- tag ids stay
    # where they were (``BIO_TAGS``); the shipped model predicts neither.
    SEX = "SEX"  # sex of the patient (MEDDOCAN SEXO_SUJETO_ASISTENCIA): a quasi-identifier, kept by default
    PHI = "PHI"  # a span a detector found and a post-processing check doubts: still replaced, generically

    @property
    def category(self) -> Category:
        return CATEGORY_OF[self]


CATEGORY_OF: dict[Label, Category] = {
    Label.PATIENT: Category.PER,
    Label.STAFF: Category.PER,
    Label.RELATIVE: Category.PER,
    Label.PERSON: Category.PER,
    Label.DATE: Category.DATE,
    Label.BIRTH_DATE: Category.DATE,
    Label.AGE: Category.AGE,
    Label.STREET: Category.LOC,
    Label.CITY: Category.LOC,
    Label.POSTCODE: Category.LOC,
    Label.COUNTRY: Category.LOC,
    Label.LOCATION: Category.LOC,
    Label.HOSPITAL: Category.ORG,
    Label.ORG: Category.ORG,
    Label.PHONE: Category.TEL,
    Label.FAX: Category.TEL,
    Label.EMAIL: Category.REF,
    Label.URL: Category.REF,
    Label.IP: Category.REF,
    Label.ID_PATIENT: Category.QID,
    Label.ID_VISIT: Category.QID,
    Label.ID_SSN: Category.QID,
    Label.ID_NATIONAL: Category.QID,
    Label.ID_STAFF: Category.QID,
    Label.IBAN: Category.QID,
    Label.ID: Category.QID,
    Label.PROFESSION: Category.OTHER,
    Label.OTHER: Category.OTHER,
    Label.SEX: Category.OTHER,
    Label.PHI: Category.OTHER,
}

# Quasi-identifiers that are detected and reported (and scored) but left in the text by default:
# the patient's sex carries clinical meaning and is no identifier under HIPAA Safe Harbor, yet
# MEDDOCAN annotates it and a policy may ask for it to go (``Settings.strategies = {"SEX":
# "placeholder"}``). Substitution keeps these labels' text unless a strategy is configured for
# the label itself, and reports them as kept.
KEPT_BY_DEFAULT: frozenset[Label] = frozenset({Label.SEX})

# The generic label a post-processing check gives a span it doubts instead of dropping it
# (recall first: a doubtful span is still replaced, by a generic placeholder).
DOUBTFUL: Label = Label.PHI

# Categories where the contextual model beats rules when both fire on one span with different
# tags (recall-first merge, PRIVACY.md); for every other category the rules win.
CONTEXTUAL_CATEGORIES: frozenset[Category] = frozenset({Category.PER, Category.LOC, Category.ORG})

# The tag set of the token classifier: O plus B-/I- of every fine label, in a fixed order so
# that a checkpoint's id2label is reproducible.
BIO_TAGS: tuple[str, ...] = ("O", *(f"{p}-{lab.value}" for lab in Label for p in ("B", "I")))
