#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the torch.export fixtures of tests/data/pt2 (tests/loaders/test_pt2_load.c).

Run with the torch 2.x venv (bench/.env/torch2/bin/python tools/gen_pt2_fixtures.py [OUT]).
Each model M gives M.pt2 (torch.export.save), M_input.npy and M_expected.npy (PyTorch eager
on that input). `*_core` variants are the same program after ep.run_decompositions() (the
core-aten op set: addmm, convolution, _native_batch_norm_legit_no_training, ...).
Seeds are fixed; weights are small, so the archives stay a few kB.
"""
import os
import sys

import numpy as np
import torch

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "pt2")


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(4, 8)
        self.l2 = torch.nn.Linear(8, 3)

    def forward(self, x):
        return torch.softmax(self.l2(torch.relu(self.l1(x))), dim=-1)


class Cnn(torch.nn.Module):
    """conv / batch norm / relu / max pool / residual add / adaptive avg pool / flatten / linear."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(8)
        self.pool = torch.nn.MaxPool2d(2)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.bn2 = torch.nn.BatchNorm2d(8)
        self.avg = torch.nn.AdaptiveAvgPool2d((1, 1))
        self.fc = torch.nn.Linear(8, 5)

    def forward(self, x):
        y = self.pool(torch.relu(self.bn1(self.conv1(x))))
        y = torch.relu(y + self.bn2(self.conv2(y)))
        return self.fc(torch.flatten(self.avg(y), 1))


def encoder():
    return torch.nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32,
                                            dropout=0.0, activation="gelu", batch_first=True)


def randomize_bn(m):
    for mod in m.modules():
        if isinstance(mod, torch.nn.BatchNorm2d):
            with torch.no_grad():
                mod.running_mean.uniform_(-0.5, 0.5)
                mod.running_var.uniform_(0.5, 1.5)
                mod.weight.uniform_(0.5, 1.5)
                mod.bias.uniform_(-0.5, 0.5)


def write(name, model, x, core=False):
    model.eval()
    with torch.no_grad():
        expected = model(x)
    ep = torch.export.export(model, (x,))
    if core:
        ep = ep.run_decompositions()
    torch.export.save(ep, os.path.join(OUT, name + ".pt2"))
    np.save(os.path.join(OUT, name + "_input.npy"), x.numpy())
    np.save(os.path.join(OUT, name + "_expected.npy"), expected.numpy())
    targets = sorted({str(n.target) for n in ep.graph.nodes if n.op == "call_function"})
    print(name, ", ".join(targets))


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    mlp = Mlp()
    write("mlp", mlp, torch.randn(2, 4))
    write("mlp_core", mlp, torch.randn(2, 4), core=True)
    cnn = Cnn()
    randomize_bn(cnn)
    write("cnn", cnn, torch.randn(1, 3, 8, 8))
    write("cnn_core", cnn, torch.randn(2, 3, 8, 8), core=True)
    enc = encoder()
    write("encoder", enc, torch.randn(1, 5, 16))
    write("encoder_core", enc, torch.randn(2, 5, 16), core=True)


if __name__ == "__main__":
    main()
