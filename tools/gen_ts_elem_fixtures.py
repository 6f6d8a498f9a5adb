#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the TorchScript fixtures of elementwise math, comparisons, type promotion and
reductions: tests/data/torchscript/elem/ (tests/api/test_api_ts_elem.c runs them).

Each module below exercises many ops at once, on float, int64 and bool tensors, f16/f64 buffers,
0-d tensors, Python numbers and in-place variants, and returns a tuple of results (their dtypes
are part of what the test checks). For each, traced and scripted, with the PyTorch running this
script, it writes <name>.<kind>.<tag>.pt (<tag> "t113" for PyTorch 1.13, "t2" for 2.x), the
input <name>.in.npy (the traced shape) and <name>.in2.npy (another shape of the same rank), and
eager's outputs, flattened in the order the loader flattens them: <name>.out.<i>.npy and
<name>.out2.<i>.npy. Inputs and outputs come from eager PyTorch 1.13; the 2.x run checks its
eager outputs agree (dtype, shape, values) and writes only archives:
  /usr/bin/python3 tools/gen_ts_elem_fixtures.py            # Debian's 1.13
  /work/venv-torch/bin/python tools/gen_ts_elem_fixtures.py # PyPI's 2.x
`--show` prints each archive's serialized code instead of writing files.
"""
import glob
import os
import sys
import warnings

import numpy as np
import torch
import torch.nn.functional as F

warnings.filterwarnings("ignore")
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "torchscript", "elem")
TAG = "t113" if torch.__version__.startswith("1.") else "t2"


class Arith(torch.nn.Module):
    """Arithmetic and unary math on float tensors, Tensor and Scalar overloads, in place too."""

    def __init__(self):
        super().__init__()
        self.register_buffer("w", torch.tensor([-1.5, -0.25, 0.75, 2.0]))

    def forward(self, x):
        w = self.w
        p = x.abs() + 0.1
        r = (torch.add(x, w, alpha=2), torch.sub(x, 0.5, alpha=3), torch.rsub(x, w),
             torch.rsub(x, 2.0, alpha=0.5), x * w, x * 3, x / (w.abs() + 1), x / 4,
             torch.div(x * 5, w + 3, rounding_mode="trunc"),
             torch.div(x * 5, 0.7, rounding_mode="floor"), torch.floor_divide(x * 5, w + 3),
             torch.remainder(x * 3, 0.7), torch.remainder(x * 3, w - 0.1), torch.fmod(x * 3, 0.7),
             torch.fmod(x * 3, w - 0.1), torch.pow(x, 2), torch.pow(2.0, x), torch.pow(p, w),
             x ** 3, -x, torch.abs(x), torch.sqrt(p), torch.rsqrt(p), torch.exp(x), torch.log(p),
             torch.log1p(p), torch.log2(p), torch.erf(x), torch.sin(x), torch.cos(x),
             torch.tanh(x), torch.sigmoid(x), torch.reciprocal(p), torch.sign(x),
             torch.floor(x * 3), torch.ceil(x * 3), torch.round(x * 3), torch.trunc(x * 3),
             torch.maximum(x, w), torch.minimum(x, w), torch.clamp(x, -0.5, 0.5),
             torch.clamp(x, min=w), torch.clamp(x, max=w), torch.clamp(x, min=-p, max=p),
             torch.clamp_min(x, 0.1), torch.clamp_max(x, 0.2), torch.clamp(x, min=0.3),
             torch.clip(x, -0.2, 0.4), 2 - x, 2.0 / p, 3 * x, 1.5 + x, 1 < x, 0.5 >= x,
             torch.round(x * 3, decimals=1), torch.remainder(2.5, p), torch.square(x))
        y = x.clone()
        y.add_(1)
        y.mul_(w)
        y.sub_(x, alpha=0.5)
        y.div_(2)
        y.clamp_(-1, 1)
        z = x.clone()
        z.abs_()
        z.sqrt_()
        z.neg_()
        z.exp_()
        z.pow_(2)
        z.add_(w)
        z.sigmoid_()
        return r + (y, z)


class Promote(torch.nn.Module):
    """torch.result_type: dimensioned tensors over 0-d ones over Python numbers, by category."""

    def __init__(self):
        super().__init__()
        self.register_buffer("h", torch.tensor([0.5, -1.25, 2.0, 3.5], dtype=torch.float16))
        self.register_buffer("d", torch.tensor([0.1, -0.2, 0.3, 1e-3], dtype=torch.float64))
        self.register_buffer("i", torch.tensor([3, -2, 7, 0]))
        self.register_buffer("b", torch.tensor([True, False, True, False]))
        self.register_buffer("sh", torch.tensor(1.5, dtype=torch.float16))
        self.register_buffer("si", torch.tensor(3))
        self.register_buffer("sd", torch.tensor(0.25, dtype=torch.float64))

    def forward(self, x):
        h, d, i, b = self.h, self.d, self.i, self.b
        sh, si, sd = self.sh, self.si, self.sd
        n = x.size(0)
        return (x + h, h * 2.5, h + sd, x + sh, x * si, x + d, i + 1.5, i * 2, i + sd, i / 2,
                i + b, b + b, b * b, b + 1, b + 0.5, si + 1.5, sh + si, i + x, sd * si,
                torch.where(b, x, i), torch.where(b, i, 0.5), torch.where(b, h, d),
                torch.where(x > 0, x, 0.0), x * n, x / x.size(1), x.sum() / x.numel(),
                x + float(n) * 0.5, h > x, i == 2.0, h.masked_fill(b, 1.5), torch.clamp(i, min=1.5),
                torch.clamp(i, 0, 2), torch.sum(b), torch.sum(h), torch.mean(h),
                torch.sum(x, dtype=torch.float64), torch.cumsum(b, 0), torch.prod(i),
                x.clone().add_(h), h.clone().add_(x[0, 0]), d.clone().mul_(sh),
                torch.maximum(i, h), torch.minimum(b, i), torch.pow(i, 2), torch.pow(h, 2),
                torch.pow(i, 0.5), torch.pow(2, i.abs()), torch.pow(sd, i), torch.remainder(i, sh),
                torch.sigmoid(i), torch.exp(b), torch.sqrt(si), torch.abs(h), torch.neg(i),
                x * (n // 2), x + x.size(1) % 3, x * (x.size(1) / 4), x - (x.size(1) - n) * 2,
                i * x.size(1), h * x.size(1), b * x.size(1))


class IntBase(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("k", torch.tensor([2, -3, 4, 1, -1]))


class IntOps(IntBase):
    """Integer input: arithmetic, division modes, comparisons, bitwise and logical ops."""

    def forward(self, x):
        pos = x > 0
        q = torch.clamp(x.abs(), min=1)
        return (x + 3, torch.sub(x, x, alpha=2), x * x, x / 2, x / q,
                torch.div(x, 3, rounding_mode="trunc"), torch.div(x, 3, rounding_mode="floor"),
                torch.div(x, -q, rounding_mode="floor"), torch.floor_divide(x, 3),
                torch.remainder(x, 3), torch.remainder(x, -3), torch.fmod(x, 3), torch.fmod(x, -q),
                torch.remainder(x, q), x % 4, torch.pow(x, 2), -x, torch.abs(x), torch.sign(x),
                x.clamp(-2, 3), torch.maximum(x, self.k), torch.minimum(x, self.k), x > 0,
                x == 2, x != self.k, x <= self.k, x >= -1, x < 2.5, pos & (x < 5), pos | (x < -4),
                pos ^ (x < 3), ~pos, torch.logical_and(x, x > 1), torch.logical_or(x, pos),
                torch.logical_not(x), torch.logical_xor(x, pos), torch.bitwise_and(x, self.k),
                torch.bitwise_or(x, 3), torch.bitwise_not(x), torch.bitwise_not(pos))


class IntReduce(IntBase):
    """Integer input: reductions, where, masked_fill and in-place ops keep int64 and bool."""

    def forward(self, x):
        pos = x > 0
        return (torch.sum(x), torch.sum(x, 1), torch.sum(pos), torch.sum(pos, 0, keepdim=True),
                torch.prod(x, 1), torch.cumsum(x, 1), torch.cumsum(pos, 0), torch.max(x),
                torch.max(x, 1), torch.min(x, 0, keepdim=True), torch.argmax(x),
                torch.argmin(x, 1, keepdim=True), torch.amax(x, 1), torch.amin(x, [0, 1]),
                torch.all(x), torch.any(x > 3, 1), torch.all(pos, 0, keepdim=True),
                torch.where(pos, x, -x), torch.masked_fill(x, x < 0, 0), x.masked_fill(pos, 1.7),
                x.clone().add_(2), x.clone().mul_(self.k), x.clone().floor_divide_(2),
                x.clone().remainder_(3), x.clone().masked_fill_(pos, -9),
                x.clone().clamp_(min=0), x.clone().bitwise_and_(6), pos.clone().logical_not_())


class Logic(torch.nn.Module):
    """Comparisons (Tensor and Scalar), logical ops, where, masked_fill, all/any on float input."""

    def __init__(self):
        super().__init__()
        self.register_buffer("w", torch.tensor([-0.5, 0.0, 0.5, 1.0]))
        self.register_buffer("v", torch.tensor(-7.5))

    def forward(self, x):
        w = self.w
        r = (x * 2).round() / 2
        a = x > 0
        c = x < w
        y = x.clone()
        y.masked_fill_(a, 0.25)
        t = x.clone()
        t.clamp_min_(0.0)
        t.clamp_max_(0.5)
        return (torch.eq(r, w), torch.ne(r, w), torch.lt(x, w), torch.le(r, w), torch.gt(x, w),
                torch.ge(r, w), torch.eq(r, 0.5), r != 0, x < 0.1, r <= 0.5, x > -0.2, r >= 0,
                torch.logical_and(a, c), torch.logical_or(a, c), torch.logical_xor(a, c),
                torch.logical_not(a), torch.logical_and(x, w), torch.bitwise_and(a, c),
                torch.bitwise_or(a, c), torch.bitwise_xor(a, c), torch.bitwise_not(a), a & c,
                a | c, a ^ c, ~c, torch.where(a, x, w), x.where(c, w * 10), torch.where(a, x, 2.0),
                torch.where(c, -1.0, x), torch.where(a, 1.0, 0.0), torch.where(a, 1, 0),
                x.masked_fill(a, -1.0),
                x.masked_fill(c, self.v), torch.all(a), torch.any(c), torch.all(x > -3, 1),
                torch.any(a, -1, keepdim=True), y, t)


class Acts(torch.nn.Module):
    """Activations and softmax families (functional forms, modules with weights, in place)."""

    def __init__(self):
        super().__init__()
        self.prelu = torch.nn.PReLU(4)
        self.prelu1 = torch.nn.PReLU()
        with torch.no_grad():
            self.prelu.weight.copy_(torch.tensor([0.1, -0.2, 0.3, 0.5]))

    def forward(self, x):
        r = (F.relu(x), F.relu6(x * 4), F.leaky_relu(x), F.leaky_relu(x, 0.2), F.elu(x),
             F.elu(x, 0.5), F.selu(x), F.celu(x, 1.5), F.gelu(x), F.gelu(x, approximate="tanh"),
             F.silu(x), F.mish(x), F.softplus(x), F.softplus(x, 2.0, 1.0), F.hardswish(x * 4),
             F.hardsigmoid(x * 4), F.hardtanh(x), F.hardtanh(x, -0.5, 0.25), F.logsigmoid(x),
             self.prelu(x), self.prelu1(x), F.glu(x, 1), F.glu(x), torch.softmax(x, 1),
             F.softmax(x, -1), torch.log_softmax(x, 1), F.log_softmax(x, -1, dtype=torch.float64),
             torch.softmax(x, 2, dtype=torch.float64), F.threshold(x, 0.1, 20.0),
             torch.sigmoid(x), torch.tanh(x))
        ins = (F.relu(x.clone(), inplace=True), F.relu6(x.clone() * 4, inplace=True),
               F.leaky_relu(x.clone(), 0.3, inplace=True), F.elu(x.clone(), inplace=True),
               F.selu(x.clone(), inplace=True), F.celu(x.clone(), inplace=True),
               F.silu(x.clone(), inplace=True), F.hardswish(x.clone() * 4, inplace=True),
               F.hardsigmoid(x.clone() * 4, inplace=True), F.hardtanh(x.clone(), inplace=True),
               F.threshold(x.clone(), 0.2, -1.0, inplace=True))
        return r + ins


class Reduce(torch.nn.Module):
    """Reductions: full and over dims, keepdim, dtype, values and indices, norms, std/var."""

    def forward(self, x):
        inf = float("inf")
        mx = torch.max(x, 1)
        mn = torch.min(x, -1, keepdim=True)
        return (torch.sum(x), torch.sum(x, [0, 2]), torch.sum(x, 1, keepdim=True),
                torch.sum(x, dtype=torch.float64), x.sum(-1, dtype=torch.float64), torch.mean(x),
                torch.mean(x, [1, 2], keepdim=True), torch.mean(x, -1, dtype=torch.float64),
                torch.amax(x, [0, 2]), torch.amin(x, 1, keepdim=True), torch.max(x),
                torch.min(x), mx.values, mx.indices, mn[0], mn[1], torch.max(x, x * 0.5),
                torch.min(x, -x), torch.argmax(x), torch.argmax(x, 1),
                torch.argmin(x, -1, keepdim=True), torch.argmax(x, keepdim=True), torch.prod(x),
                torch.prod(x, 1), torch.prod(x, 2, keepdim=True), torch.std(x), torch.std(x, 1),
                torch.std(x, [0, 2], unbiased=False, keepdim=True), torch.var(x),
                torch.var(x, 1, keepdim=True), torch.var(x, [1, 2], unbiased=False),
                torch.var(x, 1, correction=0), torch.std(x, [0, 1], correction=2, keepdim=True),
                torch.norm(x), torch.norm(x, p=1, dim=1), torch.norm(x, p=inf, dim=-1),
                x.norm(2, 1, True), torch.linalg.vector_norm(x, 2, [1, 2]),
                torch.linalg.vector_norm(x, inf), torch.linalg.vector_norm(x, 1, -1, True),
                torch.all(x > -1), torch.any(x > 1, 1), torch.all(x > 0, 2, keepdim=True),
                torch.logsumexp(x, 1), torch.logsumexp(x, [0, 2], keepdim=True),
                torch.cumsum(x, 1), torch.cumsum(x, -1, dtype=torch.float64), torch.sum(x > 0),
                torch.sum(x > 0, 1))


def int_input(shape, gen):
    """Distinct ints around 0 (no ties for max/argmax to break)."""
    n = int(np.prod(shape))
    return (torch.randperm(n, generator=gen) - n // 2).reshape(*shape)


def models():
    # name: (module class, input maker (shape, generator) -> tensor, traced shape, other shape)
    fl = lambda shape, gen: torch.randn(*shape, generator=gen)
    return {
        "arith": (Arith, fl, (2, 3, 4), (3, 1, 4)),
        "promote": (Promote, fl, (3, 2, 4), (3, 5, 4)),
        "intops": (IntOps, int_input, (2, 5), (4, 5)),
        "intreduce": (IntReduce, int_input, (2, 5), (3, 5)),
        "logic": (Logic, fl, (2, 3, 4), (1, 5, 4)),
        "acts": (Acts, fl, (2, 4, 3, 2), (1, 4, 2, 6)),
        "reduce": (Reduce, fl, (2, 3, 4), (3, 5, 2)),
    }


def flat(y):
    if isinstance(y, (tuple, list)):
        return [t for item in y for t in flat(item)]
    return [y]


def main():
    show = "--show" in sys.argv
    os.makedirs(OUT, exist_ok=True)
    for name, (ctor, make, shape, shape2) in models().items():
        torch.manual_seed(0)
        m = ctor().eval()
        gen = torch.Generator().manual_seed(1)
        inputs = [make(shape, gen), make(shape2, gen)]
        for i, sfx in enumerate(("", "2")):
            in_path = os.path.join(OUT, "%s.in%s.npy" % (name, sfx))
            if TAG == "t2" and not show:
                inputs[i] = torch.from_numpy(np.load(in_path))
            with torch.no_grad():
                ys = [t.detach() for t in flat(m(inputs[i]))]
            if show:
                continue
            if TAG == "t113":
                np.save(in_path, inputs[i].numpy())
                for old in glob.glob(os.path.join(OUT, "%s.out%s.*.npy" % (name, sfx))):
                    os.remove(old)
                for k, y in enumerate(ys):
                    np.save(os.path.join(OUT, "%s.out%s.%d.npy" % (name, sfx, k)), y.numpy())
                continue
            for k, y in enumerate(ys):
                ref = np.load(os.path.join(OUT, "%s.out%s.%d.npy" % (name, sfx, k)))
                got = y.numpy()
                if got.dtype != ref.dtype or got.shape != ref.shape or not np.allclose(
                        got, ref, rtol=1e-4, atol=1e-5, equal_nan=True):
                    sys.exit("gen_ts_elem_fixtures: %s output %d: eager %s disagrees with "
                             "1.13's" % (name, k, torch.__version__))
        for kind in ("trace", "script"):
            with torch.no_grad():
                ts = (torch.jit.trace(m, inputs[0], check_trace=False) if kind == "trace"
                      else torch.jit.script(m))
            if show:
                print("==== %s %s %s" % (name, kind, TAG))
                print(ts.code)
                for sub_name, sub in ts.named_children():
                    print("---- %s" % sub_name)
                    print(sub.code)
                continue
            path = os.path.join(OUT, "%s.%s.%s.pt" % (name, kind, TAG))
            torch.jit.save(ts, path)
            print("gen_ts_elem_fixtures: %s (%d bytes)" % (path, os.path.getsize(path)))


if __name__ == "__main__":
    main()
