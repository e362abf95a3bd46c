#!/usr/bin/env bash
# Lent-GPU session 6 (2026-11-25, one H100), four calls on one machine, as they ran for
# docs/BENCHMARKS.md ("On a GPU, session 6"):
#   STEP=train     issue 17: three continuations of the shipped de-identification model side by
#                  side (embeddings and layer 0 frozen, synthetic English notes mixed in, as
#                  the former bench/gpu_next.sh prepared, which this replaces: A as prepared, B with MEDDOCAN train twice, C a
#                  shorter decay and another seed), each run's checkpoint chosen by its own dev
#                  score; then every candidate and the shipped model scored by `deid eval` on all
#                  of MEDDOCAN dev (official strict), and the best candidate back in 15 MB parts.
#                  Beside them, issue 18: 8- and 6-layer students distilled from the shipped model.
#                  If a candidate beats the shipped model, its concept head is retrained with the
#                  shipped recipe (stacked, from layer 0, 30 epochs at 5e-5) in the background.
#   STEP=students  the students back; once the concept head is trained (timings alone on the
#                  machine), the overlapped worker against the one-batch loop through the broker,
#                  alternating, twice (bench/gpu_overlap.sh's runs).
#   STEP=concepts  the retrained concept head's tensors back.
#   STEP=student   issue 18, the run that shipped: with deid/models/default replaced by STEP=train's
#                  best candidate (de-identification-only form), an 8-layer student distilled from it.
# Each call's output must fit the device's return limit (8 files, 64 MiB), hence the steps.
# As it ran, call 2's broker runs failed (the call did not carry the pack, so the wheels were not
# on the path; gpu_setup.sh now finds them in place) and ran again inline in call 3.
#
# Here, first: the tree carries deid/models/default in its de-identification-only form (the full
# file, concept head included, is 85 MB; drop the concepts.* tensors and config.json's
# deid_concepts), the pack (.gpu6, 13 MB) and, for STEP=students, the broker (.gpu6b/tansu.xz):
#   python scripts/device_pack.py pack --out .gpu6 --root ../shared/data meddocan/train meddocan/dev \
#       eds-pseudo/gen_dataset_train.jsonl eds-pseudo/templates.txt \
#       eds-pseudo/public_small_train_data.jsonl eds-pseudo/public_small_dev_data.jsonl \
#       echr-fr-es/manual/FR-manual-train.tsv echr-fr-es/manual/ES-manual-train.tsv \
#       pharmaconer/train.conll pharmaconer/dev.conll --synth 800:43 --synth-en 400:43 \
#       --synth 800:13 --synth-en 400:13 --series 2000:4:7
#   (+ .gpu6/whl: pydantic, pydantic-core, pydantic-settings, python-dotenv, typing-inspection,
#    annotated-types, typing-extensions, orjson, hl7, redis, aiokafka, async-timeout, cp312 wheels)
#   there: STEP=train bash bench/gpu_session6.sh .gpu6     (DRY=1: a few steps, on any machine)
set -u
STEP=${STEP:-train}
MEDDOCAN_DEV_LIMIT=$([ "${DRY:-0}" = 1 ] && echo :3) . bench/gpu_setup.sh "${1:-.gpu6}"
if [ "$DRY" = 0 ]; then
  DEV=cuda
  CMAX="--max-steps 4000 --decay-steps 4000 --max-minutes 5.2 --eval-minutes 0.3"
  CMAX_SHORT="--max-steps 2000 --decay-steps 2000 --max-minutes 5.2 --eval-minutes 0.3"
  SMAX="--max-steps 8000 --decay-steps 8000 --max-minutes 6.0 --eval-minutes 0.5"
  SMAX_SHIPPED="--max-steps 8000 --decay-steps 8000 --max-minutes 5.8 --eval-minutes 0.5"
  CONCEPT="--epochs 30 --max-minutes 5.5"; LIMIT=""; N=2000
else
  DEV=cpu; CMAX="--max-steps 2 --eval-minutes 0.01"; CMAX_SHORT=$CMAX; SMAX=$CMAX; SMAX_SHIPPED=$CMAX
  CONCEPT="--epochs 1 --limit 60"; LIMIT="--limit 5"; N=16
fi
C_TWICE=${C/meddocan\/train /meddocan\/train:2 }
PIDS=""

split_to_out() {  # split_to_out FILE NAME: FILE into $OUT/NAME.partNN of 15 MB
  split -b 15000000 -d "$1" "$OUT/$2.part"
}

train_bg() {  # train_bg NAME SEED THREADS MAX CORPORA EXTRA...: one run in the background (pid in PIDS)
  local name=$1 seed=$2 threads=$3 max=$4 corpora=$5; shift 5
  $PY -m deid train $corpora --synth-en 400 --init deid/models/default --seed "$seed" \
      --out "$W/$name" --threads "$threads" --device $DEV $max "$@" > "$W/$name.out" 2>&1 &
  PIDS="$PIDS $!"
}

