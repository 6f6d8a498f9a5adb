#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes tests/data/quant/scale_zp.txt: ONNX Runtime's compute_scale_zp (and quantize_data for
symmetric int8 weights) on random and edge-case ranges, for tests/quantization/test_qdq_insert.c,
which checks em_qi_scale_zp bit for bit against it without ORT in CI.
Run: /work/main/bench/.env/ort/bin/python tools/gen_quant_fixtures.py
Line: rmin rmax qmin qmax symmetric scale zero_point (floats as C99 hex)."""
import os
import numpy as np
import onnx
from onnxruntime.quantization.quant_utils import compute_scale_zp

rng = np.random.default_rng(20)
cases = [(0.0, 0.0), (1e-40, 2e-40), (-1.0, 1.0), (0.0, 6.0), (-3.5, 0.0), (2.0, 5.0),
         (-5.0, -2.0), (-8.39355, 9.36606), (1e-3, 1e-3 + 1e-7)]
for _ in range(200):
    a, b = sorted(rng.standard_normal(2) * 10 ** rng.uniform(-4, 3, 2))
    cases.append((a, b))
lines = []
for rmin, rmax in cases:
    for qmin, qmax, sym, dt in ((0, 255, False, np.uint8), (0, 255, True, np.uint8),
                                (-128, 127, False, np.int8), (-127, 127, True, np.int8)):
        lo, hi = np.float32(rmin), np.float32(rmax)
        zp, s = compute_scale_zp(np.array(lo), np.array(hi), np.array(qmin, dtype=dt),
                                 np.array(qmax, dtype=dt), sym)
        lines.append(f"{float(lo).hex()} {float(hi).hex()} {qmin} {qmax} {int(sym)} "
                     f"{float(np.float32(s)).hex()} {int(zp)}")
out = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "quant", "scale_zp.txt")
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
print(len(lines), "cases ->", out)

# Calibration batches for tests/cli's `ember quantize` tests on tests/data/onnx/cnn_v13.onnx
# (input x f32 [2,3,8,8]): four N(0,1) batches, one holding a NaN, one of the wrong dtype.
qdir = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "quant")
for i in range(4):
    np.save(os.path.join(qdir, f"cnn_cal{i}.npy"), rng.standard_normal((2, 3, 8, 8)).astype(np.float32))
bad = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
bad[1, 2, 3, 4] = np.nan
np.save(os.path.join(qdir, "cnn_nan.npy"), bad)
np.save(os.path.join(qdir, "cnn_f64.npy"), rng.standard_normal((2, 3, 8, 8)))

# A small MatMul model for dynamic / weight-only mode: y = relu(x @ W1 + b1) @ W2, x f32 [N,16].
from onnx import TensorProto, helper, numpy_helper
w1 = rng.standard_normal((16, 8)).astype(np.float32) * 0.3
b1 = rng.standard_normal(8).astype(np.float32) * 0.1
w2 = rng.standard_normal((8, 4)).astype(np.float32) * 0.3
g = helper.make_graph(
    [helper.make_node("MatMul", ["x", "w1"], ["h0"], name="mm1"),
     helper.make_node("Add", ["h0", "b1"], ["h1"], name="add1"),
     helper.make_node("Relu", ["h1"], ["h2"], name="relu1"),
     helper.make_node("MatMul", ["h2", "w2"], ["y"], name="mm2")],
    "matmul", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 16])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])],
    [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(b1, "b1"),
     numpy_helper.from_array(w2, "w2")])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
m.ir_version = 7
onnx.checker.check_model(m)
onnx.save(m, os.path.join(qdir, "matmul.onnx"))
for i in range(2):
    np.save(os.path.join(qdir, f"matmul_cal{i}.npy"), rng.standard_normal((4, 16)).astype(np.float32))
