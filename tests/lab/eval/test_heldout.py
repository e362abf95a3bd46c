"""The frozen held-out splits: sealed lists, and a corpus that does not hold them is refused."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from deid.lab.eval.heldout import SOURCES, UNSEEN, HeldoutMismatch, _folder, choose, is_heldout, listed, split
from deid.spans import Document

DATA = Path(__file__).resolve().parents[3].parent / "shared" / "data"


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
    from deid.lab.corpora import read_corpus

    docs = read_corpus(DATA / "meddocan" / "train", "brat", "es", convention=False)
    rest, held = split("meddocan-train", docs)
    assert (len(rest), len(held)) == (400, 100)
    assert all(is_heldout("meddocan-train", d) for d in held)
    assert not any(is_heldout("meddocan-train", d) for d in rest)


def test_leave_out_drops_listed_documents_by_id_and_text_wherever_they_come_from() -> None:
    from deid.lab.eval.heldout import leave_out, name

    held = Document("S1", "texte tenu à part", "es")
    same_id_other_text = Document("S1", "autre texte", "es")
    docs = [held, same_id_other_text, Document("S2", "libre", "es")]
    kept, n = leave_out(docs, frozenset({name(held)}))
    assert n == 1 and kept == docs[1:]


def test_every_list_counts_in_what_training_leaves_out() -> None:
    from deid.lab.eval.heldout import every_listed

    union = every_listed()
    for key in [*SOURCES, *UNSEEN]:
        assert listed(key) <= union


def _brat(folder: Path, docs: dict[str, str]) -> Path:
    folder.mkdir(parents=True)
    for doc_id, text in docs.items():
        (folder / f"{doc_id}.txt").write_text(text, encoding="utf-8")
        (folder / f"{doc_id}.ann").write_text("", encoding="utf-8")
    return folder


def test_deid_train_leaves_held_out_documents_out_unless_told(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import deid.lab.eval.heldout as heldout
    import deid.lab.training.ner as ner_train
    from deid.cli import main
    from deid.lab.corpora import read_corpus

    corpus = _brat(tmp_path / "train", {"a": "Paciente Juan.", "b": "Paciente Ana."})
    held = next(d for d in read_corpus(corpus) if d.doc_id == "b")
    monkeypatch.setattr(heldout, "every_listed", lambda: frozenset({heldout.name(held)}))
    seen: list[list[str]] = []
    monkeypatch.setattr(ner_train, "train", lambda cfg, docs, dev, resume: seen.append(
        sorted(d.doc_id for d in docs)) or "ckpt")
    assert main(["train", "--corpus", str(corpus), "--out", str(tmp_path / "run")]) == 0
    assert main(["train", "--corpus", str(corpus), "--out", str(tmp_path / "run"), "--include-heldout"]) == 0
    assert seen == [["a"], ["a", "b"]]
    # and checkpoints are never chosen on a held-out document
    assert main(["train", "--corpus", str(corpus), "--dev", str(corpus), "--out", str(tmp_path / "run")]) == 2
