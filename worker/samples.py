"""Hand-written, entirely fictitious French clinical notes for the embedded default, the tests and
the benchmark. Every identity below is invented; each patient keeps the same identity, phone,
e-mail and doctor across notes, so consistency of the surrogates is visible in the output.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from deid.events import RawNote


@dataclass(frozen=True)
class Patient:
    patient_id: str
    first: str
    last: str
    birth: str
    phone: str
    email: str
    city: str
    street: str
    doctor: str
    ipp: str


PATIENTS = (
    Patient("IPP-0042117", "Jeanne", "Lefebvre", "14/02/1956", "06 12 48 93 27",
            "jeanne.lefebvre56@orange.fr", "Villeurbanne", "12 rue des Tanneurs", "Dr Olivier Marchand",
            "0042117"),
    Patient("IPP-0078350", "Karim", "Benali", "03/09/1971", "07 81 22 64 09", "k.benali@laposte.net",
            "Vénissieux", "5 avenue Jean Jaurès", "Dr Sophie Garnier", "0078350"),
    Patient("IPP-0101964", "Marie-Claire", "Dubreuil", "27/11/1948", "04 78 55 16 30",
            "mc.dubreuil@free.fr", "Caluire-et-Cuire", "38 chemin de Vassieux", "Dr Paul Rivière", "0101964"),
    Patient("IPP-0123508", "Théo", "Nguyen", "09/06/1989", "06 45 07 71 88", "theo.nguyen89@gmail.com",
            "Bron", "7 allée des Cerisiers", "Dr Claire Morel", "0123508"),
)

_TEMPLATES = (
    ("compte_rendu_hospitalisation",
     "COMPTE RENDU D'HOSPITALISATION\n"
     "Patient : {first} {last}, né(e) le {birth}, IPP {ipp}.\n"
     "Adresse : {street}, 69000 {city}. Téléphone : {phone}.\n"
     "Hospitalisé(e) du {d0} au {d1} dans le service de cardiologie pour une douleur thoracique "
     "atypique. ECG sans anomalie, troponine négative à deux reprises. Sortie à domicile avec un "
     "traitement par aspirine 75 mg. Suivi par le {doctor}, à revoir dans un mois.\n"),
    ("consultation",
     "Consultation du {d0}.\n"
     "Mme/M. {last} ({first}), {age} ans, revu(e) en consultation de suivi. Pas de récidive des "
     "symptômes depuis la dernière visite. Tension artérielle 132/84 mmHg. Le patient signale un "
     "déménagement prévu à {city}. Contact : {phone}, {email}.\n"
     "Conclusion : poursuite du traitement. Courrier adressé au {doctor}.\n"),
    ("lettre_de_sortie",
     "Cher confrère,\n"
     "J'ai vu ce jour, {d1}, votre patient(e) {first} {last} (né(e) le {birth}) pour un bilan "
     "pré-opératoire. Antécédents : hypertension artérielle, appendicectomie en 1998. Examen clinique "
     "normal. Bilan biologique du {d0} sans particularité. Intervention programmée à l'hôpital "
     "Édouard Herriot. La famille peut être jointe au {phone}.\n"
     "Bien confraternellement, {doctor}\n"),
    ("prescription",
     "Ordonnance du {d1} pour {first} {last}, {street}, {city}.\n"
     "Bisoprolol 2,5 mg : un comprimé le matin pendant trois mois. Contrôle biologique (ionogramme, "
     "créatinine) dans quinze jours. Adresse électronique pour les résultats : {email}.\n"
     "{doctor}\n"),
)


def _age(birth: str, on: date) -> int:
    d, m, y = (int(x) for x in birth.split("/"))
    return on.year - y - ((on.month, on.day) < (m, d))


def sample_notes(n: int, patients: int = 3, start: date = date(2024, 3, 4)) -> list[RawNote]:
    """``n`` notes cycling over the first ``patients`` patients and the note templates."""
    people = PATIENTS[: max(1, min(patients, len(PATIENTS)))]
    notes = []
    for i in range(n):
        p = people[i % len(people)]
        visit = i // len(people)
        note_type, template = _TEMPLATES[visit % len(_TEMPLATES)]
        d0 = start + timedelta(days=9 * visit + 2 * (i % len(people)))
        d1 = d0 + timedelta(days=3)
        text = template.format(first=p.first, last=p.last, birth=p.birth, ipp=p.ipp, street=p.street,
                               city=p.city, phone=p.phone, email=p.email, doctor=p.doctor,
                               age=_age(p.birth, d0), d0=d0.strftime("%d/%m/%Y"), d1=d1.strftime("%d/%m/%Y"))
        notes.append(RawNote(event_id=f"demo-{i:05d}", patient_id=p.patient_id, document_id=f"DOC-{i:05d}",
                             note_type=note_type, language="fr", document_date=d1, text=text,
                             source={"system": "deid-demo"}))
    return notes


def phi_values(patient: Patient) -> list[str]:
    """Identifying strings planted in a patient's notes that no surrogate can plausibly equal by
    chance (for leak checks in tests). Single first or last names, cities and dates are left out:
    a random surrogate may legitimately be another sample patient's name or city, and a noisy
    date release may land on the true date."""
    return [f"{patient.first} {patient.last}", f"{patient.last} ({patient.first})", patient.phone,
            patient.email, patient.street, patient.ipp, patient.doctor.removeprefix("Dr ")]


def patient_by_id(patient_id: str) -> Patient:
    return next(p for p in PATIENTS if p.patient_id == patient_id)
