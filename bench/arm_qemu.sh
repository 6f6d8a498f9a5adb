#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue #23: the NEON kernels against the portable reference kernels on AArch64, under
# qemu-aarch64 user-mode emulation. EMULATED: qemu translates each guest instruction into host
# code, so these times say how much less work the NEON path does (fewer, wider instructions),
# not how fast a real ARM core runs either path. The times are qemu's CPU time (user + sys,
# from /usr/bin/time: on a shared machine its wall time mostly measures the other tenants) for
# one process: load, plan and one run. Each model runs once with EMBER_ISA_MAX=scalar
# (kernels/ref only) and once with the default cap (the NEON units), alternating, and its
# output is compared with the model's ref.npy (PyTorch's output).
#   bench/arm_qemu.sh [BUILD_DIR [MODEL...]]   (BUILD_DIR: a cross build, default build-arm)
# Models are read from $EMBER_SUITE_CACHE/<model>/op13.onnx (default bench/.cache/suite: `bench/run.py --suite` makes them).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-arm}
shift || true
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(mobilenet_v2 resnet18)
suite=${EMBER_SUITE_CACHE:-$PWD/bench/.cache/suite}
py=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "ember: $(qemu-aarch64 -L / "$build/ember" --version | tail -1)"
echo "host: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; qemu: $(qemu-aarch64 --version | head -1)"
printf '%-14s %-7s %10s %10s %12s  %s\n' model isa cpu_s wall_s run_ms "max |out - ref.npy|"
for m in "${models[@]}"; do
  for isa in scalar native; do
    out=$tmp/$m-$isa
    mkdir -p "$out"
    t0=$(date +%s.%N)
    EMBER_ISA_MAX=$isa /usr/bin/time -o "$out.time" -f '%U %S' qemu-aarch64 -L / "$build/ember" \
      run "$suite/$m/op13.onnx" --input "$suite/$m/input.npy" --threads 1 --warmup 0 --iters 1 \
      --output-dir "$out" >"$out.log"
    t1=$(date +%s.%N)
    cpu=$(awk '{print $1 + $2}' "$out.time")
    run=$(sed -n 's/.*first_ms=\([0-9.]*\).*/\1/p' "$out.log")
    err=$("$py" -c "import numpy as n,sys; a=n.load(sys.argv[1]); b=n.load(sys.argv[2]); \
print('%.3g' % float(abs(a.astype('f8')-b.reshape(a.shape)).max()))" "$out/output_0.npy" "$suite/$m/ref.npy")
    printf '%-14s %-7s %10.1f %10.1f %12s  %s\n' "$m" "$isa" "$cpu" "$(echo "$t1 - $t0" | bc)" "$run" "$err"
  done
done
