#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes fixtures for ONNX Runtime's com.microsoft quantization ops that ember expands at load
(loaders/onnx/onnx_msquant.c) into tests/data/qdq:

ms_dqmm.onnx   DynamicQuantizeMatMul three ways: s8 B per tensor without zero point or bias;
               s8 B with per-column scales, zero points and a bias; u8 B with a zero point
ms_mmitf.onnx  MatMulIntegerToFloat: u8 A x s8 B (per-column scale, zero points, bias), and
               s8 A x s8 B (per-tensor, no zero points, no bias)
ms_qdq.onnx    com.microsoft QuantizeLinear / DequantizeLinear: per tensor (u8) and per axis
               (s8, axis 1), the quantized values and the dequantized ones as outputs
ms_bad_*.onnx  models ember must refuse with a message naming the node: a float B
               (DynamicQuantizeMatMul), a per-element a_scale (MatMulIntegerToFloat)
ms_*.in*.npy   inputs; ms_*.out*.npy the outputs by the ops' definitions (ContribOperators.md,
               ONNX's DynamicQuantizeLinear reference), computed here in numpy with exact
               integer products, so they do not depend on a runtime's kernels. The script also
               runs ONNX Runtime on each model and prints its largest difference (its u8 x s8
               MatMulInteger saturates on AVX2 CPUs without VNNI, see docs/NOTES.md).

Run with the onnxruntime venv: /work/main/bench/.env/ort/bin/python tools/gen_msquant_fixtures.py
(`--check DIR` writes variants with |B| < 64 to DIR, where ONNX Runtime must agree exactly.)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "qdq")
MS = "com.microsoft"


def dynamic_quantize(x):
    """ONNX DynamicQuantizeLinear (its reference implementation), float32 throughout."""
    x = x.astype(np.float32)
    minx = np.minimum(np.float32(0), x.min())
    maxx = np.maximum(np.float32(0), x.max())
    scale = np.float32(1.0 if maxx == minx else (maxx - minx)) / np.float32(255)
    zp = np.round(np.clip(np.float32(0) - minx / scale, 0, 255)).astype(np.uint8)
    q = np.clip(np.round(x / scale) + zp, 0, 255).astype(np.uint8)
    return q, np.float32(scale), zp


def int_matmul(a, a_zp, b, b_zp):
    return np.matmul(a.astype(np.int64) - np.int64(a_zp), b.astype(np.int64) - b_zp.astype(np.int64)
                     if isinstance(b_zp, np.ndarray) else b.astype(np.int64) - np.int64(b_zp))


def to_float(acc, a_scale, b_scale, bias):
    y = acc.astype(np.int32).astype(np.float32) * (np.float32(a_scale) * b_scale.astype(np.float32))
    return y + bias if bias is not None else y


def model(name, nodes, inputs, outputs, inits):
    g = helper.make_graph(nodes, name, inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid(MS, 1)],
                          producer_name="gen_msquant_fixtures")
    m.ir_version = 8
    return m


def save(name, m, ins, outs):
    onnx.save(m, os.path.join(OUT, name + ".onnx"))
    for i, x in enumerate(ins):
        np.save(os.path.join(OUT, "%s.in%d.npy" % (name, i)), x)
    for i, y in enumerate(outs):
        np.save(os.path.join(OUT, "%s.out%d.npy" % (name, i)), y)
    try:
        import onnxruntime as ort
        s = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
        got = s.run(None, {s.get_inputs()[i].name: x for i, x in enumerate(ins)})
        for i, (g, y) in enumerate(zip(got, outs)):
            d = np.abs(g.astype(np.float64) - y.astype(np.float64)).max()
            print("%s out%d: ONNX Runtime differs by at most %g" % (name, i, d))
    except ImportError:
        print("%s: no onnxruntime to compare with" % name)


