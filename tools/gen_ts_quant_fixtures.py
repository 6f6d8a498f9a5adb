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


class PackedConv(torch.nn.Module):
    """A Conv2dPackedParamsBase held as an attribute (pickled with its own versioned state, not
    through a quantized module's __getstate__), per-channel int8 weights, a float bias."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(3)
        w = torch.randn(5, 3, 3, 3, generator=g)
        scales = w.abs().amax(dim=(1, 2, 3)).double() / 127
        qw = torch.quantize_per_channel(w, scales, torch.zeros(5, dtype=torch.long), 0,
                                        torch.qint8)
        self.p = torch.ops.quantized.conv2d_prepack(qw, torch.randn(5, generator=g), [2, 1],
                                                    [1, 0], [1, 1], 1)
        self.oscale = 0.05

    def forward(self, x):
        # 7-bit input values (0..127), as fbgemm / x86's qconfigs keep them (reduce_range): on
        # a CPU without VNNI their u8 x s8 pair sums saturate at int16 with 8-bit ones
        q = torch.quantize_per_tensor(x, 0.06, 64, torch.quint8)
        return torch.ops.quantized.conv2d(q, self.p, 0.05, 100).dequantize()


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


def packed(engine):
    def make():
        torch.backends.quantized.engine = engine
        return PackedConv().eval()
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
    out["packed_conv"] = (packed(sta), sta, (2, 3, 9, 8), True)
    out["dyn_mlp"] = (dynamic(Mlp, dyn), dyn, (3, 10), False)
    out["dyn_lstm"] = (dynamic(lambda: Rnn("lstm"), dyn), dyn, (5, 2, 6), False)
    out["dyn_gru"] = (dynamic(lambda: Rnn("gru"), dyn), dyn, (5, 2, 6), False)
    return out


def out_scale(m):
    """The scale of the quantized tensor the final DeQuantStub reads (eager modules)."""
    return float(m.oscale) if hasattr(m, "oscale") else float(m.fc.scale)


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
            tmp = os.path.join(OUT, "tmp")  # the same file name: torch names the records so
            os.makedirs(tmp, exist_ok=True)
            torch.jit.save(ts, os.path.join(tmp, os.path.basename(path)))
            # without the .debug_pkl records (source ranges for torch's own error messages,
            # optional to torch.jit.load, unread by ember)
            rewrite(os.path.join(tmp, os.path.basename(path)), path,
                    keep=lambda n: not n.endswith(".debug_pkl"))
            os.remove(os.path.join(tmp, os.path.basename(path)))
            os.rmdir(tmp)
            print("gen_ts_quant_fixtures: %s (%d bytes, engine %s)"
                  % (path, os.path.getsize(path), engine))


def ops_of(pkl):
    import pickletools
    return [(op.name, arg, pos) for op, arg, pos in pickletools.genops(pkl)]


def rewrite(src, dst, pkl_fn=None, record_fn=None, keep=None):
    """Copies archive src to dst with data.pkl through pkl_fn and records through
    record_fn(name, bytes) (stored, as torch writes them), only the records `keep` accepts."""
    import zipfile
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gen_ts_archive_fixtures import zip_bytes
    entries = []
    with zipfile.ZipFile(src) as z:
        for info in z.infolist():
            if keep is not None and not keep(info.filename):
                continue
            data = z.read(info.filename)
            if pkl_fn is not None and info.filename.endswith("/data.pkl"):
                data = pkl_fn(data)
            if record_fn is not None:
                data = record_fn(info.filename, data)
            entries.append({"name": info.filename, "data": data})
    with open(dst, "wb") as f:
        f.write(zip_bytes(entries))
    if "/bad/" in dst or dst.endswith(".v3.t2.pt"):
        print("gen_ts_quant_fixtures: %s (%d bytes)" % (dst, os.path.getsize(dst)))


def set_float(pkl, pos, v):
    import struct
    assert pkl[pos:pos + 1] == b"G"
    return pkl[:pos + 1] + struct.pack(">d", v) + pkl[pos + 9:]


def memo_of_calls(pkl):
    """[(op index of a REDUCE, the callable's name, the memo index its result is put at)]: a
    small stack simulation of the pickle, globals followed through BINPUT / BINGET."""
    import pickletools
    ops = list(pickletools.genops(pkl))
    stack, marks, memo, calls = [], [], {}, []
    for i, (op, arg, pos) in enumerate(ops):
        name = op.name
        if name == "MARK":
            marks.append(len(stack))
        elif name in ("BINPUT", "LONG_BINPUT"):
            memo[arg] = stack[-1]
            if stack[-1] is not None and stack[-1][0] == "call" and stack[-1][3] is None:
                stack[-1] = ("call", stack[-1][1], stack[-1][2], arg)
                calls.append((stack[-1][2], stack[-1][1], arg))
        elif name in ("BINGET", "LONG_BINGET"):
            stack.append(memo.get(arg))
        elif name == "REDUCE":
            stack.pop()
            fn = stack.pop()
            stack.append(("call", fn[1] if fn is not None else None, i, None))
        elif name == "GLOBAL":
            stack.append(("global", arg))
        elif name in ("TUPLE", "LIST", "DICT", "APPENDS", "SETITEMS"):
            m = marks.pop()
            del stack[m:]
            if name in ("TUPLE", "LIST", "DICT"):
                stack.append(None)
        else:
            before = [x for x in op.stack_before if x is not pickletools.markobject]
            for _ in before:
                stack.pop()
            for _ in op.stack_after:
                stack.append(None)
    return ops, calls


def packed_conv_v3():
    """packed_conv.script.t2.pt with its Conv2dPackedParamsBase state rewritten to version 3
    (3, config, [weight, bias]), which no PyTorch here writes (both write version 2): before
    the object's BUILD the v2 tuple is popped (POP, which ember's unpickler takes and torch's
    does not, so only ember reads this file) and the v3 one is made of the memoized tensors.
    Its reference is packed_conv's (the same weights)."""
    import zipfile
    src = os.path.join(OUT, "packed_conv.script.t2.pt")
    with zipfile.ZipFile(src) as z:
        pkl = z.read([n for n in z.namelist() if n.endswith("/data.pkl")][0])
    ops, calls = memo_of_calls(pkl)
    k = next(i for i, o in enumerate(ops) if o[0].name == "GLOBAL" and "Conv2dPacked" in o[1])
    build = next(i for i in range(k, len(ops)) if ops[i][0].name == "BUILD")
    inside = [c for c in calls if k < c[0] < build]
    w = next(c[2] for c in inside if c[1].endswith("_rebuild_qtensor"))
    b = [c[2] for c in inside if c[1].endswith("_rebuild_tensor_v2")][-1]
    cfg = [2, 2, 1, 1, 0, 1, 1, 0, 0, 1, 0]  # PackedConv: stride, padding, dilation, out pad, ...
    new = (b"0K\x03](" + b"".join(b"K" + bytes([v]) for v in cfg) + b"e](" +
           b"h" + bytes([w]) + b"h" + bytes([b]) + b"e\x87")
    at = ops[build][2]
    rewrite(src, os.path.join(OUT, "packed_conv.v3.t2.pt"), lambda p: p[:at] + new + p[at:])


def bad():
    import struct
    out = os.path.join(OUT, "bad")
    os.makedirs(out, exist_ok=True)
    mlp = os.path.join(OUT, "dyn_mlp.script.t2.pt")
    import zipfile
    with zipfile.ZipFile(mlp) as z:
        pkl = z.read([n for n in z.namelist() if n.endswith("/data.pkl")][0])
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
    # a Conv2dPackedParamsBase state of version 9 or "7", and one whose int16 params are 10 values
    pc = os.path.join(OUT, "packed_conv.script.t2.pt")
    with zipfile.ZipFile(pc) as z:
        pops = ops_of(z.read([n for n in z.namelist() if n.endswith("/data.pkl")][0]))
    k = next(k for k, o in enumerate(pops) if o[0] == "GLOBAL" and "Conv2dPackedParams" in o[1])
    j = next(j for j in range(k, len(pops)) if pops[j][0] == "BINUNICODE")
    assert pops[j][1] == "2" and pops[j + 1][0] == "BINPUT"
    at = pops[j + 2][2]  # after the memo put (storage keys reuse the string): POP, push int 9
    rewrite(pc, os.path.join(out, "packed_conv_version.pt"),
            lambda p: p[:at] + b"0K\x09" + p[at:])
    rewrite(pc, os.path.join(out, "packed_conv_version_str.pt"),
            lambda p: p[:at] + b"0X\x01\x00\x00\x007" + p[at:])
    n11 = [o for o in pops[k:] if o[0] == "BININT1" and o[1] == 11][:2]  # storage and size
    assert len(n11) == 2
    rewrite(pc, os.path.join(out, "packed_conv_params.pt"),
            lambda p: p[:n11[1][2] + 1] + bytes([10]) + p[n11[1][2] + 2:])
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
        packed_conv_v3()
        bad()
    else:
        main()
