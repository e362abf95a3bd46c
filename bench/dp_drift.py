"""How far a profile moves the dates a reader reads: surrogate minus true day, per label.

The realistic corpus's gold spans (no model: the mechanism alone) go through a profile's
substitution, each patient's notes on one store in the order they were written, as ``deid audit``
runs them (``deid.lab.eval.audit_run``). For every gold DATE and BIRTH_DATE mention whose true day
is known and whose output reads as a full date (the audit's own reader, two-digit years in the
century of the output's dates), the distance in days between the surrogate and the true day.
Prints, per label: mentions read, median, 75th and 90th percentiles, and the share moved by more
than a year. Under ``dp`` a birth date is protected at the scale of years (docs/PRIVACY.md), so
its distance is the price of that protection that a reader sees (an age derived from it moves
with it).

    .venv/bin/python bench/dp_drift.py --split dev --profile dp
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from deid.lab.corpora.realistic import read_jsonl
from deid.lab.eval.audit import full_day, output_pivot, output_region, read_date
from deid.lab.eval.audit_run import audit_profile, gold_spans

CORPUS = Path(__file__).resolve().parent.parent / "corpora" / "realistic" / "notes.jsonl"


def drift(split: str, profile: str, seed: int) -> dict[str, list[int]]:
    notes = [n for n in read_jsonl(CORPUS) if split == "all" or n.split == split]
    report = audit_profile(notes, [gold_spans(n) for n in notes], profile, seed=seed)
    days: dict[str, list[int]] = {"DATE": [], "BIRTH_DATE": []}
    for a in report.audits:
        order = "mdy" if a.note.country == "US" else "dmy"
        pivot = output_pivot(a)
        for m in a.note.mentions:
            true = full_day(m.ref) if m.label in days else None
            if true is None:
                continue
            got = read_date(output_region(a.note.text, a.replaced, m.start, m.end)[0], order, pivot)
            if got is not None:
                days[m.label].append(abs((got - true).days))
    return days


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--split", choices=("train", "dev", "test", "all"), default="dev")
    p.add_argument("--profile", choices=("dp", "random", "safe-harbor"), default="dp")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    print(f"profile {args.profile}, realistic {args.split}, seed {args.seed}: |surrogate - true| in days")
    for label, values in drift(args.split, args.profile, args.seed).items():
        if not values:
            print(f"{label}: no mention read")
            continue
        values.sort()
        n = len(values)
        over = sum(v > 365 for v in values) / n
        print(f"{label}: {n} read, median {values[n // 2]}, p75 {values[3 * n // 4]}, "
              f"p90 {values[9 * n // 10]}, moved over a year {over:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
