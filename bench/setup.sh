#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sets up the Python environments bench/run.py uses, on a fresh Debian 12 machine:
#   - Debian's python3-torch 1.13 + torchvision + onnx (/usr/bin/python3): ONNX export and
#     LibTorch 1.13;
#   - bench/.env/ort: PyPI onnxruntime + numpy (ONNX Runtime);
#   - bench/.env/torch2: PyPI torch 2.x + torchvision + onnx (makes the models and, for
#     run.py --suite, exports every torchvision classifier to ONNX; LibTorch 2).
# run.py finds them there by default (BENCH_PY_ORT / BENCH_PY_TORCH2 / --py-* override).
# PyPI's torch is gigabytes: this is for bench/ only, never for CI.
set -euo pipefail
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
for py in /usr/bin/python3 "$env/ort/bin/python" "$env/torch2/bin/python"; do
  "$py" -c 'import sys, importlib, importlib.util
mods = [m for m in ("torch", "torchvision", "onnx", "onnxruntime") if importlib.util.find_spec(m)]
print(sys.executable, " ".join("%s %s" % (m, importlib.import_module(m).__version__) for m in mods))'
done
echo "bench setup: ok"
