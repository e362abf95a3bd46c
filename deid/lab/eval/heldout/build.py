"""Writes the frozen held-out lists once: ``python -m deid.lab.eval.heldout.build DATA_DIR``.

Run on 2026-11-23 before any rule was measured on the held-out documents. Re-running it on the
same corpora rewrites the same bytes; the manifest seals them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from deid.lab.corpora import read_corpus
from deid.lab.eval.heldout import SOURCES, UNSEEN, _folder, choose, name, write_list


def main(data: Path) -> None:
    folder = _folder()
    hashes: dict[str, str] = {}
    for key, (rel, fmt, lang) in SOURCES.items():
        docs = read_corpus(data / rel, fmt, lang, convention=False)
        hashes[key] = write_list(key, choose(key, docs), folder)
    for key, (sources, excluded, lang) in UNSEEN.items():
        seen = {d.text for rel in excluded
                for d in read_corpus(data / rel, "echr-tsv", lang, convention=False)}  # fmt: skip
        docs = [d for rel in sources for d in read_corpus(data / rel, "echr-tsv", lang, convention=False)
                if d.text not in seen]
        unique = list({d.text: d for d in docs}.values())
        hashes[key] = write_list(key, sorted(unique, key=name), folder)
    manifest = {"rule": "sha256('<key>/<doc id>/<text digest>') ascending, first 20% (unseen keys: all)",
                "created": "2026-11-23", "lists": hashes}
    (folder / "MANIFEST.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
