#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the small TorchScript fixtures ctest runs without Python: tests/data/torchscript/models/.

For each small model (below: the building blocks of the issue #4 models with few channels, so
every archive is a few hundred KB at most), traced and scripted, with the PyTorch running this
script, it writes <name>.<kind>.<tag>.pt, the input <name>.in.npy (the traced shape) and, when
the model takes other shapes, <name>.in2.npy, and PyTorch eager's outputs <name>.out.npy /
<name>.out2.npy (eval mode, no_grad). <tag> is "t113" for PyTorch 1.13, "t2" for 2.x, so both
archive generations are tested:
  /usr/bin/python3 tools/gen_ts_fixtures.py            # Debian's 1.13
  /work/venv-torch/bin/python tools/gen_ts_fixtures.py # PyPI's 2.x
(a comma-separated list of model names as the argument remakes only those).
Inputs and outputs come from eager PyTorch 1.13 (the 2.x run checks its eager output agrees
within 1e-5 and writes only archives), except for the models in OWN_REFERENCE (quantized: each
version's observers pick other scales), whose 2.x outputs go to <name>.out[2].t2.npy.
"""
import os
import sys
import warnings

from typing import Optional

import numpy as np
import torch
import torchvision

warnings.filterwarnings("ignore")
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "torchscript", "models")
TAG = "t113" if torch.__version__.startswith("1.") else "t2"


class TinyCNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(inplace=True),
            torch.nn.MaxPool2d(2), torch.nn.Conv2d(8, 8, 3, stride=2, bias=False),
            torch.nn.BatchNorm2d(8), torch.nn.ReLU6(), torch.nn.Dropout(0.2))
        self.pool = torch.nn.AdaptiveAvgPool2d((1, 1))
        self.fc = torch.nn.Linear(8, 5)

    def forward(self, x):
        x = self.pool(self.features(x))
        return self.fc(torch.flatten(x, 1))


class TinyResNet(torch.nn.Module):
    """torchvision's own BasicBlock and Bottleneck (with a downsample path), few channels."""

    def __init__(self):
        super().__init__()
        from torchvision.models.resnet import BasicBlock, Bottleneck
        self.stem = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.b1 = BasicBlock(8, 8)
        down = torch.nn.Sequential(torch.nn.Conv2d(8, 16, 1, stride=2, bias=False),
                                   torch.nn.BatchNorm2d(16))
        self.b2 = Bottleneck(8, 4, stride=2, downsample=down)
        self.head = torch.nn.Linear(16, 3)

    def forward(self, x):
        x = self.b2(self.b1(self.stem(x)))
        return self.head(x.mean([2, 3]))


class TinyMobile(torch.nn.Module):
    """torchvision's InvertedResidual (v2) and SqueezeExcitation + Hardswish (v3)."""

    def __init__(self):
        super().__init__()
        from torchvision.models.mobilenetv2 import InvertedResidual
        from torchvision.ops.misc import SqueezeExcitation
        self.ir1 = InvertedResidual(3, 8, 2, 4)
        self.ir2 = InvertedResidual(8, 8, 1, 2)
        self.se = SqueezeExcitation(8, 4, scale_activation=torch.nn.Hardsigmoid)
        self.act = torch.nn.Hardswish()
        self.fc = torch.nn.Linear(8, 4)

    def forward(self, x):
        x = self.act(self.se(self.ir2(self.ir1(x))))
        return self.fc(torch.nn.functional.adaptive_avg_pool2d(x, 1).flatten(1))


class TinyVGG(torch.nn.Module):
    """VGG's and AlexNet's head: adaptive average pooling to a fixed grid from any input size
    (2-D to 3x2, which does not divide the second shape's 7x5; 1-D to 5)."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)
        self.pool = torch.nn.AdaptiveAvgPool2d((3, 2))
        self.pool1 = torch.nn.AdaptiveAvgPool1d(5)
        self.fc = torch.nn.Linear(4 * 3 * 2 + 4 * 5, 3)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        a = torch.flatten(self.pool(y), 1)
        b = torch.flatten(self.pool1(y.flatten(2)), 1)
        return self.fc(torch.cat([a, b], 1))


class TinyOptional(torch.nn.Module):
    """Optional[Tensor] arguments checked with `is None` / `is not None` / `is` (folded at
    load time: a tensor on either side is known, None is only None)."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)
        self.register_buffer("bias", torch.linspace(-1.0, 1.0, 3))

    def combine(self, y: torch.Tensor, b: Optional[torch.Tensor], c: Optional[torch.Tensor]):
        if b is not None:
            y = y + b
        if c is not None:
            y = y * c
        if b is y:
            y = y - 1.0
        if y is not None and c is None:
            y = torch.relu(y)
        return y

    def forward(self, x):
        return self.combine(self.fc(x), self.bias, None)


class TinyShuffle(torch.nn.Module):
    """shufflenet's channel_shuffle as torchvision writes it (sizes divided with //, which traced
    code keeps as floor_divide of a size and a constant tensor), chunk, and vit's size check
    whose message formats a size known only at run time."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.branch = torch.nn.Conv2d(4, 4, 1)

    def forward(self, x):
        n, c, h, w = x.shape
        torch._assert(c == 3, f"Wrong channel count! Expected 3 but got {c}!")
        torch._assert(h >= 2, f"Too small! Expected at least 2 rows but got {h}!")
        y = torch.relu(self.conv(x))
        a, b = y.chunk(2, dim=1)
        y = torch.cat((a, self.branch(b)), dim=1)
        bs, ch, hh, ww = y.size()
        y = y.view(bs, 2, ch // 2, hh, ww)
        y = torch.transpose(y, 1, 2).contiguous()
        y = y.view(bs, -1, hh, ww)
        return y[:, :, : hh // 2 + 1]


class TinyQuant(torch.nn.Module):
    """Eager-mode post-training quantization (fbgemm): QuantStub, fused ConvReLU2d, Conv2d,
    FloatFunctional add_relu / mul / cat, pooling and flatten on quantized tensors, quantized
    Linear, DeQuantStub."""

    def __init__(self):
        super().__init__()
        qn = torch.nn.quantized
        self.q = torch.ao.quantization.QuantStub()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.relu = torch.nn.ReLU()
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1, groups=2)
        self.add, self.mul, self.cat = qn.FloatFunctional(), qn.FloatFunctional(), qn.FloatFunctional()
        self.pool = torch.nn.AdaptiveAvgPool2d(1)
        self.fc = torch.nn.Linear(16, 4)
        self.dq = torch.ao.quantization.DeQuantStub()

    def forward(self, x):
        x = self.q(x)
        y = self.relu(self.conv(x))
        z = self.conv2(y)
        y = self.add.add_relu(y, z)
        y = self.cat.cat([y, self.mul.mul(y, z)], 1)
        return self.dq(self.fc(self.pool(y).flatten(1)))


def tiny_quant():
    m = TinyQuant().eval()
    m.qconfig = torch.ao.quantization.get_default_qconfig("fbgemm")
    torch.ao.quantization.fuse_modules(m, [["conv", "relu"]], inplace=True)
    torch.ao.quantization.prepare(m, inplace=True)
    gen = torch.Generator().manual_seed(2)
    for _ in range(4):
        m(torch.randn(2, 3, 8, 8, generator=gen))
    torch.ao.quantization.convert(m, inplace=True)
    return m


# models whose 2.x archives are checked against 2.x's own eager output (<name>.out.t2.npy)
OWN_REFERENCE = {"tiny_quant"}


def models():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import ts_models
    return {
        # name: (constructor, traced input shape, another shape the model takes or None)
        "tiny_cnn": (TinyCNN, (1, 3, 16, 16), (2, 3, 20, 12)),
        "tiny_resnet": (TinyResNet, (1, 3, 12, 12), (3, 3, 9, 9)),
        "tiny_mobile": (TinyMobile, (1, 3, 16, 16), (2, 3, 10, 14)),
        "tiny_vgg": (TinyVGG, (1, 3, 12, 12), (2, 3, 9, 7)),
        "tiny_optional": (TinyOptional, (2, 4), (5, 4)),
        "tiny_shuffle": (TinyShuffle, (1, 3, 8, 6), (2, 3, 5, 9)),
        "tiny_quant": (tiny_quant, (1, 3, 8, 8), (2, 3, 6, 10)),
        "lstm": (lambda: ts_models.Recurrent("lstm", 8, 12, 2), (6, 2, 8), (3, 4, 8)),
        "gru": (lambda: ts_models.Recurrent("gru", 8, 12, 2), (6, 2, 8), (3, 4, 8)),
        "transformer": (lambda: ts_models.transformer_encoder(16, 2, 2), (5, 2, 16), (7, 1, 16)),
        "rnn_cell_loop": (lambda: ts_models.RNNCellLoop(4, 6), (5, 3, 4), (2, 1, 4)),
    }


def main():
    os.makedirs(OUT, exist_ok=True)
    only = sys.argv[1].split(",") if len(sys.argv) > 1 else None  # e.g. tiny_vgg,lstm
    for name, (ctor, shape, shape2) in models().items():
        if only is not None and name not in only:
            continue
        torch.manual_seed(0)
        m = ctor().eval()
        gen = torch.Generator().manual_seed(1)
        inputs = [torch.randn(*shape, generator=gen)]
        if shape2 is not None:
            inputs.append(torch.randn(*shape2, generator=gen))
        for i, x in enumerate(inputs):
            sfx = "" if i == 0 else "2"
            with torch.no_grad():
                y = m(x).numpy()
            in_path = os.path.join(OUT, "%s.in%s.npy" % (name, sfx))
            out_path = os.path.join(OUT, "%s.out%s.npy" % (name, sfx))
            if TAG == "t113":
                np.save(in_path, x.numpy())
                np.save(out_path, y)
            elif name in OWN_REFERENCE:
                # quantization picks its scales with each version's observers: this version's
                # eager output on 1.13's input is the reference of its archives
                with torch.no_grad():
                    y2 = m(torch.from_numpy(np.load(in_path))).numpy()
                np.save(out_path.replace(".npy", ".%s.npy" % TAG), y2)
            elif os.path.exists(out_path):
                ref = np.load(out_path)
                x113 = np.load(in_path)
                with torch.no_grad():
                    y2 = m(torch.from_numpy(x113)).numpy()
                if not np.allclose(y2, ref, rtol=1e-4, atol=1e-5):
                    sys.exit("gen_ts_fixtures: %s: eager %s disagrees with 1.13's output"
                             % (name, torch.__version__))
        for kind in ("trace", "script"):
            with torch.no_grad():
                ts = (torch.jit.trace(m, inputs[0], check_trace=False) if kind == "trace"
                      else torch.jit.script(m))
            path = os.path.join(OUT, "%s.%s.%s.pt" % (name, kind, TAG))
            torch.jit.save(ts, path)
            print("gen_ts_fixtures: %s (%d bytes)" % (path, os.path.getsize(path)))


if __name__ == "__main__":
    main()
