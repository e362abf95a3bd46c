"""Where the substitution stage's time goes (the worker's bottleneck on a GPU node: docs/BENCHMARKS.md,
"On a GPU"): the pipeline's ``substitute`` over synthetic patient series, under cProfile.

Usage: .venv/bin/python bench/profile_substitute.py [--notes 500] [--top 25] [--profile dp] [--no-cprofile]

Spans come from the rules alone (detection is not what is measured), computed once before the
timed part; the store is the in-memory one (a Redis round trip is the store's cost, measured by
``bench/store_ops.py``). Prints notes/s of the substitution alone, then the functions with the most
cumulative and own time. The tables are loaded before the timed part, as a worker does at start.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import pstats
import secrets
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--notes", type=int, default=500)
    ap.add_argument("--per-patient", type=int, default=4)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--profile", default=None, help="substitution profile (default: the settings')")
    ap.add_argument("--no-cprofile", action="store_true", help="time only (cProfile slows Python code ~2x)")
    args = ap.parse_args()

    from pydantic import SecretStr

    from deid.pipeline import build_pipeline
    from deid.settings import Settings
    from deid.store.memory import InMemoryStore

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from pipeline_throughput import make_notes

    settings = Settings()
    settings.hmac_secret = settings.hmac_secret or SecretStr(secrets.token_urlsafe(32))
    settings.model.enabled = False
    if args.profile:
        settings.profile = args.profile  # type: ignore[assignment]
    notes = make_notes(args.notes, args.per_patient, args.seed)
    pipeline = build_pipeline(settings, InMemoryStore())
    spans = pipeline.detect(notes)
    n_spans = sum(map(len, spans))

    # the tables (gazetteers, names) load once per process: warm them on a throw-away store
    asyncio.run(build_pipeline(settings, InMemoryStore()).substitute(notes[:8], spans[:8]))

    async def run() -> None:
        for i in range(0, len(notes), 32):  # the worker's default batch
            await pipeline.substitute(notes[i : i + 32], spans[i : i + 32])

    prof = cProfile.Profile()
    t0 = time.perf_counter()
    if not args.no_cprofile:
        prof.enable()
    asyncio.run(run())
    prof.disable()
    dt = time.perf_counter() - t0
    how = "timed alone" if args.no_cprofile else "under cProfile"
    print(f"# {len(notes)} notes, {n_spans} spans, profile {settings.profile}: "
          f"{len(notes) / dt:.1f} notes/s, {1000 * dt / len(notes):.2f} ms/note {how}")
    if args.no_cprofile:
        return
    for key in ("cumulative", "tottime"):
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats(key).print_stats(args.top)
        print(f"\n## by {key}\n" + "\n".join(ln for ln in out.getvalue().splitlines() if ln.strip())[-6000:])


if __name__ == "__main__":
    main()
