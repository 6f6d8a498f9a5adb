#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the string-tensor fixtures into tests/data/onnx and tests/data/onnx_bad.

Run with Debian's /usr/bin/python3 (python3-onnx and numpy), like gen_onnx_fixtures.py. The
expected outputs are computed here with plain Python string operations, independently of
ember and of onnx's reference implementation.

tests/data/onnx/text.onnx            string input, string_data initializer, Constant
                                     value_string / value_strings, StringConcat,
                                     StringNormalizer, Cast both ways, Concat of strings
tests/data/onnx/text.in<i>.pb|.npy   its inputs (TensorProto string_data; numpy '<U')
tests/data/onnx/text.out<i>.npy      the expected outputs ('<U' for strings)
tests/data/onnx_bad/string_count.onnx  an initializer with fewer strings than its dims
tests/data/onnx_bad/string_raw.onnx    a string initializer in raw_data
tests/data/npy/str_*.npy             numpy unicode ('<U') and bytes ('|S') arrays, as np.save
                                     writes them
tests/data/npy_bad/str_*.npy         string arrays ember must refuse (big-endian unicode, a
                                     lone surrogate, truncated data)
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
OUT = os.path.join(ROOT, "onnx")
BAD = os.path.join(ROOT, "onnx_bad")
NPY = os.path.join(ROOT, "npy")
NPY_BAD = os.path.join(ROOT, "npy_bad")


def model(nodes, inputs, outputs, inits):
    g = helper.make_graph(nodes, "text", inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)],
                          producer_name="ember-gen")
    m.ir_version = 8
    return m


def text():
    sfx = numpy_helper.from_array(np.array(["!"], dtype=object), "sfx")
    nodes = [
        helper.make_node("Constant", [], ["eq"], name="c_eq", value_string="="),
        helper.make_node("Constant", [], ["br"], name="c_br", value_strings=["<", ">"]),
        helper.make_node("StringConcat", ["x", "eq"], ["xe"], name="cat_eq"),
        helper.make_node("StringConcat", ["xe", "sfx"], ["y"], name="cat_sfx"),
        helper.make_node("StringNormalizer", ["x"], ["u"], name="norm",
                         case_change_action="UPPER", stopwords=["skip"], is_case_sensitive=0),
        helper.make_node("Cast", ["n"], ["f"], name="parse", to=TensorProto.FLOAT),
        helper.make_node("Cast", ["f"], ["fs"], name="format", to=TensorProto.STRING),
        helper.make_node("Concat", ["br", "x"], ["joined"], name="join", axis=0),
    ]
    s = TensorProto.STRING
    m = model(nodes,
              [helper.make_tensor_value_info("x", s, [3]),
               helper.make_tensor_value_info("n", s, [2])],
              [helper.make_tensor_value_info("y", s, [3]),
               helper.make_tensor_value_info("u", s, [None]),
               helper.make_tensor_value_info("f", TensorProto.FLOAT, [2]),
               helper.make_tensor_value_info("fs", s, [2]),
               helper.make_tensor_value_info("joined", s, [5])],
              [sfx])
    x = ["\u00e9", "Skip", "\u4e2d\u6587"]
    n = ["1.5", "-INF"]
    f = [float(v) for v in n]
    outs = [
        np.array([v + "=" + "!" for v in x]),
        np.array([v.upper() for v in x if v.lower() != "skip"]),
        np.array(f, dtype=np.float32),
        np.array(["1.5", "-inf"]),
        np.array(["<", ">"] + x),
    ]
    onnx.save(m, os.path.join(OUT, "text.onnx"))
    for i, (name, v) in enumerate((("x", x), ("n", n))):
        with open(os.path.join(OUT, "text.in%d.pb" % i), "wb") as fh:
            fh.write(numpy_helper.from_array(np.array(v, dtype=object), name).SerializeToString())
        np.save(os.path.join(OUT, "text.in%d.npy" % i), np.array(v))
    for i, y in enumerate(outs):
        np.save(os.path.join(OUT, "text.out%d.npy" % i), y)


def bad():
    x = helper.make_tensor_value_info("x", TensorProto.STRING, [2])
    y = helper.make_tensor_value_info("y", TensorProto.STRING, [2])
    node = helper.make_node("StringConcat", ["x", "s"], ["y"], name="cat")
    short = TensorProto(name="s", data_type=TensorProto.STRING, dims=[2], string_data=[b"a"])
    onnx.save(model([node], [x], [y], [short]), os.path.join(BAD, "string_count.onnx"))
    raw = TensorProto(name="s", data_type=TensorProto.STRING, dims=[2], raw_data=b"ab")
    onnx.save(model([node], [x], [y], [raw]), os.path.join(BAD, "string_raw.onnx"))


def npy():
    np.save(os.path.join(NPY, "str_u_3.npy"), np.array(["\u00e9", "\u4e2dx", ""]))
    np.save(os.path.join(NPY, "str_u_2x2.npy"), np.array([["a", "bb"], ["\U0001f600", "cccc"]]))
    np.save(os.path.join(NPY, "str_u_scalar.npy"), np.array("only"))
    np.save(os.path.join(NPY, "str_u_empty.npy"), np.array([], dtype="<U1"))
    np.save(os.path.join(NPY, "str_s_3.npy"), np.array([b"ab", b"\xff", b""], dtype="|S2"))
    np.save(os.path.join(NPY_BAD, "str_big_endian.npy"), np.array(["a"], dtype=">U1"))
    np.save(os.path.join(NPY_BAD, "str_surrogate.npy"), np.array(["\ud800"]))
    good = os.path.join(NPY, "str_u_3.npy")
    with open(good, "rb") as fh:
        data = fh.read()
    with open(os.path.join(NPY_BAD, "str_truncated.npy"), "wb") as fh:
        fh.write(data[:-5])


if __name__ == "__main__":
    text()
    bad()
    npy()
