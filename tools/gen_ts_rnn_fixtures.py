#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the TorchScript fixtures of recurrent layers and attention: tests/data/torchscript/rnn/.

Tiny modules (LSTM/GRU/RNN of one and two layers, bidirectional, batch_first, without biases,
with explicit and default initial states; the four cells; scaled_dot_product_attention with and
without masks; MultiheadAttention and TransformerEncoderLayer, including their fast paths),
traced and scripted by the PyTorch running this script:
  /usr/bin/python3 tools/gen_ts_rnn_fixtures.py            # Debian's 1.13 -> <name>.<kind>.t113.pt
  /work/venv-torch/bin/python tools/gen_ts_rnn_fixtures.py # PyPI's 2.x   -> <name>.<kind>.t2.pt
For case "a" (the traced shapes) and "b" (another sequence length and batch) it writes the
inputs <name>.<case>.in<i>.npy and eager PyTorch's outputs <name>.<case>.out<i>.npy (every
output: y, h_n, c_n...). The 1.13 run writes inputs and outputs; the 2.x run checks that its
eager outputs agree (rtol 1e-4, atol 1e-5) and writes them only for modules 1.13 cannot build.
Module weights are seeded, so both runs build the same modules. The archives' *.debug_pkl
records (source ranges for PyTorch's own error messages; ember does not read them) are dropped
and the code deflated, which keeps all fixtures under 500 KB.
`--probe` prints the operators each traced and scripted module calls, and writes nothing.
"""
import os
import struct
import sys
import warnings
import zipfile
from typing import Optional

import numpy as np
import torch
import torch.nn.functional as F

warnings.filterwarnings("ignore")
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "torchscript", "rnn")
T2 = not torch.__version__.startswith("1.")
TAG = "t2" if T2 else "t113"
I, H = 3, 4  # input and hidden sizes of the recurrent modules


class LSTMState(torch.nn.Module):
    """An LSTM with its initial state given as inputs; returns (output, h_n, c_n)."""

    def __init__(self, **kw):
        super().__init__()
        self.rnn = torch.nn.LSTM(I, H, **kw)

    def forward(self, x, h0, c0):
        y, (h, c) = self.rnn(x, (h0, c0))
        return y, h, c


class LSTMDefault(torch.nn.Module):
    """An LSTM whose initial state is left to it (zeros)."""

    def __init__(self, **kw):
        super().__init__()
        self.rnn = torch.nn.LSTM(I, H, **kw)

    def forward(self, x):
        y, (h, c) = self.rnn(x)
        return y, h, c


class RecState(torch.nn.Module):
    """A GRU or RNN with its initial state given as an input; returns (output, h_n)."""

    def __init__(self, cls, **kw):
        super().__init__()
        self.rnn = cls(I, H, **kw)

    def forward(self, x, h0):
        y, h = self.rnn(x, h0)
        return y, h


class RecDefault(torch.nn.Module):
    def __init__(self, cls, **kw):
        super().__init__()
        self.rnn = cls(I, H, **kw)

    def forward(self, x):
        y, h = self.rnn(x)
        return y, h


def rec(cls, default=False, **kw):
    if cls is torch.nn.LSTM:
        return LSTMDefault(**kw) if default else LSTMState(**kw)
    return RecDefault(cls, **kw) if default else RecState(cls, **kw)


class Cells(torch.nn.Module):
    """LSTMCell, GRUCell, RNNCell (tanh) and RNNCell (relu) on one step."""

    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTMCell(I, H)
        self.gru = torch.nn.GRUCell(I, H)
        self.rnn = torch.nn.RNNCell(I, H)
        self.rnn_relu = torch.nn.RNNCell(I, H, nonlinearity="relu", bias=False)

    def forward(self, x, h, c):
        h1, c1 = self.lstm(x, (h, c))
        return h1, c1, self.gru(x, h), self.rnn(x, h), self.rnn_relu(x, h)


class CellsDefault(torch.nn.Module):
    """The cells with their state left to them (zeros)."""

    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTMCell(I, H)
        self.gru = torch.nn.GRUCell(I, H)
        self.rnn = torch.nn.RNNCell(I, H)

    def forward(self, x):
        h1, c1 = self.lstm(x)
        return h1, c1, self.gru(x), self.rnn(x)


if T2:
    def sdpa(q, k, v, mask: Optional[torch.Tensor] = None, causal: bool = False):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal)
else:  # 1.13's private form (its MultiheadAttention does not call it)
    def sdpa(q, k, v, mask: Optional[torch.Tensor] = None, causal: bool = False):
        return F._scaled_dot_product_attention(q, k, v, mask, 0.0, False, causal)[0]


class SDPA(torch.nn.Module):
    """scaled_dot_product_attention on 4-D q, k, v: plain, causal, with a bool and with a float
    mask; and on 3-D ones (no head dim)."""

    def forward(self, q, k, v, mbool, mfloat, q3, k3, v3):
        return (sdpa(q, k, v), sdpa(q, k, v, causal=True), sdpa(q, k, v, mbool),
                sdpa(q, k, v, mfloat), sdpa(q3, k3, v3))


class SDPAScale(torch.nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, scale=0.3)


class MHA(torch.nn.Module):
    """MultiheadAttention: cross attention with its weights averaged over heads; with a float
    attn_mask and no weights; batch_first self attention, alone and with a key_padding_mask
    (batch_first in eval mode is the fast path, _native_multi_head_attention). One module, so
    the archive holds F.multi_head_attention_forward's code once."""

    def __init__(self):
        super().__init__()
        self.cross = torch.nn.MultiheadAttention(8, 2)
        self.masked = torch.nn.MultiheadAttention(8, 2)
        self.bf = torch.nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, q, kv, mask, x, kpm):
        y, w = self.cross(q, kv, kv)
        ym = self.masked(q, kv, kv, attn_mask=mask, need_weights=False)[0]
        yb = self.bf(x, x, x, need_weights=False)[0]
        yk = self.bf(x, x, x, key_padding_mask=kpm, need_weights=False)[0]
        return y, w, ym, yb, yk


