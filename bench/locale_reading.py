"""How well ``deid.locales`` reads en-GB from en-US on the English notes of the realistic corpus.

Each English note of ``corpora/realistic/notes.jsonl`` carries the country its writer wrote it
for (US or GB). Reported per split asked: the confusion counts (truth x reading, the reading
being en-GB, en-US or unknown), the accuracy of the decisions taken, the share of notes decided,
and the accuracy of what substitution then uses (an unknown reading leaves en-US). Tune on
``train`` only; ``dev`` and ``test`` are read to report.

    .venv/bin/python bench/locale_reading.py --split train
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from deid.lab.corpora.realistic import read_jsonl
from deid.locales import DEFAULT_LOCALES, read_english_locale

CORPUS = Path(__file__).resolve().parent.parent / "corpora" / "realistic" / "notes.jsonl"
TRUTH = {"GB": "en-GB", "US": "en-US"}


def confusion(path: Path, split: str) -> Counter[tuple[str, str]]:
    """(true locale, read locale or "unknown") -> notes, over the split's English notes."""
    counts: Counter[tuple[str, str]] = Counter()
    for note in read_jsonl(path):
        if note.split == split and note.lang == "en":
            counts[(TRUTH[note.country], read_english_locale(note.text).locale or "unknown")] += 1
    return counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=("train", "dev", "test"), default="train")
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    args = ap.parse_args(argv)
    counts = confusion(args.corpus, args.split)
    total = sum(counts.values())
    decided = sum(n for (_, got), n in counts.items() if got != "unknown")
    right = sum(n for (truth, got), n in counts.items() if got == truth)
    used = sum(n for (truth, got), n in counts.items()
               if (DEFAULT_LOCALES["en"] if got == "unknown" else got) == truth)
    print(f"split {args.split}: {total} English notes")
    print(f"{'truth':8}{'en-GB':>8}{'en-US':>8}{'unknown':>9}")
    for truth in ("en-GB", "en-US"):
        print(f"{truth:8}" + "".join(f"{counts[(truth, got)]:>{w}}"
                                     for got, w in (("en-GB", 8), ("en-US", 8), ("unknown", 9))))
    if total:
        print(f"decided {decided}/{total} ({decided / total:.1%}); right when decided "
              f"{right}/{decided} ({right / max(decided, 1):.1%}); locale used right (unknown -> en-US) "
              f"{used}/{total} ({used / total:.1%})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
