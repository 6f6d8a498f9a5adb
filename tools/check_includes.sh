#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks the module boundaries of DESIGN.md / STYLE.md B3 and that every header compiles alone.
#
# Internal includes name their folder: "core/status.h" is runtime/core/status.h, and
# "loaders/...", "kernels/...", "quantization/..." are paths from the source root; a bare name
# is a file of the including file's own folder. The rules:
#   runtime/: core <- ir <- shape <- passes <- plan <- exec <- autograd <- api: a stage includes
#     its own folder and the stages before it, never one after it; only api/ sees loaders/ (each
#     loader's one interface header) and the quantizer's headers (quantization/*.h); no stage
#     sees kernels/, nor quantization/ but api/;
#   loaders/: core, ir, shape, the differentiation interface autograd/autograd.h (ONNX's
#     Gradient op), their own folder; never another loader (but pt2/, torch.export's front end,
#     sees torchscript/'s zip reader and aten lowering), exec, plan, passes, api, kernels;
#     inside torchscript/: archive <- lang <- lower <- the loader's entry;
#   kernels/<dir>: core, ir and the kernel interface plan/kernel.h, their own folder (x86 and
#     cuda also kernels/ref's headers, never ref's sources; x86 and arm the ISA-neutral vector
#     templates of kernels/vec); never another ISA folder, loaders;
#   quantization/: runtime up to plan, never kernels or loaders;
#   cli/: ember.h only; include/ember.h: standard headers only;
#   headers of CUDA, cuDNN, OpenBLAS, oneDNN only in adapter files named after them.
# Usage: tools/check_includes.sh [--self-test]. EMBER_SRC_DIR: tree to check (default: this
# one); EMBER_BUILD_DIR: a configured build (for generated headers; default build/).
# --self-test copies the tree, plants one wrong include at a time and checks each is caught
# (EMBER_CHECK_ONLY=FILE checks that file's includes only).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
src=${EMBER_SRC_DIR:-$here}
build=${EMBER_BUILD_DIR:-$here/build}