export_student() {  # export_student NAME: the run's chosen checkpoint in compact fp16, once
  [ -d "$W/$1/best" ] && [ ! -f "$W/$1-export/config.json" ] && $PY -m deid train --export \
      "$W/$1/best" --out "$W/$1-export" --model-version "$1-kd-en-gpu6" > /dev/null
  [ -f "$W/$1-export/model.safetensors" ]
}

official_best() {  # the candidate with the best official strict F1 on MEDDOCAN dev, if above the shipped
  $PY - "$W" <<'EOF'
import json, sys
from pathlib import Path
w = Path(sys.argv[1])
def f1(p):
    return json.loads(p.read_text())["official"]["ner_strict"]["f1"] if p.is_file() else -1.0
shipped = f1(w / "shipped-md.json")
runs = sorted((f1(w / f"{r}-md.json"), r) for r in ("cont-a", "cont-b", "cont-c"))
for score, r in runs + [(shipped, "shipped")]:
    print(f"official strict F1 on MEDDOCAN dev: {r} {score:.4f}", file=sys.stderr)
print(runs[-1][1] if runs and runs[-1][0] > shipped else "")
EOF
}

case $STEP in
train)
  train_bg cont-a 43 3 "$CMAX" "$C" --freeze-layers 1 --lr 5e-5
  train_bg cont-b 43 3 "$CMAX" "$C_TWICE" --freeze-layers 1 --lr 5e-5
  train_bg cont-c 13 3 "$CMAX_SHORT" "$C" --freeze-layers 1 --lr 5e-5
  CONT=$PIDS; PIDS=""
  train_bg s8 13 3 "$SMAX" "$C" --keep-layers 0,2,3,5,6,8,9,11 --teacher deid/models/default --kd-weight 0.5
  train_bg s6 13 3 "$SMAX" "$C" --keep-layers 1,3,5,7,9,11 --teacher deid/models/default --kd-weight 0.5
  STUDENTS=$PIDS; PIDS=""
  $PY -m deid eval $D/meddocan/dev $LIMIT --json --output "$W/shipped-md.json" > "$W/shipped-md.out" 2>&1
  wait $CONT
  for r in cont-a cont-b cont-c; do
    [ -d "$W/$r/best" ] || continue
    { $PY -m deid train --export "$W/$r/best" --out "$W/$r-export" --model-version "e5-$r-gpu6" \
      && $PY -m deid eval $D/meddocan/dev $LIMIT --model "$W/$r-export" --json \
             --output "$W/$r-md.json"; } > "$W/$r-md.out" 2>&1 &
    PIDS="$PIDS $!"
  done
  wait $PIDS
  best=$(official_best)
  [ -z "$best" ] && [ "$DRY" = 1 ] && best=cont-a  # the dry run walks every path
  if [ -n "$best" ]; then
    echo "best: $best" | tee "$W/best.txt"
    split_to_out "$W/$best-export/model.safetensors" deid
    cp "$W/$best-export/config.json" "$OUT/deid-config.json"
    setsid nohup $PY -m deid.concepts.train --train $D/pharmaconer/train.conll \
        --dev $D/pharmaconer/dev.conll --model "$W/$best-export" --out "$W/concept" --from-layer 0 \
        --variants stacked --lr 5e-5 --seed 13 --threads 4 --device $DEV $CONCEPT \
        > "$W/concept.out" 2>&1 < /dev/null &
  fi
  wait $STUDENTS
  for s in s8 s6; do export_student $s; done
  ;;
students)
  for s in s8 s6; do
    export_student $s || continue
    split_to_out "$W/$s-export/model.safetensors" "$s"
    cp "$W/$s-export/config.json" "$OUT/$s-config.json"
  done
  while pgrep -f deid.concepts.train > /dev/null; do sleep 5; done
  RESULTS=$W bash bench/gpu_overlap.sh "$PACK" .gpu6b
  ;;
concepts)
  m="$W/concept/model-stacked-L0"
  if [ -f "$m/model.safetensors" ]; then
    $PY - "$m/model.safetensors" "$W/concepts.safetensors" <<'EOF'
import sys
from safetensors import safe_open
from safetensors.torch import save_file
with safe_open(sys.argv[1], "pt") as f:
    save_file({k: f.get_tensor(k) for k in f.keys() if k.startswith("concepts.")}, sys.argv[2])
EOF
    split_to_out "$W/concepts.safetensors" concepts
    cp "$m/config.json" "$OUT/concept-config.json"
  fi
  ;;
student)  # deid/models/default is STEP=train's best candidate here
  train_bg s8b 13 12 "$SMAX_SHIPPED" "$C" --keep-layers 0,2,3,5,6,8,9,11 --teacher deid/models/default \
      --kd-weight 0.5
  wait $PIDS
  if export_student s8b; then
    split_to_out "$W/s8b-export/model.safetensors" s8b
    cp "$W/s8b-export/config.json" "$OUT/s8b-config.json"
  fi
  ;;
*) echo "STEP: train, students, concepts or student" >&2; exit 2 ;;
esac
(cd $W && tar czf "$OUT/logs-$STEP.tgz" --exclude='*.safetensors' --exclude='last' --exclude='best' \
  --exclude='*export' --exclude='model-*' .)
ls -la "$OUT"
