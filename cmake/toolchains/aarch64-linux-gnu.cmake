# SPDX-License-Identifier: Apache-2.0
# Cross build for 64-bit ARM Linux with Debian's cross compiler and the arm64 multiarch -dev
# packages (tools/install-deps-aarch64.sh installs both):
#   cmake -S . -B build-arm -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
#   cmake --build build-arm && ctest --test-dir build-arm
# ctest runs the tests under qemu-aarch64 (CMAKE_CROSSCOMPILING_EMULATOR). EMBER_AARCH64_PREFIX
# (default aarch64-linux-gnu) names another triplet's compiler and libraries.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(EMBER_AARCH64_PREFIX aarch64-linux-gnu CACHE STRING "Cross triplet (compiler prefix)")
set(_triplet ${EMBER_AARCH64_PREFIX})
set(CMAKE_C_COMPILER ${_triplet}-gcc)
set(CMAKE_CXX_COMPILER ${_triplet}-g++)
set(CMAKE_LIBRARY_ARCHITECTURE ${_triplet})

# The cross libc lives in /usr/<triplet>; the multiarch libraries in /usr/lib/<triplet> (found
# through the root "/" with CMAKE_LIBRARY_ARCHITECTURE), their headers in /usr/include and
# /usr/include/<triplet>. Programs (protoc-c, python3) are the host's.
set(CMAKE_FIND_ROOT_PATH /usr/${_triplet} /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# find_library must not take a host (x86_64) library from /usr/lib/<host triplet>.
set(CMAKE_IGNORE_PATH /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu
    /usr/lib/x86_64-linux-gnu/cmake)
# pkg-config reads the target's .pc files only.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${_triplet}/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# ctest (and try_run) run the target's programs under user-mode emulation; -L names the root
# qemu finds the target's dynamic loader and libraries under. The multiarch libc (libc6:arm64,
# /lib/ld-linux-aarch64.so.1) is preferred: with the cross libc's root (/usr/<triplet>),
# Debian 12's qemu-aarch64 7.2 hangs in the first pthread_create (its ld.so and libc then
# come from two different builds of glibc).
find_program(EMBER_QEMU_AARCH64 qemu-aarch64)
if(EMBER_QEMU_AARCH64)
  if(EXISTS /lib/ld-linux-aarch64.so.1)
    set(CMAKE_CROSSCOMPILING_EMULATOR ${EMBER_QEMU_AARCH64} -L /)
  else()
    set(CMAKE_CROSSCOMPILING_EMULATOR ${EMBER_QEMU_AARCH64} -L /usr/${_triplet})
  endif()
endif()
