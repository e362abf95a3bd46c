#!/usr/bin/env bash
# On a lent GPU: the worker through the broker with the
# overlapped loop (batch N+1 detected while batch N is substituted; DEID_BATCH__OVERLAP_DETECTION,
# the default since 2026-11-25) against the one-batch loop, alternating, same notes, as session 5
# measured 80.9 notes/s (pipeline / model-only 0.363) without the overlap. Pack as for session 5.
#
#   there: bash bench/gpu_overlap.sh .gpu3 [BROKER_DIR]   (DRY=1: 16 notes, on any machine)
# BROKER_DIR: the folder with tansu.xz when not the pack; RESULTS: where the JSON go (default $OUT).
# Ran on 2026-11-25 (bench/gpu_session6.sh; docs/BENCHMARKS.md "On a GPU, session 6"): no
# measurable gain there (82.6 against 84.1 notes/s).
set -u
. bench/gpu_setup.sh "${1:-.gpu3}"
unset TOKENIZERS_PARALLELISM
[ "$DRY" = 0 ] && tansu_shim "${2:-$PACK}"
N=2000; [ "$DRY" = 1 ] && N=16
for round in 1 2; do
  for overlap in false true; do
    DEID_BATCH__OVERLAP_DETECTION=$overlap $PY bench/pipeline_throughput.py --notes $N --max-events 32 \
        --json "${RESULTS:-$OUT}/pipeline-gpu-overlap-$overlap-$round.json" 2>&1 | tail -2
  done
done
