#!/usr/bin/env bash
# Prepared for the next session that is lent a GPU (not run yet; dry-run on the CPU with DRY=1).
# What 2026-11-24's GPU runs left open (docs/BENCHMARKS.md, "On a GPU"):
#   WHAT=cont      issue 17: the de-identification model continued with synthetic English notes
#                  mixed in (the English-free continuation lost recall on English dev), choosing
#                  on all of MEDDOCAN dev and eds-pseudo dev; back in 15 MB parts (deid.part*).
#   WHAT=students  issue 18: 4- and 6-layer students distilled for longer, side by side
#                  (s4.safetensors, s6.part*).
# Pack first, here, with the fixed packer and these runs' own synthetic seeds:
#   python scripts/device_pack.py pack --out .gpu --root ../shared/data meddocan/train meddocan/dev \
#       eds-pseudo/gen_dataset_train.jsonl eds-pseudo/templates.txt \
#       eds-pseudo/public_small_train_data.jsonl eds-pseudo/public_small_dev_data.jsonl \
#       echr-fr-es/manual/FR-manual-train.tsv echr-fr-es/manual/ES-manual-train.tsv \
#       --synth 800:43 --synth-en 400:43 --synth 800:13 --synth-en 400:13
#   (+ .gpu/whl as in gpu_session.sh; the model file in its de-identification-only form)
# then: run WHAT=cont bash bench/gpu_next.sh .gpu, and WHAT=students in a second call.
set -u
MEDDOCAN_DEV_LIMIT=$([ "${DRY:-0}" = 1 ] && echo :3) . bench/gpu_setup.sh "${1:-.gpu}"
WHAT=${WHAT:-cont}
if [ "$DRY" = 0 ]; then
  DEV=cuda; CMAX="--max-steps 4000 --decay-steps 4000 --max-minutes 6 --eval-minutes 0.3"
  SMAX="--max-steps 6000 --decay-steps 6000 --max-minutes 7 --eval-minutes 0.5"
else
  DEV=cpu; CMAX="--max-steps 2 --eval-minutes 0.01"; SMAX="--max-steps 2 --eval-minutes 0.01"
fi

if [ "$WHAT" = cont ]; then
  $PY -m deid train $C --synth-en 400 --init deid/models/default --freeze-layers 1 --lr 5e-5 \
      --seed 43 --out $W/cont-en --threads 8 --device $DEV $CMAX > $W/cont-en.out 2>&1
  if [ -d "$W/cont-en/best" ]; then
    $PY -m deid train --export "$W/cont-en/best" --out "$W/export" --model-version e5-cont-en-gpu
    split -b 15000000 -d "$W/export/model.safetensors" "$OUT/deid.part"
    cp "$W/export/config.json" "$OUT/deid-config.json"
  fi
else
  for layers in "s4 2,5,8,11" "s6 1,3,5,7,9,11"; do
    set -- $layers
    $PY -m deid train $C --synth-en 400 --init deid/models/default --keep-layers $2 \
        --teacher deid/models/default --kd-weight 0.5 --seed 13 --out $W/$1 --threads 6 \
        --device $DEV $SMAX > $W/$1.out 2>&1 &
  done
  wait
  for s in s4 s6; do
    [ -d "$W/$s/best" ] || continue
    $PY -m deid train --export "$W/$s/best" --out "$W/$s-export" --model-version "$s-kd-en-gpu"
    split -b 15000000 -d "$W/$s-export/model.safetensors" "$OUT/$s.part"
    cp "$W/$s-export/config.json" "$OUT/$s-config.json"
  done
fi
(cd $W && tar czf "$OUT/logs-$WHAT.tgz" --exclude='*.safetensors' --exclude='last' --exclude='best' \
  --exclude='*export' .)
ls -la "$OUT"
