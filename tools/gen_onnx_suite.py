#!/usr/bin/env python3
"""Writes the ONNX backend conformance suite of the installed `onnx` package into OUT_DIR:
node/, simple/, real/ (model.onnx + test_data_set_N/{input,output}_N.pb per case), the layout
of Debian's libonnx-testdata. onnx 1.23's `backend-test-tools generate-data` writes only the
model cases, so the node cases are generated here with the same serialization.

Run with the venv holding PyPI's onnx (see docs/NOTES.md), e.g.
    /work/venv/bin/python tools/gen_onnx_suite.py /tmp/onnx-suite
"""
import argparse
import sys

from onnx.backend.test import cmd_tools
from onnx.backend.test.case import model as model_test
from onnx.backend.test.case import node as node_test


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    args = ap.parse_args()
    # generate_data() writes whatever model_test.collect_testcases() returns: hand it both lists.
    collect_models = model_test.collect_testcases
    model_test.collect_testcases = lambda: node_test.collect_testcases() + collect_models()
    cmd_tools.generate_data(argparse.Namespace(output=args.out_dir))
    print("gen_onnx_suite: wrote %s" % args.out_dir, file=sys.stderr)


if __name__ == "__main__":
    main()
