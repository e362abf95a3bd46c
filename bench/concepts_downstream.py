"""Concept extraction on original and on de-identified text (issue 20; Lange et al. 2020's
pipeline experiment): does de-identification cost the analytics consumer its concepts?

PharmaCoNER dev sentences are grouped into pseudo-notes (``--per-note`` sentences each, one per
line). Each note is de-identified by the default detector (rules + model) under each profile
(placeholder, random, dp); the gold concepts are moved onto the de-identified text
(``deid.concepts.offsets.move_concepts``; a gold concept that touches a detected PHI span cannot be
found there and is counted as lost); the concept tagger then reads the de-identified text and is
scored (strict micro P/R/F1) against the moved gold. ``original`` is the tagger on the untouched
text against the untouched gold.

    .venv/bin/python bench/concepts_downstream.py ../shared/data/pharmaconer/dev.conll [--json FILE]
        [--model DIR]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from deid.concepts import Concept
from deid.concepts.offsets import move_concepts, replacements_of
from deid.lab.corpora.conll import read_conll


def scores(gold: list[list[Concept]], pred: list[list[Concept]]) -> dict[str, float]:
    tp = n_g = n_p = 0
    for g, p in zip(gold, pred, strict=True):
        gs = {(c.start, c.end, c.type) for c in g}
        ps = {(c.start, c.end, c.type) for c in p}
        tp, n_g, n_p = tp + len(gs & ps), n_g + len(gs), n_p + len(ps)
    prec, rec = (tp / n_p if n_p else 0.0), (tp / n_g if n_g else 0.0)
    return {"p": round(prec, 4), "r": round(rec, 4),
            "f1": round(2 * prec * rec / (prec + rec) if prec + rec else 0.0, 4), "gold": n_g, "pred": n_p}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("conll", type=Path)
    ap.add_argument("--per-note", type=int, default=20)
    ap.add_argument("--limit", type=int, default=0, help="first N notes only")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--model", type=Path, default=None,
                    help="model directory with a concept head (default: the shipped model)")
    args = ap.parse_args()

    import os
    import secrets

    os.environ.setdefault("DEID_HMAC_SECRET", secrets.token_urlsafe(32))  # a throwaway key
    from deid.concepts.tagger import load_concept_tagger
    from deid.pipeline import build_detector
    from deid.settings import Settings
    from deid.substitution.profiles import deidentify_text

    sentences = read_conll(args.conll)
    notes: list[tuple[str, list[Concept]]] = []
    for i in range(0, len(sentences), args.per_note):
        text, gold, pos = [], [], 0
        for s in sentences[i : i + args.per_note]:
            gold += [Concept(c.start + pos, c.end + pos, c.type) for c in s.concepts]
            text.append(s.text)
            pos += len(s.text) + 1
        notes.append(("\n".join(text), gold))
    if args.limit:
        notes = notes[: args.limit]
    t0 = time.perf_counter()
    detector = build_detector(Settings())
    tagger = load_concept_tagger(args.model)
    texts = [t for t, _ in notes]
    detected = detector.detect(texts, ["es"] * len(texts))
    report: dict[str, object] = {
        "date": dt.date.today().isoformat(), "corpus": str(args.conll), "notes": len(notes),
        "sentences": len(sentences), "tagger": tagger.model_version,
    }
    rows: dict[str, dict[str, object]] = {}
    rows["original"] = {**scores([g for _, g in notes], tagger.tag(texts)), "gold_lost": 0}
    settings = Settings()
    for mode in ("placeholder", "random", "dp"):
        out_texts, moved_gold, lost = [], [], 0
        for k, ((text, gold), spans) in enumerate(zip(notes, detected, strict=True)):
            note = deidentify_text(text, spans, "es", dt.date(2024, 1, 15), profile=mode,
                                   rng=random.Random(args.seed + k), settings=settings,
                                   patient_id=f"bench-{k}", event_id=f"bench-{k}")
            reps = replacements_of(text, spans, note)
            moved = move_concepts(len(text), gold, reps, spans)
            lost += len(gold) - len(moved)
            out_texts.append(note.text)
            moved_gold.append(moved)
        rows[mode] = {**scores(moved_gold, tagger.tag(out_texts)), "gold_lost": lost}
    report["results"] = rows
    report["seconds"] = round(time.perf_counter() - t0, 1)
    print(f"{'text':<12} {'P':>6} {'R':>6} {'F1':>6} {'gold':>5} {'lost':>5}")
    for name, r in rows.items():
        print(f"{name:<12} {r['p']:>6.3f} {r['r']:>6.3f} {r['f1']:>6.3f} {r['gold']:>5} {r['gold_lost']:>5}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
