#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the first seeds of the whole-model fuzz targets (fuzz_onnx_model, fuzz_ts_model).

    /usr/bin/python3 tests/fuzz/make_model_seeds.py OUT_DIR

OUT_DIR/onnx: the small models of tests/data/onnx and every node-test model of the onnx
package's backend suite (one op each, with declared inputs), when the package is installed.
OUT_DIR/ts: the TorchScript archives of tests/data/torchscript up to 64 KB, each with the
dtypes, ranks and shapes of its inputs (read from the fixture's .in*.npy files) in the zip
comment as fuzz_ts_model.c reads them ("ranks=f4:1x3x8x8,i2:2x5").

These are the seeds a campaign starts from. What is committed under tests/fuzz/corpus is the
corpus a campaign left after `-merge=1` (tests/fuzz/README.md), not these files.
"""
import glob
import os
import re
import shutil
import struct
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data")
MAX = 64 << 10
LETTER = {np.dtype("float32"): "f", np.dtype("float64"): "d", np.dtype("int64"): "i",
          np.dtype("int32"): "n", np.dtype("bool"): "b", np.dtype("float16"): "h"}


def onnx_seeds(out):
    os.makedirs(out, exist_ok=True)
    for f in sorted(glob.glob(os.path.join(DATA, "onnx", "*.onnx"))):
        if os.path.getsize(f) <= MAX:
            shutil.copy(f, os.path.join(out, os.path.basename(f)))
    try:
        import onnx  # noqa: F401  (only to find the package's data)
        node = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "node")
    except ImportError:
        node = None
    for d in sorted(glob.glob(os.path.join(node, "*"))) if node else []:
        f = os.path.join(d, "model.onnx")
        if os.path.exists(f) and os.path.getsize(f) <= MAX:
            shutil.copy(f, os.path.join(out, "node_" + os.path.basename(d) + ".onnx"))


def input_files(pt):
    """The .npy inputs of a fixture archive, in input order."""
    stem = re.sub(r"\.(script|trace)\.t[0-9]+\.pt$", "", pt)
    tag = re.search(r"\.(t[0-9]+)\.pt$", pt)
    tagged = [stem + "." + tag.group(1) + ".in.npy"] if tag else []  # quant/: per-version inputs
    for pat in tagged + [stem + ".in.npy", stem + ".in0.npy", stem + ".a.in0.npy"]:
        if os.path.exists(pat):
            if pat.endswith(".in.npy"):
                return [pat]
            base = pat[: -len("0.npy")]
            return sorted(glob.glob(base + "[0-9].npy"))
    return []


def ranks_comment(pt):
    tokens = []
    for f in input_files(pt):
        try:
            a = np.load(f, allow_pickle=False)
        except ValueError:
            break
        if a.dtype not in LETTER or a.ndim > 9:
            break
        tokens.append(LETTER[a.dtype] + str(a.ndim) + "".join(
            (":" if i == 0 else "x") + str(d) for i, d in enumerate(a.shape)))
    return ("ranks=" + ",".join(tokens)).encode() if tokens else b""


def with_comment(blob, comment):
    eocd = blob.rfind(b"PK\x05\x06")
    assert eocd >= 0 and struct.unpack_from("<H", blob, eocd + 20)[0] == 0
    return blob[: eocd + 20] + struct.pack("<H", len(comment)) + comment


def ts_seeds(out):
    os.makedirs(out, exist_ok=True)
    for f in sorted(glob.glob(os.path.join(DATA, "torchscript", "*", "*.pt"))):
        if os.path.getsize(f) > MAX:
            continue
        blob = open(f, "rb").read()
        if not blob.startswith(b"PK"):
            continue
        name = os.path.basename(os.path.dirname(f)) + "_" + os.path.basename(f)
        with open(os.path.join(out, name), "wb") as fh:
            fh.write(with_comment(blob, ranks_comment(f)))


if __name__ == "__main__":
    onnx_seeds(os.path.join(sys.argv[1], "onnx"))
    ts_seeds(os.path.join(sys.argv[1], "ts"))
