"""A toy annotated corpus over a small word table: names clustered in the embedding space (so a
name's nearest neighbours are names, as a PHI piece's are in the real table), context words
scattered. Seeded; fast enough for unit tests."""

from __future__ import annotations

import numpy as np

from deid.lab.share.units import WordUnits
from deid.labels import Label
from deid.spans import Document, Span

CONTEXT = [
    "le",
    "docteur",
    "voit",
    "patient",
    "hier",
    "avec",
    "sa",
    "fille",
    "à",
    "la",
    "clinique",
    "de",
    "pour",
    "une",
    "douleur",
    "thoracique",
    "traitement",
    "par",
    "aspirine",
    "est",
    "arrivé",
    "ce",
    "matin",
    "madame",
    "monsieur",
    "consulte",
    "aujourd'hui",
    "sans",
    "fièvre",
]
TEMPLATES = (
    ("Le docteur ", Label.STAFF, " voit le patient ", Label.PATIENT, " hier."),
    ("Madame ", Label.PATIENT, " est arrivée avec sa fille ", Label.RELATIVE, " ce matin."),
    ("Monsieur ", Label.PATIENT, " consulte pour une douleur thoracique, traitement par aspirine."),
    ("Le patient est arrivé sans fièvre.",),
)


def toy_names(rng: np.random.Generator, n: int) -> list[str]:
    syll = ["ka", "lo", "mi", "zu", "re", "ta", "no", "vi", "sa", "du", "be", "ro", "gi", "fe"]
    names: set[str] = set()
    while len(names) < n:
        names.add("".join(rng.choice(syll, size=3)))
    return sorted(names)


def toy_units(seed: int = 0, n_names: int = 120, dim: int = 16) -> tuple[WordUnits, list[str]]:
    rng = np.random.default_rng(seed)
    names = toy_names(rng, n_names)
    words = [*CONTEXT, "arrivée", "l", "d", *names]
    emb = rng.normal(size=(len(words) + 1, dim)).astype(np.float32)
    centre = rng.normal(size=dim).astype(np.float32) * 1.5
    first_name = len(words) - len(names) + 1
    emb[first_name:] = centre + 0.8 * rng.normal(size=(len(names), dim))
    return WordUnits(words, emb), names


def toy_corpus(names: list[str], n_docs: int, seed: int = 1, annotated: bool = True) -> list[Document]:
    rng = np.random.default_rng(seed)
    docs = []
    for d in range(n_docs):
        text, spans = "", []
        for _ in range(3):
            for part in TEMPLATES[int(rng.integers(len(TEMPLATES)))]:
                if isinstance(part, Label):
                    name = str(rng.choice(names)).capitalize()
                    spans.append(Span(len(text), len(text) + len(name), part, "gold:toy"))
                    text += name
                else:
                    text += part
            text += "\n"
        docs.append(Document(f"toy{d}", text, "fr", tuple(spans) if annotated else ()))
    return docs
