#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the half-precision fixtures into tests/data/half (issue #21).

Three tiny seeded modules, each in fp16 and bf16:
  cnn   Conv/BatchNorm/ReLU twice with a residual Add, MaxPool, AdaptiveAvgPool, Flatten, Linear
  rnn   an LSTM then a GRU (one layer each, default initial states), a Linear on the last step
  enc   a TransformerEncoderLayer (d_model 16, 2 heads, batch_first), the fast path off
as
  <m>.<f16|bf16>.trace.pt   torch.jit.trace of module.half() / module.bfloat16()
  <m>.<f16|bf16>.script.pt  torch.jit.script of the same (cnn only)
  <m>.f16.onnx              (cnn, rnn) the fp32 module (fp16 weights widened) exported by torch.onnx (opset 17), then converted as
                            onnxconverter-common's float16.convert_float_to_float16 does with
                            keep_io_types=False: float initializers, Constant / ConstantOfShape
                            values, inputs and outputs in fp16, Cast(to=FLOAT) -> FLOAT16
and the data (numpy has no bf16, so bf16 tensors are stored as their uint16 bit patterns):
  <m>.<f>.in0.npy     the input, half (f16 npy, or the bf16 bits as u16 npy)
  <m>.<f>.ref32.npy   PyTorch's fp32 output of the module whose weights and input are the half
                      ones widened to fp32 (what ember computes: fp32 arithmetic on half data)
  <m>.<f>.torch.npy   PyTorch's own half output (its CPU half kernels), widened to f32 npy
