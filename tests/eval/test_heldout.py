"""The frozen held-out splits: sealed lists, and a corpus that does not hold them is refused."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from deid.eval.heldout import SOURCES, UNSEEN, HeldoutMismatch, _folder, choose, is_heldout, listed, split
from deid.spans import Document

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def test_every_list_is_sealed_by_the_manifest() -> None:
    manifest = json.loads((_folder() / "MANIFEST.json").read_text(encoding="utf-8"))
    assert set(manifest["lists"]) == set(SOURCES) | set(UNSEEN)
    for key, digest in manifest["lists"].items():
        assert hashlib.sha256((_folder() / f"{key}.txt").read_bytes()).hexdigest() == digest
        assert listed(key)


def test_the_choice_is_a_fixed_fifth_by_hash() -> None:
    docs = [Document(f"d{i}", f"texte {i}", "fr") for i in range(50)]
    chosen = choose("k", docs)
    assert len(chosen) == 10 and chosen == choose("k", list(reversed(docs)))
    assert chosen != choose("other-key", docs)


def test_a_corpus_without_the_listed_documents_is_refused() -> None:
    with pytest.raises(HeldoutMismatch):
        split("meddocan-train", [Document("S0004-x", "no such text", "es")])


@pytest.mark.skipif(not (DATA / "meddocan" / "train").is_dir(), reason="shared corpora not available")
def test_meddocan_train_splits_into_the_listed_fifth() -> None:
    from deid.corpora import read_corpus

    docs = read_corpus(DATA / "meddocan" / "train", "brat", "es", convention=False)
    rest, held = split("meddocan-train", docs)
    assert (len(rest), len(held)) == (400, 100)
    assert all(is_heldout("meddocan-train", d) for d in held)
    assert not any(is_heldout("meddocan-train", d) for d in rest)
