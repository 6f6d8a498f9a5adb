#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds a wheel of the Python package (python/) holding libember.so:
#   tools/build_wheel.sh [OUT_DIR] [-- CMAKE_ARGS...]
# configures and builds the shared library in $EMBER_WHEEL_BUILD (default build-wheel/,
# Release; ccache when present), then `pip wheel ./python` with EMBER_LIBRARY pointing at it,
# writing ember_runtime-<version>-py3-none-<platform>.whl into OUT_DIR (default dist/).
# CMAKE_ARGS go to cmake, e.g. `-- -DEMBER_WITH_CUDA=OFF -DEMBER_WITH_ONEDNN=OFF` for a library
# that needs fewer system libraries. The wheel bundles libember.so alone: the libraries it
# links (protobuf-c, libzip, and OpenBLAS / oneDNN / CUDA when built with them; `ldd` lists
# them) must be installed where the wheel is used, as the package's README says.
# PYTHON (default python3) must have pip; pip fetches setuptools for the isolated build.
set -euo pipefail
cd "$(dirname "$0")/.."
outdir=dist
if [ $# -gt 0 ] && [ "$1" != "--" ]; then outdir=$1; shift; fi
[ $# -gt 0 ] && [ "$1" = "--" ] && shift
build=${EMBER_WHEEL_BUILD:-build-wheel}
python=${PYTHON:-python3}
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DEMBER_BUILD_SHARED=ON -DEMBER_BUILD_TESTS=OFF \
  "${launcher[@]}" "$@" >"$build.log" 2>&1 || { cat "$build.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" --target ember_shared >>"$build.log" 2>&1 \
  || { tail -40 "$build.log"; exit 1; }
lib=$(realpath "$build/libember.so")
mkdir -p "$outdir"
rm -rf python/build  # setuptools' staging folder: no stale copy of another library
EMBER_LIBRARY=$lib "$python" -m pip wheel --no-deps --disable-pip-version-check -q \
  -w "$outdir" ./python
rm -rf python/build python/*.egg-info
wheel=$(ls -t "$outdir"/ember_runtime-*.whl | head -1)
"$python" -m zipfile -l "$wheel" | grep "ember/libember.so" >/dev/null \
  || { echo "$wheel: libember.so missing"; exit 1; }
echo "$wheel (libember.so from $lib)"