def dqmm(rng, bound):
    k, n = 40, 24
    a = (rng.standard_normal((2, 3, k)) * 2 + 0.5).astype(np.float32)
    b0 = rng.integers(-bound, bound, (k, n), dtype=np.int8)
    s0 = np.float32(0.02)
    b1 = rng.integers(-bound + 28, bound - 28, (k, n), dtype=np.int8)
    s1 = (rng.random(n) * 0.05 + 0.001).astype(np.float32)
    z1 = rng.integers(-10, 10, n, dtype=np.int8)
    bias1 = rng.standard_normal(n).astype(np.float32)
    b2 = rng.integers(0, 256, (k, n), dtype=np.uint8)
    s2 = np.float32(0.01)
    z2 = np.uint8(131)
    inits = [numpy_helper.from_array(b0, "b0"), numpy_helper.from_array(np.array(s0), "s0"),
             numpy_helper.from_array(b1, "b1"), numpy_helper.from_array(s1, "s1"),
             numpy_helper.from_array(z1, "z1"), numpy_helper.from_array(bias1, "bias1"),
             numpy_helper.from_array(b2, "b2"), numpy_helper.from_array(np.array(s2), "s2"),
             numpy_helper.from_array(np.array(z2), "z2")]
    nodes = [helper.make_node("DynamicQuantizeMatMul", ["a", "b0", "s0"], ["y0"], "dqmm0", domain=MS),
             helper.make_node("DynamicQuantizeMatMul", ["a", "b1", "s1", "z1", "bias1"], ["y1"], "dqmm1",
                              domain=MS),
             helper.make_node("DynamicQuantizeMatMul", ["a", "b2", "s2", "z2", ""], ["y2"], "dqmm2",
                              domain=MS)]
    f = TensorProto.FLOAT
    m = model("ms_dqmm", nodes, [helper.make_tensor_value_info("a", f, [2, 3, k])],
              [helper.make_tensor_value_info("y%d" % i, f, [2, 3, n]) for i in range(3)], inits)
    q, sc, zp = dynamic_quantize(a)
    y0 = to_float(int_matmul(q, zp, b0, np.int64(0)), sc, np.array(s0), None)
    y1 = to_float(int_matmul(q, zp, b1, z1), sc, s1, bias1)
    y2 = to_float(int_matmul(q, zp, b2, np.int64(z2)), sc, np.array(s2), None)
    save("ms_dqmm", m, [a], [y0, y1, y2])


def mmitf(rng, bound):
    k, n = 33, 17
    a0 = rng.integers(0, 256, (5, k), dtype=np.uint8)
    b0 = rng.integers(-bound, bound, (k, n), dtype=np.int8)
    as0, az0 = np.float32(0.03), np.uint8(120)
    bs0 = (rng.random(n) * 0.05 + 0.001).astype(np.float32)
    bz0 = rng.integers(-5, 5, n, dtype=np.int8)
    bias0 = rng.standard_normal(n).astype(np.float32)
    a1 = rng.integers(-128, 128, (5, k), dtype=np.int8)
    b1 = rng.integers(-128, 128, (k, n), dtype=np.int8)
    as1, bs1 = np.float32(0.5), np.float32(0.25)
    inits = [numpy_helper.from_array(b0, "b0"), numpy_helper.from_array(np.array(as0), "as0"),
             numpy_helper.from_array(np.array(az0), "az0"), numpy_helper.from_array(bs0, "bs0"),
             numpy_helper.from_array(bz0, "bz0"), numpy_helper.from_array(bias0, "bias0"),
             numpy_helper.from_array(b1, "b1"), numpy_helper.from_array(np.array(as1), "as1"),
             numpy_helper.from_array(np.array(bs1), "bs1")]
    nodes = [helper.make_node("MatMulIntegerToFloat", ["a0", "b0", "as0", "bs0", "az0", "bz0", "bias0"],
                              ["y0"], "mmitf0", domain=MS),
             helper.make_node("MatMulIntegerToFloat", ["a1", "b1", "as1", "bs1"], ["y1"], "mmitf1",
                              domain=MS)]
    f = TensorProto.FLOAT
    m = model("ms_mmitf", nodes,
              [helper.make_tensor_value_info("a0", TensorProto.UINT8, [5, k]),
               helper.make_tensor_value_info("a1", TensorProto.INT8, [5, k])],
              [helper.make_tensor_value_info("y%d" % i, f, [5, n]) for i in range(2)], inits)
    y0 = to_float(int_matmul(a0, az0, b0, bz0), as0, bs0, bias0)
    y1 = to_float(int_matmul(a1, 0, b1, np.int64(0)), as1, np.array(bs1), None)
    save("ms_mmitf", m, [a0, a1], [y0, y1])


