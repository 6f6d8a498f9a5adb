#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks the module boundaries of STYLE.md B3 and that every header compiles on its own.
set -euo pipefail
cd "$(dirname "$0")/.."
fail=0
bad() { echo "check_includes: $*" >&2; fail=1; }

# cli/ sees ember.h only.
for f in cli/*.c cli/*.h; do
  if grep -E '^#include "' "$f" | grep -vqE '"(cli\.h|ember\.h)"'; then
    bad "$f: the CLI may include ember.h only"
  fi
done
# include/ holds standard headers only.
grep -nE '^#include "' include/ember.h && bad "include/ember.h includes a project header"
# runtime/ never includes kernels, loaders or quantization, except the L3 glue files.
for f in runtime/*.c runtime/*.h; do
  case "$f" in runtime/api.c|runtime/api_*.c|runtime/backends.c) continue ;; esac
  if grep -nE '^#include ".*(kernels|loaders|quantization)/' "$f"; then
    bad "$f: runtime/ must not include kernels/, loaders/ or quantization/"
  fi
done
# kernels/ and loaders/ never include each other; ISA directories stay apart.
for f in $(ls kernels/*/*.[ch] 2>/dev/null); do
  grep -qE '^#include ".*loaders/' "$f" && bad "$f: kernels must not include loaders"
done
for f in $(ls loaders/*.[ch] loaders/*/*.[ch] 2>/dev/null); do
  grep -qE '^#include ".*kernels/' "$f" && bad "$f: loaders must not include kernels"
done
# Dependency headers only in adapter files named after the dependency.
for pat in 'cblas.h:_openblas' 'dnnl.h:_onednn' 'cudnn.h:_cudnn' 'cublas:_cublas'; do
  hdr=${pat%%:*}; tag=${pat##*:}
  for f in $(grep -rlE "^#include <.*${hdr}" runtime kernels loaders cli 2>/dev/null); do
    case "$f" in *"$tag"*) ;; *) bad "$f includes ${hdr} but is not a *${tag} adapter" ;; esac
  done
done
# Every header compiles on its own.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for h in include/*.h runtime/*.h loaders/*.h loaders/*/*.h kernels/ref/*.h; do
  [ -f "$h" ] || continue
  printf '#include "%s"\n' "$PWD/$h" > "$tmp/t.c"
  if ! cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -Iinclude -Iruntime -I. \
       -I"${EMBER_BUILD_DIR:-build}/generated" -I"${EMBER_BUILD_DIR:-build}/generated/onnx" \
       "$tmp/t.c" 2> "$tmp/err"; then
    bad "$h does not compile on its own: $(head -3 "$tmp/err")"
  fi
done
[ "$fail" = 0 ] && echo "check_includes: ok"
exit "$fail"
