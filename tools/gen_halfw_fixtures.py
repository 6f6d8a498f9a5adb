#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the fixtures of weights held in half (issue #21, `--precision fp16|bf16`) into
tests/data/half:

  halfw.onnx        a seeded fp32 net (opset 17, batch N): Conv 16->32 3x3 (4608 weights) +
                    BatchNormalization + Relu, a depthwise Conv 32 3x3 (288: left fp32), Conv
                    32->64 1x1 (2048), Conv 64->8 1x1 (512: under ember's 1024-element floor),
                    GlobalAveragePool, then Linear 8->64 on a 3-D tensor (MatMul, 512 weights:
                    left), Linear 64->64 (MatMul, 4096), Flatten and Linear 256->10 (Gemm,
                    2560 weights)
  halfw.in0.npy     its input, f32 [2, 16, 12, 12]
  halfw.w16.onnx    the same file with every weight ember holds in half under --precision fp16
                    (the W / B input of a Conv (not depthwise) / Gemm / MatMul of at least 1024
                    elements) rounded to the nearest f16 value (ties to even), still stored
                    as f32; at EMBER_GRAPH_OPT_FOLD (no Conv+BN folding) ember's fp16 run of
                    halfw.onnx must equal ember's fp32 run of this file bit for bit
  halfw.wbf16.onnx  the same rounded to bf16 (round to nearest even on the f32 bits)
Run with torch 2.x and onnx:
    /work/main/bench/.env/torch2/bin/python tools/gen_halfw_fixtures.py
"""
import os

import numpy as np
import onnx
import torch
from onnx import numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "half")
MIN_ELEMS = 1024


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(16, 32, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(32)
        self.dw = torch.nn.Conv2d(32, 32, 3, padding=1, groups=32)
        self.pw = torch.nn.Conv2d(32, 64, 1)
        self.small = torch.nn.Conv2d(64, 8, 1)
        self.l0 = torch.nn.Linear(8, 64)
        self.l1 = torch.nn.Linear(64, 64)
        self.fc = torch.nn.Linear(256, 10)

    def forward(self, x):
        y = torch.relu(self.bn(self.c1(x)))
        y = torch.relu(self.pw(torch.relu(self.dw(y))))
        y = self.small(y).mean(dim=(2, 3))  # [N, 8]
        t = y.reshape(-1, 1, 8).expand(-1, 4, 8)  # [N, 4, 8]: 3-D, so MatMul
        t = torch.relu(self.l1(torch.relu(self.l0(t))))
        return self.fc(t.flatten(1))


def round_f16(a):
    return a.astype(np.float16).astype(np.float32)


def round_bf16(a):
    u = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    return u.astype(np.uint32).view(np.float32)


def held_in_half(model):
    """Names of the initializers ember holds in half: read only as a packed weight."""
    inits = {t.name: t for t in model.graph.initializer}
    readers = {}
    for n in model.graph.node:
        for i, name in enumerate(n.input):
            if name in inits:
                readers.setdefault(name, []).append((n, i))
    held = []
    for name, rs in readers.items():
        w = numpy_helper.to_array(inits[name])
        ok = w.size >= MIN_ELEMS and w.dtype == np.float32
        for n, i in rs:
            group = next((a.i for a in n.attribute if a.name == "group"), 1)
            packs = i == 1 and n.op_type in ("Gemm", "MatMul", "Conv")
            depthwise = n.op_type == "Conv" and group > 1 and w.ndim >= 3 and w.shape[1] == 1
            ok = ok and packs and not depthwise
        if ok:
            held.append(name)
    return held


def main():
    torch.manual_seed(21)
    net = Net().eval()
    with torch.no_grad():
        net.bn.running_mean.uniform_(-0.5, 0.5)
        net.bn.running_var.uniform_(0.5, 2.0)
    x = torch.randn(2, 16, 12, 12)
    path = os.path.join(OUT, "halfw.onnx")
    torch.onnx.export(net, (x,), path, opset_version=17, input_names=["x"],
                      output_names=["y"], dynamic_axes={"x": {0: "N"}, "y": {0: "N"}},
                      dynamo=False)
    np.save(os.path.join(OUT, "halfw.in0.npy"), x.numpy())
    model = onnx.load(path)
    held = held_in_half(model)
    print("held in half:", held)
    for suffix, rnd in (("w16", round_f16), ("wbf16", round_bf16)):
        m = onnx.load(path)
        for t in m.graph.initializer:
            if t.name in held:
                t.CopyFrom(numpy_helper.from_array(rnd(numpy_helper.to_array(t)), t.name))
        onnx.save(m, os.path.join(OUT, "halfw.%s.onnx" % suffix))


if __name__ == "__main__":
    main()
