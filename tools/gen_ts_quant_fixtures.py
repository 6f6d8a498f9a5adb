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
A comma-separated list of names as the argument remakes only those.

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


if __name__ == "__main__":
    main()
