#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what the aarch64 cross build (cmake/toolchains/aarch64-linux-gnu.cmake) and its tests
# under emulation need, from Debian's packages (run as root or with sudo); idempotent.
# gcc-aarch64-linux-gnu: the cross compiler and its libc (/usr/aarch64-linux-gnu).
# qemu-user: qemu-aarch64, which ctest runs the cross-built tests under; libc6:arm64: the libc
# they run with (see the toolchain file: threads hang under qemu with the cross libc's loader).
# The arm64 multiarch -dev packages: the optional parts' libraries for the target (libzip: the
# TorchScript loader; protobuf-c: the ONNX loader; cmocka: the tests; the image -dev packages:
# ImageDecoder's headers, and the codec libraries the tests dlopen). The host's own build tools
# (cmake, protoc-c, onnx.proto from libonnx-dev) come from tools/install-deps.sh.
# OpenBLAS, oneDNN and CUDA are not installed for arm64: the build uses ember's own kernels.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
apt_get() { $SUDO apt-get -o DPkg::Lock::Timeout=600 "$@"; }
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $SUDO dpkg --add-architecture arm64
fi
apt_get update -qq
apt_get install -y -qq --no-install-recommends \
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user libc6:arm64 \
  libzip-dev:arm64 libprotobuf-c-dev:arm64 libcmocka-dev:arm64 \
  libjpeg-dev:arm64 libpng-dev:arm64 libtiff-dev:arm64 libwebp-dev:arm64 \
  libopenjp2-7-dev:arm64 >/dev/null
echo "install-deps-aarch64: ok ($(aarch64-linux-gnu-gcc -dumpversion), $(qemu-aarch64 --version | head -1))"
