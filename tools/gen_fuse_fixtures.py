#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the pattern-fusion fixtures into tests/data/fuse: small modules exported by
torch.onnx at opset 13, in the decomposed forms an exporter without LayerNormalization, Gelu,
HardSwish, Mish, Swish or Attention writes (tests/runtime/test_passes_fuse.c loads each,
checks the ops the passes leave and compares ember's output with torch's).

Run with Debian's /usr/bin/python3 (torch 1.13, whose exporter writes these forms):
    /usr/bin/python3 tools/gen_fuse_fixtures.py
Deterministic: each case seeds torch from its name, so rerunning (or adding a case) rewrites
the same tensors (the .onnx bytes may differ between torch versions).

tests/data/fuse/<case>.onnx        the model
tests/data/fuse/<case>.in0.npy     its input
tests/data/fuse/<case>.out0.npy    torch's output for it
"""
import math
import os
import zlib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "fuse")


class NewGELU(nn.Module):
    """GPT-2's tanh GELU, written out (Pow(x, 3))."""

    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) *
                                           (x + 0.044715 * torch.pow(x, 3.0))))


class BertGELU(nn.Module):
    """The erf GELU as BERT-era code writes it: x * 0.5 first, Mul by 1/sqrt(2)."""

    def forward(self, x):
        return x * 0.5 * (1.0 + torch.erf(x * (1.0 / math.sqrt(2.0))))


class LlamaRMSNorm(nn.Module):
    """LLaMA's RMSNorm: x * rsqrt(mean(x^2) + eps), times the weight."""

    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(n) + 0.5)
        self.eps = eps

    def forward(self, x):
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))


class PlainRMSNorm(nn.Module):
    """RMSNorm without a weight, dividing by the root."""

    def forward(self, x):
        return x / torch.sqrt((x * x).mean(-1, keepdim=True) + 1e-5)


class ManualHardSwish(nn.Module):
    def forward(self, x):
        return x * F.relu6(x + 3) / 6


class ManualHardSigmoid(nn.Module):
    def forward(self, x):
        return F.relu6(x + 3) / 6


class ConvBlock(nn.Module):
    """MobileNetV3's pieces: conv + Hardswish, depthwise conv + SiLU, squeeze-and-excitation
    with Hardsigmoid, conv + Mish."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 16, 3, padding=1, groups=16)
        self.fc1 = nn.Conv2d(16, 8, 1)
        self.fc2 = nn.Conv2d(8, 16, 1)
        self.c3 = nn.Conv2d(16, 8, 1)

    def forward(self, x):
        x = F.hardswish(self.c1(x))
        x = F.silu(self.c2(x))
        s = F.hardsigmoid(self.fc2(F.relu(self.fc1(F.adaptive_avg_pool2d(x, 1)))))
        return F.mish(self.c3(x * s))


class MaskedEncoderLayer(nn.Module):
    """A TransformerEncoderLayer under a causal float mask (-inf above the diagonal): the
    scores are scaled again and the mask added before the Softmax."""

    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(32, 2, 64, dropout=0.0)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(6))

    def forward(self, x):
        return self.layer(x, src_mask=self.mask)


def layernorm(shape, eps=1e-5):
    m = nn.LayerNorm(shape, eps=eps)
    with torch.no_grad():
        m.weight.uniform_(0.5, 1.5)
        m.bias.uniform_(-0.5, 0.5)
    return m


# name, a function making the module (called after seeding torch with the name), input shape
CASES = [
    ("layernorm", lambda: layernorm(16), (2, 5, 16)),
    ("layernorm_2axes", lambda: layernorm([4, 16], 1e-6), (3, 4, 16)),
    ("layernorm_plain", lambda: nn.LayerNorm(16, elementwise_affine=False), (2, 5, 16)),
    ("rmsnorm_llama", lambda: LlamaRMSNorm(16), (2, 5, 16)),
    ("rmsnorm_plain", PlainRMSNorm, (2, 5, 16)),
    ("gelu_erf", nn.GELU, (2, 5, 16)),
    ("gelu_bert", BertGELU, (2, 5, 16)),
    ("gelu_tanh", lambda: nn.GELU(approximate="tanh"), (2, 5, 16)),
    ("gelu_gpt2", NewGELU, (2, 5, 16)),
    ("hardswish", nn.Hardswish, (2, 5, 16)),
    ("hardswish_relu6", ManualHardSwish, (2, 5, 16)),
    ("hardsigmoid_relu6", ManualHardSigmoid, (2, 5, 16)),
    ("silu", nn.SiLU, (2, 5, 16)),
    ("mish", nn.Mish, (2, 5, 16)),
    ("encoder_layer",
     lambda: nn.TransformerEncoderLayer(32, 2, 64, dropout=0.0, activation="gelu"), (6, 1, 32)),
    ("encoder_layer_mask", MaskedEncoderLayer, (6, 2, 32)),
    ("conv_block", ConvBlock, (1, 3, 12, 12)),
]


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, make, shape in CASES:
        seed = zlib.crc32(name.encode())
        torch.manual_seed(seed)
        module = make().eval()
        x = torch.randn(*shape, generator=torch.Generator().manual_seed(seed + 1)) * 2.0
        with torch.no_grad():
            y = module(x)
        torch.onnx.export(module, x, os.path.join(OUT, name + ".onnx"), opset_version=13,
                          input_names=["x"], output_names=["y"])
        np.save(os.path.join(OUT, name + ".in0.npy"), x.numpy().astype(np.float32))
        np.save(os.path.join(OUT, name + ".out0.npy"), y.numpy().astype(np.float32))


if __name__ == "__main__":
    main()
