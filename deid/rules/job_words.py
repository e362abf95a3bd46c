"""Words that name a job, per language, for the profession rule (``deid.rules.professions``).

General vocabulary, not words read off a corpus. Two lists per language:

- **trades** (``TRADES``): jobs nobody in a care team holds ("teacher", "bricklayer", "cariste",
  "albañil"). Beside a patient's cue (an age, "is a") or before an employer ("at Duke Energy"),
  they are the patient's or a relative's job;
- **care jobs** (``CARE_JOBS``): jobs a note's own staff hold ("nurse", "pharmacist", "CNA"): a job
  only after a cue that describes a patient or a relative ("Son Omar is a cardiologist", "mom (29,
  CNA)", "46-year-old certified nursing assistant"), never before an employer alone ("the nurse
  at St Mary's" is staff).

English jobs are named by their last word ("primary school teacher"), French and Spanish ones by
their first ("maestra de primaria", "livreur à vélo"): the rule looks for the word on that side.
"""

from __future__ import annotations

TRADES: dict[str, frozenset[str]] = {
    "en": frozenset({
        "teacher", "teachers", "driver", "drivers", "engineer", "chef", "cook", "barista", "bricklayer",
        "scaffolder", "dispatcher", "mechanic", "electrician", "plumber", "carpenter", "joiner",
        "farmer", "labourer", "laborer", "builder", "welder", "cashier", "accountant", "lawyer",
        "solicitor", "attorney", "hairdresser", "barber", "waiter", "waitress", "bartender",
        "developer", "programmer", "hygienist", "firefighter", "fireman", "miner", "roofer",
        "plasterer", "decorator", "gardener", "landscaper", "courier", "postman", "postwoman",
        "clerk", "salesman", "saleswoman", "salesperson", "architect", "journalist", "librarian",
        "lecturer", "analyst", "technician", "machinist", "fitter", "conductor", "supervisor",
        "foreman", "janitor", "custodian", "cleaner", "housekeeper", "nanny", "childminder",
        "student", "undergraduate", "apprentice", "trainee", "butcher", "fisherman", "trucker",
        "secretary", "receptionist", "banker", "broker", "realtor", "estate agent", "designer",
        "photographer", "musician", "artist", "actor", "actress", "writer", "editor", "scientist",
        "researcher", "chemist", "biologist", "physicist", "surveyor", "pilot", "steward",
        "stewardess", "sailor", "soldier", "officer", "policeman", "policewoman", "guard",
        "operator", "forklift", "warehouseman", "shelf-stacker", "stocker", "packer", "bookkeeper",
        "administrator", "executive", "entrepreneur", "tiler", "glazier", "upholsterer",
        "tailor", "seamstress", "jeweller", "jeweler", "baker", "florist", "vet", "veterinarian",
        "dentist", "optician", "optometrist", "coach", "instructor", "tutor", "professor",
    }),
    "fr": frozenset({
        "cariste", "agriculteur", "agricultrice", "livreur", "livreuse", "chauffeur", "chauffeuse",
        "chauffeur-livreur", "maçon", "macon", "boulanger", "boulangère", "cuisinier", "cuisinière",
        "serveur", "serveuse", "vendeur", "vendeuse", "caissier", "caissière", "ouvrier", "ouvrière",
        "enseignant", "enseignante", "instituteur", "institutrice", "secrétaire", "comptable",
        "ingénieur", "ingénieure", "informaticien", "informaticienne", "électricien",
        "électricienne", "plombier", "menuisier", "charpentier", "mécanicien", "mécanicienne",
        "conducteur", "conductrice", "coiffeur", "coiffeuse", "moniteur", "monitrice", "éducateur",
        "éducatrice", "artisan", "commerçant", "commerçante", "couturière", "couturier", "soudeur",
        "soudeuse", "cheminot", "plâtrier", "carreleur", "couvreur", "jardinier", "jardinière",
        "paysagiste", "pâtissier", "pâtissière", "boucher", "bouchère", "charcutier", "pompier",
        "policier", "policière", "gendarme", "avocat", "avocate", "notaire", "architecte",
        "journaliste", "étudiant", "étudiante", "apprenti", "apprentie", "facteur", "factrice",
        "magasinier", "manutentionnaire", "routier", "viticulteur", "viticultrice", "éleveur",
        "éleveuse", "pêcheur", "mineur", "peintre", "carrossier", "fleuriste", "bibliothécaire",
        "standardiste", "hôtesse", "steward", "pilote", "militaire", "technicien", "technicienne",
        "employé", "employée", "cadre", "gérant", "gérante", "vétérinaire", "dentiste",
    }),
    "es": frozenset({
        "albañil", "maquinista", "mecánico", "mecánica", "conductor", "conductora", "camionero",
        "camionera", "taxista", "agricultor", "agricultora", "ganadero", "ganadera", "pescador",
        "pescadora", "minero", "minera", "maestro", "maestra", "profesor", "profesora",
        "administrativo", "administrativa", "dependiente", "dependienta", "cajero", "cajera",
        "camarero", "camarera", "cocinero", "cocinera", "panadero", "panadera", "carpintero",
        "carpintera", "electricista", "fontanero", "fontanera", "pintor", "pintora", "peluquero",
        "peluquera", "limpiadora", "limpiador", "ingeniero", "ingeniera", "abogado", "abogada",
        "contable", "informático", "informática", "policía", "bombero", "bombera", "militar",
        "soldador", "soldadora", "jardinero", "jardinera", "costurera", "comercial", "vendedor",
        "vendedora", "repartidor", "repartidora", "transportista", "funcionario", "funcionaria",
        "empleado", "empleada", "estudiante", "carnicero", "carnicera", "pastor", "barrendero",
        "portero", "portera", "conserje", "secretaria", "secretario", "arquitecto", "arquitecta",
        "periodista", "veterinario", "veterinaria", "dentista", "encofrador", "soldado",
    }),
}

CARE_JOBS: dict[str, frozenset[str]] = {
    "en": frozenset({
        "nurse", "cna", "lpn", "lvn", "rn", "emt", "paramedic", "pharmacist", "therapist",
        "physiotherapist", "physio", "aide", "assistant", "doctor", "physician",
        "surgeon", "gp", "cardiologist", "midwife", "dietitian", "psychologist", "counsellor",
        "counselor", "radiographer", "phlebotomist", "sonographer", "worker", "consultant", "manager",
    }),
    "fr": frozenset({
        "infirmier", "infirmière", "aide-soignant", "aide-soignante", "médecin", "pharmacien",
        "pharmacienne", "kinésithérapeute", "kiné", "sage-femme", "ambulancier", "ambulancière",
        "auxiliaire", "psychologue", "assistante",
    }),
    "es": frozenset({
        "enfermero", "enfermera", "auxiliar", "médico", "médica", "farmacéutico", "farmacéutica",
        "fisioterapeuta", "celador", "celadora", "técnico", "técnica",
        "psicólogo", "psicóloga", "matrona",
    }),
}


def is_job(word: str, language: str, *, care: bool) -> bool:
    """Whether ``word`` names a job in ``language``: a trade, or (``care``) a care job too."""
    w = word.lower()
    if w in TRADES.get(language, frozenset()):
        return True
    return care and w in CARE_JOBS.get(language, frozenset())
