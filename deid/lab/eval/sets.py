"""The named evaluation sets: dev splits, frozen held-out splits and the English dev set.

``load_set(name, data_dir)`` reads one with the corpus's own gold (no convention) and the
language the set is documented in; ``data_dir`` is the shared corpora folder (``../shared/data``),
which the product never needs at run time. Held-out sets come from ``deid.lab.eval.heldout``.
"""

from __future__ import annotations

from pathlib import Path

from deid.lab.corpora import read_corpus
from deid.lab.eval.heldout import SOURCES, UNSEEN, split
from deid.spans import Document

# name -> (path under data_dir, format, language)
DEV: dict[str, tuple[str, str, str]] = {
    "meddocan-dev": ("meddocan/dev", "brat", "es"),
    "eds-dev": ("eds-pseudo/public_small_dev_data.jsonl", "eds-jsonl", "fr"),
    "echr-fr-dev": ("echr-fr-es/manual/FR-manual-dev.tsv", "echr-tsv", "fr"),
}
HELDOUT = {f"{key}-heldout": key for key in SOURCES}
SETS: tuple[str, ...] = (*DEV, *HELDOUT, *UNSEEN, "en-dev")


def load_set(name: str, data_dir: Path, *, convention: bool = False) -> list[Document]:
    if name in DEV:
        rel, fmt, lang = DEV[name]
        return read_corpus(data_dir / rel, fmt, lang, convention=convention)
    if name in HELDOUT:
        key = HELDOUT[name]
        rel, fmt, lang = SOURCES[key]
        return split(key, read_corpus(data_dir / rel, fmt, lang, convention=convention))[1]
    if name in UNSEEN:
        sources, _, lang = UNSEEN[name]
        docs = [d for rel in sources
                for d in read_corpus(data_dir / rel, "echr-tsv", lang, convention=convention)]  # fmt: skip
        return split(name, docs)[1]
    if name == "en-dev":
        from deid.lab.eval.english import english_dev

        return english_dev()
    raise KeyError(f"unknown evaluation set {name!r}; known: {', '.join(SETS)}")
