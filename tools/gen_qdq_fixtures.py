#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the int8 fixtures into tests/data/qdq: one small CNN (Conv, Relu, a residual Add,
MaxPool, Concat, Sigmoid, LeakyRelu, Mul, AveragePool, GlobalAveragePool, Flatten, Gemm) quantized
by ONNX Runtime's quantize_static (per-channel s8 weights, u8 activations) in both its formats:

tests/data/qdq/small_qdq.onnx     QDQ format (QuantizeLinear / DequantizeLinear around float ops)
tests/data/qdq/small_qop.onnx     QOperator format (QLinearConv, com.microsoft QLinearAdd,
                                  QLinearConcat, QLinearSigmoid, QLinearLeakyRelu, QLinearMul,
                                  QLinearAveragePool, QLinearGlobalAveragePool, QGemm)
tests/data/qdq/small.in0.npy      the input
tests/data/qdq/small_qdq.out0.npy ONNX Runtime's output of small_qdq.onnx with every graph
                                  optimization off (so QDQ semantics: float ops between Q / DQ)
tests/data/qdq/small_qop.out0.npy ONNX Runtime's output of small_qop.onnx (its int8 kernels)
tests/data/qdq/small_f32.out0.npy the float model's output (ORT)

Run with the onnxruntime venv (onnxruntime.quantization is the reference quantizer):
    /work/main/bench/.env/ort/bin/python tools/gen_qdq_fixtures.py
Deterministic (numpy seeds); the .onnx bytes may differ between onnxruntime versions.
"""
import os
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                      quantize_static)

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "qdq")
SHAPE = (1, 4, 12, 12)


def float_model():
    rng = np.random.default_rng(19)
    inits = []

    def w(name, *shape, scale=0.3):
        inits.append(numpy_helper.from_array((rng.standard_normal(shape) * scale)
                                             .astype(np.float32), name))
        return name

    n = []
    n.append(helper.make_node("Conv", ["x", w("w1", 8, 4, 3, 3), w("b1", 8, scale=0.1)], ["c1"],
                              pads=[1, 1, 1, 1], name="conv1"))
    n.append(helper.make_node("Relu", ["c1"], ["r1"], name="relu1"))
    n.append(helper.make_node("Conv", ["r1", w("w2", 8, 8, 3, 3, scale=0.2), w("b2", 8)], ["c2"],
                              pads=[1, 1, 1, 1], name="conv2"))
    n.append(helper.make_node("Add", ["c2", "r1"], ["a1"], name="add1"))
    n.append(helper.make_node("Relu", ["a1"], ["r2"], name="relu2"))
    n.append(helper.make_node("MaxPool", ["r2"], ["p1"], kernel_shape=[2, 2], strides=[2, 2],
                              name="maxpool"))
    n.append(helper.make_node("Conv", ["p1", w("w3", 6, 8, 1, 1), w("b3", 6)], ["c3"],
                              name="conv3"))
    n.append(helper.make_node("Sigmoid", ["c3"], ["s1"], name="sigmoid"))
    n.append(helper.make_node("LeakyRelu", ["c3"], ["l1"], alpha=0.1, name="leaky"))
    n.append(helper.make_node("Mul", ["s1", "l1"], ["m1"], name="mul"))
    n.append(helper.make_node("Concat", ["m1", "p1"], ["k1"], axis=1, name="concat"))
    n.append(helper.make_node("AveragePool", ["k1"], ["q1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                              strides=[1, 1], name="avgpool"))
    n.append(helper.make_node("GlobalAveragePool", ["q1"], ["g1"], name="gap"))
    n.append(helper.make_node("Flatten", ["g1"], ["f1"], name="flatten"))
    n.append(helper.make_node("Gemm", ["f1", w("wf", 10, 14), w("bf", 10, scale=0.1)], ["y"],
                              transB=1, name="fc"))
    g = helper.make_graph(n, "small", [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, (1, 10))], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


class Reader(CalibrationDataReader):
    def __init__(self):
        rng = np.random.default_rng(7)
        self.d = [{"x": rng.standard_normal(SHAPE).astype(np.float32)} for _ in range(8)]
        self.i = 0

    def get_next(self):
        if self.i >= len(self.d):
            return None
        self.i += 1
        return self.d[self.i - 1]


def run(path, x):
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    return s.run(None, {"x": x})[0]


def main():
    os.makedirs(OUT, exist_ok=True)
    x = np.random.default_rng(3).standard_normal(SHAPE).astype(np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        f32 = os.path.join(tmp, "f32.onnx")
        onnx.save(float_model(), f32)
        np.save(os.path.join(OUT, "small_f32.out0.npy"), run(f32, x))
        for fmt, name in ((QuantFormat.QDQ, "small_qdq"), (QuantFormat.QOperator, "small_qop")):
            path = os.path.join(OUT, name + ".onnx")
            quantize_static(f32, path, Reader(), quant_format=fmt, per_channel=True,
                            activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
            m = onnx.load(path)
            m.producer_version = ""  # keep the bytes stable across onnxruntime patch versions
            onnx.save(m, path)
            np.save(os.path.join(OUT, name + ".out0.npy"), run(path, x))
            print(name, sorted({(nd.domain, nd.op_type) for nd in m.graph.node}))
    np.save(os.path.join(OUT, "small.in0.npy"), x)


if __name__ == "__main__":
    main()
