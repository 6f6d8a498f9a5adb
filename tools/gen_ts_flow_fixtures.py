#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the control-flow TorchScript fixtures: tests/data/torchscript/flow/.

Tiny scripted modules whose control flow depends on tensor data or on symbolic sizes (issue #4:
"keep control flow that depends on tensor data as If/Loop nodes with subgraphs"): an `if` on
data taken one way for one input and the other way for the other, a loop over x.size(0)
carrying a hidden state with an `if` inside, a `while` on data, lists appended in a loop then
stacked / concatenated, nested ifs in a loop, ranges with a step, Optional tensor arguments,
conditional expressions (flow_ifexp: flow_if's archive with its code edited); and two loops ember
refuses (tests/api/test_api_ts_flow.c checks the errors). Conditions use only operators the
loader has (relu(s) is nonzero when s > 0).

For each model it writes <name>.script.<tag>.pt, the inputs <name>.in.npy / <name>.in2.npy (two
shapes, chosen so that each branch runs) and eager PyTorch's outputs <name>.out[2]_<k>.npy
(output k of the flattened result). <tag> is t113 for PyTorch 1.13, t2 for 2.x:
  /usr/bin/python3 tools/gen_ts_flow_fixtures.py             # Debian's 1.13: archives, npy
  /work/venv-torch/bin/python tools/gen_ts_flow_fixtures.py  # PyPI's 2.x: archives (checks
                                                             # its eager outputs agree)
"""
import os
import sys
import warnings
import zipfile
from typing import List, Optional, Tuple

import numpy as np
import torch
from torch import Tensor

warnings.filterwarnings("ignore")
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "torchscript", "flow")
TAG = "t113" if torch.__version__.startswith("1.") else "t2"


class FlowIf(torch.nn.Module):
    """An `if` on data; a number assigned in both branches becomes a dynamic scalar."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)

    def forward(self, x):
        y = self.fc(x)
        if bool(torch.relu(torch.sum(y))):
            y = torch.tanh(y) * 2.0
            k = 1
        else:
            y = torch.sigmoid(y) - torch.sum(x)
            k = 3
        return y * k


class FlowLoop(torch.nn.Module):
    """An RNN cell looping over the run-time sequence length with an `if` inside (the PyTorch
    JIT talk's example, with the operators the loader has)."""

    def __init__(self, n_in: int = 4, n_h: int = 5):
        super().__init__()
        self.h0 = torch.nn.Linear(n_in, n_h)
        self.cell = torch.nn.Linear(n_in + n_h, n_h)

    def forward(self, x):
        h = torch.tanh(self.h0(x[0]))
        for t in range(x.size(0)):
            h = torch.tanh(self.cell(torch.cat([x[t], h], 1)))
            if bool(torch.relu(torch.sum(h))):
                h = h * 0.5
            else:
                h = h - 0.25
        return h


class FlowWhile(torch.nn.Module):
    """A `while` whose condition depends on data; an int counted in it is returned."""

    def forward(self, x) -> Tuple[Tensor, int]:
        y = x
        n = 0
        while bool(torch.relu(torch.sum(y))):
            y = y - 0.5
            n = n + 1
        return y * 2.0, n


class FlowNested(torch.nn.Module):
    """Nested `if`s in a loop; an int carried through both; a known float used inside."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 3)

    def forward(self, x) -> Tuple[Tensor, int]:
        acc = torch.sum(x, 0) * 0.0
        count = 0
        scale = 2.0
        for i in range(x.size(0)):
            v = self.fc(x[i])
            if bool(torch.relu(torch.sum(v))):
                if bool(torch.relu(torch.sum(v) - 1.0)):
                    acc = acc + v * scale
                    count = count + 2
                else:
                    acc = acc + v
            else:
                acc = acc - v
                count = count + 1
            acc = acc * 0.5 + i
        return acc, count


class FlowStack(torch.nn.Module):
    """Lists appended in a loop, then stacked, concatenated, measured and indexed."""

    def __init__(self):
        super().__init__()
        self.h0 = torch.nn.Linear(4, 3)
        self.cell = torch.nn.Linear(7, 3)

    def forward(self, x) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
        h = torch.tanh(self.h0(x[0]))
        outs = [h]
        pairs: List[Tensor] = []
        for t in range(x.size(0)):
            h = torch.tanh(self.cell(torch.cat([x[t], h], 1)))
            outs.append(h)
            pairs.append(h * 2.0)
            pairs.append(h - 1.0)
        y = torch.stack(outs)
        z = torch.cat(pairs, 1)
        w = torch.stack(outs, 2) * len(pairs)
        return y, z, w, outs[-1] + outs[1]


class FlowRange(torch.nn.Module):
    """range(lo, hi, step) and a reversed range on symbolic sizes (TorchScript writes them with
    __range_length / __derive_index; the first runs no iteration for the second input), a tuple
    carried through a loop, `for row in x`, an `if` after the loops."""

    def forward(self, x):
        s = (x[0], x[0] * 2.0)
        for i in range(1, x.size(0), 2):
            a, b = s
            s = (a + x[i], b * 0.5 + i)
        y = s[0] + s[1]
        if bool(torch.relu(torch.sum(y))):
            z = y
        else:
            z = y * -1.0
        for j in range(x.size(0) - 1, -1, -1):
            z = z * 0.5 + x[j]
        for row in x:
            z = z - row * 0.25
        return z


class Inner(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x, h: Optional[Tensor] = None):
        y = self.fc(x)
        if h is not None:
            y = y + h
        return y


class FlowOptional(torch.nn.Module):
    """Optional[Tensor] arguments: defaults, `is None` / `is not None`, tensor identity (as
    nn.MultiheadAttention's `query is key`), isinstance, _unwrap_optional."""

    def __init__(self):
        super().__init__()
        self.a = Inner()

    def forward(self, x, h: Optional[Tensor] = None, scale: Optional[float] = None):
        if h is None:
            h = x * 0.5
        y = self.a(x) + self.a(x, h)
        k = x
        if k is x:
            y = y * 2.0
        if k is not y:
            y = y + 1.0
        if scale is not None:
            y = y * scale
        if isinstance(h, torch.Tensor):
            y = y + torch.jit._unwrap_optional(h)
        return y


class FlowErrRead(torch.nn.Module):
    """Refused: reads the list it appends to inside a data-dependent loop."""

    def forward(self, x):
        outs: List[Tensor] = [x[0]]
        for t in range(x.size(0)):
            outs.append(outs[-1] + x[t])
        return torch.stack(outs)


class FlowErrCondAppend(torch.nn.Module):
    """Refused: appends under a data-dependent `if` inside a data-dependent loop."""

    def forward(self, x):
        outs: List[Tensor] = []
        for t in range(x.size(0)):
            if bool(torch.relu(torch.sum(x[t]))):
                outs.append(x[t])
        return torch.stack(outs)


# flow_ifexp: FlowIf's archive with its `if` statement written as conditional expressions
# (`a if c else b`, which the TorchScript printer does not emit itself but its parser takes).
IFEXP_CODE = """    c = bool(torch.relu(torch.sum(y)))
    y0 = torch.mul(torch.tanh(y), 2.) if c else torch.sub(torch.sigmoid(y), torch.sum(x))
    k = 1 if c else 3
    return torch.mul(y0, k)
"""


def write_ifexp(src, dst):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.endswith("code/__torch__.py"):
                text = data.decode()
                start = text.index("    if bool(")
                end = text.index("\n", text.index("    return", start)) + 1
                data = (text[:start] + IFEXP_CODE + text[end:]).encode()
            zout.writestr(info, data)


def flat(r):
    if isinstance(r, (tuple, list)):
        return [v for item in r for v in flat(item)]
    if isinstance(r, torch.Tensor):
        return [r.numpy()]
    return [np.array(r)]


# name: (constructor, input 1, input 2); inputs are made by functions of a generator.
def models():
    def randn(*shape, scale=1.0, shift=0.0):
        return lambda g: torch.randn(*shape, generator=g) * scale + shift
    return {
        "flow_if": (FlowIf, randn(2, 4, shift=-3.0), randn(3, 4, shift=1.5)),
        "flow_loop": (FlowLoop, randn(5, 3, 4), randn(2, 1, 4, scale=3.0)),
        "flow_while": (FlowWhile, randn(2, 3, shift=0.8), randn(4, 2, shift=-0.1)),
        "flow_nested": (FlowNested, randn(6, 3, scale=2.0), randn(3, 3, scale=2.0)),
        "flow_stack": (FlowStack, randn(4, 2, 4), randn(2, 1, 4)),
        "flow_range": (FlowRange, randn(5, 3, shift=-1.0), randn(1, 2, shift=1.0)),
        "flow_optional": (FlowOptional, randn(2, 4), randn(3, 4)),
        "flow_err_read": (FlowErrRead, randn(3, 2), None),
        "flow_err_cond_append": (FlowErrCondAppend, randn(3, 2), None),
    }


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, (ctor, in1, in2) in models().items():
        torch.manual_seed(0)
        m = ctor().eval()
        gen = torch.Generator().manual_seed(1)
        inputs = [in1(gen)] + ([in2(gen)] if in2 is not None else [])
        script = torch.jit.script(m)
        for i, x in enumerate(inputs):
            sfx = "" if i == 0 else "2"
            in_path = os.path.join(OUT, "%s.in%s.npy" % (name, sfx))
            if name.startswith("flow_err"):
                if TAG == "t113":
                    np.save(in_path, x.numpy())
                continue
            if TAG != "t113":
                x = torch.from_numpy(np.load(in_path))
            with torch.no_grad():
                ys = flat(m(x))
                ys_script = flat(script(x))
            for k, (y, ys2) in enumerate(zip(ys, ys_script)):
                if not np.allclose(y, ys2, rtol=1e-5, atol=1e-6):
                    sys.exit("gen_ts_flow_fixtures: %s: scripted output %d differs" % (name, k))
                out_path = os.path.join(OUT, "%s.out%s_%d.npy" % (name, sfx, k))
                if TAG == "t113":
                    np.save(in_path, x.numpy())
                    np.save(out_path, y)
                elif not np.allclose(y, np.load(out_path), rtol=1e-4, atol=1e-5):
                    sys.exit("gen_ts_flow_fixtures: %s: eager %s disagrees with 1.13's output %d"
                             % (name, torch.__version__, k))
        path = os.path.join(OUT, "%s.script.%s.pt" % (name, TAG))
        torch.jit.save(script, path)
        print("gen_ts_flow_fixtures: %s (%d bytes)" % (path, os.path.getsize(path)))
        if os.environ.get("GEN_TS_FLOW_CODE"):
            print(script.code)
        if name == "flow_if":
            ifexp = os.path.join(OUT, "flow_ifexp.script.%s.pt" % TAG)
            write_ifexp(path, ifexp)
            loaded = torch.jit.load(ifexp)  # torch takes the edited code and agrees
            for sfx in ("", "2"):
                x = torch.from_numpy(np.load(os.path.join(OUT, "flow_if.in%s.npy" % sfx)))
                ref = np.load(os.path.join(OUT, "flow_if.out%s_0.npy" % sfx))
                if not np.allclose(loaded(x).detach().numpy(), ref, rtol=1e-5, atol=1e-6):
                    sys.exit("gen_ts_flow_fixtures: flow_ifexp disagrees with flow_if")
            print("gen_ts_flow_fixtures: %s (%d bytes)" % (ifexp, os.path.getsize(ifexp)))


if __name__ == "__main__":
    main()
