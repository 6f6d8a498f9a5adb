#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes tests/data/quant/badw.onnx and badw_expected.txt, for tests/api/test_api_quantize.c's
report test (issue #20 item 2).

badw.onnx: x [1,3,8,8] -> Conv conv1 (w1 [32,3,3,3], Gaussian) -> Relu -> Conv conv2 (w2
[16,32,3,3], badly quantizable) -> Relu -> GlobalAveragePool -> Flatten -> Gemm fc -> logits.
Each output channel of w2 holds one weight of magnitude 1 and 287 weights uniform in
(-1/260, 1/260): per-channel symmetric int8 puts its step at 1/127, so the small ones (below
half a step) all round to 0. badw_expected.txt holds each weight's round-trip SQNR in dB as
ember and ORT quantize it (per output channel, scale max|w| / 127 as float32, x / scale in
float32 rounded half to even, clipped to [-127, 127]).
Run with a Python that has numpy and onnx (e.g. the ORT venv):
  /work/main/bench/.env/ort/bin/python tools/gen_quant_report_fixture.py"""
import os
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(2026)
w1 = (rng.standard_normal((32, 3, 3, 3)) * 0.3).astype(np.float32)
b1 = (rng.standard_normal(32) * 0.1).astype(np.float32)
w2 = rng.uniform(-1.0 / 260, 1.0 / 260, (16, 32, 3, 3)).astype(np.float32)
for o in range(16):
    w2.reshape(16, -1)[o, rng.integers(0, 288)] = 1.0 if o % 2 == 0 else -1.0
b2 = (rng.standard_normal(16) * 0.01).astype(np.float32)
fw = (rng.standard_normal((10, 16)) * 0.3).astype(np.float32)
fb = (rng.standard_normal(10) * 0.1).astype(np.float32)

nodes = [
    helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], "conv1", pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c1"], ["r1"], "relu1"),
    helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], "conv2", pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c2"], ["r2"], "relu2"),
    helper.make_node("GlobalAveragePool", ["r2"], ["g"], "gap"),
    helper.make_node("Flatten", ["g"], ["f"], "flat"),
    helper.make_node("Gemm", ["f", "fw", "fb"], ["logits"], "fc", transB=1),
]
inits = [numpy_helper.from_array(a, n) for a, n in
         ((w1, "w1"), (b1, "b1"), (w2, "w2"), (b2, "b2"), (fw, "fw"), (fb, "fb"))]
graph = helper.make_graph(nodes, "badw",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                          [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 10])],
                          inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 7
onnx.checker.check_model(model)
qdir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "quant")
onnx.save(model, os.path.join(qdir, "badw.onnx"))


def weight_sqnr(w, axis):
    """Per-channel symmetric int8 round trip on `axis` (ORT's quantize_data, ember's add_weight)."""
    wc = np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)
    amax = np.max(np.abs(wc), axis=1)
    s = (2.0 * amax.astype(np.float64) / 254.0).astype(np.float32)
    q = np.clip(np.round(wc / s[:, None]), -127, 127)
    d = q.astype(np.float64) * s[:, None].astype(np.float64)
    x = wc.astype(np.float64)
    return 10.0 * np.log10(np.sum(x * x) / np.sum((x - d) ** 2))


with open(os.path.join(qdir, "badw_expected.txt"), "w") as f:
    f.write("w1 %.6f\nw2 %.6f\nfw %.6f\n" % (weight_sqnr(w1, 0), weight_sqnr(w2, 0),
                                             weight_sqnr(fw, 0)))
print(open(os.path.join(qdir, "badw_expected.txt")).read(), end="")
