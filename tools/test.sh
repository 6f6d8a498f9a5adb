#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs every test of ember, as CI does:
#   1. Release build (warnings are errors) and ctest;
#   2. the same tests with kernels capped to portable C (EMBER_ISA_MAX=scalar);
#   3. each optional dependency switched off alone (ONNX, TorchScript, .pt2, image codecs, oneDNN,
#      OpenBLAS, CUDA): library, ember program, API and CLI tests;
#   4. AddressSanitizer + UndefinedBehaviorSanitizer build and ctest; then a ThreadSanitizer
#      build of the library and the concurrency tests only (ctest -L concurrency);
#   5. install, then build and run examples/classify.c against the installed package through
#      pkg-config (shared and static) and CMake's find_package(ember);
#   6. exported symbols (only ember_* from the .so; only em_* and ember_* globals in the .a),
#      module include rules (and that a planted wrong include is caught), headers compiling alone;
#   7. the Python package (python/) pip-installed in a venv with the release library, its pytest;
#      then, in a second venv with the package's mlserver extra, a real MLServer (issue #26);
#   8. libFuzzer targets built with clang and run briefly on their seed corpora (the whole-model
#      targets too: tests/fuzz/README.md).
# Before 1, the onnx 1.23 conformance suite is generated from PyPI's onnx in a venv (see below);
# ctest then runs it beside Debian's onnx 1.12 data.
# Build trees go under $EMBER_TEST_DIR (default: build-test/); each stage's tree but the release
# one is removed once its tests pass, so the run's disk use peaks near 1 GB.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${EMBER_TEST_DIR:-$root/build-test}
jobs=$(nproc)
step() { printf '\n=== %s ===\n' "$*"; }

step "onnx 1.23 conformance suite (PyPI onnx==1.23.2 in a venv, node cases generated)"
# The newer suite is not packaged by Debian: tools/gen_onnx_suite.py writes it from PyPI's onnx
# (a small wheel, no torch). EMBER_ONNX123_SUITE=DIR reuses a written suite;
# EMBER_ONNX123_SUITE=off skips it (offline machines).
suite=${EMBER_ONNX123_SUITE:-$out/onnx123}
mkdir -p "$out"
if [ "$suite" != off ] && [ ! -d "$suite/node" ]; then
  venv=$out/venv-onnx123
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check onnx==1.23.2 numpy
  "$venv/bin/python" tools/gen_onnx_suite.py "$suite.tmp" >"$out.onnx123.log" 2>&1 \
    || { tail -20 "$out.onnx123.log"; exit 1; }
  mv "$suite.tmp" "$suite"
fi
[ "$suite" = off ] && suite="" || echo "onnx 1.23 suite: $suite ($(ls "$suite/node" | wc -l) node cases)"

# ccache lets the builds below share the objects their configurations compile alike (the
# feature-off builds recompile only what a feature touches): paths are made relative to the
# source root, so build trees in different folders hit the same entries.
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi

step "release build"
cmake -S . -B "$out/release" -DCMAKE_BUILD_TYPE=Release -DEMBER_WERROR=ON "${launcher[@]}" \
  -DEMBER_ONNX123_SUITE="$suite" >"$out.release.log" 2>&1 \
  || { cat "$out.release.log"; exit 1; }
grep -A12 "ember .* configuration" "$out.release.log" || true
cmake --build "$out/release" -j"$jobs"
ctest --test-dir "$out/release" --output-on-failure -j"$jobs"

step "portable kernels only (EMBER_ISA_MAX=scalar)"
EMBER_ISA_MAX=scalar ctest --test-dir "$out/release" --output-on-failure -j"$jobs" -L 'api|cli'