and two hand-built ONNX graphs:
  nanw.f16.onnx   Gemm of an f16 input with f16 weights holding NaN and +-Inf (IEEE results);
                  nanw.f16.in0.npy, nanw.f16.ref32.npy (numpy's fp32 result on the same values)
  cast.onnx       x (f32) -> Cast(f16) -> Cast(f32) -> Mul 3 and the same through bf16, and
                  the f16 cast times an f16 weight 3 (an f16 output): the model's own
                  rounding to half must stay; cast.in0.npy (ties, subnormals, overflow),
                  cast.out0.npy / cast.out1.npy (PyTorch's casts, times 3), cast.out2.npy
                  (PyTorch's half multiply)
Run with torch 2.x (CPU half kernels) and onnx:
    /work/main/bench/.env/torch2/bin/python tools/gen_half_fixtures.py
and with Debian's torch 1.13 (its archive format; no CPU half conv, so no PyTorch half output)
for cnn.<f16|bf16>.script.t113.pt with its own cnn.<f>.t113.in0.npy / .ref32.npy:
    /usr/bin/python3 tools/gen_half_fixtures.py
"""
import io
import os
import struct
import sys
import warnings
import zipfile

import numpy as np
import torch

T113 = torch.__version__.startswith("1.")

if not T113:
    import onnx
    from onnx import TensorProto, numpy_helper
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
    from half import to_f16_onnx  # noqa: E402  (bench/half.py: the fp16 conversion)

warnings.filterwarnings("ignore")
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "half")


class Cnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.b1 = torch.nn.BatchNorm2d(8)
        self.c2 = torch.nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.b2 = torch.nn.BatchNorm2d(8)
        self.pool = torch.nn.MaxPool2d(2)
        self.gap = torch.nn.AdaptiveAvgPool2d(1)
        self.fc = torch.nn.Linear(8, 5)

    def forward(self, x):
        y = torch.relu(self.b1(self.c1(x)))
        y = torch.relu(self.b2(self.c2(y)) + y)
        y = self.gap(self.pool(y))
        return self.fc(torch.flatten(y, 1))


class Rnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(6, 8)
        self.gru = torch.nn.GRU(8, 8)
        self.fc = torch.nn.Linear(8, 3)

    def forward(self, x):
        y, _ = self.lstm(x)
        y, _ = self.gru(y)
        return self.fc(y[-1])


def build(name):
    torch.manual_seed({"cnn": 1, "rnn": 2, "enc": 3}[name])
    if name == "cnn":
        m = Cnn()
        for b in (m.b1, m.b2):  # non-trivial running statistics
            b.running_mean.uniform_(-0.5, 0.5)
            b.running_var.uniform_(0.5, 2.0)
            b.weight.data.uniform_(0.5, 1.5)
            b.bias.data.uniform_(-0.2, 0.2)
        x = torch.randn(1, 3, 12, 12)
    elif name == "rnn":
        m = Rnn()
        x = torch.randn(5, 1, 6)
    else:
        m = torch.nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0,
                                             batch_first=True)
        x = torch.randn(1, 6, 16)
    return m.eval(), x


def strip(path):
    """Rewrites archive `path` without its debug_pkl records, the code deflated; tensor records
    stay stored, 64-byte aligned (as in tools/gen_ts_rnn_fixtures.py)."""
    tmp = path + ".tmp"
    with zipfile.ZipFile(path) as zin, zipfile.ZipFile(tmp, "w") as zout:
        for info in zin.infolist():
            if info.filename.endswith(".debug_pkl"):
                continue
            data = zin.read(info.filename)
            out = zipfile.ZipInfo(info.filename, date_time=info.date_time)
            if "/data/" in info.filename:
                out.compress_type = zipfile.ZIP_STORED
                start = zout.fp.tell() + 30 + len(info.filename.encode()) + 4
                out.extra = b"FB" + struct.pack("<H", -start % 64) + b"Z" * (-start % 64)
            else:
                out.compress_type = zipfile.ZIP_DEFLATED
            zout.writestr(out, data)
    os.replace(tmp, path)


def save_half(path, t):
    if t.dtype == torch.bfloat16:
        np.save(path, t.view(torch.int16).numpy().view(np.uint16))
    else:
        np.save(path, t.numpy())


def hand_built():
    from onnx import helper
    f16 = TensorProto.FLOAT16
    w = np.random.default_rng(21).standard_normal((3, 4)).astype(np.float16)
    w[0, 1] = np.nan
    b = np.array([np.inf, -np.inf, 0.5], np.float16)
    x = np.random.default_rng(22).standard_normal((2, 4)).astype(np.float16)
    g = helper.make_graph(
        [helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1, name="gemm")], "nanw",
        [helper.make_tensor_value_info("x", f16, [2, 4])],
        [helper.make_tensor_value_info("y", f16, [2, 3])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(OUT, "nanw.f16.onnx"))
    np.save(os.path.join(OUT, "nanw.f16.in0.npy"), x)
    ref = x.astype(np.float32) @ w.astype(np.float32).T + b.astype(np.float32)
    np.save(os.path.join(OUT, "nanw.f16.ref32.npy"), ref)

    f32 = TensorProto.FLOAT
    three = numpy_helper.from_array(np.array(3.0, np.float32), "three")
    nodes = []
    for i, t in enumerate((f16, TensorProto.BFLOAT16)):
        nodes += [helper.make_node("Cast", ["x"], [f"h{i}"], to=t, name=f"narrow{i}"),
                  helper.make_node("Cast", [f"h{i}"], [f"w{i}"], to=f32, name=f"widen{i}"),
                  helper.make_node("Mul", [f"w{i}", "three"], [f"y{i}"], name=f"mul{i}")]
    # an f16 weight makes it a half model (converted by passes_half.c): y2 = f16(x) * 3 in f16
    three16 = numpy_helper.from_array(np.array(3.0, np.float16), "three16")
    nodes.append(helper.make_node("Mul", ["h0", "three16"], ["y2"], name="mul16"))
    g = helper.make_graph(nodes, "cast", [helper.make_tensor_value_info("x", f32, [24])],
                          [helper.make_tensor_value_info("y0", f32, [24]),
                           helper.make_tensor_value_info("y1", f32, [24]),
                           helper.make_tensor_value_info("y2", f16, [24])], [three, three16])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(OUT, "cast.onnx"))
    x = np.array([1.0 + 2**-11, 1.0 + 3 * 2**-11, 1.0 + 2**-8, 1.0 + 3 * 2**-8, 65504.0, 65520.0,
                  65519.99, 1e6, -1e6, 2**-25, 2**-24 * 1.5, 2**-20 + 2**-31, 1e-40, -0.0,
                  np.inf, -np.inf, 0.1, -0.3, 3.0e38, 1.0 + 2**-9 + 2**-20, 2**-133, 7.0,
                  np.float32(1 / 3), -2.5], np.float32)
    np.save(os.path.join(OUT, "cast.in0.npy"), x)
    xt = torch.from_numpy(x)
    for i, dt in enumerate((torch.float16, torch.bfloat16)):
        np.save(os.path.join(OUT, f"cast.out{i}.npy"), (xt.to(dt).float() * 3).numpy())
    np.save(os.path.join(OUT, "cast.out2.npy"), (xt.half() * 3).numpy())


def main_t113():
    for tag, dt in (("f16", torch.float16), ("bf16", torch.bfloat16)):
        m, x = build("cnn")
        mh = m.to(dt)
        xh = x.to(dt)
        mw = build("cnn")[0]
        mw.load_state_dict({k: v.float() for k, v in mh.state_dict().items()})
        with torch.no_grad():
            ref32 = mw(xh.float())
        base = os.path.join(OUT, f"cnn.{tag}.t113")
        save_half(base + ".in0.npy", xh)
        np.save(base + ".ref32.npy", ref32.numpy())
        path = os.path.join(OUT, f"cnn.{tag}.script.t113.pt")
        torch.jit.save(torch.jit.script(mh), path)
        strip(path)


def main():
    os.makedirs(OUT, exist_ok=True)
    if T113:
        main_t113()
        return
    hand_built()
    torch.backends.mha.set_fastpath_enabled(False)
    for name in ("cnn", "rnn", "enc"):
        x32 = build(name)[1]
        widened = {}
        for tag, dt in (("f16", torch.float16), ("bf16", torch.bfloat16)):
            mh = build(name)[0].to(dt)
            xh = x32.to(dt)
            with torch.no_grad():
                want_half = mh(xh).float()
                # the half weights and input widened: fp32 arithmetic on the same values
                mw = build(name)[0]
                mw.load_state_dict({k: v.float() for k, v in mh.state_dict().items()})
                ref32 = mw(xh.float())
                widened[tag] = mw
            base = os.path.join(OUT, f"{name}.{tag}")
            save_half(base + ".in0.npy", xh)
            np.save(base + ".ref32.npy", ref32.numpy())
            np.save(base + ".torch.npy", want_half.numpy())
            kinds = [("trace", lambda: torch.jit.trace(mh, (xh,)))]
            if name == "cnn":
                kinds.append(("script", lambda: torch.jit.script(mh)))
            for kind, make in kinds:
                path = f"{base}.{kind}.pt"
                with torch.no_grad():
                    torch.jit.save(make(), path)
                strip(path)
            d = (want_half - ref32).abs().max().item()
            print(f"{name}.{tag}: |torch half - fp32 on half data| max {d:.3g}, "
                  f"output max {ref32.abs().max().item():.3g}")
        if name == "enc":  # torch 2.x's TorchScript-based exporter fails on it (is_causal)
            continue
        # the fp16 weights widened (the ref32 module of the f16 pass), BatchNorm kept as a
        # node: folding it into the conv in fp32 before the conversion would change the data
        buf = io.BytesIO()
        with torch.no_grad():
            torch.onnx.export(widened["f16"], (x32,), buf, opset_version=17, input_names=["x"],
                              output_names=["y"], dynamo=False, do_constant_folding=False)
        model = to_f16_onnx(onnx.load_from_string(buf.getvalue()))
        onnx.save(model, os.path.join(OUT, f"{name}.f16.onnx"))


if __name__ == "__main__":
    # run from the module imported by name: classes of __main__ are written to
    # code/__torch__.py, which ember's TorchScript loader then takes for the package
    # __torch__ itself (its __torch__.torch.nn.functional lookups fail; docs/NOTES.md, #21)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import gen_half_fixtures
    gen_half_fixtures.main()
