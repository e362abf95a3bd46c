#!/usr/bin/env bash
# Lent-GPU session 1, as it ran for docs/BENCHMARKS.md (2026-11-24, H100): GPU throughput of the
# shipped detector, then, side by side on the one GPU, concept-head configurations (issue 20) and
# a 4-layer student distilled from the shipped model (issue 18). Results go to $OUT (at most 8
# files of 16 MiB).
#
#   here:  python scripts/device_pack.py pack --out .gpu --root ../shared/data CORPORA... --synth 800:13
#   there: bash bench/gpu_session.sh .gpu          (DRY=1: a few steps of each, on any machine)
set -u
. bench/gpu_setup.sh "${1:-.gpu}"

if [ "$DRY" = 0 ]; then
  DEV=cuda; LIMIT=""; SMAX="--max-steps 3000 --decay-steps 3000 --max-minutes 5.2 --eval-minutes 0.75"
  CMAX="--max-minutes 5.5"
  $PY bench/ner_throughput.py --device cuda --modes fp32,fp16,bf16 --notes 256 \
      --batch-sizes 1,8,64,256 --token-budget 32768 2>&1 | tee "$W/throughput.md"
else
  DEV=cpu; LIMIT="--limit 120"; SMAX="--max-steps 2 --eval-minutes 0.01"; CMAX=""
fi

# concept head (stacked, branch owning all 12 layers): name epochs lr seed
for cfg in "a 20 5e-5 13" "b 30 5e-5 13" "c 20 1e-4 13" "d 20 5e-5 7"; do
  set -- $cfg
  if [ "$DRY" = 1 ]; then [ "$1" = a ] || continue; set -- "$1" 1 "$3" "$4"; fi
  $PY -m deid.concepts.train --train $D/pharmaconer/train.conll --dev $D/pharmaconer/dev.conll \
      --out $W/concept-$1 --from-layer 0 --variants stacked --epochs $2 --lr $3 --seed $4 \
      --threads 2 --device $DEV $LIMIT $CMAX > $W/concept-$1.out 2>&1 &
done

# 4-layer student, distilled from the shipped model on its training corpora
$PY -m deid train $C --init deid/models/default --keep-layers 2,5,8,11 --teacher deid/models/default \
    --kd-weight 0.5 --out $W/s4 --threads 4 --device $DEV $SMAX > $W/s4.out 2>&1 &
wait

# the concept configuration dev chose (held-out only reported), its branch tensors in 15 MB parts
best=$($PY - "$W" <<'EOF'
import json, sys
from pathlib import Path
runs = []
for s in sorted(Path(sys.argv[1]).glob("concept-*/summary.json")):
    r = json.loads(s.read_text())["runs"][0]
    print(s.parent.name, r["dev"], r["heldout"], r["epoch"], file=sys.stderr)
    runs.append((r["dev"]["f1"], s.parent.name))
print(max(runs)[1] if runs else "")
EOF
)
if [ -n "$best" ]; then
  $PY - "$W/$best/model-stacked-L0" "$W/concepts.safetensors" <<'EOF'
import sys
from safetensors import safe_open
from safetensors.torch import save_file
with safe_open(sys.argv[1] + "/model.safetensors", "pt") as f:
    save_file({k: f.get_tensor(k) for k in f.keys() if k.startswith("concepts.")}, sys.argv[2])
EOF
  split -b 15000000 -d "$W/concepts.safetensors" "$OUT/concepts.part"
  cp "$W/$best/model-stacked-L0/config.json" "$W/concept-config.json"
fi
if [ -d "$W/s4/best" ]; then
  $PY -m deid train --export "$W/s4/best" --out "$W/s4-export" --model-version s4-kd-gpu
  cp "$W/s4-export/model.safetensors" "$OUT/s4.safetensors"
  cp "$W/s4-export/config.json" "$W/s4-config.json"
fi
(cd $W && tar czf "$OUT/logs.tgz" --exclude='*.safetensors' --exclude='last' --exclude='best' --exclude='s4-export' \
  --exclude='model-*' .)
ls -la "$OUT"
