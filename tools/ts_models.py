# SPDX-License-Identifier: Apache-2.0
"""The models issue #4 covers, built the same way by every TorchScript tool.

Imported by tools/gen_ts_schemas.py, tools/gen_ts_fixtures.py and bench/. Works with Debian's
PyTorch 1.13 / torchvision 0.14 (/usr/bin/python3) and PyPI's torch 2.x (a venv). Weights are
random (weights=None): nothing is downloaded.
"""
import torch
import torchvision

# name -> (constructor, input shape); inception_v3 wants 299x299 (aux_logits off: eval-only).
TORCHVISION = {
    "resnet18": (lambda: torchvision.models.resnet18(), (1, 3, 224, 224)),
    "resnet50": (lambda: torchvision.models.resnet50(), (1, 3, 224, 224)),
    "wide_resnet50_2": (lambda: torchvision.models.wide_resnet50_2(), (1, 3, 224, 224)),
    "resnext50_32x4d": (lambda: torchvision.models.resnext50_32x4d(), (1, 3, 224, 224)),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(), (1, 3, 224, 224)),
    "mobilenet_v3_small": (lambda: torchvision.models.mobilenet_v3_small(), (1, 3, 224, 224)),
    "mobilenet_v3_large": (lambda: torchvision.models.mobilenet_v3_large(), (1, 3, 224, 224)),
    "squeezenet1_0": (lambda: torchvision.models.squeezenet1_0(), (1, 3, 224, 224)),
    "squeezenet1_1": (lambda: torchvision.models.squeezenet1_1(), (1, 3, 224, 224)),
    "shufflenet_v2_x1_0": (lambda: torchvision.models.shufflenet_v2_x1_0(), (1, 3, 224, 224)),
    "efficientnet_b0": (lambda: torchvision.models.efficientnet_b0(), (1, 3, 224, 224)),
    "densenet121": (lambda: torchvision.models.densenet121(), (1, 3, 224, 224)),
    "googlenet": (lambda: torchvision.models.googlenet(aux_logits=False, init_weights=False),
                  (1, 3, 224, 224)),
    "inception_v3": (lambda: torchvision.models.inception_v3(aux_logits=False, init_weights=False),
                     (1, 3, 299, 299)),
    "regnet_y_400mf": (lambda: torchvision.models.regnet_y_400mf(), (1, 3, 224, 224)),
    "mnasnet0_5": (lambda: torchvision.models.mnasnet0_5(), (1, 3, 224, 224)),
    "convnext_tiny": (lambda: torchvision.models.convnext_tiny(), (1, 3, 224, 224)),
    "vgg11": (lambda: torchvision.models.vgg11(), (1, 3, 224, 224)),
    "alexnet": (lambda: torchvision.models.alexnet(), (1, 3, 224, 224)),
    "vit_b_16": (lambda: torchvision.models.vit_b_16(), (1, 3, 224, 224)),
}


class RNNCellLoop(torch.nn.Module):
    """A scripted RNN cell looping over the run-time sequence length, an `if` inside (the
    PyTorch JIT talk's example)."""

    def __init__(self, n_in=8, n_hidden=16):
        super().__init__()
        self.cell = torch.nn.Linear(n_in + n_hidden, n_hidden)
        self.n_hidden = n_hidden

    def forward(self, x):
        h = torch.zeros(x.size(1), self.n_hidden)
        for t in range(x.size(0)):
            h = torch.tanh(self.cell(torch.cat([x[t], h], 1)))
            if h.sum() > 0:
                h = h * 0.5
            else:
                h = -h
        return h


class Recurrent(torch.nn.Module):
    def __init__(self, kind, n_in=32, n_hidden=64, layers=2):
        super().__init__()
        cls = torch.nn.LSTM if kind == "lstm" else torch.nn.GRU
        self.rnn = cls(n_in, n_hidden, num_layers=layers)
        self.fc = torch.nn.Linear(n_hidden, 10)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y[-1])


def transformer_encoder(d_model=64, nhead=4, layers=2):
    layer = torch.nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=128, dropout=0.0)
    return torch.nn.TransformerEncoder(layer, layers)


OTHERS = {
    "lstm": (lambda: Recurrent("lstm"), (12, 2, 32)),
    "gru": (lambda: Recurrent("gru"), (12, 2, 32)),
    "transformer_encoder": (transformer_encoder, (10, 2, 64)),
    "rnn_cell_loop": (RNNCellLoop, (5, 3, 8)),
}

ALL = dict(TORCHVISION, **OTHERS)


def calibrate(m, shape, steps=3):
    """Sets BatchNorm running statistics from a few random batches, as training would.

    torchvision's fresh BatchNorm layers (mean 0, variance 1) pass activations through
    unnormalized, so a deep random-init network (resnet50) ends with outputs in the hundreds,
    where float32 rounding alone (PyTorch's own, against float64) exceeds atol 1e-5 on the small
    outputs. Calibrated statistics keep activations at a trained network's scale."""
    bns = [b for b in m.modules() if isinstance(b, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return
    for b in bns:
        b.reset_running_stats()
        b.momentum = None  # cumulative average over the calibration batches
    m.train()
    with torch.no_grad():
        for _ in range(steps):
            m(torch.randn(4, *shape[1:]))
    m.eval()


def build(name, seed=0):
    """(eval-mode module, example input) for a model name."""
    torch.manual_seed(seed)
    ctor, shape = ALL[name]
    m = ctor()
    calibrate(m, shape)
    m.eval()
    x = torch.randn(*shape)
    return m, x


def export(name, kind, seed=0):
    """(TorchScript module, example input): kind "trace" or "script"."""
    m, x = build(name, seed)
    with torch.no_grad():
        if kind == "trace":
            return torch.jit.trace(m, x, check_trace=False), x
        return torch.jit.script(m), x
