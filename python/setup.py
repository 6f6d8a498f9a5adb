# SPDX-License-Identifier: Apache-2.0
"""Bundles libember.so into the package when one is at hand (see README.md).

The library copied is $EMBER_LIBRARY, else ember/libember.so already in the tree, else
../build/libember.so (the CMake build of this repository). A wheel that holds it is tagged for
this platform (py3-none-<platform>: ctypes, no CPython ABI); without one, the package is pure
Python and finds the library at run time.
"""
import os
import shutil
import sys

from setuptools import Distribution, setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def library():
    env = os.environ.get("EMBER_LIBRARY")
    if env:
        if not os.path.isfile(env):
            sys.exit("EMBER_LIBRARY=%s: no such file" % env)
        return os.path.realpath(env)
    for cand in (os.path.join(HERE, "ember", "libember.so"),
                 os.path.join(HERE, "..", "build", "libember.so")):
        if os.path.isfile(cand):
            return os.path.realpath(cand)
    return None


class BuildPy(build_py):
    def run(self):
        super().run()
        lib = library()
        dst = os.path.join(self.build_lib, "ember", "libember.so")
        if lib is None:
            print("ember: no libember.so to bundle (build it with CMake or set EMBER_LIBRARY); "
                  "the package will look for it at run time", file=sys.stderr)
            return
        if os.path.realpath(dst) != lib:
            shutil.copyfile(lib, dst)
            os.chmod(dst, 0o755)
        print("ember: bundled %s" % lib, file=sys.stderr)


class BinaryDistribution(Distribution):
    """Holds a native library (so: platform wheel, platlib) when one is bundled."""

    def has_ext_modules(self):
        return library() is not None


class BdistWheel(bdist_wheel):
    def get_tag(self):
        python, abi, plat = super().get_tag()
        return ("py3", "none", plat) if library() is not None else (python, abi, plat)


setup(cmdclass={"build_py": BuildPy, "bdist_wheel": BdistWheel}, distclass=BinaryDistribution)
