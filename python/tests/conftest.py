# SPDX-License-Identifier: Apache-2.0
"""Fixtures of the Python package's tests: the repository's tests/data and the ember program.

The library is the one `ember` finds (EMBER_LIBRARY, the package's own copy, or build/ of the
source tree); the whole run is skipped, saying so, when there is none. The ember program (for
comparisons with the CLI) is $EMBER_CLI or `ember` beside the library.
"""
import os
import shutil

import pytest

import ember

if ember.find_library() is None:
    pytest.skip("libember.so not found (build the ember_shared target or set EMBER_LIBRARY)",
                allow_module_level=True)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(ROOT, "tests", "data")


@pytest.fixture
def data():
    """Path of a file under tests/data."""
    def path(*parts):
        p = os.path.join(DATA, *parts)
        assert os.path.exists(p), p
        return p
    return path


@pytest.fixture
def cli():
    """The ember program next to the library (or $EMBER_CLI); skips when there is none."""
    exe = os.environ.get("EMBER_CLI") or os.path.join(
        os.path.dirname(os.path.realpath(ember.library_path())), "ember")
    if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
        exe = shutil.which("ember")
    if exe is None:
        pytest.skip("the ember program was not found (set EMBER_CLI)")
    return exe