if [ "${1:-}" = --self-test ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  plants=(
    'runtime/shape/shape.c|#include "exec/interp.h"|a shape file including the executor'
    'runtime/core/alloc.c|#include "ir/graph.h"|core including ir'
    'runtime/passes/passes.c|#include "plan/planner.h"|passes including the planner'
    'runtime/ir/graph.c|#include "loaders/npy/npy.h"|the IR including a loader'
    'loaders/onnx/onnx_load.c|#include "exec/interp.h"|a loader including the executor'
    'loaders/onnx/onnx_load.c|#include "kernels/ref/ref.h"|a loader including kernels'
    'loaders/onnx/onnx_load.c|#include "loaders/torchscript/ts.h"|a loader including another'
    'loaders/torchscript/archive/ts_zip.c|#include "loaders/torchscript/lang/ts_ast.h"|the archive layer including the language layer'
    'kernels/x86/table.c|#include "kernels/cuda/cuda_ops.h"|one ISA folder including another'
    'kernels/ref/table.c|#include "plan/planner.h"|a kernel including the planner'
    'cli/main.c|#include "core/status.h"|the CLI including an internal header'
  )
  fails=0
  for p in "${plants[@]}"; do
    IFS='|' read -r file line what <<<"$p"
    rm -rf "$tmp/src"
    mkdir -p "$tmp/src"
    for d in include runtime loaders kernels quantization cli; do
      [ -d "$src/$d" ] && cp -r "$src/$d" "$tmp/src/$d"
    done
    printf '%s\n' "$line" >> "$tmp/src/$file"
    if EMBER_SRC_DIR="$tmp/src" EMBER_CHECK_NO_COMPILE=1 EMBER_CHECK_ONLY=$file "$0" \
         >"$tmp/out" 2>&1; then
      echo "check_includes --self-test: not caught: $what ($line in $file)"
      fails=1
    elif ! grep -q "$file" "$tmp/out"; then
      echo "check_includes --self-test: caught, but without naming $file: $(head -2 "$tmp/out")"
      fails=1
    fi
  done
  [ "$fails" = 0 ] && echo "check_includes --self-test: ${#plants[@]} planted includes caught"
  exit "$fails"
fi

cd "$src"
fail=0
bad() { echo "check_includes: $*" >&2; fail=1; }
stages=(core ir shape passes plan exec autograd api)
stage_index() { # name -> IDX (index in stages, -1 when not a stage)
  local i
  IDX=-1
  for i in "${!stages[@]}"; do [ "${stages[$i]}" = "$1" ] && { IDX=$i; return; }; done
  return 0
}

# TGT: the file an include names, as a path from the source root ("" when it is generated:
# build_config.h, onnx.pb-c.h).
target_of() { # file include
  local file=$1 inc=$2 first=${2%%/*}
  stage_index "$first"
  if [ "$inc" != "$first" ] && [ "$IDX" -ge 0 ]; then
    TGT="runtime/$inc"
  elif [[ "$first" == loaders || "$first" == kernels || "$first" == quantization ]]; then
    TGT=$inc
  elif [ "$inc" = ember.h ]; then
    TGT=include/ember.h
  elif [ -f "${file%/*}/$inc" ]; then
    TGT="${file%/*}/$inc"
  else
    TGT=""
  fi
}

check_file() { # file
  local f=$1 dir mod stage si inc tgt tdir tstage ti
  dir=${f%/*}
  mod=${f#*/}; mod=${mod%%/*}
  while IFS= read -r inc; do
    target_of "$f" "$inc"
    tgt=$TGT
    [ -z "$tgt" ] && continue
    [ -e "$tgt" ] || { bad "$f: #include \"$inc\": no such file ($tgt)"; continue; }
    tdir=${tgt%/*}
    [ "$tdir" = "$dir" ] && continue
    case "$f" in
    runtime/*)
      stage=${dir#runtime/}; stage_index "$stage"; si=$IDX
      case "$tgt" in
      include/ember.h) ;;
      runtime/*)
        tstage=${tdir#runtime/}; stage_index "$tstage"; ti=$IDX
        [ "$ti" -le "$si" ] || bad "$f: $stage/ must not include $tstage/ (a later stage): \"$inc\""
        ;;
      loaders/*)
        [ "$stage" = api ] || bad "$f: only runtime/api/ may include loaders/: \"$inc\"" ;;
      quantization/*.h) # the quantizer (issue #20): planned in quantization/, driven by the API
        [ "$stage" = api ] || bad "$f: only runtime/api/ may include quantization/: \"$inc\"" ;;
      *) bad "$f: runtime/ must not include $tdir/: \"$inc\"" ;;
      esac
      ;;
    loaders/*)
      case "$tgt" in
      include/ember.h | runtime/core/* | runtime/ir/* | runtime/shape/*) ;;
      runtime/autograd/autograd.h) ;;
      loaders/"$mod"/*)
        if [ "$mod" = torchscript ]; then
          local order=(archive lang lower) from=${dir#loaders/torchscript} to=${tdir#loaders/torchscript}
          from=${from#/}; to=${to#/}
          local fi_=3 ti_=3 k
          for k in 0 1 2; do
            [ "${order[$k]}" = "$from" ] && fi_=$k
            [ "${order[$k]}" = "$to" ] && ti_=$k
          done
          [ "$ti_" -le "$fi_" ] ||
            bad "$f: torchscript/${from:-.} must not include torchscript/${to:-.} (a later layer): \"$inc\""
        fi
        ;;
      loaders/torchscript/*)
        # torch.export's front end on the TorchScript loader's zip reader and aten lowering
        # (DESIGN.md: one lowering, two front ends); no other loader shares them.
        [ "$mod" = pt2 ] || bad "$f: a loader must not include another loader: \"$inc\"" ;;
      loaders/*) bad "$f: a loader must not include another loader: \"$inc\"" ;;
      *) bad "$f: loaders may include runtime core/, ir/, shape/ and autograd/autograd.h, not \"$inc\"" ;;
      esac
      ;;
    kernels/*)
      case "$tgt" in
      include/ember.h | runtime/core/* | runtime/ir/* | runtime/plan/kernel.h) ;;
      quantization/qmath.h) ;;
      kernels/vec/*) # ISA-neutral templates on the vf_* helpers, instantiated by each ISA unit
        [ "$mod" != ref ] || bad "$f: kernels/ref must not include the vector templates: \"$inc\"" ;;
      kernels/ref/*.h)
        [ "$mod" = ref ] || bad "$f: kernels/$mod may use kernels/ref's headers only through the registry: \"$inc\"" ;;
      kernels/*) bad "$f: kernels/$mod must not include another kernel folder: \"$inc\"" ;;
      *) bad "$f: kernels see runtime core/, ir/ and plan/kernel.h only, not \"$inc\"" ;;
      esac
      ;;
    quantization/*)
      case "$tgt" in
      include/ember.h | runtime/core/* | runtime/ir/* | runtime/shape/* | runtime/passes/* | runtime/plan/*) ;;
      *) bad "$f: quantization/ sees runtime up to plan/, not \"$inc\"" ;;
      esac
      ;;
    cli/*)
      [ "$tgt" = include/ember.h ] || bad "$f: the CLI may include ember.h only, not \"$inc\"" ;;
    include/*) bad "$f: include/ holds standard headers only, not \"$inc\"" ;;
    esac
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
}

files=${EMBER_CHECK_ONLY:-}
[ -n "$files" ] || files=$(find runtime loaders kernels quantization cli include -type f \
          \( -name '*.c' -o -name '*.h' -o -name '*.inc' -o -name '*.cu' \) 2>/dev/null | sort || true)
for f in $files; do
  check_file "$f"
done
# Loaders are told apart through api/'s loader table; api/ includes each one's interface only.
for f in $(grep -rlE '^#include "loaders/' runtime 2>/dev/null || true); do
  grep -hE '^#include "loaders/' "$f" | grep -vqE '"loaders/[a-z0-9_]+/[a-z0-9_]+\.h"' &&
    bad "$f: api/ includes a loader's internals (only loaders/<name>/<name>.h)"
done
# The differentiation interface that loaders may use includes core/ and ir/ only.
if [ -f runtime/autograd/autograd.h ] &&
   grep -E '^#include "' runtime/autograd/autograd.h | grep -vqE '"(core|ir)/|"ember\.h"'; then
  bad "runtime/autograd/autograd.h: includes more than core/ and ir/ (loaders include it)"
fi
# Dependency headers only in adapter files named after the dependency.
for pat in 'cblas.h:_openblas' 'dnnl.h:_onednn' 'cudnn.h:_cudnn' 'cublas:_cublas'; do
  hdr=${pat%%:*}; tag=${pat##*:}
  for f in $(grep -rlE "^#include <.*${hdr}" runtime kernels loaders cli 2>/dev/null); do
    case "$f" in *"$tag"*) ;; *) bad "$f includes ${hdr} but is not a *${tag} adapter" ;; esac
  done
done
# Every header compiles on its own.
if [ -z "${EMBER_CHECK_NO_COMPILE:-}" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  for h in $(find include runtime loaders kernels/ref quantization -name '*.h' 2>/dev/null | sort || true); do
    printf '#include "%s"\n' "$PWD/$h" > "$tmp/t.c"
    if ! cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -Iinclude -Iruntime -I. \
         -I"$build/generated" -I"$build/generated/onnx" "$tmp/t.c" 2> "$tmp/err"; then
      bad "$h does not compile on its own: $(head -3 "$tmp/err")"
    fi
  done
fi
[ "$fail" = 0 ] && echo "check_includes: ok ($(echo "$files" | wc -w) files)"
exit "$fail"
