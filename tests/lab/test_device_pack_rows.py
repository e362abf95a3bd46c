"""scripts/device_pack.py covers the realistic corpus (which travels in the tree) by split only: its
train and dev notes for a GPU run's training and checkpoint choice, never its test notes (read to
report, never sent to a run)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corpora" / "realistic" / "notes.jsonl"


def _pack_module() -> Any:
    spec = importlib.util.spec_from_file_location("device_pack", ROOT / "scripts" / "device_pack.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("suffix", ["", "@test", "@all"])
def test_the_realistic_corpus_is_covered_by_its_train_or_dev_split_only(suffix: str) -> None:
    with pytest.raises(SystemExit, match="@train or"):
        _pack_module().rows_arg(f"{CORPUS}{suffix}")


def test_a_split_of_another_corpus_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "c.tsv"
    other.write_text("Juan B-PER\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="only the realistic corpus"):
        _pack_module().rows_arg(f"{other}@train")
    assert _pack_module().rows_arg(str(other)) == (other, None)


@pytest.mark.parametrize("split", ["train", "dev"])
def test_the_rows_of_a_split_come_from_its_notes_alone(split: str) -> None:
    module = _pack_module()
    path, chosen = module.rows_arg(f"{CORPUS}@{split}")
    assert (path, chosen) == (CORPUS, split)
    notes = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
    wanted = sorted(n["text"] for n in notes if n["split"] == split)
    docs = list(module.corpus_docs(path, chosen))
    assert sorted(text for text, _ in docs) == wanted
    assert any(cuts for _, cuts in docs)  # gold boundaries kept: training cuts words at them
