#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Rebuilds ember's built-in default model in PyTorch and writes a reference input/output pair.

The weights follow runtime/api/builtin_model.c exactly: tensor k (in creation order) is drawn from
splitmix64 seeded with 1000 + k, u = (z >> 40) * 2**-24, value = float32(lo + (hi - lo) * u).
Run with Debian's PyTorch:  /usr/bin/python3 tools/gen_default_model_ref.py
Writes tests/data/default_model/{input,expected}.npy (batch 3).
"""
import math
import os

import numpy as np
import torch
import torch.nn.functional as F

MASK = (1 << 64) - 1


def splitmix_uniform(seed, n, lo, hi):
    s = seed
    out = np.empty(n, dtype=np.float64)
    for i in range(n):
        s = (s + 0x9E3779B97F4A7C15) & MASK
        z = s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        z = z ^ (z >> 31)
        out[i] = (z >> 40) * (1.0 / 16777216.0)
    return (lo + (hi - lo) * out).astype(np.float32)


class Weights:
    def __init__(self):
        self.k = 0

    def take(self, shape, lo, hi):
        n = int(np.prod(shape))
        w = splitmix_uniform(1000 + self.k, n, lo, hi).reshape(shape)
        self.k += 1
        return torch.from_numpy(w)


def build(ws):
    p = {}

    def conv(name, cin, cout):
        b = 1.0 / math.sqrt(cin * 9)
        p[name + ".w"] = ws.take((cout, cin, 3, 3), -b, b)
        p[name + ".b"] = ws.take((cout,), -b, b)

    def fc(name, fin, fout):
        b = 1.0 / math.sqrt(fin)
        p[name + ".w"] = ws.take((fout, fin), -b, b)
        p[name + ".b"] = ws.take((fout,), -b, b)

    conv("conv1", 1, 8)
    for suffix, lo, hi in (("weight", 0.9, 1.1), ("bias", -0.1, 0.1),
                           ("mean", -0.1, 0.1), ("var", 0.5, 1.5)):
        p["bn1." + suffix] = ws.take((8,), lo, hi)
    conv("conv2", 8, 8)
    conv("conv3", 8, 16)
    fc("fc1", 16 * 7 * 7, 64)
    fc("fc2", 64, 10)
    return p


def forward(p, x):
    t = F.conv2d(x, p["conv1.w"], p["conv1.b"], padding=1)
    t = F.batch_norm(t, p["bn1.mean"], p["bn1.var"], p["bn1.weight"], p["bn1.bias"],
                     training=False, eps=1e-5)
    pool1 = F.max_pool2d(F.relu(t), 2, 2)
    t = F.relu(F.conv2d(pool1, p["conv2.w"], p["conv2.b"], padding=1)) + pool1
    t = F.relu(F.conv2d(t, p["conv3.w"], p["conv3.b"], padding=1, stride=2))
    t = F.relu(F.linear(torch.flatten(t, 1), p["fc1.w"], p["fc1.b"]))
    return F.softmax(F.linear(t, p["fc2.w"], p["fc2.b"]), dim=1)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out_dir = os.path.join(here, "..", "tests", "data", "default_model")
    os.makedirs(out_dir, exist_ok=True)
    p = build(Weights())
    rng = np.random.default_rng(20261122)
    x = rng.standard_normal((3, 1, 28, 28)).astype(np.float32)
    with torch.no_grad():
        y = forward(p, torch.from_numpy(x).double().float()).numpy()
        # A float64 evaluation tells how far float32 rounding alone moves the result.
        y64 = forward({k: v.double() for k, v in p.items()}, torch.from_numpy(x).double())
    np.save(os.path.join(out_dir, "input.npy"), x)
    np.save(os.path.join(out_dir, "expected.npy"), y.astype(np.float32))
    print("max |f32 - f64| =", float((torch.from_numpy(y).double() - y64).abs().max()))
    print("argmax per sample:", y.argmax(axis=1).tolist(), "sum:", y.sum(axis=1).tolist())


if __name__ == "__main__":
    main()