step "each optional part switched off alone: library, API and CLI tests"
# What a user who lacks one dependency builds. Each configuration compiles the library, the
# ember program and the API tests (target ember_api_cli_tests) and runs `ctest -L 'api|cli'`.
for feat in ONNX TORCHSCRIPT PT2 IMAGE ONEDNN OPENBLAS CUDA; do
  dir="$out/no-$(echo "$feat" | tr 'A-Z' 'a-z')"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DEMBER_WERROR=ON -DEMBER_WITH_$feat=OFF \
    "${launcher[@]}" -DEMBER_ONNX123_SUITE= >"$dir.log" 2>&1 || { cat "$dir.log"; exit 1; }
  cmake --build "$dir" -j"$jobs" --target ember_api_cli_tests >>"$dir.log" 2>&1 \
    || { tail -40 "$dir.log"; exit 1; }
  grep -q "EMBER_WITH_$feat=OFF" "$dir.log"
  echo "EMBER_WITH_$feat=OFF: $(grep -o ' loaders=[^ ]* ' <("$dir/ember" --version)) built"
  ctest --test-dir "$dir" --output-on-failure -j"$jobs" -L 'api|cli' >"$dir.ctest.log" 2>&1 \
    || { cat "$dir.ctest.log"; exit 1; }
  grep "tests passed" "$dir.ctest.log"
  rm -rf "$dir" # disk: each tree is ~90 MB, and CI machines can be short of space
done

step "sanitizer build (address, undefined)"
# The tests link one shared library here (EMBER_TESTS_SHARED): statically linked, each of the
# ~300 instrumented test programs is 45 MB, 4.4 GB in all.
cmake -S . -B "$out/asan" -DCMAKE_BUILD_TYPE=Debug -DEMBER_SANITIZE=address,undefined "${launcher[@]}" \
  -DEMBER_TESTS_SHARED=ON -DEMBER_WITH_CUDA=OFF -DEMBER_WERROR=ON -DEMBER_ONNX123_SUITE="$suite" \
  >"$out.asan.log" 2>&1 || { cat "$out.asan.log"; exit 1; }
cmake --build "$out/asan" -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$out/asan" --output-on-failure -j"$jobs"
du -sh "$out/asan"
rm -rf "$out/asan"

step "ThreadSanitizer build (library and concurrency tests)"
# Only the library and the tests labelled `concurrency` (one session from many threads, many
# sessions, load/destroy while others run, plan-cache evictions, the thread pool), to keep CI
# short. CUDA is off: no device here, and its runtime is not instrumented. oneDNN and OpenBLAS
# stay as configured: their locks are pthread's, which TSan sees, and the tests are clean with
# them. tests/tsan.supp explains each suppression (none is in ember's code).
cmake -S . -B "$out/tsan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEMBER_SANITIZE=thread "${launcher[@]}" \
  -DEMBER_WITH_CUDA=OFF -DEMBER_WERROR=ON -DEMBER_ONNX123_SUITE= >"$out.tsan.log" 2>&1 \
  || { cat "$out.tsan.log"; exit 1; }
cmake --build "$out/tsan" -j"$jobs" --target ember_concurrency_tests >>"$out.tsan.log" 2>&1 \
  || { tail -40 "$out.tsan.log"; exit 1; }
TSAN_OPTIONS="suppressions=$root/tests/tsan.supp:halt_on_error=1:second_deadlock_stack=1" \
  ctest --test-dir "$out/tsan" --output-on-failure -j"$jobs" -L concurrency
rm -rf "$out/tsan"

step "installed package: pkg-config and find_package"
rm -rf "$out/prefix"
cmake --install "$out/release" --prefix "$out/prefix" >/dev/null
libdir=$(ls -d "$out"/prefix/lib*/pkgconfig | head -1)
export PKG_CONFIG_PATH="$libdir"
cc -std=c11 -Wall -Wextra -Werror examples/classify.c $(pkg-config --cflags --libs ember) \
  -o "$out/classify_shared"
LD_LIBRARY_PATH="$(dirname "$libdir")" "$out/classify_shared" | tee "$out/classify.txt"
grep -q "^sample 1: class [0-9] (p=" "$out/classify.txt"
static_libs=$(pkg-config --static --libs ember)
cc -std=c11 examples/classify.c $(pkg-config --cflags ember) "$(dirname "$libdir")/libember.a" \
  ${static_libs/-lember /} -o "$out/classify_static"
"$out/classify_static" | grep -q "^sample 0: class"
cmake -S examples -B "$out/example-cmake" -DCMAKE_PREFIX_PATH="$out/prefix" >/dev/null
cmake --build "$out/example-cmake" >/dev/null
LD_LIBRARY_PATH="$(dirname "$libdir")" "$out/example-cmake/classify" | grep -q "^sample 0: class"
ls -l "$out/prefix/bin/ember" "$(dirname "$libdir")"/libember.*
echo "installed package: ok"

