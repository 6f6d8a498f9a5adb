#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the ONNX loader's fixtures into tests/data/onnx and tests/data/onnx_bad.

Run with Debian's /usr/bin/python3 (python3-onnx 1.12 and numpy; no onnxruntime): every
reference output is computed here with numpy, so the test compares ember with an independent
implementation of each op. Deterministic: fixed seeds, so rerunning rewrites identical files.

tests/data/onnx/<case>.onnx        the model (plus external.bin for `external`)
tests/data/onnx/<case>.in<i>.pb    its inputs as TensorProto files (and .in<i>.npy)
tests/data/onnx/<case>.out<i>.npy  the expected outputs
tests/data/onnx_bad/*.onnx         malformed models; tests/loaders/test_onnx.c names the
                                   status code and message each must give
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data")
OUT = os.path.join(ROOT, "onnx")
BAD = os.path.join(ROOT, "onnx_bad")
FUZZ = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fuzz",
                    "corpus", "onnx")
rng = np.random.default_rng(1234)


def rand(*shape, scale=0.5):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def model(nodes, inputs, outputs, inits, opset, name="g", ir=None):
    g = helper.make_graph(nodes, name, inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="ember-gen")
    # ONNX 1.12 writes IR 8; old opsets keep the IR of their time so that tools accept them.
    m.ir_version = ir if ir is not None else (3 if opset < 8 else 7)
    return m


def vi(name, shape, dt=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dt, shape)


def save_case(name, m, inputs, outputs, **save_kw):
    onnx.save(m, os.path.join(OUT, name + ".onnx"), **save_kw)
    for i, x in enumerate(inputs):
        with open(os.path.join(OUT, "%s.in%d.pb" % (name, i)), "wb") as f:
            f.write(numpy_helper.from_array(x, "x%d" % i).SerializeToString())
        np.save(os.path.join(OUT, "%s.in%d.npy" % (name, i)), x)
    for i, y in enumerate(outputs):
        np.save(os.path.join(OUT, "%s.out%d.npy" % (name, i)), y.astype(np.float32))


# ---- numpy references -----------------------------------------------------------------------

def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def softmax_legacy(x, axis):
    """Softmax-1/11: flatten to 2-D at axis, normalise rows, restore the shape."""
    s = x.shape
    rows = int(np.prod(s[:axis]))
    return softmax(x.reshape(rows, -1), 1).reshape(s)


def gemm(a, b, c, trans_b=False):
    return a @ (b.T if trans_b else b) + c


def conv2d(x, w, b, pad):
    n, ci, h, wd = x.shape
    co, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    y = np.zeros((n, co, oh, ow), np.float64)
    for i in range(kh):
        for j in range(kw):
            y += np.einsum("nchw,oc->nohw", xp[:, :, i:i + oh, j:j + ow], w[:, :, i, j])
    return (y + b[None, :, None, None]).astype(np.float32)


def batchnorm(x, s, b, mean, var, eps=1e-5):
    sh = (1, -1, 1, 1)
    return (x - mean.reshape(sh)) / np.sqrt(var.reshape(sh) + eps) * s.reshape(sh) + b.reshape(sh)


def maxpool2(x):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


# ---- models -----------------------------------------------------------------------------------

def mlp():
    w1, b1, w2, b2 = rand(16, 32), rand(32), rand(10, 32), rand(10)
    nodes = [
        helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], name="fc1"),
        helper.make_node("Relu", ["h"], ["hr"], name="relu1"),
        helper.make_node("Gemm", ["hr", "w2", "b2"], ["z"], name="fc2", transB=1),
        helper.make_node("Softmax", ["z"], ["y"], name="softmax", axis=-1),
    ]
    inits = [numpy_helper.from_array(a, n) for a, n in
             [(w1, "w1"), (b1, "b1"), (w2, "w2"), (b2, "b2")]]
    m = model(nodes, [vi("x", ["N", 16])], [vi("y", ["N", 10])], inits, 13)
    x = rand(3, 16, scale=1.0)
    y = softmax(gemm(np.maximum(gemm(x, w1, b1), 0), w2, b2, True), -1)
    save_case("mlp", m, [x], [y])


def big_weights():
    """Initializers of more than 64 KB in raw_data: the loader unpacks a skeleton of the file
    and reads them in place (loaders/onnx/onnx_wire.c); the BatchNorm after the conv folds into
    it at load, so the conv's original weights are left unused in the mapped file."""
    w, b = rand(96, 24, 3, 3), rand(96)
    scale, bias = rand(96) + 1.5, rand(96)
    mean, var = rand(96), np.abs(rand(96)) + 0.5
    fc, fb = rand(10, 96 * 4 * 4, scale=0.05), rand(10)
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c", "scale", "bias", "mean", "var"], ["n"],
                         name="bn", epsilon=1e-5),
        helper.make_node("Relu", ["n"], ["r"], name="relu"),
        helper.make_node("Reshape", ["r", "shape"], ["f"], name="flat"),
        helper.make_node("Gemm", ["f", "fc", "fb"], ["y"], name="fc", transB=1),
    ]
    inits = [numpy_helper.from_array(a, n) for a, n in
             [(w, "w"), (b, "b"), (scale, "scale"), (bias, "bias"), (mean, "mean"),
              (var, "var"), (fc, "fc"), (fb, "fb")]]
    inits.append(helper.make_tensor("shape", TensorProto.INT64, [2], [1, -1]))  # typed field
    m = model(nodes, [vi("x", [1, 24, 4, 4])], [vi("y", [1, 10])], inits, 13)
    x = rand(1, 24, 4, 4, scale=1.0)
    n = batchnorm(conv2d(x, w, b, 1), scale, bias, mean, var)
    y = gemm(np.maximum(n, 0).reshape(1, -1), fc, fb, True)
    save_case("big_weights", m, [x], [y])


def subgraph_init():
    """Initializers in raw_data both in the main graph (read in place from the file) and in an
    If branch (kept by protobuf-c: only the main graph's are left out of the skeleton)."""
    kt, w = rand(4), rand(4)
    then_g = helper.make_graph([helper.make_node("Add", ["x", "kt"], ["yt"], name="add")],
                               "then", [], [vi("yt", [4])], [numpy_helper.from_array(kt, "kt")])
    else_g = helper.make_graph([helper.make_node("Mul", ["x", "w"], ["ye"], name="mul")],
                               "else", [], [vi("ye", [4])])
    nodes = [
        helper.make_node("ReduceSum", ["x"], ["s"], name="sum", keepdims=0),
        helper.make_node("Greater", ["s", "zero"], ["c"], name="gt"),
        helper.make_node("If", ["c"], ["y"], name="if", then_branch=then_g, else_branch=else_g),
    ]
    inits = [numpy_helper.from_array(w, "w"),
             numpy_helper.from_array(np.zeros((), np.float32), "zero")]
    m = model(nodes, [vi("x", [4])], [vi("y", [4])], inits, 13)
    x = np.abs(rand(4, scale=1.0)) + 0.1
    save_case("subgraph_init", m, [x], [x + kt if x.sum() > 0 else x * w])


def cnn_weights():
    return dict(cw=rand(4, 3, 3, 3), cb=rand(4), s=rand(4) + 1.0, b=rand(4),
                mean=rand(4), var=np.abs(rand(4)) + 0.5, fw=rand(5, 4), fb=rand(5))


def cnn_ref(x, p):
    h = conv2d(x, p["cw"], p["cb"], 1)
    h = np.maximum(batchnorm(h, p["s"], p["b"], p["mean"], p["var"]), 0)
    h = maxpool2(h).mean(axis=(2, 3))
    return gemm(h, p["fw"], p["fb"], True)


def cnn(opset):
    p = cnn_weights()
    bn_attrs = {"epsilon": 1e-5}
    if opset < 9:
        bn_attrs["spatial"] = 1
    nodes = [
        helper.make_node("Conv", ["x", "cw", "cb"], ["c"], name="conv", pads=[1, 1, 1, 1],
                         kernel_shape=[3, 3]),
        helper.make_node("BatchNormalization", ["c", "s", "b", "mean", "var"], ["bn"],
                         name="bn", **bn_attrs),
        helper.make_node("Relu", ["bn"], ["r"], name="relu"),
        helper.make_node("MaxPool", ["r"], ["mp"], name="pool", kernel_shape=[2, 2],
                         strides=[2, 2]),
        helper.make_node("GlobalAveragePool", ["mp"], ["gap"], name="gap"),
        helper.make_node("Flatten", ["gap"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fw", "fb"], ["logits"], name="fc", transB=1),
    ]
    outs = [vi("logits", [2, 5])]
    x = rand(2, 3, 8, 8, scale=1.0)
    ref = cnn_ref(x, p)
    if opset < 13:
        # Softmax-1 at its default axis 1 on 2-D, and a Dropout whose mask nobody reads.
        nodes.append(helper.make_node("Dropout", ["logits"], ["d", "mask"], name="drop",
                                      ratio=0.3))
        nodes.append(helper.make_node("Softmax", ["d"], ["y"], name="softmax"))
        outs = [vi("y", [2, 5])]
        ref = softmax(ref, 1)
    inits = [numpy_helper.from_array(v, k) for k, v in p.items()]
    m = model(nodes, [vi("x", [2, 3, 8, 8])], outs, inits, opset)
    save_case("cnn_v%d" % opset, m, [x], [ref])


def softmax_forms():
    x = rand(2, 3, 4, scale=2.0)
    for opset, shape in ((11, [2, 3, 4]), (11, ["N", 3, 4]), (13, [2, 3, 4])):
        n = [helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=1)]
        m = model(n, [vi("x", shape)], [vi("y", shape)], [], opset)
        ref = softmax_legacy(x, 1) if opset < 13 else softmax(x, 1)
        name = "softmax_v%d%s" % (opset, "_sym" if shape[0] == "N" else "")
        save_case(name, m, [x], [ref])


def reshape_forms():
    x = rand(2, 3, 4)
    n4 = [helper.make_node("Reshape", ["x"], ["r"], name="reshape", shape=[4, 6]),
          helper.make_node("Relu", ["r"], ["y"], name="relu")]
    save_case("reshape_v4", model(n4, [vi("x", [2, 3, 4])], [vi("y", [4, 6])], [], 4),
              [x], [np.maximum(x.reshape(4, 6), 0)])
    shape = numpy_helper.from_array(np.array([0, -1], np.int64), "shape")
    n13 = [helper.make_node("Reshape", ["x", "shape"], ["r"], name="reshape"),
           helper.make_node("Relu", ["r"], ["y"], name="relu")]
    save_case("reshape_v13", model(n13, [vi("x", [2, 3, 4])], [vi("y", [2, 12])], [shape], 13),
              [x], [np.maximum(x.reshape(2, 12), 0)])


def typed_fields():
    """Initializers in float_data / int64_data instead of raw_data."""
    w = rand(3, 4)
    tw = helper.make_tensor("w", TensorProto.FLOAT, [3, 4], w.flatten().tolist(), raw=False)
    ts = helper.make_tensor("shape", TensorProto.INT64, [2], [4, 3], raw=False)
    nodes = [helper.make_node("Mul", ["x", "w"], ["p"], name="mul"),
             helper.make_node("Reshape", ["p", "shape"], ["y"], name="reshape")]
    x = rand(3, 4)
    m = model(nodes, [vi("x", [3, 4])], [vi("y", [4, 3])], [tw, ts], 13)
    save_case("typed", m, [x], [(x * w).reshape(4, 3)])


def constants():
    c = rand(2, 6)
    nodes = [
        helper.make_node("Constant", [], ["c"], name="c_tensor",
                         value=numpy_helper.from_array(c, "c")),
        helper.make_node("Constant", [], ["k"], name="c_float", value_float=0.5),
        helper.make_node("Constant", [], ["shape"], name="c_ints", value_ints=[2, 6]),
        helper.make_node("Reshape", ["x", "shape"], ["r"], name="reshape"),
        helper.make_node("Add", ["r", "c"], ["s"], name="add"),
        helper.make_node("Mul", ["s", "k"], ["y"], name="mul"),
    ]
    x = rand(3, 4)
    m = model(nodes, [vi("x", [3, 4])], [vi("y", [2, 6])], [], 13)
    save_case("constant", m, [x], [(x.reshape(2, 6) + c) * 0.5])


def external():
    w, b = rand(8, 4), rand(4)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["p"], name="matmul"),
             helper.make_node("Add", ["p", "b"], ["y"], name="add")]
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")]
    m = model(nodes, [vi("x", [2, 8])], [vi("y", [2, 4])], inits, 13)
    x = rand(2, 8)
    ext = os.path.join(OUT, "external.bin")
    if os.path.exists(ext):  # onnx appends to an existing data file
        os.remove(ext)
    save_case("external", m, [x], [x @ w + b], save_as_external_data=True,
              all_tensors_to_one_file=True, location="external.bin", size_threshold=0)


# ---- malformed models -------------------------------------------------------------------------

def small_model(op="Relu", opset=13, domain="", inits=(), n_in=1, node_name="n0"):
    ins = ["x"] + ["x"] * (n_in - 1)
    nodes = [helper.make_node(op, ins, ["y"], name=node_name, domain=domain)]
    m = model(nodes, [vi("x", [2, 3])], [vi("y", [2, 3])], list(inits), opset)
    if domain:
        m.opset_import.append(helper.make_opsetid(domain, 1))
    return m


def write_bad(name, data):
    with open(os.path.join(BAD, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.SerializeToString())


def nested(depth):
    leaf = helper.make_graph([helper.make_node("Relu", ["a"], ["b"])], "leaf", [vi("a", [1])],
                             [vi("b", [1])])
    g = leaf
    for _ in range(depth):
        n = helper.make_node("If", ["c"], ["b"], name="if", then_branch=g, else_branch=leaf)
        g = helper.make_graph([n], "g", [], [vi("b", [1])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def bad_structure():
    """Files a lenient reader would accept: varints beyond 64 bits, a negative declared dim, a
    tensor with two data sources, a graph without outputs, ir_version 0 and far too new."""
    m = small_model()
    m.ClearField("ir_version")
    rest = m.SerializeToString()
    # ir_version (field 1, varint) as 12 bytes, and as 10 bytes whose last carries bit 64+.
    write_bad("varint_long.onnx", b"\x08" + b"\x80" * 10 + b"\x01" + rest)
    write_bad("varint_overflow.onnx", b"\x08" + b"\xff" * 9 + b"\x7f" + rest)
    m = small_model()
    m.graph.input[0].type.tensor_type.shape.dim[1].dim_value = -3
    write_bad("negative_dim.onnx", m)
    w = numpy_helper.from_array(rand(2, 3), "w")
    w.float_data.extend([1.0] * 6)  # raw_data and float_data
    m = small_model("Add", inits=[w], n_in=2)
    m.graph.node[0].input[1] = "w"
    write_bad("two_sources.onnx", m)
    m = small_model()
    del m.graph.output[:]
    write_bad("no_outputs.onnx", m)
    for ir in (0, 99):
        m = small_model()
        m.ir_version = ir
        write_bad("ir_version_%d.onnx" % ir, m)


def bad_models():
    good = small_model().SerializeToString()
    write_bad("truncated.onnx", good[:len(good) * 2 // 3])
    flipped = bytearray(good)
    flipped[3] ^= 0xff  # inside the length prefix of the producer name
    write_bad("bitflip.onnx", bytes(flipped))
    m = small_model()
    m.graph.node.extend([helper.make_node("NoSuchOp", ["y"], ["nz"], name="x")])
    m.graph.node[0].op_type = "ConvTranspose2"
    m.graph.node[0].name = "conv_7"
    write_bad("unknown_op.onnx", m)
    write_bad("unknown_domain.onnx", small_model("Gelu", domain="com.microsoft"))
    write_bad("wrong_arity.onnx", small_model("Relu", n_in=2))
    short = numpy_helper.from_array(np.zeros((4, 4), np.float32), "w")
    short.raw_data = b"\0" * 20
    write_bad("short_data.onnx", small_model("Relu", inits=[short]))
    m = small_model("Relu", inits=[numpy_helper.from_array(rand(2, 3), "w")])
    m.graph.node[0].input[0] = "w"
    t = m.graph.initializer[0]
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    for loc, tag in (("../outside.bin", "outside"), ("external.bin", "past_end")):
        del t.external_data[:]
        t.external_data.extend([onnx.StringStringEntryProto(key="location", value=loc)])
        if tag == "past_end":
            t.external_data.extend([onnx.StringStringEntryProto(key="offset", value="4096")])
        write_bad("external_%s.onnx" % tag, m)
    with open(os.path.join(BAD, "external.bin"), "wb") as f:
        f.write(b"\0" * 64)
    big = numpy_helper.from_array(np.zeros(1, np.float32), "w")
    del big.dims[:]
    big.dims.extend([1 << 40, 1 << 40, 1 << 20])
    write_bad("dims_overflow.onnx", small_model("Relu", inits=[big]))
    write_bad("deep_nesting.onnx", nested(40))
    write_bad("opset_too_new.onnx", small_model(opset=30))


def fuzz_corpus():
    os.makedirs(FUZZ, exist_ok=True)
    for name in ("mlp.onnx", "typed.onnx", "constant.onnx", "softmax_v11.onnx",
                 "reshape_v4.onnx", "cnn_v7.onnx"):
        with open(os.path.join(OUT, name), "rb") as f:
            data = f.read()
        with open(os.path.join(FUZZ, name), "wb") as f:
            f.write(data)
    with open(os.path.join(FUZZ, "nested3.onnx"), "wb") as f:
        f.write(nested(3).SerializeToString())


def sequences():
    """A seq(tensor) input joined by ConcatFromSequence, and its length; the input as a
    SequenceProto (.pb) and its items as .npy."""
    seq_t = helper.make_tensor_sequence_value_info("xs", TensorProto.FLOAT, [None, 3])
    nodes = [helper.make_node("ConcatFromSequence", ["xs"], ["y"], axis=0),
             helper.make_node("SequenceLength", ["xs"], ["n"])]
    m = model(nodes, [seq_t], [vi("y", [None, 3]), vi("n", [], TensorProto.INT64)], [], 13)
    items = [np.arange(6, dtype=np.float32).reshape(2, 3) / 4,
             np.arange(3, dtype=np.float32).reshape(1, 3) - 1]
    onnx.save(m, os.path.join(OUT, "seq_concat.onnx"))
    with open(os.path.join(OUT, "seq_concat.in0.pb"), "wb") as f:
        f.write(numpy_helper.from_list(items, "xs").SerializeToString())
    for i, x in enumerate(items):
        np.save(os.path.join(OUT, "seq_concat.in0_item%d.npy" % i), x)
    np.save(os.path.join(OUT, "seq_concat.out0.npy"), np.concatenate(items, axis=0))


def seq_split():
    """A seq(tensor) output: SplitToSequence of x into [1, 3] and [2, 3] along axis 0, and
    an optional(tensor) output wrapping x. The expected values as SequenceProto and
    OptionalProto files (what `ember run --output-dir` writes where .npy cannot)."""
    split = numpy_helper.from_array(np.array([1, 2], dtype=np.int64), "split")
    nodes = [helper.make_node("SplitToSequence", ["x", "split"], ["ys"], axis=0),
             helper.make_node("Optional", ["x"], ["ox"])]
    opt_t = helper.make_value_info(
        "ox", helper.make_optional_type_proto(
            helper.make_tensor_type_proto(TensorProto.FLOAT, [3, 3])))
    m = model(nodes, [vi("x", [3, 3])],
              [helper.make_tensor_sequence_value_info("ys", TensorProto.FLOAT, [None, 3]),
               opt_t], [split], 18)
    x = (np.arange(9, dtype=np.float32) - 4).reshape(3, 3) / 8
    onnx.save(m, os.path.join(OUT, "seq_split.onnx"))
    with open(os.path.join(OUT, "seq_split.in0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x).SerializeToString())
    with open(os.path.join(OUT, "seq_split.out0.pb"), "wb") as f:
        f.write(numpy_helper.from_list([x[:1], x[1:]]).SerializeToString())
    with open(os.path.join(OUT, "seq_split.out1.pb"), "wb") as f:
        f.write(numpy_helper.from_optional(x).SerializeToString())


def loop():
    """Loop(trip_count) with a loop-carried sum, a scan output, and x read from the outer graph:
    acc_k = acc_{k-1} + x * k."""
    body = helper.make_graph(
        [helper.make_node("Cast", ["i"], ["fi"], to=TensorProto.FLOAT),
         helper.make_node("Mul", ["x", "fi"], ["xi"]),
         helper.make_node("Add", ["acc", "xi"], ["acc_out"]),
         helper.make_node("Identity", ["c"], ["c_out"]),
         helper.make_node("Identity", ["acc_out"], ["scan"])],
        "body",
        [vi("i", [], TensorProto.INT64), vi("c", [], TensorProto.BOOL), vi("acc", [3])],
        [vi("c_out", [], TensorProto.BOOL), vi("acc_out", [3]), vi("scan", [3])])
    nodes = [helper.make_node("Loop", ["n", "", "acc0"], ["acc", "accs"], body=body)]
    m = model(nodes, [vi("n", [], TensorProto.INT64), vi("acc0", [3]), vi("x", [3])],
              [vi("acc", [3]), vi("accs", [None, 3])], [], 13)
    n = np.array(4, dtype=np.int64)
    acc0 = np.array([1, 2, 3], dtype=np.float32)
    x = np.array([0.5, -1, 2], dtype=np.float32)
    accs, acc = [], acc0.copy()
    for k in range(int(n)):
        acc = acc + x * np.float32(k)
        accs.append(acc.copy())
    save_case("loop", m, [n, acc0, x], [acc, np.stack(accs)])


def groupnorm_v18():
    """GroupNormalization-18: scale and bias per group, which the loader expands per channel;
    scale is a constant (expanded at load), bias an intermediate (Reshape/Expand/Reshape)."""
    groups, eps = 2, 1e-3
    x = rand(2, 6, 3, 2, scale=2.0)
    scale = rand(groups, scale=1.0) + 1.0
    bias0 = rand(groups)
    nodes = [helper.make_node("Identity", ["bias0"], ["bias"]),
             helper.make_node("GroupNormalization", ["x", "scale", "bias"], ["y"],
                              num_groups=groups, epsilon=eps)]
    inits = [numpy_helper.from_array(scale, "scale"), numpy_helper.from_array(bias0, "bias0")]
    m = model(nodes, [vi("x", list(x.shape))], [vi("y", list(x.shape))], inits, 18, ir=8)
    g = x.reshape(2, groups, -1).astype(np.float64)
    norm = (g - g.mean(axis=2, keepdims=True)) / np.sqrt(g.var(axis=2, keepdims=True) + eps)
    y = norm * scale.reshape(1, groups, 1) + bias0.reshape(1, groups, 1)
    save_case("groupnorm_v18", m, [x], [y.reshape(x.shape)])


def main():
    os.makedirs(OUT, exist_ok=True)
    os.makedirs(BAD, exist_ok=True)
    mlp()
    cnn(7)
    cnn(13)
    softmax_forms()
    reshape_forms()
    typed_fields()
    constants()
    external()
    bad_models()
    bad_structure()
    fuzz_corpus()
    sequences()
    seq_split()
    loop()
    groupnorm_v18()
    big_weights()
    subgraph_init()
    total = sum(os.path.getsize(os.path.join(d, f)) for d in (OUT, BAD) for f in os.listdir(d))
    print("gen_onnx_fixtures: %d bytes in %s and %s" % (total, OUT, BAD), file=sys.stderr)


if __name__ == "__main__":
    main()
