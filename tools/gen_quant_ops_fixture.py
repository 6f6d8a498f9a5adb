#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes tests/data/quant/ops.onnx and ops_ort_qdq.txt for tests/quantization/test_qdq_ops.c
(issue #20 item 3): the ops ORT's quantize_static quantizes beyond Conv / Gemm / MatMul and the
pass-through ones, and where it puts the Q/DQ pairs around them.

ops.onnx (opset 13): x [1,4,8,8] -> Conv conv1 -> MaxPool pool -> BatchNormalization bn (not
after a Conv, so quant_pre_process would not fold it either) -> Relu relu1 -> ConvTranspose
deconv (stride 2, bias) -> Resize up (nearest, scales 1,1,2,2) -> Conv conv2 (1x1) ->
InstanceNormalization inorm -> GlobalAveragePool gap -> Flatten flat -> y.
(A ConvTranspose with group 2 and a bias is not in it: ORT's quantize_static fails on one,
"operands could not be broadcast together with shapes (6,) (3,)", since its per-channel weight
scales on axis 1 number C_out / group; ember leaves such a node in fp32.)
ops_ort_qdq.txt: ORT's quantize_static (QDQ, per-channel, u8 activations, s8 weights, MinMax,
no quant_pre_process so BatchNormalization stays) on 4 random batches, one line per node that
is not a Q / DQ node: `NODE OP in=I... out=O...` where I lists, for each input, 'a' (the output
of a DequantizeLinear of an activation), 'w' (a DequantizeLinear of an int8 initializer), 'b'
(of an int32 initializer), 'f' (fp32, no DequantizeLinear) or '-' (absent), and O for each
output 'q' (read by a QuantizeLinear with its own parameters), 's' (one with the parameters of
the node's input 0: ORT's Direct8BitOp, e.g. Resize) or 'f'.
Run with the ORT venv:
  /work/main/bench/.env/ort/bin/python tools/gen_quant_ops_fixture.py
  /work/main/bench/.env/ort/bin/python tools/gen_quant_ops_fixture.py --placement QDQ.onnx
(the second prints another QDQ file's placement lines, e.g. ember's)."""
import os
import sys
import tempfile
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def placement(q):
    """The placement lines of QDQ model q (see above)."""
    inits = {i.name: i for i in q.graph.initializer}
    producer = {o: n for n in q.graph.node for o in n.output}
    readers = {}
    for n in q.graph.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)

    def params(qdq):
        return tuple(numpy_helper.to_array(inits[i]).tobytes() for i in qdq.input[1:3])


    def out_kind(n, o):
        """'q' (read by a QuantizeLinear with its own parameters), 's' (with the parameters of
        the DequantizeLinear that gives the node's input 0: shared, as ORT's Direct8BitOp does)
        or 'f'."""
        qs = [r for r in readers.get(o, []) if r.op_type == "QuantizeLinear"]
        if not qs:
            return "f"
        p = producer.get(n.input[0])
        if p is not None and p.op_type == "DequantizeLinear" and params(p) == params(qs[0]):
            return "s"
        return "q"

    lines = []
    for n in q.graph.node:
        if n.op_type in ("QuantizeLinear", "DequantizeLinear"):
            continue
        ins = []
        for i in n.input:
            p = producer.get(i)
            if not i:
                ins.append("-")
            elif p is not None and p.op_type == "DequantizeLinear":
                src0 = p.input[0]
                if src0 in inits:
                    ins.append("b" if inits[src0].data_type == TensorProto.INT32 else "w")
                else:
                    ins.append("a")
            else:
                ins.append("f")
        outs = [out_kind(n, o) for o in n.output]
        lines.append("%s %s in=%s out=%s" % (n.name, n.op_type, "".join(ins), "".join(outs)))
    return lines


if len(sys.argv) == 3 and sys.argv[1] == "--placement":  # another QDQ file, e.g. ember's
    print("\n".join(placement(onnx.load(sys.argv[2]))))
    sys.exit(0)

rng = np.random.default_rng(7)


def init(name, shape, scale=0.3, offset=0.0):
    return numpy_helper.from_array(
        (rng.standard_normal(shape) * scale + offset).astype(np.float32), name)


inits = [
    init("w1", (8, 4, 3, 3)), init("b1", (8,), 0.1),
    init("bn_s", (8,), 0.2, 1.0), init("bn_b", (8,), 0.1), init("bn_m", (8,), 0.1),
    numpy_helper.from_array(rng.uniform(0.5, 1.5, 8).astype(np.float32), "bn_v"),
    init("wt", (8, 6, 2, 2)), init("bt", (6,), 0.1),
    numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "up_scales"),
    init("w2", (5, 6, 1, 1)), init("b2", (5,), 0.1),
    init("in_s", (5,), 0.2, 1.0), init("in_b", (5,), 0.1),
]
nodes = [
    helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], "conv1", pads=[1, 1, 1, 1]),
    helper.make_node("MaxPool", ["c1"], ["p1"], "pool", kernel_shape=[2, 2], strides=[1, 1],
                     pads=[0, 0, 1, 1]),
    helper.make_node("BatchNormalization", ["p1", "bn_s", "bn_b", "bn_m", "bn_v"], ["bn_out"],
                     "bn"),
    helper.make_node("Relu", ["bn_out"], ["r1"], "relu1"),
    helper.make_node("ConvTranspose", ["r1", "wt", "bt"], ["d"], "deconv", strides=[2, 2]),
    helper.make_node("Resize", ["d", "", "up_scales"], ["u"], "up", mode="nearest"),
    helper.make_node("Conv", ["u", "w2", "b2"], ["c2"], "conv2"),
    helper.make_node("InstanceNormalization", ["c2", "in_s", "in_b"], ["n2"], "inorm"),
    helper.make_node("GlobalAveragePool", ["n2"], ["g"], "gap"),
    helper.make_node("Flatten", ["g"], ["y"], "flat"),
]
graph = helper.make_graph(
    nodes, "ops", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 7
onnx.checker.check_model(model)
qdir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "quant")
src = os.path.join(qdir, "ops.onnx")
onnx.save(model, src)

from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                      quantize_static)


class Reader(CalibrationDataReader):
    def __init__(self):
        self.it = iter([{"x": rng.standard_normal((1, 4, 8, 8)).astype(np.float32)}
                        for _ in range(4)])

    def get_next(self):
        return next(self.it, None)


with tempfile.TemporaryDirectory() as tmp:
    dst = os.path.join(tmp, "ops_qdq.onnx")
    quantize_static(src, dst, Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    q = onnx.load(dst)
lines = placement(q)
with open(os.path.join(qdir, "ops_ort_qdq.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
print("\n".join(lines))
