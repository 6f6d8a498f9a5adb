#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the TorchScript fixtures of tensor creation, casts, shape and indexing operators:
tests/data/torchscript/tensor/ (read by tests/api/test_api_ts_tensor.c).

Each small module below returns many outputs (every op of its family, several overloads and
dtypes), with sizes derived from the input's shape so dynamic sizes are exercised. Saved
traced and scripted (some only scripted: a trace bakes torch.tensor([n]) in) by the PyTorch
running this script as <name>.<kind>.<tag>.pt (tag t113 for 1.13, t2 for 2.x), with the
input <name>.in.npy (the traced shape) and <name>.in2.npy (another shape), and eager's
outputs (eval mode, no_grad) in <name>.out.npys / <name>.out2.npys: each output as a .npy
image preceded by its byte count (8 bytes, little-endian), one after the other:
  /usr/bin/python3 tools/gen_ts_tensor_fixtures.py [NAME...]            # 1.13: inputs, outputs,
                                                                         # archives
  /work/venv-torch/bin/python tools/gen_ts_tensor_fixtures.py [NAME...]  # 2.x: archives (eager
                                                                         # checked)
(NAMEs: only those models, e.g. window.)
Outputs come from eager PyTorch 1.13; the 2.x run checks its eager outputs agree. Both runs
check that every archive, loaded back by torch, gives eager's outputs on both inputs (a trace
that baked a size in would not). Archives are rewritten deflated without their debug
records (*.debug_pkl, only for torch's error messages) to keep the fixtures small.
"""
import io
import os
import sys
import warnings
import zipfile

import numpy as np
import torch
import torch.nn.functional as F

warnings.filterwarnings("ignore")
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                   "torchscript", "tensor")
TAG = "t113" if torch.__version__.startswith("1.") else "t2"


class Creation(torch.nn.Module):
    """zeros / ones / full / empty, new_*, *_like, arange, linspace, eye, tensor, casts."""

    def forward(self, x):
        n = x.size(0)
        c = x.size(1)
        dt = x.dtype
        q = (x * x).to(torch.uint8)
        return (torch.zeros(n, 3), torch.zeros([n, c], dtype=torch.int64),
                torch.ones(c, n, dtype=torch.float64), torch.full((n, 2), 1.5),
                torch.full((2, n), 7),
                x.new_zeros(n, 4), x.new_ones((2, n), dtype=torch.int32), x.new_full((n, 2), 3),
                torch.zeros_like(x.new_empty(n, 2)), torch.zeros_like(torch.empty(n, 2)),
                torch.zeros_like(x), torch.ones_like(x, dtype=torch.int64),
                torch.full_like(x, 2.5), torch.full_like(x, 3, dtype=torch.int32),
                torch.zeros_like(torch.empty_like(x)),
                torch.zeros(n, dtype=dt, device=x.device), torch.ones(n, c, dtype=q.dtype),
                torch.arange(n), torch.arange(5), torch.arange(1, n + 3, 2),
                torch.arange(1, n, 2, dtype=torch.float32), torch.arange(0.5, c),
                torch.arange(0, 1, 0.1), torch.arange(n, dtype=torch.float64),
                torch.eye(3), torch.eye(n, 4, dtype=torch.int32), torch.eye(n),
                torch.linspace(0, 1, 5), torch.linspace(-3, 7, 9, dtype=torch.float64),
                torch.linspace(0, 10, 4, dtype=torch.int64), torch.linspace(2, 2, 1),
                torch.tensor([1.0, 2.0]), torch.tensor([[1, 2], [3, 4]]), torch.tensor(3.5),
                torch.tensor([True, False]),
                x.float(), x.long(), x.to(torch.int32), x.type_as(torch.arange(n)),
                x.to(x.dtype), x.half().double(), x.double().float(), q, x.to(torch.bool),
                x.to(device=x.device, dtype=torch.float64), (x * x).to(q), x.int(),
                torch.arange(c, device=x.device).unsqueeze(0).expand(n, -1),
                torch.triu(torch.ones(n, n), diagonal=1).to(torch.bool), x.new_zeros(x.shape))


class CreationScript(torch.nn.Module):
    """Creation a trace would bake in (torch.tensor of sizes, scalar_tensor, dtype tests) or
    1.13 cannot trace (a bool fill)."""

    def forward(self, x):
        n = x.size(0)
        y = torch.zeros(n)
        if x.is_floating_point():
            y = torch.ones(n)
        return (torch.tensor([n, 3]), torch.tensor([float(n), 0.5]), torch.scalar_tensor(n),
                torch.scalar_tensor(n, dtype=torch.int64), torch.tensor(n), y,
                torch.full((n, 2), n), torch.arange(n, 2 * n), torch.full((n,), 1, dtype=torch.bool))


class Shape(torch.nn.Module):
    """flip, roll, narrow, split, unbind, stack family, repeat / tile / expand, tril / triu."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 4)

    def forward(self, x):
        n = x.size(0)
        h = self.fc(x)  # [n, 4]: a dim known at load time, for splits into pieces
        t = h.split(3, 1)
        u = x.split([1, n - 1], 0)
        v = h.unbind(1)
        w = h.split([1, 1, 2], 1)
        s = torch.split(h, 1, 1)
        return (x.flip(0), x.flip([0, 1]), x.roll(1, 0), x.roll(-2, 1), x.roll(3),
                x.roll((1, 2), (0, 1)), h.roll(5, 1),
                x.narrow(0, 0, 1), x.narrow(1, 1, 2), x.narrow(0, -1, 1), x.narrow(0, n - 1, 1),
                t[0], t[1], u[0], u[1], v[0], v[3], w[0], w[2], s[0], s[3],
                torch.stack([x, x], 1), torch.stack([x, h[:, :3]]), torch.stack([x, x], -1),
                torch.hstack([x, x]), torch.vstack([x, h[:, 1:]]), torch.hstack([x[0], x[1]]),
                torch.vstack([x[0], x[1]]),
                x.repeat(2, 1), x.repeat(2, 1, 3), x.tile((2,)), x.tile((2, 1, 2)),
                x.expand(2, -1, -1), x[:1].expand_as(x), x[:, :1].broadcast_to(n, 3),
                x[:, :1].expand(n, 3), x[:, :1].expand(-1, 5),
                torch.tril(x), torch.triu(x, 1), torch.tril(h, -1),
                x.unsqueeze(2).movedim(2, 0), x.unsqueeze(2).movedim((0, 1), (1, 0)),
                h.view_as(h), x.reshape_as(x.t().contiguous()))


class Index(torch.nn.Module):
    """x[idx] forms (aten::index), index_select, gather, scatter, take_along_dim, embedding,
    masks (x[mask], masked_select, masked assignment), x[idx] = v."""

    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(10, 4)

    def forward(self, x):
        n = x.size(0)
        e = torch.arange(n).flip(0)
        mask = torch.relu(x).to(torch.bool)
        idx = torch.zeros_like(x, dtype=torch.int64)
        y = x.clone()
        y[mask] = 0.0
        z = x.clone()
        z[e[:1]] = 7.0
        return (x[e], x[:, torch.tensor([2, 0])], x[e[-2:], e[-2:]],
                x.unsqueeze(0)[:, e[-2:], e[-2:]], x.unsqueeze(1)[e[-2:], :, e[-2:]],
                x[mask], x[:, mask[0]], x[:, 1:][e[:1]], x[e[0]],
                x.index_select(1, torch.tensor([1, 1, 0])), x.index_select(0, e),
                x.gather(1, idx[:, :2]), x.gather(0, idx + 1),
                torch.zeros(n, 5).scatter(1, idx[:, :2] + 1, x),
                torch.zeros(n, 5).scatter(1, idx, 2.5),
                torch.ones(n, 3).scatter_add(0, idx, x),
                torch.take_along_dim(x, idx[:, :1], 1), torch.take_along_dim(x, idx[:1], 0),
                torch.take_along_dim(x, idx.flatten()[:3]),
                self.emb(torch.arange(n).unsqueeze(1)), F.embedding(e, self.emb.weight),
                torch.masked_select(x, mask), x.masked_fill(mask, -1.0), y, z)


class Resize(torch.nn.Module):
    """pads (constant, reflect, replicate, circular), interpolate / Upsample (nearest,
    bilinear, bicubic, linear, trilinear; sizes and scale factors), pixel and channel
    shuffles (aten::channel_shuffle and shufflenet's view / transpose / view)."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 1)
        self.down = torch.nn.Conv2d(3, 2, 3, stride=2, padding=1)
        self.ps = torch.nn.PixelShuffle(2)
        self.pu = torch.nn.PixelUnshuffle(2)
        self.up = torch.nn.Upsample(scale_factor=2.0, mode="nearest")
        self.upb = torch.nn.Upsample(scale_factor=1.5, mode="bilinear", align_corners=False)
        self.cs = torch.nn.ChannelShuffle(2)
        self.rp = torch.nn.ReflectionPad2d((1, 2, 0, 1))
        self.zp = torch.nn.ZeroPad2d(1)
        self.ep = torch.nn.ReplicationPad2d(2)

    def forward(self, x):
        h = self.conv(x)
        b, c, hh, ww = h.size()
        g = h.view(b, 2, -1, hh, ww).transpose(1, 2).contiguous().view(b, -1, hh, ww)
        d = self.down(x)
        return (F.pad(x, (1, 1, 2, 0), mode="reflect"), F.pad(x, (1, 2, 3, 0), value=3.0),
                F.pad(x, (2, 1, 1, 1), mode="replicate"), F.pad(x, (1, 2, 2, 1), mode="circular"),
                F.pad(x, (-1, 1)), F.pad(x[0], (1, 1), mode="reflect"),
                F.interpolate(x, scale_factor=2.0, mode="nearest"),
                F.interpolate(x, size=(5, 7), mode="bilinear", align_corners=False),
                F.interpolate(x, size=(5, 7), mode="bilinear", align_corners=True),
                F.interpolate(x, scale_factor=(1.5, 0.5), mode="bilinear"),
                F.interpolate(x, scale_factor=2.0, mode="bicubic", align_corners=False),
                F.interpolate(x, size=(4, 6), mode="nearest"),
                F.interpolate(x[:, :, 0], scale_factor=3.0, mode="linear"),
                F.interpolate(x.unsqueeze(2), scale_factor=(1.0, 2.0, 2.0), mode="trilinear"),
                self.ps(h), self.pu(x[:, :, :4, :4]), self.cs(h), g, self.up(x), self.upb(x),
                self.rp(x), self.zp(x), self.ep(x),
                F.interpolate(d, size=x.shape[-2:], mode="nearest"),
                F.interpolate(d, size=x.shape[2:], mode="bilinear", align_corners=False))


class Window(torch.nn.Module):
    """swin_t's and maxvit_t's ops: einsum (maxvit's spaced batched products, q k^T, sums,
    "...", three operands, a diagonal), swapaxes / swapdims, and in-place writes through
    slices: fill_ / zero_ / copy_ / add_ of slices (and slices of slices) of a new_zeros mask,
    as swin's shifted-window attention builds it, a write through an empty slice, roll."""

    def forward(self, x):
        n, h, w = x.size(0), x.size(1), x.size(2)
        a = x.view(n, 2, h // 2, w)
        m = x.new_zeros([h, w])
        cnt = 0
        for hs in [(0, -2), (-2, -1), (-1, h)]:
            for ws in [(0, -3), (-3, -1), (-1, w)]:
                m[hs[0]:hs[1], ws[0]:ws[1]] = cnt
                cnt += 1
        z = x.clone()
        z[:, 1:3].fill_(2.0)
        z[1:][:, :, 2:].zero_()
        z[:, -1:, 1:4].copy_(x[:, :1, :3] * 3.0)
        z[:, 2:3].add_(1.0)
        z[:, 3:1].fill_(9.0)
        e = torch.zeros(n, w)
        e[:, 1:].fill_(1.0)
        return (torch.einsum("B G I D, B G J D -> B G I J", a, a * 0.5),
                torch.einsum("B G I J, B G J D -> B G I D", torch.einsum("bgid,bgjd->bgij", a, a),
                             a),
                torch.einsum("bij,bjk->bik", x, x.transpose(1, 2)), torch.einsum("bij->bj", x),
                torch.einsum("...ij->...ji", x), torch.einsum("bij,bkj->bki", x, x),
                torch.einsum("bi,bj,bk->bijk", x[:, 0], x[:, 1], x[:, 2]),
                torch.einsum("bii->bi", x[:, :, :h]), torch.einsum("ij,ij->", x[0], x[0]),
                x.swapaxes(1, 2), x.swapdims(0, 2), m, z, e,
                torch.roll(m, (-1, -2), (0, 1)))


class SwinBlock(torch.nn.Module):
    """Fixed input shapes (ember_model_options_set_input_shape, read by tests/api/
    test_api_shapes.c): a swin-like block whose window pads and reshape targets come from x's
    size and whose Linears see a rank-3 input of windows; with symbolic dims they stay Shape /
    Pad / MatMul + Add, with a fixed shape they fold and the Linears become Gemms."""

    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(8)
        self.fc1 = torch.nn.Linear(8, 16)
        self.fc2 = torch.nn.Linear(16, 8)

    def forward(self, x):
        n, h, w, c = x.shape
        ph = (3 - h % 3) % 3
        pw = (3 - w % 3) % 3
        y = F.pad(self.norm(x), (0, 0, 0, pw, 0, ph))
        hp, wp = h + ph, w + pw
        y = y.view(n, hp // 3, 3, wp // 3, 3, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, 9, c)
        y = self.fc2(F.gelu(self.fc1(y)))
        y = y.view(n, hp // 3, wp // 3, 3, 3, c).permute(0, 1, 3, 2, 4, 5).reshape(n, hp, wp, c)
        return x + y[:, :h, :w]


def models():
    return {
        # name: (constructor, traced input shape, another shape, kinds)
        "creation": (Creation, (2, 3), (5, 3), ("trace", "script")),
        "creation_script": (CreationScript, (2, 3), (4, 3), ("script",)),
        "shape": (Shape, (3, 3), (5, 3), ("trace", "script")),
        "index": (Index, (3, 3), (5, 3), ("trace", "script")),
        "resize": (Resize, (1, 3, 4, 6), (2, 3, 6, 4), ("trace", "script")),
        "window": (Window, (2, 4, 6), (3, 6, 7), ("trace", "script")),
        "swinblock": (SwinBlock, (1, 5, 7, 8), (2, 6, 6, 8), ("trace", "script")),
    }


def flatten(ys):
    out = []
    for y in ys if isinstance(ys, (tuple, list)) else (ys,):
        if isinstance(y, (tuple, list)):
            out.extend(flatten(y))
        else:
            out.append(y.detach().numpy())
    return out


def agree(got, want):
    if len(got) != len(want):
        return "%d outputs, expected %d" % (len(got), len(want))
    for i, (g, w) in enumerate(zip(got, want)):
        if g.dtype != w.dtype or g.shape != w.shape:
            return "output %d: %s%s, expected %s%s" % (i, g.dtype, g.shape, w.dtype, w.shape)
        ok = (np.allclose(g, w, rtol=1e-4, atol=1e-5) if w.dtype.kind == "f"
              else np.array_equal(g, w))
        if not ok:
            return "output %d differs" % i
    return None


def save_npys(path, arrays):
    with open(path, "wb") as f:
        for a in arrays:
            b = io.BytesIO()
            np.save(b, a.copy(order="C"))
            f.write(len(b.getvalue()).to_bytes(8, "little"))
            f.write(b.getvalue())


def load_npys(path):
    out = []
    data = open(path, "rb").read()
    at = 0
    while at < len(data):
        n = int.from_bytes(data[at:at + 8], "little")
        out.append(np.load(io.BytesIO(data[at + 8:at + 8 + n])))
        at += 8 + n
    return out


def small_archive(path):
    """The archive without its debug records, every record deflated."""
    src = zipfile.ZipFile(path)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if not info.filename.endswith(".debug_pkl"):
                dst.writestr(info.filename, src.read(info), zipfile.ZIP_DEFLATED)
    src.close()
    with open(path, "wb") as f:
        f.write(buf.getvalue())


def main():
    """Every model, or those named on the command line."""
    os.makedirs(OUT, exist_ok=True)
    only = sys.argv[1:]
    for name, (ctor, shape, shape2, kinds) in models().items():
        if only and name not in only:
            continue
        torch.manual_seed(0)
        m = ctor().eval()
        gen = torch.Generator().manual_seed(1)
        inputs = [torch.randn(*shape, generator=gen), torch.randn(*shape2, generator=gen)]
        refs = []
        for i, x in enumerate(inputs):
            sfx = "" if i == 0 else "2"
            in_path = os.path.join(OUT, "%s.in%s.npy" % (name, sfx))
            if TAG == "t113":
                np.save(in_path, x.numpy())
            x = inputs[i] = torch.from_numpy(np.load(in_path))
            with torch.no_grad():
                ys = flatten(m(x))
            out_path = os.path.join(OUT, "%s.out%s.npys" % (name, sfx))
            if TAG == "t113":
                save_npys(out_path, ys)
            want = load_npys(out_path)
            why = agree(ys, want)
            if why is not None:
                sys.exit("gen_ts_tensor_fixtures: %s: eager %s disagrees with 1.13: %s"
                         % (name, torch.__version__, why))
            refs.append(want)
        for kind in kinds:
            with torch.no_grad():
                ts = (torch.jit.trace(m, inputs[0], check_trace=False) if kind == "trace"
                      else torch.jit.script(m))
            path = os.path.join(OUT, "%s.%s.%s.pt" % (name, kind, TAG))
            torch.jit.save(ts, path)
            small_archive(path)
            back = torch.jit.load(path)
            for x, want in zip(inputs, refs):
                with torch.no_grad():
                    why = agree(flatten(back(x)), want)
                if why is not None:
                    sys.exit("gen_ts_tensor_fixtures: %s: the archive disagrees with eager on "
                             "shape %s: %s" % (path, tuple(x.shape), why))
            print("gen_ts_tensor_fixtures: %s (%d bytes)" % (path, os.path.getsize(path)))


if __name__ == "__main__":
    main()
