#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sets up the Python environments bench/run.py uses, on a fresh Debian 12 machine:
#   - Debian's python3-torch 1.13 + torchvision + onnx (/usr/bin/python3): ONNX export and
#     LibTorch 1.13;
#   - bench/.env/ort: PyPI onnxruntime + numpy (ONNX Runtime);
#   - bench/.env/torch2: PyPI torch 2.x + torchvision + onnx (makes the models and, for
#     run.py --suite, exports every torchvision classifier to ONNX; LibTorch 2).
#   - bench/.env/executorch (with --executorch, for run.py --int8): PyPI executorch (~20 MB
#     wheel, ~300 MB with its own dependencies) on top of bench/.env/torch2's torch, which a
#     .pth file puts on its path: executorch's wheel pins no torch, and PyPI's torch is the
#     multi-GB CUDA build, so a second copy is not installed.
#   - bench/.env/serve (with --serve, for serve_load.py): PyPI mlserver (uvloop < 0.22: see
#     python/pyproject.toml's mlserver extra), tritonclient, onnxruntime, numpy (~350 MB).
# run.py finds them there by default (BENCH_PY_ORT / BENCH_PY_TORCH2 / BENCH_PY_EXECUTORCH /
# --py-* override). PyPI's torch is gigabytes: this is for bench/ only, never for CI.
#   usage: bench/setup.sh [--executorch] [--serve]
set -euo pipefail
with_executorch=0
with_serve=0
for a in "$@"; do
  case "$a" in
    --executorch) with_executorch=1 ;;
    --serve) with_serve=1 ;;
    *) echo "usage: bench/setup.sh [--executorch] [--serve]" >&2; exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
env=${BENCH_ENV_DIR:-$here/.env}
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends python3 python3-venv python3-numpy \
  python3-torch python3-torchvision python3-onnx >/dev/null
mkdir -p "$env"
[ -x "$env/ort/bin/python" ] || python3 -m venv "$env/ort"
"$env/ort/bin/pip" install -q --disable-pip-version-check onnxruntime numpy
[ -x "$env/torch2/bin/python" ] || python3 -m venv "$env/torch2"
"$env/torch2/bin/pip" install -q --disable-pip-version-check torch torchvision numpy onnx
pys=(/usr/bin/python3 "$env/ort/bin/python" "$env/torch2/bin/python")
if [ "$with_executorch" = 1 ]; then
  [ -x "$env/executorch/bin/python" ] || python3 -m venv "$env/executorch"
  purelib='import sysconfig; print(sysconfig.get_paths()["purelib"])'
  # torch 2.x (and torchvision, numpy) from the torch2 venv, after this venv's own packages
  "$env/torch2/bin/python" -c "$purelib" > "$("$env/executorch/bin/python" -c "$purelib")/zz-bench-torch2.pth"
  "$env/executorch/bin/pip" install -q --disable-pip-version-check executorch
  "$env/executorch/bin/python" -c 'import executorch.version as v, torch
print("executorch", v.__version__, "on torch", torch.__version__)'
  pys+=("$env/executorch/bin/python")
fi
if [ "$with_serve" = 1 ]; then
  [ -x "$env/serve/bin/python" ] || python3 -m venv "$env/serve"
  "$env/serve/bin/pip" install -q --disable-pip-version-check "mlserver>=1.3" "uvloop<0.22" \
    "tritonclient[http]" onnxruntime numpy
  "$env/serve/bin/python" -c 'import mlserver; print("mlserver", mlserver.__version__)'
  pys+=("$env/serve/bin/python")
fi
for py in "${pys[@]}"; do
  "$py" -c 'import sys, importlib, importlib.util
mods = [m for m in ("torch", "torchvision", "onnx", "onnxruntime") if importlib.util.find_spec(m)]
print(sys.executable, " ".join("%s %s" % (m, importlib.import_module(m).__version__) for m in mods))'
done
echo "bench setup: ok"