class Encoder(torch.nn.Module):
    """Two TransformerEncoderLayers, batch_first (the fast path _transformer_encoder_layer_fwd
    in eval mode; a TransformerEncoder of them calls the same op per layer): post-norm relu,
    and pre-norm gelu."""

    def __init__(self):
        super().__init__()
        kw = dict(dim_feedforward=16, dropout=0.0, batch_first=True)
        self.post = torch.nn.TransformerEncoderLayer(8, 2, **kw)
        self.pre = torch.nn.TransformerEncoderLayer(8, 2, activation="gelu", norm_first=True,
                                                    **kw)

    def forward(self, x):
        return self.post(x), self.pre(x)


class LSTMProj(torch.nn.Module):
    """proj_size, which ember refuses (an error test)."""

    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.LSTM(I, H, proj_size=2)

    def forward(self, x, h0, c0):
        return self.rnn(x, (h0, c0))[0]


class LSTMPacked(torch.nn.Module):
    """aten::lstm's packed-sequence overload (data, batch_sizes, ...), which ember refuses."""

    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.LSTM(I, H)

    def forward(self, x, batch_sizes, h0, c0):
        r = self.rnn
        w = [r.weight_ih_l0, r.weight_hh_l0, r.bias_ih_l0, r.bias_hh_l0]
        return torch.lstm(x, batch_sizes, [h0, c0], w, True, 1, 0.0, False, False)[0]


# Error fixtures, written by the 1.13 run only: name -> (constructor, kind, example inputs).
ERRORS = {
    "lstm_proj": (LSTMProj, "trace", lambda: (torch.randn(3, 2, I), torch.randn(1, 2, 2),
                                              torch.randn(1, 2, H))),
    "lstm_packed": (LSTMPacked, "script", None),
}


def rnd(gen, *shape):
    return torch.randn(*shape, generator=gen)


def seq_inputs(n_state, batch_first=False, dirs_layers=1):
    """Input makers for (seq, batch) of cases a and b: x, then n_state states."""
    def make(gen, s, b):
        x = rnd(gen, b, s, I) if batch_first else rnd(gen, s, b, I)
        return [x] + [rnd(gen, dirs_layers, b, H) for _ in range(n_state)]
    return make


