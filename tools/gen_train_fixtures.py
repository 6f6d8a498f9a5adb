#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fixtures of the trainer tests (tests/api/test_api_train.c, tests/cli): small models and
PyTorch's own gradients and losses, written to tests/data/train/<model>/.

Run with Debian's torch 1.13:  /usr/bin/python3 tools/gen_train_fixtures.py [OUTDIR]

Per model (mlp: Linear-ReLU-Linear; cnn: Conv-BatchNorm(eval, frozen statistics)-ReLU-MaxPool-
Flatten-Linear):
  model.onnx            torch.onnx.export, opset 13, training=PRESERVE (BatchNorm stays a node),
                        no constant folding (initializers keep their state_dict names)
  model.pt              torch.jit.trace
  x.npy                 the input batch (f32)
  t.npy                 integer class targets (i64), tf.npy float targets (f32, the output's
                        shape; in [0, 1] for bce)
  grad_<case>__<param>.npy   d loss / d param for each loss case (see CASES)
  loss_<case>.npy       the loss of that case (f64, shape [1])
  steps_<opt>.npy       f64[6]: the loss before each of 5 optimizer steps on the same batch (CE,
                        mean) and the loss after the fifth
and two_heads.onnx: two Linear heads on one input (x of mlp), for a parameter that does not
reach the loss (which reads output 0).

BatchNorm in train mode (cnn only; model in train(), CE mean, SGD lr 0.1 momentum 0.9):
  bntrain_grad__<param>.npy   the first step's gradients (through the batch statistics)
  bntrain_steps.npy     f64[6]: the losses of 5 steps, then the eval-mode loss after them
  bntrain_running_mean.npy, bntrain_running_var.npy   bn's running statistics after 5 steps
  bntrain_out.npy       the eval-mode output after the 5 steps
  frozen_out.npy        the output after the 5 steps of steps_sgd.npy (eval mode)
dropout.onnx (onnx.helper, no torch): y = Dropout(x * w, ratio 0.25), x [64, 64] input, w
[64, 64] initializer of ones, Dropout-13 without training_mode (inference form), for the
trainer's Dropout train mode (its masks are not PyTorch's: the test checks their rate and the
gradients); dropout_x.npy / dropout_t.npy: an input and an L1 target (-10) for the CLI test.
bn1d.onnx (onnx.helper): y = BatchNormalization(x [N, 4]) with ONNX momentum 0.7 (PyTorch's
0.3), for the running-statistics formula and the one-value-per-channel refusal.
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "tests", "data", "train")


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4 * 4 * 4, 5)

    def forward(self, x):
        y = F.max_pool2d(torch.relu(self.bn(self.conv(x))), 2)
        return self.fc(torch.flatten(y, 1))


