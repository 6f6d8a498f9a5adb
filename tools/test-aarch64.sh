#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CI's aarch64 stage (issue #23): cross-builds ember for 64-bit ARM
# (cmake/toolchains/aarch64-linux-gnu.cmake, with no OpenBLAS, oneDNN or CUDA: ember's own
# kernels) and runs a subset of its tests under qemu-aarch64. Needs tools/install-deps.sh
# (cmake, protoc-c, onnx.proto, ccache) and tools/install-deps-aarch64.sh.
# What runs, and why a subset: emulation is slow (docs/NOTES.md, issue #23, has the times) and
# CI must stay under 40 minutes on a 2-core machine. Run: the runtime unit tests, the API and
# CLI tests (without the soak tests, and without api_test_api_memory: its RSS bounds would
# measure qemu's own translation cache too, and it ran past its 10-minute limit under
# emulation on a loaded machine), and the ONNX 1.23 conformance suite's node group when
# $EMBER_ONNX123_SUITE (or build-test/onnx123, which tools/test.sh writes) holds it.
# Also run: the NEON kernels' tests that are quick under emulation (kernels_test_arm_conv,
# _unary, _binary, _pool, _blocked, _dwconv: 0.4-5 s of CPU each). Left out:
# kernels_test_arm_gemm (its ~320 Gemm / MatMul cases took 140 s under qemu on a loaded machine: run it with
# `ctest --test-dir build-test/aarch64 -R arm_gemm` after a build of it), the other kernel
# unit tests (kernels/ref's op-by-op tests, ~130 executables; the conformance suite runs the
# same reference kernels through whole graphs), the loader unit tests, the other conformance
# groups and the ONNX round trips.
# `ctest --test-dir build-test/aarch64` afterwards builds nothing but runs what was built;
# `cmake --build build-test/aarch64` first builds the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${EMBER_TEST_DIR:-$root/build-test}
dir=$out/aarch64
mkdir -p "$out"
jobs=$(nproc)
suite=${EMBER_ONNX123_SUITE:-$out/onnx123}
[ -d "$suite/node" ] || suite=""
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
t0=$(date +%s)
cmake -S . -B "$dir" -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
  -DCMAKE_BUILD_TYPE=Release -DEMBER_WERROR=ON "${launcher[@]}" -DEMBER_ONNX123_SUITE="$suite" \
  >"$dir.log" 2>&1 || { cat "$dir.log"; exit 1; }
grep -A12 "ember .* configuration" "$dir.log" || true
# The library, the ember program, the API tests, then the runtime tests and the conformance
# runner (each test is its own executable: build only what runs).
targets=(ember_api_cli_tests kernels_test_arm_conv kernels_test_arm_unary kernels_test_arm_binary
  kernels_test_arm_pool kernels_test_arm_blocked kernels_test_arm_dwconv)
while read -r t; do targets+=("$t"); done < <(ctest --test-dir "$dir" -N -L runtime \
  | sed -n 's/^ *Test *#[0-9]*: \(runtime_test_[a-z0-9_]*\)$/\1/p')
[ -z "$suite" ] || targets+=(onnx_conformance)
cmake --build "$dir" -j"$jobs" --target "${targets[@]}" >>"$dir.log" 2>&1 \
  || { tail -60 "$dir.log"; exit 1; }
file "$dir/ember" | grep -q "ARM aarch64"
echo "built for aarch64 in $(($(date +%s) - t0)) s: $(qemu-aarch64 -L / "$dir/ember" --version | tail -1)"
t1=$(date +%s)
quick='kernels_test_arm_(conv|unary|binary|pool|blocked|dwconv)$'
regex="^(runtime_|api_|cli_|$quick)"
[ -z "$suite" ] || regex="^(runtime_|api_|cli_|$quick|onnx123_conformance_node\$)"
ctest --test-dir "$dir" --output-on-failure -j"$jobs" -R "$regex" -E 'soak|api_test_api_memory$'
echo "aarch64 tests under qemu: $(($(date +%s) - t1)) s"