def fixed(*shapes_a, shapes_b):
    def make(gen, case):
        return [rnd(gen, *s) for s in (shapes_a if case == "a" else shapes_b)]
    return make


def causal_mask(lq, lk, boolean):
    m = torch.ones(lq, lk).tril().bool()
    return m if boolean else torch.zeros(lq, lk).masked_fill(~m, float("-inf"))


def models():
    """name -> (constructor, inputs(gen, case) -> list of tensors, needs torch 2)."""
    def rnn_case(n_state, bf=False, dl=1):
        mk = seq_inputs(n_state, bf, dl)
        return lambda gen, case: mk(gen, 3, 2) if case == "a" else mk(gen, 5, 3)

    L, B = torch.nn.LSTM, torch.nn.GRU
    R = torch.nn.RNN
    mods = {
        "lstm1": (lambda: rec(L, bias=False), rnn_case(2), False),
        "lstm_bi2": (lambda: rec(L, num_layers=2, bidirectional=True), rnn_case(2, dl=4), False),
        "lstm_bf_bi": (lambda: rec(L, batch_first=True, bidirectional=True),
                       rnn_case(2, bf=True, dl=2), False),
        "gru_bi2": (lambda: rec(B, num_layers=2, bidirectional=True), rnn_case(1, dl=4), False),
        "gru_bf": (lambda: rec(B, batch_first=True), rnn_case(1, bf=True), False),
        "rnn_tanh2": (lambda: rec(R, num_layers=2), rnn_case(1, dl=2), False),
        "rnn_relu_bf_bi": (lambda: rec(R, nonlinearity="relu", batch_first=True,
                                       bidirectional=True), rnn_case(1, bf=True, dl=2), False),
        "lstm_default": (lambda: rec(L, True, num_layers=2, bidirectional=True), rnn_case(0),
                         False),
        "gru_default": (lambda: rec(B, True, batch_first=True), rnn_case(0, bf=True), False),
        "cells": (Cells, lambda gen, case: [rnd(gen, 2 if case == "a" else 3, I)] +
                  [rnd(gen, 2 if case == "a" else 3, H) for _ in range(2)], False),
        "cells_default": (CellsDefault, lambda gen, case: [rnd(gen, 2 if case == "a" else 3, I)],
                          False),
        # q [B, heads, L, E], k/v [B, heads, S, E], masks [L, S] and [heads, L, S]; then 3-D
        # q [B, L, E], k [B, S, E], v [B, S, Ev]. Case b changes B, L and S.
        "sdpa": (SDPA, lambda gen, case: fixed(
            (2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4),
            shapes_b=[(1, 2, 4, 4), (1, 2, 2, 4), (1, 2, 2, 4)])(gen, case) +
            [causal_mask(3, 5, True) if case == "a" else causal_mask(4, 2, True),
             rnd(gen, 2, 3, 5) if case == "a" else rnd(gen, 2, 4, 2)] +
            fixed((2, 3, 4), (2, 5, 4), (2, 5, 6),
                  shapes_b=[(3, 6, 4), (3, 2, 4), (3, 2, 6)])(gen, case), False),
        "sdpa_scale": (SDPAScale, fixed((2, 3, 4), (2, 5, 4), (2, 5, 4),
                                        shapes_b=[(1, 2, 4), (1, 3, 4), (1, 3, 4)]), True),
        # [L, B, E] query, [S, B, E] key/value, mask [L, S]; x [B, T, E], kpm [B, T] (True:
        # padding, at least one key left per row).
        "mha": (MHA, lambda gen, case: fixed(
            (3, 2, 8), (5, 2, 8), shapes_b=[(4, 3, 8), (2, 3, 8)])(gen, case) +
            [causal_mask(3, 5, False) if case == "a" else rnd(gen, 4, 2)] +
            fixed((2, 3, 8), shapes_b=[(1, 5, 8)])(gen, case) +
            [torch.tensor([[False, False, True], [False, True, True]]) if case == "a"
             else torch.tensor([[False, True, False, True, True]])], False),
        "encoder": (Encoder, fixed((2, 3, 8), shapes_b=[(3, 4, 8)]), False),
    }
    return mods


