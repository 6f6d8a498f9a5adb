#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the small quantized TorchScript fixtures of issue #19 item 4:
tests/data/torchscript/quant/.

Each model is tiny (a few KB archive). For each quantization form the PyTorch running this script
has, traced and scripted, it writes <name>.<kind>.<tag>.pt with the input <name>.<tag>.in.npy and
PyTorch eager's output <name>.<tag>.out.npy (each version's observers pick their own scales, so
each tag has its own reference). Statically quantized models end in a DeQuantStub: their output
scale goes to <name>.<tag>.oscale.npy (a float64 scalar) so tests can count output steps (LSBs).
<tag> is "t113" (Debian's PyTorch 1.13) or "t2" (2.x):
  /usr/bin/python3 tools/gen_ts_quant_fixtures.py
  /work/main/bench/.env/torch2/bin/python tools/gen_ts_quant_fixtures.py
A comma-separated list of names as the argument remakes only those. `bad` as the argument (2.x
only) writes tests/data/torchscript/quant/bad/: archives made from the good ones with one field
of a quantized weight or module broken (scale 0 / negative / NaN, zero point out of range, a
truncated weight storage, a packed-params state that is not a (weight, bias) pair, an output
scale of 0, an RNN cell of another type), for the loader's errors.

Forms: eager static post-training quantization with each engine's default qconfig (fbgemm and x86
per-channel weights, qnnpack per-tensor), FX (prepare_fx / convert_fx), eager QAT
converted, and dynamic quantization (quantize_dynamic) of an MLP, an LSTM and a GRU. The engine
set while calibrating is also the one that computes the reference. Dynamic models use x86 /
fbgemm, or onednn where those are missing (Debian's 1.13): their dynamic linear quantizes its
input to 0..127 when the module asks for reduce_range (its default), as ember does; qnnpack
ignores reduce_range and quantizes to 0..255, which nothing in an archive records.
"""
import os
import sys
import warnings

import numpy as np
import torch

warnings.filterwarnings("ignore")
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "torchscript", "quant")
TAG = "t113" if torch.__version__.startswith("1.") else "t2"
ENGINES = torch.backends.quantized.supported_engines
aq = torch.ao.quantization


class StaticNet(torch.nn.Module):
    """Conv (+ReLU fused), per-channel or per-tensor weights, add / add_relu / cat through
    FloatFunctional, hardswish, max and average pooling, flatten, Linear."""

    def __init__(self):
        super().__init__()
        self.q = aq.QuantStub()
        self.conv = torch.nn.Conv2d(3, 6, 3, padding=1)
        self.relu = torch.nn.ReLU()
        self.conv2 = torch.nn.Conv2d(6, 6, 3, padding=1, bias=False)
        self.hs = torch.nn.Hardswish()
        self.add = torch.nn.quantized.FloatFunctional()
        self.add2 = torch.nn.quantized.FloatFunctional()
        self.cat = torch.nn.quantized.FloatFunctional()
        self.mp = torch.nn.MaxPool2d(2)
        self.ap = torch.nn.AdaptiveAvgPool2d(1)
        self.fc = torch.nn.Linear(12, 16)
        self.dq = aq.DeQuantStub()

    def forward(self, x):
        x = self.q(x)
        y = self.relu(self.conv(x))
        z = self.hs(self.conv2(y))
        a = self.add.add_relu(y, z)
        b = self.add2.add(a, y)
        c = self.mp(self.cat.cat([a, b], 1))
        return self.dq(self.fc(torch.flatten(self.ap(c), 1)))


class FxNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(4)
        self.fc = torch.nn.Linear(4 * 4 * 4, 16)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))
        y = torch.nn.functional.max_pool2d(y, 2)
        return self.fc(torch.flatten(y, 1))


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(10, 16)
        self.fc2 = torch.nn.Linear(16, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class Rnn(torch.nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.rnn = (torch.nn.LSTM if kind == "lstm" else torch.nn.GRU)(6, 8, num_layers=2)

    def forward(self, x):
        return self.rnn(x)[0]


def calibrate(m, shape):
    gen = torch.Generator().manual_seed(2)
    for _ in range(4):
        m(torch.randn(*shape, generator=gen))


def static_eager(engine):
    def make():
        torch.backends.quantized.engine = engine
        m = StaticNet().eval()
        m.qconfig = aq.get_default_qconfig(engine)
        aq.fuse_modules(m, [["conv", "relu"]], inplace=True)
        aq.prepare(m, inplace=True)
        calibrate(m, (2, 3, 8, 8))
        return aq.convert(m)
    return make


def qat(engine):
    def make():
        torch.backends.quantized.engine = engine
        m = StaticNet().train()
        m.qconfig = aq.get_default_qat_qconfig(engine)
        aq.fuse_modules_qat(m, [["conv", "relu"]], inplace=True)
        aq.prepare_qat(m, inplace=True)
        calibrate(m, (2, 3, 8, 8))
        return aq.convert(m.eval())
    return make


def fx(engine):
    def make():
        from torch.ao.quantization import quantize_fx
        torch.backends.quantized.engine = engine
        m = FxNet().eval()
        qmap = aq.get_default_qconfig_mapping(engine)
        ex = torch.randn(1, 3, 8, 8)
        m = quantize_fx.prepare_fx(m, qmap, (ex,))
        calibrate(m, (2, 3, 8, 8))
        return quantize_fx.convert_fx(m)
    return make


def dynamic(ctor, engine):
    def make():
        torch.backends.quantized.engine = engine
        return aq.quantize_dynamic(ctor().eval(), dtype=torch.qint8)
    return make


def models():
    # an engine whose dynamic linear honours reduce_range, as x86 / fbgemm (PyTorch's default on
    # x86) and onednn do; qnnpack ignores it (always 0..255), which an archive cannot tell
    dyn = [e for e in ("x86", "fbgemm", "onednn") if e in ENGINES][0]
    # static: PyTorch's default engine on x86, else qnnpack. No onednn fixtures: onednn's
    # static kernels, run on an AVX2 machine without VNNI, are up to 2 (2.x) or 4 (1.13) output
    # steps off the exact arithmetic that fbgemm / x86 / qnnpack compute, so they make no
    # reference (docs/NOTES.md has the figures)
    sta = [e for e in ("x86", "fbgemm", "qnnpack") if e in ENGINES][0]
    out = {}
    for e in ("fbgemm", "x86", "qnnpack"):
        if e in ENGINES:
            out["static_" + e] = (static_eager(e), e, (2, 3, 8, 8), True)
    out["qat"] = (qat(sta), sta, (2, 3, 8, 8), True)
    out["fx"] = (fx(sta), sta, (2, 3, 8, 8), True)
    out["dyn_mlp"] = (dynamic(Mlp, dyn), dyn, (3, 10), False)
    out["dyn_lstm"] = (dynamic(lambda: Rnn("lstm"), dyn), dyn, (5, 2, 6), False)
    out["dyn_gru"] = (dynamic(lambda: Rnn("gru"), dyn), dyn, (5, 2, 6), False)
    return out


def out_scale(m):
    """The scale of the quantized tensor the final DeQuantStub reads (eager modules)."""
    return float(m.fc.scale)


def main():
    os.makedirs(OUT, exist_ok=True)
    only = sys.argv[1].split(",") if len(sys.argv) > 1 else None
    for name, (make, engine, shape, has_scale) in models().items():
        if only is not None and name not in only:
            continue
        torch.manual_seed(0)
        m = make()
        torch.backends.quantized.engine = engine
        x = torch.randn(*shape, generator=torch.Generator().manual_seed(1))
        with torch.no_grad():
            y = m(x)
        base = os.path.join(OUT, "%s.%s" % (name, TAG))
        np.save(base + ".in.npy", x.numpy())
        np.save(base + ".out.npy", y.numpy())
        if has_scale:
            np.save(base + ".oscale.npy", np.float64(out_scale(m)))
        for kind in ("trace", "script"):
            try:
                with torch.no_grad():
                    ts = (torch.jit.trace(m, x, check_trace=False) if kind == "trace"
                          else torch.jit.script(m))
            except Exception as e:  # noqa: BLE001 (some forms do not script)
                print("gen_ts_quant_fixtures: %s %s: %s" % (name, kind, str(e).splitlines()[0]))
                continue
            path = os.path.join(OUT, "%s.%s.%s.pt" % (name, kind, TAG))
            torch.jit.save(ts, path)
            print("gen_ts_quant_fixtures: %s (%d bytes, engine %s)"
                  % (path, os.path.getsize(path), engine))


def ops_of(pkl):
    import pickletools
    return [(op.name, arg, pos) for op, arg, pos in pickletools.genops(pkl)]


def rewrite(src, dst, pkl_fn=None, record_fn=None):
    """Copies archive src to dst with data.pkl through pkl_fn and records through
    record_fn(name, bytes) (stored, as torch writes them)."""
    import zipfile
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gen_ts_archive_fixtures import zip_bytes
    entries = []
    with zipfile.ZipFile(src) as z:
        for info in z.infolist():
            data = z.read(info.filename)
            if pkl_fn is not None and info.filename.endswith("/data.pkl"):
                data = pkl_fn(data)
            if record_fn is not None:
                data = record_fn(info.filename, data)
            entries.append({"name": info.filename, "data": data})
    with open(dst, "wb") as f:
        f.write(zip_bytes(entries))
    print("gen_ts_quant_fixtures: %s (%d bytes)" % (dst, os.path.getsize(dst)))


def set_float(pkl, pos, v):
    import struct
    assert pkl[pos:pos + 1] == b"G"
    return pkl[:pos + 1] + struct.pack(">d", v) + pkl[pos + 9:]


def bad():
    import struct
    out = os.path.join(OUT, "bad")
    os.makedirs(out, exist_ok=True)
    mlp = os.path.join(OUT, "dyn_mlp.script.t2.pt")
    import zipfile
    with zipfile.ZipFile(mlp) as z:
        pkl = z.read("dyn_mlp.script.t2/data.pkl")
    ops = ops_of(pkl)
    # fc1's weight: the first qtensor; its scale is the BINFLOAT after 'torch per_tensor_affine'
    i = next(k for k, o in enumerate(ops) if o[0] == "GLOBAL" and "per_tensor_affine" in o[1])
    scale_at, zp_at = ops[i + 2], ops[i + 3]
    assert scale_at[0] == "BINFLOAT" and zp_at[0] == "BININT1" and zp_at[1] == 0
    for tag, v in (("scale_zero", 0.0), ("scale_negative", -0.5), ("scale_nan", float("nan"))):
        rewrite(mlp, os.path.join(out, "weight_%s.pt" % tag),
                lambda p, v=v: set_float(p, scale_at[2], v))
    # zero point 200: out of qint8's range
    rewrite(mlp, os.path.join(out, "weight_zero_point.pt"),
            lambda p: p[:zp_at[2]] + b"K" + bytes([200]) + p[zp_at[2] + 2:])
    # the weight's storage (record data/0, 160 int8) cut to 100 bytes
    rewrite(mlp, os.path.join(out, "weight_truncated.pt"),
            record_fn=lambda n, d: d[:100] if n.endswith("/data/0") else d)
    # LinearPackedParamsBase's state (weight, bias, None): not the pair torch writes
    t2 = next(o for o in ops if o[0] == "TUPLE2")
    rewrite(mlp, os.path.join(out, "packed_triple.pt"),
            lambda p: p[:t2[2]] + b"N\x87" + p[t2[2] + 1:])
    # a dynamic LSTM cell of a type ember does not take (the CellParamsBase type string)
    lstm = os.path.join(OUT, "dyn_lstm.script.t2.pt")
    rewrite(lstm, os.path.join(out, "cell_type.pt"),
            lambda p: p.replace(b"quantized_dynamic", b"quantized_fp16abx"))
    # a static conv's output scale 0 (the float after the weight's own scale in its state)
    conv = os.path.join(OUT, "static_qnnpack.script.t2.pt")
    with zipfile.ZipFile(conv) as z:
        name = [n for n in z.namelist() if n.endswith("/data.pkl")][0]
        cops = ops_of(z.read(name))
    want = torch.jit.load(conv).conv.scale
    k = next(k for k, o in enumerate(cops) if o[0] == "GLOBAL" and "ConvReLU2d" in o[1])
    at = next(o for o in cops[k:] if o[0] == "BINFLOAT" and o[1] == want)
    rewrite(conv, os.path.join(out, "conv_output_scale_zero.pt"),
            lambda p: set_float(p, at[2], 0.0))


if __name__ == "__main__":
    if sys.argv[1:] == ["bad"]:
        bad()
    else:
        main()
