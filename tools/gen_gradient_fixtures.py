#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the fixtures of the ONNX Gradient op (ai.onnx.preview.training) into
tests/data/onnx_gradient, for tests/loaders/test_onnx_gradient.c.

Run with Debian's /usr/bin/python3 (python3-onnx 1.12 and numpy). The expected gradients are
worked out here by hand with numpy (chain rule written out per model), independently of ember.
Deterministic: fixed seed, so rerunning rewrites identical files.

<case>.onnx        the model
<case>.in<i>.npy   its inputs
<case>.out<i>.npy  the expected outputs
bad_<case>.onnx    models the loader must refuse (the test names the message)
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "onnx_gradient")
TRAINING = "ai.onnx.preview.training"
rng = np.random.default_rng(77)


def rand(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def vi(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def model(nodes, inputs, outputs, inits=()):
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13),
                                            helper.make_opsetid(TRAINING, 1)],
                          producer_name="ember-gen")
    m.ir_version = 7
    return m


def gradient(inputs, outputs, xs, y, zs=None, name="grad"):
    kw = {"xs": xs, "y": y}
    if zs:
        kw["zs"] = zs
    return helper.make_node("Gradient", inputs, outputs, name=name, domain=TRAINING, **kw)


def save(name, m, inputs, outputs):
    onnx.save(m, os.path.join(OUT, name + ".onnx"))
    for i, x in enumerate(inputs):
        np.save(os.path.join(OUT, "%s.in%d.npy" % (name, i)), x)
    for i, y in enumerate(outputs):
        np.save(os.path.join(OUT, "%s.out%d.npy" % (name, i)), y.astype(np.float32))


def mlp():
    """L = sum((Relu(X W + B) - T)^2); Gradient wrt the weights W, B with X, T as zs."""
    x, t, w, b = rand(5, 4), rand(5, 3), rand(4, 3), rand(3)
    nodes = [
        helper.make_node("Gemm", ["X", "W", "B"], ["H"]),
        helper.make_node("Relu", ["H"], ["R"]),
        helper.make_node("Sub", ["R", "T"], ["D"]),
        helper.make_node("Mul", ["D", "D"], ["D2"]),
        helper.make_node("ReduceSum", ["D2"], ["L"], keepdims=0),
        gradient(["W", "B", "X", "T"], ["dW", "dB"], ["W", "B"], "L", ["X", "T"]),
    ]
    inits = [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "B")]
    m = model(nodes, [vi("X", ["N", 4]), vi("T", ["N", 3])],
              [vi("L", []), vi("dW", [4, 3]), vi("dB", [3])], inits)
    h = x @ w + b
    r = np.maximum(h, 0)
    d = r - t
    dh = 2 * d * (h > 0)
    save("mlp", m, [x, t], [np.sum(d * d), x.T @ dh, dh.sum(axis=0)])


def rebind():
    """y = x * x * z; the gradient is taken at (x1, z1), given as the Gradient's inputs."""
    x, z, x1, z1 = rand(3), rand(3), rand(3), rand(3)
    nodes = [
        helper.make_node("Mul", ["x", "x"], ["xx"]),
        helper.make_node("Mul", ["xx", "z"], ["y"]),
        gradient(["x1", "z1"], ["dy_dx"], ["x"], "y", ["z"]),
    ]
    m = model(nodes, [vi("x", [3]), vi("z", [3]), vi("x1", [3]), vi("z1", [3])],
              [vi("y", [3]), vi("dy_dx", [3])])
    save("rebind", m, [x, z, x1, z1], [x * x * z, 2 * x1 * z1])


def skip_and_intermediate():
    """c = a * b, d = Exp(c): an empty first output skips dc/da; d is differentiated against
    the intermediate c."""
    a, b = rand(2, 3), rand(3)
    nodes = [
        helper.make_node("Mul", ["a", "b"], ["c"]),
        helper.make_node("Exp", ["c"], ["d"]),
        gradient(["a", "b"], ["", "dc_db"], ["a", "b"], "c", name="g1"),
        gradient(["c"], ["dd_dc"], ["c"], "d", name="g2"),
    ]
    m = model(nodes, [vi("a", [2, 3]), vi("b", [3])],
              [vi("dc_db", [3]), vi("dd_dc", [2, 3])])
    save("skip", m, [a, b], [a.sum(axis=0), np.exp(a * b)])


def bad():
    """Models the loader refuses: y computed after the Gradient, and inputs that do not match
    xs + zs."""
    nodes = [
        gradient(["a"], ["g"], ["a"], "c"),
        helper.make_node("Exp", ["a"], ["c"]),
    ]
    onnx.save(model(nodes, [vi("a", [2])], [vi("g", [2])]),
              os.path.join(OUT, "bad_y_after.onnx"))
    nodes = [
        helper.make_node("Exp", ["a"], ["c"]),
        gradient(["a"], ["g"], ["a", "a"], "c"),
    ]
    onnx.save(model(nodes, [vi("a", [2])], [vi("g", [2])]),
              os.path.join(OUT, "bad_count.onnx"))
    nodes = [
        helper.make_node("Exp", ["a"], ["c"]),
        helper.make_node("Gradient", ["a"], ["g"], xs=["a"], y="c"),
    ]
    onnx.save(model(nodes, [vi("a", [2])], [vi("g", [2])]),
              os.path.join(OUT, "bad_domain.onnx"))


def main():
    os.makedirs(OUT, exist_ok=True)
    mlp()
    rebind()
    skip_and_intermediate()
    bad()


if __name__ == "__main__":
    main()
