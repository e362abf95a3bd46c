#!/usr/bin/env bash
# Issue 36: the NER detector's speed on one lent GPU, the shipped path against the fast paths
# (bench/gpu_speed.py), as one device call. The machine has torch, transformers, tokenizers and
# safetensors, and no network: nothing else of ours is needed there but the pack below.
#
# Here, first (the tree travels whole and must stay under 64 MiB; the tracked model file is 71 MB
# with its concept head, so for the call it is moved out of the tree and left as a link to itself:
# every reader here sees the same bytes, the link travels as a link, and the de-identification
# tensors alone travel in the pack):
#   echo /.gpuspeed/ >> .git/info/exclude
#   .venv/bin/python bench/gpu_speed.py --pack .gpuspeed --notes 4096   # 30 MiB: e5 rows + model
#   DRY=1 bash bench/gpu_speed.sh                                        # the same chain on this CPU
#   mv deid/models/default/model.safetensors /work/model.safetensors.full
#   ln -s /work/model.safetensors.full deid/models/default/model.safetensors
#   device run, carry [".gpuspeed"], timeout 420:  bash bench/gpu_speed.sh .gpuspeed
#   rm deid/models/default/model.safetensors       # only if it is still the link
#   mv /work/model.safetensors.full deid/models/default/model.safetensors
# There, the output is also in $OUT/gpu_speed.txt. NOTES, WORKERS, TIME_LIMIT and EXTRA (more
# arguments of gpu_speed.py) change the run.
set -u
PACK=${1:-.gpuspeed}
OUT=${OUT:-/tmp/gpu-out}
DRY=${DRY:-0}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
if [ "$DRY" = 1 ]; then
  PY=${PY:-.venv/bin/python}
  export DEID_CACHE_DIR=/tmp/gpuspeed-dry/cache
  rm -rf /tmp/gpuspeed-dry
  ARGS="--device cpu --notes ${NOTES:-12} --half-notes 4 --batch 4 --token-budget 2048 --chunk 8 \
        --workers ${WORKERS:-2} --profile-forwards 1"
else
  PY=${PY:-python3}
  export DEID_CACHE_DIR=/tmp/deid-cache
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv 2>&1 | tee "$OUT/gpu.txt"
  ARGS="--device cuda --notes ${NOTES:-4096} --baseline-notes 1024 --half-notes 256 --batch 128 \
        --token-budget 32768 --chunk 512 --workers ${WORKERS:-0} --time-limit ${TIME_LIMIT:-240}"
fi
# the e5 cache (tokenizer, and the word-embedding rows of these notes) from the pack, once
[ -f $DEID_CACHE_DIR/.ready ] || { $PY scripts/device_pack.py unpack "$PACK/e5" --cache $DEID_CACHE_DIR \
    --data /tmp/gpuspeed-data && touch $DEID_CACHE_DIR/.ready; } || exit 1
set -o pipefail
# shellcheck disable=SC2086
$PY bench/gpu_speed.py $ARGS --model "$PACK/model" ${EXTRA:-} 2>&1 | tee "$OUT/gpu_speed.txt"