class TwoHeads(nn.Module):
    """Two outputs: the loss reads output 0 (head a), so head b's parameters do not reach it."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(8, 4)
        self.b = nn.Linear(8, 3)

    def forward(self, x):
        return self.a(x), self.b(x)


def loss_fn(case, out, t, tf):
    if case == "ce":
        return F.cross_entropy(out, t)
    if case == "ce_sum":
        return F.cross_entropy(out, t, reduction="sum")
    if case == "ce_ls":
        return F.cross_entropy(out, t, label_smoothing=0.1)
    if case == "nll":
        return F.nll_loss(out, t)
    if case == "mse":
        return F.mse_loss(out, tf)
    if case == "l1":
        return F.l1_loss(out, tf)
    if case == "smoothl1":
        return F.smooth_l1_loss(out, tf)
    if case == "bce":
        return F.binary_cross_entropy_with_logits(out, tf)
    raise ValueError(case)


CASES = {"mlp": ["ce", "ce_sum", "ce_ls", "nll", "mse", "l1", "smoothl1", "bce"],
         "cnn": ["ce", "mse"]}

OPTIMS = {
    "sgd": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, weight_decay=1e-3),
    "nesterov": lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True),
    "adam": lambda p: torch.optim.Adam(p, lr=0.01),
    "adamw": lambda p: torch.optim.AdamW(p, lr=0.01, weight_decay=0.1),
}


def save(d, name, a):
    np.save(os.path.join(d, name), a)


def make(name, model, x, n_classes):
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    g = torch.Generator().manual_seed(7)
    t = torch.randint(0, n_classes, (x.shape[0],), generator=g)
    model.eval()
    with torch.no_grad():
        out = model(x)
    tf = torch.rand(out.shape, generator=g)
    save(d, "x.npy", x.numpy())
    save(d, "t.npy", t.numpy().astype(np.int64))
    save(d, "tf.npy", tf.numpy())
    torch.onnx.export(model, (x,), os.path.join(d, "model.onnx"), opset_version=13,
                      input_names=["x"], output_names=["y"],
                      training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
    torch.jit.trace(model, (x,)).save(os.path.join(d, "model.pt"))
    state = {k: v.clone() for k, v in model.state_dict().items()}
    for case in CASES[name]:
        model.load_state_dict(state)
        model.zero_grad()
        loss = loss_fn(case, model(x), t, tf)
        loss.backward()
        save(d, "loss_%s.npy" % case, np.array([loss.item()], dtype=np.float64))
        for pn, p in model.named_parameters():
            save(d, "grad_%s__%s.npy" % (case, pn), p.grad.numpy())
    for opt_name, mk in OPTIMS.items():
        model.load_state_dict(state)
        opt = mk(model.parameters())
        losses = []
        for _ in range(5):
            opt.zero_grad()
            loss = F.cross_entropy(model(x), t)
            losses.append(loss.item())
            loss.backward()
            opt.step()
        with torch.no_grad():
            losses.append(F.cross_entropy(model(x), t).item())
        save(d, "steps_%s.npy" % opt_name, np.array(losses, dtype=np.float64))
        if opt_name == "sgd" and name == "cnn":
            with torch.no_grad():
                save(d, "frozen_out.npy", model(x).numpy())
    model.load_state_dict(state)
    if name == "cnn":
        make_bntrain(d, model, x, t)
        model.load_state_dict(state)
        model.eval()


def make_bntrain(d, model, x, t):
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for k in range(5):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), t)
        losses.append(loss.item())
        loss.backward()
        if k == 0:
            for pn, p in model.named_parameters():
                save(d, "bntrain_grad__%s.npy" % pn, p.grad.numpy())
        opt.step()
    save(d, "bntrain_running_mean.npy", model.bn.running_mean.numpy())
    save(d, "bntrain_running_var.npy", model.bn.running_var.numpy())
    model.eval()
    with torch.no_grad():
        out = model(x)
        losses.append(F.cross_entropy(out, t).item())
    save(d, "bntrain_steps.npy", np.array(losses, dtype=np.float64))
    save(d, "bntrain_out.npy", out.numpy())


def make_bn1d():
    import onnx
    from onnx import TensorProto, helper
    inits = [helper.make_tensor("scale", TensorProto.FLOAT, [4], [1.0, 0.5, 2.0, 1.5]),
             helper.make_tensor("bias", TensorProto.FLOAT, [4], [0.0, 0.1, -0.2, 0.3]),
             helper.make_tensor("mean", TensorProto.FLOAT, [4], [0.5, -0.5, 0.25, 0.0]),
             helper.make_tensor("var", TensorProto.FLOAT, [4], [1.0, 2.0, 0.5, 1.5])]
    node = helper.make_node("BatchNormalization", ["x", "scale", "bias", "mean", "var"], ["y"],
                            name="bn", epsilon=1e-5, momentum=0.7)
    g = helper.make_graph([node], "bn1d",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])],
                          inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 15)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(OUT, "bn1d.onnx"))


def make_dropout():
    import onnx
    from onnx import TensorProto, helper
    w = helper.make_tensor("w", TensorProto.FLOAT, [64, 64], [1.0] * 4096)
    ratio = helper.make_tensor("ratio", TensorProto.FLOAT, [], [0.25])
    nodes = [helper.make_node("Mul", ["x", "w"], ["xw"], name="mul"),
             helper.make_node("Dropout", ["xw", "ratio"], ["y"], name="drop")]
    g = helper.make_graph(nodes, "dropout",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [64, 64])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [64, 64])],
                          [w, ratio])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(OUT, "dropout.onnx"))
    x = 0.5 + (np.arange(64 * 64) % 7).astype(np.float32).reshape(64, 64) / 7
    np.save(os.path.join(OUT, "dropout_x.npy"), x.astype(np.float32))
    np.save(os.path.join(OUT, "dropout_t.npy"), np.full((64, 64), -10.0, dtype=np.float32))


def main():
    torch.manual_seed(0)
    mlp = MLP()
    make("mlp", mlp, torch.randn(6, 8), 4)
    torch.manual_seed(1)
    cnn = CNN()
    with torch.no_grad():  # frozen statistics that are not the identity
        cnn.bn.running_mean.copy_(torch.randn(4) * 0.1)
        cnn.bn.running_var.copy_(torch.rand(4) + 0.5)
        cnn.bn.weight.copy_(torch.rand(4) + 0.5)
        cnn.bn.bias.copy_(torch.randn(4) * 0.1)
    make("cnn", cnn, torch.randn(4, 3, 8, 8), 5)
    torch.manual_seed(2)
    two = TwoHeads().eval()
    torch.onnx.export(two, (torch.randn(6, 8),), os.path.join(OUT, "two_heads.onnx"),
                      opset_version=13, input_names=["x"], output_names=["ya", "yb"],
                      do_constant_folding=False)
    make_dropout()
    make_bn1d()


if __name__ == "__main__":
    main()
