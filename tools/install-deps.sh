#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what ember's build and tests need from Debian's packages (run as root or with sudo).
# libzip-dev: the TorchScript loader. The image -dev packages give ImageDecoder its codec
# headers (the codec libraries themselves are dlopen'ed when an image is decoded).
# ocl-icd-opencl-dev, opencl-headers: Debian's oneDNN CMake package requires OpenCL (its GPU
# runtime) even for CPU use. ccache: tools/test.sh's builds share objects through it.
# python3-venv: tools/test.sh makes a venv with PyPI's onnx to write the onnx 1.23 suite.
# The CUDA toolkit is optional and not installed here: when /usr/local/cuda exists, the build
# finds it; without it, CUDA is simply off.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  build-essential cmake pkg-config ccache clang libclang-rt-14-dev binutils \
  libcmocka-dev libopenblas-dev libdnnl-dev ocl-icd-opencl-dev opencl-headers \
  libprotobuf-c-dev protobuf-c-compiler libonnx-dev libonnx-testdata libzip-dev \
  libjpeg-dev libpng-dev libtiff-dev libwebp-dev libopenjp2-7-dev \
  python3 python3-venv >/dev/null
echo "install-deps: ok"