def qdq(rng):
    x = (rng.standard_normal((2, 3, 4, 5)) * 3).astype(np.float32)
    x.flat[:4] = [1000.0, -1000.0, 0.5 * 0.05, 1.5 * 0.05]  # saturation and ties (scale 0.05)
    s0, z0 = np.float32(0.05), np.uint8(100)
    s1 = np.array([0.02, 0.05, 0.1], np.float32)
    z1 = np.array([-3, 0, 7], np.int8)
    inits = [numpy_helper.from_array(np.array(s0), "s0"), numpy_helper.from_array(np.array(z0), "z0"),
             numpy_helper.from_array(s1, "s1"), numpy_helper.from_array(z1, "z1")]
    nodes = [helper.make_node("QuantizeLinear", ["x", "s0", "z0"], ["q0"], "q0", domain=MS),
             helper.make_node("DequantizeLinear", ["q0", "s0", "z0"], ["d0"], "d0", domain=MS),
             helper.make_node("QuantizeLinear", ["x", "s1", "z1"], ["q1"], "q1", domain=MS, axis=1),
             helper.make_node("DequantizeLinear", ["q1", "s1", "z1"], ["d1"], "d1", domain=MS, axis=1)]
    f = TensorProto.FLOAT
    shp = list(x.shape)
    m = model("ms_qdq", nodes, [helper.make_tensor_value_info("x", f, shp)],
              [helper.make_tensor_value_info("q0", TensorProto.UINT8, shp),
               helper.make_tensor_value_info("d0", f, shp),
               helper.make_tensor_value_info("q1", TensorProto.INT8, shp),
               helper.make_tensor_value_info("d1", f, shp)], inits)
    q0 = np.clip(np.round(x / s0) + np.float32(z0), 0, 255).astype(np.uint8)
    d0 = ((q0.astype(np.int32) - np.int32(z0)).astype(np.float32) * s0).astype(np.float32)
    s1b, z1b = s1.reshape(1, 3, 1, 1), z1.reshape(1, 3, 1, 1)
    q1 = np.clip(np.round(x / s1b) + z1b.astype(np.float32), -128, 127).astype(np.int8)
    d1 = ((q1.astype(np.int32) - z1b.astype(np.int32)).astype(np.float32) * s1b).astype(np.float32)
    save("ms_qdq", m, [x], [q0, d0, q1, d1])


def bad():
    f = TensorProto.FLOAT
    b = numpy_helper.from_array(np.ones((4, 3), np.float32), "b")
    sc = numpy_helper.from_array(np.array(0.1, np.float32), "s")
    m = model("ms_bad_float_b", [helper.make_node("DynamicQuantizeMatMul", ["a", "b", "s"], ["y"],
                                                  "dqmm_float_b", domain=MS)],
              [helper.make_tensor_value_info("a", f, [2, 4])],
              [helper.make_tensor_value_info("y", f, [2, 3])], [b, sc])
    onnx.save(m, os.path.join(OUT, "ms_bad_float_b.onnx"))
    b8 = numpy_helper.from_array(np.ones((4, 3), np.int8), "b")
    a_scale = numpy_helper.from_array(np.full(4, 0.1, np.float32), "as")
    m = model("ms_bad_a_scale", [helper.make_node("MatMulIntegerToFloat", ["a", "b", "as", "s"], ["y"],
                                                  "mmitf_a_scale", domain=MS)],
              [helper.make_tensor_value_info("a", TensorProto.UINT8, [2, 4])],
              [helper.make_tensor_value_info("y", f, [2, 3])], [b8, a_scale, sc])
    onnx.save(m, os.path.join(OUT, "ms_bad_a_scale.onnx"))


def main():
    global OUT
    # --check DIR: the same models with |B| < 64 (no u8 x s8 pair sum can leave int16, so ONNX
    # Runtime's kernels are exact there) written to DIR, to confirm the numpy references.
    bound = 128
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        OUT, bound = sys.argv[2], 64
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(2026)
    dqmm(rng, bound)
    mmitf(rng, bound)
    qdq(rng)
    bad()


if __name__ == "__main__":
    main()
