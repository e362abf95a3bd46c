"""The one table mapping each corpus' labels onto the project's label set.

``None`` means the corpus label is not PHI for this project and is dropped on reading:
- ECHR ``QUANTITY``, ``CURRENCY``, ``TIME``, ``NATIONALITY``, ``ETHNIC_CATEGORY`` (legal-text
  categories that are not PHI of a clinical note).
"""

from __future__ import annotations

from deid.labels import Label

MEDDOCAN: dict[str, Label | None] = {
    "NOMBRE_SUJETO_ASISTENCIA": Label.PATIENT,
    "NOMBRE_PERSONAL_SANITARIO": Label.STAFF,
    "FAMILIARES_SUJETO_ASISTENCIA": Label.RELATIVE,
    "FECHAS": Label.DATE,
    "EDAD_SUJETO_ASISTENCIA": Label.AGE,
    # a quasi-identifier the product detects and reports but keeps by default (``KEPT_BY_DEFAULT``)
    "SEXO_SUJETO_ASISTENCIA": Label.SEX,
    "TERRITORIO": Label.LOCATION,
    "CALLE": Label.STREET,
    "PAIS": Label.COUNTRY,
    "HOSPITAL": Label.HOSPITAL,
    "CENTRO_SALUD": Label.HOSPITAL,
    "INSTITUCION": Label.ORG,
    "NUMERO_TELEFONO": Label.PHONE,
    "NUMERO_FAX": Label.FAX,
    "CORREO_ELECTRONICO": Label.EMAIL,
    "URL_WEB": Label.URL,
    "DIREC_PROT_INTERNET": Label.IP,
    "ID_SUJETO_ASISTENCIA": Label.ID_PATIENT,
    "ID_CONTACTO_ASISTENCIAL": Label.ID_VISIT,
    "ID_ASEGURAMIENTO": Label.ID_SSN,
    "ID_TITULACION_PERSONAL_SANITARIO": Label.ID_STAFF,
    "ID_EMPLEO_PERSONAL_SANITARIO": Label.ID_STAFF,
    "IDENTIF_VEHICULOS_NRSERIE_PROD": Label.ID,
    "IDENTIF_DISPOSITIVOS_NRSERIE": Label.ID,
    "NUMERO_BENEF_PLAN_SALUD": Label.ID_SSN,
    "OTRO_NUMERO_IDENTIF": Label.ID,
    "PROFESION": Label.PROFESSION,
    "OTROS_SUJETO_ASISTENCIA": Label.OTHER,
}

# eds-pseudo annotates first and last names as separate spans (PRENOM, NOM); the reader joins a
# PRENOM and a NOM separated only by spaces into one PERSON span, the convention of the other
# corpora and of substitution (a full name is one mention).
EDS_PSEUDO: dict[str, Label | None] = {
    "NOM": Label.PERSON,
    "PRENOM": Label.PERSON,
    "DATE": Label.DATE,
    "DATE_NAISSANCE": Label.BIRTH_DATE,
    "ADRESSE": Label.STREET,
    "ADDRESSE": Label.STREET,  # one typo in templates.txt
    "ZIP": Label.POSTCODE,
    "VILLE": Label.CITY,
    "TEL": Label.PHONE,
    "MAIL": Label.EMAIL,
    "HOPITAL": Label.HOSPITAL,
    "IPP": Label.ID_PATIENT,
    "NDA": Label.ID_VISIT,
    "SECU": Label.ID_SSN,
}

ECHR: dict[str, Label | None] = {
    "PER": Label.PERSON,
    "LEGAL_PROFESSIONAL": Label.PERSON,
    "DATE": Label.DATE,
    "DATETIME": Label.DATE,
    "LOC": Label.LOCATION,
    "ORG": Label.ORG,
    "CODE": Label.ID,
    "QUANTITY": None,
    "CURRENCY": None,
    "TIME": None,
    "NATIONALITY": None,
    "ETHNIC_CATEGORY": None,
    # the projected variants (``projected_all``, ``projected_reviewed``) carry the English TAB
    # corpus's scheme: demographic traits (job, nationality) and miscellaneous quasi-identifiers
    "DEM": None,
    "MISC": None,
}

TABLES: dict[str, dict[str, Label | None]] = {
    "meddocan": MEDDOCAN,
    "eds-pseudo": EDS_PSEUDO,
    "echr": ECHR,
}


# Where several corpus labels share one project label, the corpus label a prediction is written
# back as (``export_label``): the most frequent one in the corpus's train split.
_EXPORT_PREFERENCE: dict[str, dict[Label, str]] = {
    "meddocan": {
        Label.HOSPITAL: "HOSPITAL",
        Label.ID_STAFF: "ID_TITULACION_PERSONAL_SANITARIO",
        Label.ID_SSN: "ID_ASEGURAMIENTO",
        Label.ID: "OTRO_NUMERO_IDENTIF",
    },
    "eds-pseudo": {Label.PERSON: "NOM", Label.STREET: "ADRESSE"},
    "echr": {Label.PERSON: "PER", Label.DATE: "DATE"},
}

# Coarser names a corpus may use for a project label, in order of preference (a birth date is a
# date in MEDDOCAN, a city a territory); the evaluation's scheme projection reads the same table.
COARSER: dict[Label, tuple[Label, ...]] = {
    Label.PATIENT: (Label.PERSON,),
    Label.STAFF: (Label.PERSON,),
    Label.RELATIVE: (Label.PERSON,),
    Label.BIRTH_DATE: (Label.DATE,),
    Label.HOSPITAL: (Label.ORG,),
    Label.ORG: (Label.HOSPITAL,),
    Label.STREET: (Label.LOCATION,),
    Label.CITY: (Label.LOCATION,),
    Label.POSTCODE: (Label.LOCATION,),
    Label.COUNTRY: (Label.LOCATION,),
}
# Writing a corpus: also a role-less person as a patient and any identifier as a generic one.
_EXPORT_COARSER: dict[Label, tuple[Label, ...]] = {
    **COARSER,
    Label.PERSON: (Label.PATIENT,),
    Label.ID_NATIONAL: (Label.ID,),
    Label.IBAN: (Label.ID,),
}


def export_label(corpus: str, label: Label) -> str:
    """The corpus's own name for a predicted project label, as a system submitting to that
    corpus's shared task would write it (a fixed table, independent of any gold): the label's
    corpus name, else that of a coarser project label, else the project label itself (which then
    matches nothing)."""
    table = TABLES[corpus]
    preferred = _EXPORT_PREFERENCE.get(corpus, {})
    for lab in (label, *_EXPORT_COARSER.get(label, ())):
        if lab in preferred:
            return preferred[lab]
        names = [name for name, mapped in table.items() if mapped is lab]
        if names:
            return names[0]
    return label.value


class UnknownCorpusLabel(ValueError):
    """A corpus label that the mapping table does not know: fail loudly, never drop silently."""


def map_label(corpus: str, label: str) -> Label | None:
    table = TABLES[corpus]
    if label not in table:
        raise UnknownCorpusLabel(f"label {label!r} of corpus {corpus!r} is not in the mapping table")
    return table[label]
