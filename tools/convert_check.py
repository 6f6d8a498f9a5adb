#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks `ember convert` on the suite's exported models: each trace-torch2.pt and op13.onnx
of the given models (bench/run.py --suite writes them under CACHE/suite/<model>/) is written as
ONNX by ember, checked by onnx.checker (full check) and run in ONNX Runtime against PyTorch's
ref.npy. Needs the ort venv (bench/setup.sh): bench/.env/ort/bin/python tools/convert_check.py
--cache bench/.cache resnet18 swin_t ...  Not run by CI (it needs the venv and the exports)."""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ember", default="build/ember")
    ap.add_argument("--cache", default="bench/.cache", help="bench/run.py's --cache")
    ap.add_argument("models", nargs="+")
    a = ap.parse_args()
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for m in a.models:
            d = os.path.join(a.cache, "suite", m)
            for form in ("trace-torch2.pt", "op13.onnx"):
                src = os.path.join(d, form)
                if not os.path.exists(src):
                    print("%s %s: not exported" % (m, form))
                    continue
                out = os.path.join(tmp, "model.onnx")
                r = subprocess.run([a.ember, "convert", src, "--input", os.path.join(d, "input.npy"),
                                    "--output", out], capture_output=True, text=True)
                if r.returncode:
                    print("%s %s: convert failed: %s" % (m, form, r.stderr.strip()))
                    bad += 1
                    continue
                model = onnx.load(out)
                onnx.checker.check_model(model, full_check=True)
                so = ort.SessionOptions()
                so.intra_op_num_threads = 1
                s = ort.InferenceSession(out, so)
                x = np.load(os.path.join(d, "input.npy"))
                y = s.run(None, {s.get_inputs()[0].name: x})[0]
                ref = np.load(os.path.join(d, "ref.npy"))
                scale = float(np.abs(ref).max()) or 1.0
                err = float(np.abs(y - ref).max()) / scale
                ok = err <= 1e-4
                bad += not ok
                print("%s %s: %s, %d nodes, opset %d, ORT vs PyTorch %.1e (relative to max |ref|)"
                      % (m, form, "ok" if ok else "MISMATCH", len(model.graph.node),
                         model.opset_import[0].version, err))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