step "exported symbols and include rules"
bad=$(nm -D --defined-only "$(dirname "$libdir")/libember.so" | awk '{print $3}' \
  | grep -vE '^(ember_|_init$|_fini$|_edata$|_end$|__bss_start$)' || true)
if [ -n "$bad" ]; then echo "symbols exported besides ember_*:"; echo "$bad"; exit 1; fi
echo "exports: $(nm -D --defined-only "$(dirname "$libdir")/libember.so" | grep -c ' T ember_') ember_ functions, nothing else"
# The static library links into users' programs: its global symbols are em_* or ember_* too.
bad=$(nm -g --defined-only "$(dirname "$libdir")/libember.a" 2>/dev/null | awk 'NF == 3 {print $3}' \
  | grep -vE '^(em_|ember_)' | sort -u || true)
if [ -n "$bad" ]; then echo "libember.a globals without em_/ember_:"; echo "$bad" | head -50; exit 1; fi
echo "libember.a: $(nm -g --defined-only "$(dirname "$libdir")/libember.a" 2>/dev/null \
  | awk 'NF == 3' | wc -l) global symbols, all em_* or ember_*"
EMBER_BUILD_DIR="$out/release" tools/check_includes.sh
tools/check_includes.sh --self-test

step "Python package (venv with numpy and pytest; pip install ./python; pytest)"
# The package as a user installs it: `pip install ./python` bundles the release build's
# libember.so (EMBER_LIBRARY), and python/tests run against that copy, outside the source tree.
if [ -f "$out/release/libember.so" ]; then
  venv=$out/venv-python
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check numpy pytest "setuptools>=70.1"
  rm -rf python/build
  EMBER_LIBRARY="$out/release/libember.so" "$venv/bin/pip" install -q --disable-pip-version-check \
    --force-reinstall --no-deps --no-build-isolation ./python
  rm -rf python/build python/*.egg-info
  (cd "$out" && EMBER_CLI="$out/release/ember" "$venv/bin/python" -m pytest -q -p no:cacheprovider \
    "$root/python/tests")
else
  echo "$out/release/libember.so not built (EMBER_BUILD_SHARED=OFF): skipped"
fi

step "MLServer runtime (venv with the package's mlserver extra; mlserver start on 127.0.0.1)"
# Issue #26: ember.serving.mlserver behind a real MLServer, driven with tritonclient and plain
# JSON (python/tests/test_mlserver.py). Its own venv: the install is ~340 MB and a few minutes
# of downloads, removed again after the stage.
if [ -f "$out/release/libember.so" ]; then
  venv=$out/venv-mlserver
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check pytest "setuptools>=70.1"
  rm -rf python/build
  EMBER_LIBRARY="$out/release/libember.so" "$venv/bin/pip" install -q --disable-pip-version-check \
    --no-build-isolation "./python[mlserver]"
  rm -rf python/build python/*.egg-info
  (cd "$out" && EMBER_REQUIRE_MLSERVER=1 EMBER_CLI="$out/release/ember" "$venv/bin/python" -m pytest \
    -q -p no:cacheprovider "$root/python/tests/test_mlserver.py")
  rm -rf "$venv"
else
  echo "$out/release/libember.so not built (EMBER_BUILD_SHARED=OFF): skipped"
fi

step "fuzz smoke (clang, libFuzzer)"
if command -v clang >/dev/null && [ -f tests/fuzz/CMakeLists.txt ]; then
  CC=clang cmake -S . -B "$out/fuzz" -DCMAKE_BUILD_TYPE=Debug -DEMBER_BUILD_FUZZ=ON \
    -DEMBER_SANITIZE=address,undefined -DEMBER_WITH_CUDA=OFF -DEMBER_WITH_ONEDNN=OFF \
    -DEMBER_WITH_OPENBLAS=OFF -DEMBER_BUILD_SHARED=OFF >"$out.fuzz.log" 2>&1 \
    || { cat "$out.fuzz.log"; exit 1; }
  cmake --build "$out/fuzz" -j"$jobs" --target ember_fuzz_targets
  ctest --test-dir "$out/fuzz" --output-on-failure -L fuzz
  rm -rf "$out/fuzz"
else
  echo "clang or tests/fuzz missing: skipped"
fi
step "all tests passed"
