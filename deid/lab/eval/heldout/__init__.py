"""Frozen internal held-out splits: documents no rule, check or checkpoint choice may look at.

Each training corpus gives up a fixed fifth of its documents, chosen by hash (the documents whose
``sha256("<key>/<doc id>/<text digest>")`` sort first), listed once in ``<key>.txt`` (doc id,
tab, the first 16 hex digits of the sha256 of the document's text) and sealed by
``MANIFEST.json`` (the sha256 of each list). The lists are the contract: ``split`` refuses a
corpus whose held-out documents are not exactly those listed (a changed file or a changed
list), so a held-out figure always means the same documents.

Rules of use (``docs/benchmarks/ner.md``): develop rules and choose checkpoints on the rest of
the train split and on dev, never on these; measure a change on dev and on held-out, and keep it
only if it helps on dev without hurting held-out.

What the held-out splits measure for the shipped model: nothing. ``e5-cont3-step621`` was trained
on every document of MEDDOCAN train, eds-pseudo gen_dataset / templates / public_small train and
ECHR FR/ES manual train (``deid/models/default/MODEL_CARD.md``), held-out fifth included, before
these lists existed. For the shipped model they measure the post-processing only (the rules and
checks; and those were tuned on the train splits in earlier sessions). The French documents it
never saw are ``echr-fr-unseen``: every sentence of the ECHR French ``projected_all`` files whose
text appears in no manual file (other case reports, annotated by projection from the English TAB
corpus: a different, noisier scheme, so its label-agnostic figures are the ones to read). A model
trained from now on must leave the held-out documents out of training (``is_heldout``), as
the shipped ``e5-s8-kd-gpu6`` (2026-11-25) did; but its layers descend from ``e5-cont3-step621``'s
(through the teacher it was distilled from), so its held-out figures are less contaminated, not
clean.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from functools import cache
from importlib import resources
from pathlib import Path

from deid.spans import Document

SHARE = 0.2

# key -> (path under the shared data folder, format, language); "unseen" keys are taken whole.
SOURCES: dict[str, tuple[str, str, str]] = {
    "meddocan-train": ("meddocan/train", "brat", "es"),
    "eds-gen-train": ("eds-pseudo/gen_dataset_train.jsonl", "eds-jsonl", "fr"),
    "eds-small-train": ("eds-pseudo/public_small_train_data.jsonl", "eds-jsonl", "fr"),
    "echr-fr-train": ("echr-fr-es/manual/FR-manual-train.tsv", "echr-tsv", "fr"),
    "echr-es-train": ("echr-fr-es/manual/ES-manual-train.tsv", "echr-tsv", "es"),
}
UNSEEN: dict[str, tuple[tuple[str, ...], tuple[str, ...], str]] = {
    # key -> (files the documents come from, files whose texts exclude a document, language)
    "echr-fr-unseen": (
        ("echr-fr-es/projected_all/FR-all-train.tsv", "echr-fr-es/projected_all/FR-all-dev.tsv"),
        ("echr-fr-es/manual/FR-manual-train.tsv", "echr-fr-es/manual/FR-manual-dev.tsv",
         "echr-fr-es/projected_reviewed/FR-rev-train.tsv", "echr-fr-es/projected_reviewed/FR-rev-dev.tsv"),
        "fr",
    ),
}


class HeldoutMismatch(ValueError):
    """The corpus does not hold exactly the documents a frozen held-out list names."""


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def name(doc: Document) -> tuple[str, str]:
    """A document's identity in a list: its id and its text's digest (eds-pseudo repeats ids)."""
    return doc.doc_id, text_digest(doc.text)


def _rank(key: str, doc: Document) -> str:
    doc_id, digest = name(doc)
    return hashlib.sha256(f"{key}/{doc_id}/{digest}".encode()).hexdigest()


def choose(key: str, docs: Sequence[Document]) -> list[Document]:
    """The held-out fifth of ``docs`` by the hash rule (used once, to write the lists)."""
    unique = list({name(d): d for d in docs}.values())
    n = round(SHARE * len(unique))
    return sorted(sorted(unique, key=lambda d: _rank(key, d))[:n], key=name)


def _folder() -> Path:
    return Path(str(resources.files("deid.lab.eval.heldout")))


@cache
def listed(key: str) -> frozenset[tuple[str, str]]:
    """The frozen list of ``key``: (doc id, text digest) pairs, checked against the manifest."""
    folder = _folder()
    raw = (folder / f"{key}.txt").read_bytes()
    manifest = json.loads((folder / "MANIFEST.json").read_text(encoding="utf-8"))
    if hashlib.sha256(raw).hexdigest() != manifest["lists"][key]:
        raise HeldoutMismatch(f"held-out list {key!r} differs from its sealed hash in MANIFEST.json")
    return frozenset(tuple(line.split("\t", 1)) for line in raw.decode("utf-8").splitlines())  # type: ignore[misc]


def is_heldout(key: str, doc: Document) -> bool:
    """Whether ``doc`` is one of the held-out documents of ``key`` (id and text)."""
    return name(doc) in listed(key)


def every_listed() -> frozenset[tuple[str, str]]:
    """The documents of every frozen held-out list (seen and unseen corpora alike)."""
    keys = [*SOURCES, *UNSEEN]
    return frozenset().union(*(listed(k) for k in keys))


def leave_out(docs: Sequence[Document],
              names: frozenset[tuple[str, str]] | None = None) -> tuple[list[Document], int]:
    """``docs`` without any document of a held-out list (matched by id and text, so a copy or a
    renamed file is caught too), and how many were left out: what training must read."""
    names = every_listed() if names is None else names
    kept = [d for d in docs if name(d) not in names]
    return kept, len(docs) - len(kept)


def split(key: str, docs: Sequence[Document]) -> tuple[list[Document], list[Document]]:
    """``docs`` (one whole corpus file) as (development part, held-out part); refuses a corpus
    whose held-out documents are not exactly the listed ones, text included."""
    names = listed(key)
    held = [d for d in docs if name(d) in names]
    if {name(d) for d in held} != names:
        raise HeldoutMismatch(f"the corpus does not hold the {len(names)} documents of held-out list {key!r}")
    return [d for d in docs if name(d) not in names], list({name(d): d for d in held}.values())


def write_list(key: str, docs: Sequence[Document], folder: Path) -> str:
    """Write one list and return its sha256 (for the manifest)."""
    body = "".join("\t".join(name(d)) + "\n" for d in docs).encode("utf-8")
    (folder / f"{key}.txt").write_bytes(body)
    return hashlib.sha256(body).hexdigest()
