"""Invented-data vocabularies for synthetic notes (common French names and places; no real person)."""

from __future__ import annotations


def _names(s: str) -> tuple[str, ...]:
    return tuple(s.split())


FIRST_M = _names(
    "Jean Pierre Michel Philippe Alain Nicolas Christophe Patrick Daniel Bernard Eric Laurent "
    "Frédéric Thierry Stéphane Pascal David Julien Olivier Sébastien Thomas Antoine Maxime "
    "Guillaume Mathieu Romain Kevin Hugo Lucas Louis Gabriel Arthur Raphaël Jules Léo Adam Noah "
    "Yanis Mohamed Karim Mehdi Rachid Jérôme Franck Yves Gérard René Marcel André Jacques Serge "
    "Hervé Gilles Didier Bruno François-Xavier Jean-Luc Jean-Marc Pierre-Yves Jean-Baptiste Étienne"
)
FIRST_F = _names(
    "Marie Nathalie Isabelle Sylvie Catherine Françoise Christine Monique Valérie Sandrine "
    "Véronique Sophie Céline Aurélie Julie Camille Léa Manon Chloé Emma Inès Jade Louise Alice "
    "Lina Zoé Anne Martine Nicole Jacqueline Brigitte Chantal Josiane Danielle Hélène Élise "
    "Amandine Laetitia Émilie Audrey Pauline Charlotte Margaux Fatima Samia Nadia Yasmine Khadija "
    "Anne-Sophie Marie-Claire Marie-Thérèse Anne-Laure Geneviève Odile Agnès Bérénice Maëlle"
)
LAST = (
    *_names(
        "Martin Bernard Thomas Petit Robert Richard Durand Dubois Moreau Laurent Simon Michel Lefebvre "
        "Leroy Roux David Bertrand Morel Fournier Girard Bonnet Dupont Lambert Fontaine Rousseau "
        "Vincent Muller Lefèvre Faure André Mercier Blanc Guérin Boyer Garnier Chevalier François "
        "Legrand Gauthier Garcia Perrin Robin Clément Morin Nicolas Henry Roussel Mathieu Gautier "
        "Masson Marchand Duval Denis Dumont Marie Lemaire Noël Meyer Dufour Meunier Brun Blanchard "
        "Giraud Joly Rivière Lucas Brunet Gaillard Barbier Arnaud Martinez Gérard Roche Renard Schmitt "
        "Roy Leroux Colin Vidal Caron Picard Roger Fabre Aubert Lemoine Renaud Dumas Lacroix Olivier "
        "Philippe Bourgeois Pierre Benoît Rey Leclerc Payet Rolland Leclercq Guillaume Lecomte Lopez "
        "Jean Dupuy Guillot Hubert Berger Carpentier Sanchez Dupuis Moulin Louis Deschamps Huet Vasseur "
        "Perez Boucher Fleury Royer Klein Jacquet Adam Paris Poirier Marty Aubry Guyot Carré Charles "
        "Renault Charpentier Ménard Maillard Baron Bertin Bailly Hervé Schneider Fernandez "
        "Collet Léger Bouvier Julien Prévost Millet Perrot Daniel Cousin Germain Breton Besson "
        "Langlois Rémy Pelletier Lévêque Perrier Leblanc Barré Lebrun Marchal Weber Mallet "
        "Hamon Boulanger Jacob Monnier Michaud Rodriguez Guichard Gillet Étienne Grondin Poulain "
        "Tessier Chevallier Collin Chauvin Bouchet Gay Lemaître Bénard Maréchal Humbert "
        "Reynaud Antoine Hoarau Perret Barthélemy Cordier Pichon Lejeune Gilbert Lamy Delaunay Pasquier "
        "Carlier Laporte Benali Haddad Nguyen Tran Diallo Traoré Kone"
    ),
    *("Le Gall", "Le Roux", "Le Goff", "Da Silva", "Ben Ahmed", "De La Fontaine"),
)
CITIES = (
    ("Paris", "75013"), ("Lyon", "69003"), ("Marseille", "13005"), ("Toulouse", "31059"),
    ("Nice", "06000"), ("Nantes", "44000"), ("Strasbourg", "67000"), ("Montpellier", "34090"),
    ("Bordeaux", "33000"), ("Lille", "59000"), ("Rennes", "35000"), ("Reims", "51100"),
    ("Dijon", "21000"), ("Besançon", "25000"), ("Beaune", "21200"), ("Auxerre", "89000"),
    ("Chalon-sur-Saône", "71100"), ("Mâcon", "71000"), ("Nevers", "58000"), ("Dole", "39100"),
    ("Vesoul", "70000"), ("Belfort", "90000"), ("Montbéliard", "25200"), ("Lons-le-Saunier", "39000"),
    ("Pontarlier", "25300"), ("Sens", "89100"), ("Le Creusot", "71200"), ("Autun", "71400"),
    ("Grenoble", "38000"), ("Angers", "49000"), ("Tours", "37000"), ("Limoges", "87000"),
    ("Clermont-Ferrand", "63000"), ("Amiens", "80000"), ("Metz", "57000"), ("Nancy", "54000"),
    ("Créteil", "94000"), ("Saint-Étienne", "42000"), ("Le Mans", "72000"), ("Brest", "29200"),
    ("Poitiers", "86000"), ("Orléans", "45000"), ("Rouen", "76000"), ("Caen", "14000"),
    ("Villeneuve-d'Ascq", "59650"), ("Bourg-en-Bresse", "01000"), ("Saint-Denis", "93200"),
)  # fmt: skip
STREET_TYPES = ("rue", "avenue", "boulevard", "place", "impasse", "chemin", "allée", "route", "quai")
STREET_NAMES = (
    "de la République",
    "Victor Hugo",
    "Jean Jaurès",
    "du Général de Gaulle",
    "des Lilas",
    "Pasteur",
    "de la Gare",
    "du Moulin",
    "des Écoles",
    "de Verdun",
    "Gambetta",
    "Carnot",
    "de la Liberté",
    "du Château",
    "des Tilleuls",
    "Émile Zola",
    "de Bourgogne",
    "de Paris",
    "Saint-Martin",
    "du 8 Mai 1945",
    "Jules Ferry",
    "des Acacias",
    "de la Paix",
    "Voltaire",
)
HOSPITALS = (
    "CHU de {city}",
    "Centre Hospitalier de {city}",
    "Hôpital Saint-Louis",
    "Hôpital Européen Georges Pompidou",
    "Clinique du Parc",
    "Hôpital Henri Mondor",
    "Hôpital de la Pitié-Salpêtrière",
    "CHU Dijon Bourgogne",
    "Hôpital Jean Minjoz",
    "Clinique Sainte-Marthe",
    "Polyclinique du Val de Saône",
    "Hôpital Bicêtre",
    "Centre Hospitalier William Morey",
    "Hôpital Nord Franche-Comté",
    "Clinique de Fontaine",
    "GHU Paris Psychiatrie",
    "Hôpital privé Dijon Bourgogne",
)
SERVICES = (
    "cardiologie",
    "pneumologie",
    "néphrologie",
    "neurologie",
    "gériatrie",
    "médecine interne",
    "chirurgie digestive",
    "chirurgie orthopédique",
    "urologie",
    "gastro-entérologie",
    "oncologie médicale",
    "hématologie",
    "endocrinologie",
    "maladies infectieuses",
    "réanimation",
    "soins de suite et de réadaptation",
    "rhumatologie",
    "dermatologie",
    "psychiatrie",
)
PROFESSIONS = (
    "boulanger",
    "enseignante",
    "infirmière",
    "agriculteur",
    "maçon",
    "comptable",
    "retraité de la SNCF",
    "chauffeur routier",
    "secrétaire médicale",
    "ingénieur",
    "aide-soignante",
    "électricien",
    "coiffeuse",
    "commerçant",
    "ouvrier en usine",
    "agent d'entretien",
)
RELATIONS_F = ("épouse", "fille", "mère", "sœur", "belle-fille", "nièce", "compagne")
RELATIONS_M = ("époux", "fils", "père", "frère", "gendre", "neveu", "compagnon")
MONTHS = (
    "janvier",
    "février",
    "mars",
    "avril",
    "mai",
    "juin",
    "juillet",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
)
DIAGNOSES = (
    "une décompensation cardiaque globale",
    "une pneumopathie franche lobaire aiguë droite",
    "une pyélonéphrite aiguë",
    "un AVC ischémique sylvien gauche",
    "une embolie pulmonaire",
    "une exacerbation de BPCO",
    "une hémorragie digestive haute",
    "une fracture du col fémoral",
    "une insuffisance rénale aiguë",
    "un syndrome coronarien aigu ST+",
    "une cholécystite aiguë",
    "un sepsis à point de départ urinaire",
    "une crise d'épilepsie inaugurale",
    "un diabète de type 2 déséquilibré",
    "une anémie ferriprive",
)
DRUGS = (
    "Paracétamol 1 g",
    "Bisoprolol 2,5 mg",
    "Ramipril 5 mg",
    "Furosémide 40 mg",
    "Apixaban 5 mg",
    "Atorvastatine 40 mg",
    "Metformine 1000 mg",
    "Amoxicilline 1 g",
    "Lévothyroxine 75 µg",
    "Oméprazole 20 mg",
    "Kardégic 75 mg",
    "Tramadol 50 mg",
    "Insuline glargine 20 UI",
)
