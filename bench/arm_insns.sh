#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue #23's efficiency target: retired guest instructions per inference under qemu-aarch64,
# ember's NEON path (the default cap) against its portable reference path
# (EMBER_ISA_MAX=scalar: kernels/ref only), for fp32 and int8 models.
# How: bench/arm_insn_plugin.c, a qemu TCG plugin built here with the host compiler (Debian's
# qemu-user loads plugins but ships none), adds each translated block's instruction count to
# a counter every time the block runs, and notes the counter at each
# clock_gettime(CLOCK_MONOTONIC) system call. `ember run --threads 1 --warmup 0 --iters 1`
# brackets its timed run with two such calls, the last two of the process: their difference
# is the instructions of one inference (a steady-state run: planning and packing happened in
# the first run). The process's total is printed too.
# int8: the fp32 model quantized by ONNX Runtime's quantize_static (bench/arm_insns_qdq.py,
# QDQ, made once into $CACHE with $ORT_PY), run with --int8 on (integer ops where exact).
#   bench/arm_insns.sh [BUILD_DIR [MODEL...]]    (BUILD_DIR: an aarch64 cross build)
# env: MODELS_DIR (default bench/.cache, what bench/run.py makes: <model>/model.onnx, input.npy),
#      PRECISIONS (default "fp32 int8"), ISAS (default "scalar native"), JOBS (default 1:
#      how many qemu processes at once), CACHE (default /tmp/ember-arm-insns), ORT_PY,
#      WORK (a directory to keep each run's log, counts and output in; default: a temporary one).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-arm}
shift || true
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(mobilenet_v2 resnet18)
mdir=${MODELS_DIR:-$PWD/bench/.cache}
precisions=${PRECISIONS:-fp32 int8}
isas=${ISAS:-scalar native}
jobs=${JOBS:-1}
cache=${CACHE:-/tmp/ember-arm-insns}
ort_py=${ORT_PY:-$PWD/bench/.env/ort/bin/python}
py=${PYTHON:-/usr/bin/python3}
mkdir -p "$cache"
if [ -n "${WORK:-}" ]; then # keep the runs' logs, counts and outputs there
  tmp=$WORK
  mkdir -p "$tmp"
else
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
fi
cc -O2 -shared -fPIC -fvisibility=hidden -o "$tmp/insn.so" bench/arm_insn_plugin.c
echo "ember: $(qemu-aarch64 -L / "$build/ember" --version | tail -1)"
echo "qemu: $(qemu-aarch64 --version | head -1) (default cpu: max); host: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores"

model_file() { # model precision -> the file ember runs
  if [ "$2" = int8 ]; then
    local q=$cache/$1-qdq.onnx
    [ -f "$q" ] || "$ort_py" bench/arm_insns_qdq.py "$mdir/$1/model.onnx" "$mdir/$1/input.npy" \
      "$q" >"$tmp/qdq-$1.log" 2>&1 || { cat "$tmp/qdq-$1.log" >&2; exit 1; }
    echo "$q"
  else
    echo "$mdir/$1/model.onnx"
  fi
}

count() { # model precision isa: one qemu process; writes $tmp/<m>-<p>-<isa>.{txt,log,time}/
  local m=$1 p=$2 isa=$3 f k=$tmp/$1-$2-$3 extra=()
  f=$(model_file "$m" "$p")
  [ "$p" = int8 ] && extra=(--int8 on)
  mkdir -p "$k"
  EMBER_ISA_MAX=$isa /usr/bin/time -o "$k.time" -f '%U %S' qemu-aarch64 \
    -plugin "$tmp/insn.so,out=$k.txt" -L / "$build/ember" run "$f" --input "$mdir/$m/input.npy" \
    --threads 1 --warmup 0 --iters 1 "${extra[@]}" --output-dir "$k" >"$k.log" 2>&1 \
    || { echo "FAILED: $m $p $isa" >&2; cat "$k.log" >&2; return 1; }
}

runs=()
for m in "${models[@]}"; do
  for p in $precisions; do
    model_file "$m" "$p" >/dev/null
    for isa in $isas; do runs+=("$m $p $isa"); done
  done
done
pids=()
for r in "${runs[@]}"; do
  # shellcheck disable=SC2086
  count $r &
  pids+=($!)
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
done
wait

per_inf() { awk '/^marks/ {printf "%.0f\n", $NF - $(NF-1)}' "$1"; } # exact below 2^53
total() { awk '/^insns/ {print $2}' "$1"; }
echo
echo "| model | precision | isa | instructions / inference | process total | qemu CPU s |"
echo "|---|---|---|---:|---:|---:|"
for r in "${runs[@]}"; do
  # shellcheck disable=SC2086
  set -- $r
  k=$tmp/$1-$2-$3
  [ -f "$k.txt" ] || { echo "| $1 | $2 | $3 | failed | | |"; continue; }
  printf '| %s | %s | %s | %s | %s | %s |\n' "$1" "$2" "$3" "$(per_inf "$k.txt")" \
    "$(total "$k.txt")" "$(awk '{print $1 + $2}' "$k.time")"
done
echo
echo "| model | precision | NEON / scalar instructions | max abs(NEON out - scalar out) | max abs(out) |"
echo "|---|---|---:|---:|---:|"
for m in "${models[@]}"; do
  for p in $precisions; do
    a=$tmp/$m-$p-scalar b=$tmp/$m-$p-native
    if [ ! -f "$a.txt" ] || [ ! -f "$b.txt" ]; then continue; fi
    ratio=$(awk -v a="$(per_inf "$a.txt")" -v b="$(per_inf "$b.txt")" 'BEGIN {printf "%.4f", b / a}')
    diff=$("$py" -c "import numpy as n,sys; a=n.load(sys.argv[1]).astype('f8'); b=n.load(sys.argv[2]).astype('f8'); \
print('%.3g | %.3g' % (abs(a-b).max(), abs(a).max()))" "$a/output_0.npy" "$b/output_0.npy")
    echo "| $m | $p | $ratio | $diff |"
  done
done