def ops_of(graph, out):
    for node in graph.nodes():
        out.add(node.kind())
        for b in node.blocks():
            ops_of(b, out)


def strip(path):
    """Rewrites archive `path` without its debug_pkl records, the code deflated. Tensor records
    stay stored and start at a multiple of 64 bytes, padded by an "FB" extra field as torch's
    writer does (readers map them in place)."""
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


def npy(path, t):
    np.save(path, t.numpy())


def main():
    probe = "--probe" in sys.argv
    only = [a for a in sys.argv[1:] if not a.startswith("--")]
    os.makedirs(OUT, exist_ok=True)
    for name, (ctor, make, needs_t2) in models().items():
        if (only and name not in only) or (needs_t2 and not T2):
            continue
        torch.manual_seed(0)
        m = ctor().eval()
        gen = torch.Generator().manual_seed(1)
        cases = {c: make(gen, c) for c in ("a", "b")}
        for case, xs in cases.items():
            with torch.no_grad():
                ys = m(*xs)
            ys = list(ys) if isinstance(ys, tuple) else [ys]
            ref_path = os.path.join(OUT, "%s.%s.out0.npy" % (name, case))
            if probe:
                continue
            if T2 and not needs_t2 and os.path.exists(ref_path):
                xs113 = [torch.from_numpy(np.load(os.path.join(OUT, "%s.%s.in%d.npy" %
                                                               (name, case, i))))
                         for i in range(len(xs))]
                with torch.no_grad():
                    ys2 = m(*xs113)
                ys2 = list(ys2) if isinstance(ys2, tuple) else [ys2]
                for i, y in enumerate(ys2):
                    ref = np.load(os.path.join(OUT, "%s.%s.out%d.npy" % (name, case, i)))
                    if not np.allclose(y.numpy(), ref, rtol=1e-4, atol=1e-5):
                        sys.exit("gen_ts_rnn_fixtures: %s: eager %s output %d disagrees with "
                                 "1.13's" % (name, torch.__version__, i))
                continue
            for i, x in enumerate(xs):
                npy(os.path.join(OUT, "%s.%s.in%d.npy" % (name, case, i)), x)
            for i, y in enumerate(ys):
                npy(os.path.join(OUT, "%s.%s.out%d.npy" % (name, case, i)), y)
        for kind in ("trace", "script"):
            with torch.no_grad():
                ts = (torch.jit.trace(m, tuple(cases["a"]), check_trace=False)
                      if kind == "trace" else torch.jit.script(m))
            if probe:
                kinds = set()
                ops_of(ts.inlined_graph, kinds)
                ops = sorted(k for k in kinds if not k.startswith("prim::") or k in
                             ("prim::dtype", "prim::device"))
                print("%s %s %s: %s" % (TAG, name, kind, " ".join(ops)))
                continue
            path = os.path.join(OUT, "%s.%s.%s.pt" % (name, kind, TAG))
            tmp = os.path.join(OUT, "m.pt")  # the archive's root folder is "m/"
            torch.jit.save(ts, tmp)
            strip(tmp)
            os.replace(tmp, path)
            print("gen_ts_rnn_fixtures: %s (%d bytes)" % (path, os.path.getsize(path)))


def errors():
    for name, (ctor, kind, example) in ERRORS.items():
        torch.manual_seed(0)
        m = ctor().eval()
        with torch.no_grad():
            ts = torch.jit.trace(m, example(), check_trace=False) if kind == "trace" \
                else torch.jit.script(m)
        path = os.path.join(OUT, "%s.%s.%s.pt" % (name, kind, TAG))
        tmp = os.path.join(OUT, "m.pt")
        torch.jit.save(ts, tmp)
        strip(tmp)
        os.replace(tmp, path)
        print("gen_ts_rnn_fixtures: %s (%d bytes)" % (path, os.path.getsize(path)))


if __name__ == "__main__":
    main()
    if not T2 and "--probe" not in sys.argv:
        errors()
