#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Issue #20 figures on resnet18 (docs/NOTES.md, "Issue #20: the quantizer"): ember quantize vs
# ONNX Runtime's quantize_static (tools/quantize_check.py: parameters, SQNR, argmax, wall time),
# then ember running its own QDQ file vs ORT running ORT's, one thread, medians of alternating
# runs. Usage: bench/quantize_r18.sh build/ember MODEL.onnx CALDIR (32 .npy batches [1,3,224,224])
set -e
EMBER=$1 MODEL=$2 CAL=$3
PY=${BENCH_PY_ORT:-$(dirname "$0")/.env/ort/bin/python}
OUT=$(mktemp -d)
$PY tools/quantize_check.py "$EMBER" "$MODEL" "$CAL" --keep "$OUT" 2>&1 | grep -v -i warning
X=$(ls "$CAL"/*.npy | head -1)
for round in 1 2 3; do
  for mode in on off; do
    printf 'ember --int8 %s: ' $mode
    "$EMBER" run "$OUT/ember.onnx" --int8 $mode --threads 1 --iters 20 --warmup 3 --input "$X" | grep -o 'median_ms=[0-9.]*'
  done
  printf 'ORT (its own QDQ file): '
  $PY -c "
import sys, time, numpy as np, onnxruntime as ort
o = ort.SessionOptions(); o.intra_op_num_threads = 1; o.inter_op_num_threads = 1
s = ort.InferenceSession('$OUT/ort.onnx', o, providers=['CPUExecutionProvider'])
x = np.load('$X'); n = s.get_inputs()[0].name
for _ in range(3): s.run(None, {n: x})
t = []
for _ in range(20):
    a = time.perf_counter(); s.run(None, {n: x}); t.append((time.perf_counter() - a) * 1e3)
print('median_ms=%.3f' % sorted(t)[10])
"
done
