"""Mutation check of the privacy mechanisms (issue 15): can the statistical and coherence tests fail?

    .venv/bin/python bench/mutants.py [--only NAME ...] [--out docs/benchmarks/privacy_mutants.md]

Copies the ``deid`` package to a temporary directory, applies one source mutant at a time (one
exact text replacement in one file of the copy), and runs the privacy test files against the copy
(``PYTHONPATH`` puts the copy before the editable install and ``PYTHONSAFEPATH`` keeps the working
directory off ``sys.path``, also for the ``python -m deid`` a test starts; the run checks that
``deid`` really is imported from the copy). A mutant is *killed* when the tests fail, *survived*
when they pass, *skipped* when its pattern is not in the source any more (another engineer
changed the file: the mutant must be rewritten, not silently counted). The unmutated copy must pass first.
Kill rate = killed / (killed + survived). Writes a Markdown table to ``--out``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = [  # the fast files first: a killed mutant stops at its first failure (-x)
    "tests/privacy/test_safe_harbor.py",
    "tests/substitution/test_refused_draws.py",
    "tests/privacy/test_exact_samplers.py",
    "tests/substitution/test_profile_boundaries.py",
    "tests/surrogates/test_place_mechanism.py",
    "tests/surrogates/test_small_units.py",
    "tests/privacy/test_timeline_privacy.py",
    "tests/substitution/test_timeline_coherence.py",
    "tests/surrogates/test_place_distance.py",
    "tests/privacy/test_privacy_mechanisms.py",
    "tests/store/test_store_contract.py",
]


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str  # relative to the repository root, inside deid/
    old: str
    new: str
    what: str


MUTANTS = [
    Mutant("timeline-scale-flipped", "deid/temporal/timeline.py",
           "laplace(rng, delta / epsilon)", "laplace(rng, epsilon / delta)",
           "plain Laplace of a first point at scale eps/Δ instead of Δ/eps"),
    Mutant("age-scale-flipped", "deid/substitution/temporal.py",
           "laplace(rng, 1.0 / eps[it.key])", "laplace(rng, eps[it.key])",
           "an age noised alone at scale eps instead of 1/eps"),
    Mutant("bounded-laplace-no-correction", "deid/privacy/mechanisms.py",
           "        left = self.sensitivity / self.epsilon", "        return self.sensitivity / self.epsilon",
           "BoundedLaplace._find_scale returns Δ/eps (Holohan's correction dropped)"),
    # the production place mechanism (deid/surrogates/gazetteer.py), not the bench-only places.py
    Mutant("place-distance-last-feature", "deid/surrogates/gazetteer.py",
           "np.sqrt((diff * diff).sum(axis=1) / diff.shape[1])",
           "np.abs(diff[:, -1])",
           "feature distance from the last feature only (the reference code's mistake)"),
    Mutant("place-small-units-kept", "deid/surrogates/gazetteer.py",
           "    while len(groups) > 1:\n", "    while False:\n",
           "a unit of one town (DC, Ceuta, Melilla) is its own candidate set: the true town for sure"),
    Mutant("nir-from-refused-draw", "deid/substitution/simple.py",
           "set at render\n            return formats.identifier(rng, text)",
           "set at render\n            return formats.nir_with_birth(text, formats.identifier(rng, text), "
           "patient_birth(ctx, memo))",
           "a NIR takes its birth digits from the note's pending (possibly refused) birth draw"),
    Mutant("zip3-restricted-list-ignored", "deid/privacy/safe_harbor.py",
           'head = "000" if head in restricted_zip3() else head', "head = head",
           "a ZIP of a three-digit area of 20,000 people or fewer keeps its digits"),
    Mutant("zip3-whole-zip", "deid/privacy/safe_harbor.py",
           'out.append(head[seen] if seen < 3 else "*")', "out.append(c)",
           "Safe Harbor prints the whole ZIP code"),
    Mutant("safe-harbor-age-90", "deid/substitution/temporal.py",
           't.unit == "year" and t.amount >= SAFE_HARBOR_AGE',
           't.unit == "year" and t.amount > SAFE_HARBOR_AGE',
           "an age of exactly 90 kept under safe-harbor"),
    Mutant("random-age-90", "deid/substitution/temporal.py",
           'if t.kind == "age" and t.amount >= SAFE_HARBOR_AGE:',
           'if t.kind == "age" and t.amount > SAFE_HARBOR_AGE:',
           "an age of exactly 90 kept under random"),
    Mutant("safe-harbor-birth-year-90", "deid/substitution/temporal.py",
           '_units_between(t.when, ref, "year") >= SAFE_HARBOR_AGE',
           '_units_between(t.when, ref, "year") > SAFE_HARBOR_AGE',
           "the birth year of a patient of exactly 90 printed under safe-harbor"),
    Mutant("shift-minimum-zero", "deid/substitution/temporal.py",
           "rng.randint(1, max(1, SHIFT_MAX_DAYS // 7))", "rng.randint(0, max(1, SHIFT_MAX_DAYS // 7))",
           "the random profile's secret shift may be 0 days (the dates left as they were)"),
    Mutant("laplace-tail-cut", "deid/privacy/mechanisms.py",
           "return sign * scale * exponential_tail(rng)",
           "return scale * (rng.expovariate(1.0) - rng.expovariate(1.0))",
           "the float Laplace of two expovariate draws (no output beyond ~36.7 scales)"),
    Mutant("discrete-laplace-scale", "deid/privacy/mechanisms.py",
           "q = math.exp(-1.0 / scale)", "q = math.exp(-1.1 / scale)",
           "the discrete Laplace drawn at the wrong scale"),
    Mutant("anchor-at-today-plan", "deid/substitution/temporal.py",
           "ref = ctx.document_date\n        anchor = self.anchor_key(ctx)",
           "ref = date.today()\n        anchor = self.anchor_key(ctx)",
           "the note's reference date is the wall clock (TemporalOperator.plan)"),
    Mutant("anchor-at-today-point-day", "deid/temporal/expressions.py",
           '        if ref is None or t.kind == "age":\n            return None\n        sign = ',
           '        ref = date.today()\n        if ref is None or t.kind == "age":\n            return None\n'
           '        sign = ',
           "relative and partial dates placed from the wall clock (expressions.point_day)"),
    Mutant("order-bounds-dropped", "deid/temporal/timeline.py",
           "        return lo, hi\n", "        return None, None\n",
           "Timeline.room gives no bounds: every point is a plain Laplace draw"),
    Mutant("replay-charged-nothing-memory", "deid/store/memory.py",
           "granted = cost == 0 or p.spent + cost <= cap_micro",
           "granted = replay or p.spent + cost <= cap_micro",
           "a replay is granted past the cap (in-memory store)"),
    Mutant("replay-charged-nothing-lua", "deid/store/lua/commit.lua",
           "local granted = cost == 0 or total + cost <= cap",
           "local granted = replay or total + cost <= cap",
           "a replay is granted past the cap (Redis script, run by fakeredis)"),
    Mutant("replay-charged-nothing-local", "deid/store/local.py",
           "granted = cost == 0 or total + cost <= cap_micro",
           "granted = replay or total + cost <= cap_micro",
           "a replay is granted past the cap (local SQLite store)"),
    Mutant("birth-date-day-scale", "deid/substitution/temporal.py",
           'it.unit = "year" if it.label is Label.BIRTH_DATE else t.unit', "it.unit = t.unit",
           "a birth date noised in days, not years"),
    Mutant("age-not-derived", "deid/substitution/temporal.py",
           "amount=max(0, t.amount + moved)", "amount=max(0, t.amount)",
           "the true age printed beside a surrogate birth date"),
]


def _ignore(_dir: str, names: list[str]) -> set[str]:
    return {n for n in names if n == "__pycache__" or n.endswith(".pyc")}


def _env(copy: Path) -> dict[str, str]:
    # PYTHONSAFEPATH: no interpreter (and no ``python -m deid`` started by a test) puts the working
    # directory, the repository, before the copy on sys.path
    return dict(os.environ, PYTHONPATH=str(copy), PYTHONSAFEPATH="1", PYTHONDONTWRITEBYTECODE="1")


def run_tests(copy: Path, timeout: int) -> tuple[int, str, float]:
    env = _env(copy)
    cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-rf", "-m", "not integration and not slow",
           "-p", "no:cacheprovider", *TESTS]
    t0 = time.perf_counter()
    try:
        res = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, "timed out", time.perf_counter() - t0
    return res.returncode, res.stdout + res.stderr, time.perf_counter() - t0


def first_failure(output: str) -> str:
    for line in output.splitlines():
        if line.startswith(("FAILED ", "ERROR ")):
            return line.split(" ", 1)[1].split(" - ")[0]
    return ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="*", default=None, help="mutant names to run (default: all)")
    ap.add_argument("--out", type=Path, default=ROOT / "docs/benchmarks/privacy_mutants.md")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per test run")
    args = ap.parse_args()
    mutants = [m for m in MUTANTS if args.only is None or m.name in args.only]
    t_start = time.perf_counter()
    rows: list[tuple[Mutant, str, str, float]] = []
    with tempfile.TemporaryDirectory(prefix="deid-mutants-") as tmp:
        copy = Path(tmp)
        shutil.copytree(ROOT / "deid", copy / "deid", ignore=_ignore)
        probe = subprocess.run([sys.executable, "-c", "import deid; print(deid.__file__)"], cwd=ROOT,
                               env=_env(copy), capture_output=True, text=True)
        if not probe.stdout.strip().startswith(str(copy)):
            print(f"deid is not imported from the copy: {probe.stdout.strip()} {probe.stderr[-500:]}")
            return 2
        rc, out, secs = run_tests(copy, args.timeout)
        if rc != 0:
            print(f"the unmutated copy fails the tests (rc {rc}); fix that first:\n{out[-3000:]}")
            return 2
        print(f"baseline: tests pass on the unmutated copy ({secs:.0f} s)", flush=True)
        for m in mutants:
            target = copy / m.path
            original = target.read_text(encoding="utf-8")
            found = original.count(m.old)
            if found != 1:
                print(f"{m.name}: SKIPPED (pattern found {found} times in {m.path}; rewrite the mutant)",
                      flush=True)
                rows.append((m, "skipped", f"pattern found {found} times", 0.0))
                continue
            target.write_text(original.replace(m.old, m.new), encoding="utf-8")
            try:
                rc, out, secs = run_tests(copy, args.timeout)
            finally:
                target.write_text(original, encoding="utf-8")
            verdict = "killed" if rc != 0 else "survived"
            by = first_failure(out) if rc != 0 else ""
            if rc not in (0, 1):
                by = by or f"pytest exit {rc}"
            print(f"{m.name}: {verdict.upper()} ({secs:.0f} s) {by}", flush=True)
            rows.append((m, verdict, by, secs))
    killed = sum(r[1] == "killed" for r in rows)
    survived = sum(r[1] == "survived" for r in rows)
    skipped = sum(r[1] == "skipped" for r in rows)
    rate = killed / (killed + survived) if killed + survived else 0.0
    only = " --only " + " ".join(args.only) if args.only else ""
    lines = [
        "# Mutation check of the privacy mechanisms (issue 15)",
        "",
        f"Date: {datetime.now(UTC):%Y-%m-%d}. Command: `.venv/bin/python bench/mutants.py{only}`; "
        f"{time.perf_counter() - t_start:.0f} s wall.",
        "",
        f"Mutants: {len(rows)}; killed {killed}, survived {survived}, skipped {skipped}; "
        f"kill rate {rate:.0%} (killed / (killed + survived)).",
        "",
        "| mutant | file | what it breaks | result | first failing test | seconds |",
        "|---|---|---|---|---|---|",
    ]
    for m, verdict, by, secs in rows:
        cell = by.replace("|", "/")
        lines.append(f"| {m.name} | `{m.path}` | {m.what} | {verdict} | {cell} | {secs:.0f} |")
    lines += ["", "Test files: " + ", ".join(f"`{t}`" for t in TESTS) + " (`-m 'not integration'`)."]
    table = "\n".join(lines) + "\n"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(table, encoding="utf-8")
    print(table)
    return 0 if survived == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
