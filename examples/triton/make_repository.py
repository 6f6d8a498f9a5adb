#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes examples/triton/model_repository/default/1/model.onnx: ember's built-in default model
saved as ONNX (ember_model_save_onnx, graph passes limited to folding so that only standard ONNX
ops are written). Needs the ember Python package and libember.so (EMBER_LIBRARY, or build/ of
this checkout):

    PYTHONPATH=python python3 examples/triton/make_repository.py [OUT.onnx]
"""
import ctypes
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

from ember._lib import lib  # noqa: E402
from ember._model import check  # noqa: E402


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        HERE, "model_repository", "default", "1", "model.onnx")
    L = lib()
    L.ember_model_save_onnx.restype = ctypes.c_void_p
    L.ember_model_save_onnx.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    opts, model = ctypes.c_void_p(), ctypes.c_void_p()
    check(L.ember_model_options_create(ctypes.byref(opts)))
    try:
        check(L.ember_model_options_set_graph_optimization(opts, 3))  # EMBER_GRAPH_OPT_FOLD
        check(L.ember_model_load_builtin(b"default", opts, ctypes.byref(model)))
        check(L.ember_model_save_onnx(model, out.encode()))
    finally:
        L.ember_model_destroy(model)
        L.ember_model_options_destroy(opts)
    print("wrote %s (%d bytes)" % (out, os.path.getsize(out)))


if __name__ == "__main__":
    main()
