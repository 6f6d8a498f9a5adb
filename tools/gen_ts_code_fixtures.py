#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generates the TorchScript code fixtures of the serialized-code parser (committed; the tests
never run Python).

  tests/data/torchscript/code/<model>/...py   the code/ folder of torch.jit.save(<model>):
                                              text only, no weights, no pickles
  tests/data/torchscript/schemas_<tag>.txt    str() of every torch._C._jit_get_all_schemas()
                                              entry, sorted, one a line
  tests/data/torchscript/schemas_yaml.txt     the func: lines of torchgen's
                                              native_functions.yaml spelled differently
  tests/fuzz/corpus/fuzz_ts_parse/            seeds: small code files and snippets
  tests/fuzz/corpus/fuzz_ts_schema/           seeds: schemas and type annotation strings

Run it with Debian's PyTorch 1.13 (tag torch1) and, when available, with a torch 2.x venv
(tag torch2: its models go to <model>.torch2/, its schema file keeps only the schemas torch 1.13
does not have, so run torch1 first):

  /usr/bin/python3 tools/gen_ts_code_fixtures.py
  /work/venv-torch/bin/python tools/gen_ts_code_fixtures.py

Names of MODELS as arguments regenerate only those (the schema files are always rewritten).

Models: torchvision classifiers (scripted and traced), a scripted Faster R-CNN, nn.LSTM/GRU/
TransformerEncoder, eager-mode and dynamic quantized models, and small scripted modules
written here to reach the printer's statement and expression forms (loops, refinement,
NamedTuple, Enum, script classes, interfaces, fork, string formatting, with, raise, assert...).
Each model is scripted in a fresh process with PYTHONHASHSEED=0, so the output is the same
from run to run (TorchScript numbers ___torch_mangle_N per process).

Files whose text is identical to an already written file of the same model once their
___torch_mangle_N numbers are blanked are dropped (the parser sees nothing new in them), which
keeps the folder to a few MB.
"""
import enum
import io
import os
import re
import shutil
import subprocess
import sys
import warnings
import zipfile
from typing import Dict, List, NamedTuple, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

warnings.filterwarnings("ignore")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "data", "torchscript")
MAJOR = int(torch.__version__.split(".")[0])
TAG = "torch1" if MAJOR < 2 else "torch2"
SUFFIX = "" if MAJOR < 2 else ".torch2"


# ---- small scripted modules reaching many printer forms ----------------------------------

class Point(NamedTuple):
    x: torch.Tensor
    y: Optional[torch.Tensor]


class Color(enum.Enum):
    RED = 1
    GREEN = 2


@torch.jit.script
class Counter(object):
    def __init__(self, start: int):
        self.count = start
        self.names: List[str] = []

    def bump(self, by: int = 1) -> int:
        self.count += by
        return self.count


@torch.jit.interface
class Scaler(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pass


class Double(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * 2.0


def helper(x: torch.Tensor, k: int = 3, scale: float = 0.5, name: str = "a'b\"c\n",
           flag: bool = True, dims: Tuple[int, int] = (1, 2),
           opt: Optional[int] = None) -> torch.Tensor:
    if opt is not None:
        k = k + opt
    return x * scale + k


def pick(c: Color, xs: List[int]) -> int:
    ys = [x * 2 for x in xs]
    dd = {str(i): i for i in ys}
    if c == Color.GREEN:
        return c.value + len(dd)
    return len(c.name) + ys[-1]


def forked(x: torch.Tensor) -> torch.Tensor:
    fut = torch.jit.fork(torch.neg, x)
    y = torch.jit.wait(fut)
    if torch.jit.is_scripting():
        warnings.warn("scripting")
    t = (y, 3)
    return t[0] + t[1]


class ControlFlow(nn.Module):
    sizes: torch.jit.Final[List[int]]
    eps: torch.jit.Final[float]
    scaler: Scaler

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.seq = nn.Sequential(nn.ReLU(), nn.Identity())
        self.mods = nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 4)])
        self.table = nn.ModuleDict({"a": nn.Tanh(), "b": nn.Sigmoid()})
        self.scaler: Scaler = Double()
        self.register_buffer("running", torch.zeros(4))
        self.sizes = [1, 2, 3]
        self.eps = 1e-5
        self.tag = "ctl"
        self.maybe: Optional[torch.Tensor] = None

    @torch.jit.export
    def loops(self, x: torch.Tensor, n: int) -> Tuple[torch.Tensor, int]:
        acc = 0
        i = 0
        while i < n and acc < 100:
            acc += int(i ** 2) // 3 % 7
            i += 1
            if acc > 50:
                break
        for j in range(n):
            if j % 2 == 0:
                continue
            x = x + j
        for s in self.sizes:
            acc = acc - s << 1 | 3 & 5 ^ 1 >> 1
        for a, b in zip([1, 2], [3, 4]):
            acc += a * b
        for k, v in {"p": 1, "q": 2}.items():
            acc += v + len(k)
        return x, acc

    @torch.jit.export
    def strings(self, x: torch.Tensor) -> str:
        s = "value {} and {}".format(x.size(0), self.tag)
        t = f"shape={x.shape} eps={self.eps}"
        u = 'single \'quoted\' \t tab \\ back "dq"'
        if s.startswith("v") and not t.endswith("x") or u in s:
            s = s + u[1:3] + t[::2]
        return s + str(len(t)) + "\u00e9"

    @torch.jit.export
    def refine(self, x: torch.Tensor, y: Optional[torch.Tensor] = None) -> torch.Tensor:
        if y is None:
            y = torch.ones_like(x)
        else:
            y = y * 2
        m = self.maybe
        if m is not None:
            y = y + m
        assert x.dim() > 0, "need a non-scalar"
        if x.numel() == 0:
            raise RuntimeError("empty input")
        z = x if x.sum() > 0 else -x
        w = z[1:3, ..., None] if z.dim() > 1 else z[:, 0:-1:2] if z.dim() == 2 else z[0]
        d: Dict[str, torch.Tensor] = {}
        d["w"] = w
        lst: List[torch.Tensor] = []
        lst.append(z)
        del lst[0]
        if isinstance(w, torch.Tensor):
            y = y + 1
        return y + d["w"].sum() + float("inf") - float("-inf") * 0.0 + 1.5e-7 + 2e10

    @torch.jit.export
    def structs(self, x: torch.Tensor) -> Point:
        c = Counter(3)
        c.bump()
        c.bump(2)
        col = Color.RED
        v = col.value
        p = Point(x, None)
        q = p.y
        if q is not None:
            x = x + q
        with torch.no_grad():
            x = x + v
        return Point(x @ x.t(), x.masked_fill(x > 0.5, -1e9))

    def forward(self, x: torch.Tensor, n: int = 2) -> torch.Tensor:
        x = self.lin(x)
        x = self.seq(x)
        for m in self.mods:
            x = m(x)
        x = self.table["a"](x) + self.scaler.forward(x)
        y, k = self.loops(x, n)
        x = helper(y, k, name="x") + pick(Color.RED, [k, n]) + forked(x)
        x = self.refine(x, None)
        x = torch.cat([x, x], dim=-1)[..., :4]
        x = F.relu(x, inplace=False) + self.running
        out = x.view(-1, 2, 2).permute(0, 2, 1).contiguous()
        out = out.reshape(out.shape[0], -1)
        a, b = out.chunk(2, 1)
        if not bool(a.any()) or (b == 0).all():
            out = out.clamp(min=-self.eps, max=self.eps)
        return out + (2 ** -1) + (1 if n > 1 else 0) + self.structs(x).x


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True, bidirectional=True)
        self.gru = nn.GRU(8, 16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y, (h, c) = self.lstm(x)
        z, hg = self.gru(x)
        return y.sum() + h.sum() + c.sum() + z.sum() + hg.sum()


class QuantSmall(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = torch.quantization.QuantStub()
        self.conv = nn.Conv2d(3, 8, 3)
        self.bn = nn.BatchNorm2d(8)
        self.relu = nn.ReLU()
        self.fc = nn.Linear(8, 4)
        self.dequant = torch.quantization.DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.relu(self.bn(self.conv(x)))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        x = self.fc(x)
        return self.dequant(x)


def quantized_static():
    for engine in ("x86", "fbgemm", "onednn", "qnnpack"):
        if engine in torch.backends.quantized.supported_engines:
            torch.backends.quantized.engine = engine
            break
    m = QuantSmall().eval()
    m = torch.quantization.fuse_modules(m, [["conv", "bn", "relu"]])
    m.qconfig = torch.quantization.get_default_qconfig(torch.backends.quantized.engine)
    torch.quantization.prepare(m, inplace=True)
    m(torch.randn(2, 3, 8, 8))
    torch.quantization.convert(m, inplace=True)
    return torch.jit.script(m)


def quantized_dynamic():
    m = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))
    q = torch.quantization.quantize_dynamic(m, {nn.Linear}, dtype=torch.qint8)
    return torch.jit.script(q)


def quantized_dynamic_lstm():
    m = nn.LSTM(8, 8)
    q = torch.quantization.quantize_dynamic(m, {nn.LSTM}, dtype=torch.qint8)
    return torch.jit.script(q)


# ---- model list -----------------------------------------------------------------------------

def tv(name, **kw):
    import torchvision
    return getattr(torchvision.models, name)(**kw).eval()


def scripted(name, **kw):
    return lambda: torch.jit.script(tv(name, **kw))


def traced(name, shape, **kw):
    return lambda: torch.jit.trace(tv(name, **kw), torch.randn(*shape))


def transformer():
    layer = nn.TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32)
    return torch.jit.script(nn.TransformerEncoder(layer, num_layers=2).eval())


def detection():
    import torchvision
    return torch.jit.script(torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn(
        weights=None, weights_backbone=None, num_classes=3).eval())


MODELS = {
    "resnet18": scripted("resnet18"),
    "resnet18_traced": traced("resnet18", (1, 3, 64, 64)),
    "googlenet": scripted("googlenet", aux_logits=True, init_weights=False),
    "inception_v3": scripted("inception_v3", aux_logits=True, init_weights=False),
    "mobilenet_v3_small": scripted("mobilenet_v3_small"),
    "efficientnet_b0": scripted("efficientnet_b0"),
    "vit_b_16": scripted("vit_b_16"),
    "convnext_tiny": scripted("convnext_tiny"),
    "regnet_y_400mf": scripted("regnet_y_400mf"),
    "densenet121_traced": traced("densenet121", (1, 3, 64, 64)),
    "lstm_gru": lambda: torch.jit.script(Recurrent()),
    "lstm_traced": lambda: torch.jit.trace(nn.LSTM(4, 8), torch.randn(3, 1, 4)),
    "transformer_encoder": transformer,
    "control_flow": lambda: torch.jit.script(ControlFlow()),
    "quantized_static": quantized_static,
    "quantized_dynamic": quantized_dynamic,
    "quantized_dynamic_lstm": quantized_dynamic_lstm,
    "fasterrcnn": detection,
}


# ---- writing --------------------------------------------------------------------------------

MANGLE = re.compile(r"___torch_mangle_\d+")


def save_code(name, module):
    buf = io.BytesIO()
    torch.jit.save(module, buf)
    dest = os.path.join(OUT, "code", name + SUFFIX)
    seen = set()
    n = 0
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as z:
        for entry in sorted(z.namelist()):
            parts = entry.split("/")
            if len(parts) < 3 or parts[1] != "code" or not entry.endswith(".py"):
                continue
            text = z.read(entry)
            key = MANGLE.sub("___torch_mangle_N", text.decode("utf-8"))
            if key in seen:
                continue
            seen.add(key)
            path = os.path.join(dest, *parts[2:])
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(text)
            n += 1
    print(f"{name + SUFFIX}: {n} files")


def save_schemas():
    schemas = sorted(set(str(s) for s in torch._C._jit_get_all_schemas()))
    if MAJOR >= 2:
        base = os.path.join(OUT, "schemas_torch1.txt")
        if os.path.exists(base):
            with open(base, encoding="utf-8") as f:
                old = set(f.read().splitlines())
            schemas = [s for s in schemas if s not in old]
    with open(os.path.join(OUT, f"schemas_{TAG}.txt"), "w", encoding="utf-8") as f:
        for s in schemas:
            f.write(s + "\n")
    print(f"schemas_{TAG}.txt: {len(schemas)} schemas")


def save_yaml_schemas():
    """The func: lines of torchgen's native_functions.yaml that str(schema) spells differently
    (identifier defaults such as Mean, long, contiguous_format; `[-2,-1]`): added to
    schemas_yaml.txt, which both torch versions extend."""
    try:
        import torchgen
    except ImportError:
        return
    path = os.path.join(os.path.dirname(torchgen.__file__), "packaged", "ATen", "native",
                        "native_functions.yaml")
    if not os.path.exists(path):
        return
    known = set()
    for tag in ("torch1", "torch2"):
        name = os.path.join(OUT, f"schemas_{tag}.txt")
        if os.path.exists(name):
            with open(name, encoding="utf-8") as f:
                known.update(re.sub(r"^aten::", "", s) for s in f.read().splitlines())
    out = os.path.join(OUT, "schemas_yaml.txt")
    lines = set()
    if os.path.exists(out):
        with open(out, encoding="utf-8") as f:
            lines = set(f.read().splitlines())
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("- func: "):
                func = line[len("- func: "):].strip()
                if func not in known:
                    lines.add(func)
    with open(out, "w", encoding="utf-8") as f:
        for s in sorted(lines):
            f.write(s + "\n")
    print(f"schemas_yaml.txt: {len(lines)} schemas")


def make_one(name):
    torch.manual_seed(0)
    try:
        module = MODELS[name]()
    except Exception as e:  # a model this torch cannot script: say so, go on
        print(f"{name + SUFFIX}: skipped ({type(e).__name__}: {str(e).splitlines()[0]})")
        return
    save_code(name, module)


# Seeds for the fuzzers beside the fixture files: forms the printer does not write.
CODE_SEEDS = [
    "def f(x: Tensor, n: int=-2) -> Tuple[Tensor, int]:\n"
    "  a = b = x\n  c: int = 3\n  self.w, t[0], = x, y\n  x //= 2\n"
    "  if a:\n    pass\n  elif b:\n    break\n  else:\n    return\n"
    "  for i, (j, k) in enumerate(z):\n    del x[0], y\n"
    "  while not done:\n    raise ValueError(\"x\")\n"
    "  with a as b, c:\n    assert x, \"msg\"\n"
    "  def inner(y, z=None):\n    return y\n  return x, n\n",
    "def g():\n  return -a ** b, a if b else c, x[1:-1:2, ..., None], {'a': 1}, [1, 2.5e-3, ]\n",
    "def h():\n  return not a < b <= c is not d not in e and f or ~g | h ^ i & j << k >> l\n",
    "op_version_set = 1\nimport torch\nclass A(Module):\n  __parameters__ = [\"w\", ]\n"
    "  __annotations__[\"0\"] = __torch__.B\n  k : Final[int] = 3\n"
    "  def f(self): return 1; pass\n",
    "def s():\n  return \"\\x41\\101\\u00e9\\n\" 'b' '''c\nd''' -9223372036854775808 + inf - nan\n",
]
SCHEMA_SEEDS = [
    "foo::bar(Tensor! x, Tensor(a|b! -> b) y, Tensor(a)?[] z, int[2]? s=1) -> Tensor(a|b)",
    "aten::items.str(Dict(str, t) self) -> ((str, t)[])",
    "mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor",
    "prim::Print(...) -> ()",
    "static_runtime::VarTupleUnpack(...) -> ...",
    "aten::wait(Future(t) self) -> t",
    "aten::relu",
]
TYPE_SEEDS = [
    "Dict[str, Tensor]", "List[Optional[Tensor]]", "Tuple[int, List[float]]",
    "__torch__.foo.Bar", "NoneType", "number", "Any", "Device", "t", "Tuple[()]",
    "Union[int, str, NoneType]", "Future[Tensor]", "Final[int]",
]


def save_corpus():
    corpus = os.path.join(ROOT, "tests", "fuzz", "corpus")
    code_dir = os.path.join(corpus, "fuzz_ts_parse")
    schema_dir = os.path.join(corpus, "fuzz_ts_schema")
    for d in (code_dir, schema_dir):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    small = []
    for dirpath, _, files in os.walk(os.path.join(OUT, "code")):
        for f in files:
            path = os.path.join(dirpath, f)
            if f.endswith(".py") and 0 < os.path.getsize(path) < 4000:
                small.append(path)
    small.sort()
    seeds, shapes = [], set()
    for path in small:
        with open(path, "rb") as f:
            text = f.read()
        shape = re.sub(rb"\w+", b"w", text)  # one seed per shape of code
        if shape not in shapes and len(seeds) < 40:
            shapes.add(shape)
            seeds.append(text)
    seeds += [s.encode() for s in CODE_SEEDS]
    for i, text in enumerate(seeds):
        with open(os.path.join(code_dir, f"seed_{i:03d}.py"), "wb") as f:
            f.write(text)
    lines = []
    for name in sorted(os.listdir(OUT)):
        if name.startswith("schemas_"):
            with open(os.path.join(OUT, name), encoding="utf-8") as f:
                lines += f.read().splitlines()[::150]
    lines += SCHEMA_SEEDS + TYPE_SEEDS
    for i, text in enumerate(lines):
        with open(os.path.join(schema_dir, f"seed_{i:03d}.txt"), "w", encoding="utf-8") as f:
            f.write(text)
    print(f"fuzz corpora: {len(seeds)} code seeds, {len(lines)} schema/type seeds")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        make_one(sys.argv[2])
        return
    only = sys.argv[1:]
    os.makedirs(OUT, exist_ok=True)
    save_schemas()
    save_yaml_schemas()
    for name in MODELS:
        if only and name not in only:
            continue
        # One process per model: TorchScript numbers the ___torch_mangle_N classes per
        # process, so a fresh one keeps each model's files the same whatever ran before; a
        # fixed hash seed keeps the order of class constants (a set) the same.
        shutil.rmtree(os.path.join(OUT, "code", name + SUFFIX), ignore_errors=True)
        env = dict(os.environ, PYTHONHASHSEED="0")
        subprocess.run([sys.executable, os.path.abspath(__file__), "--one", name], check=True,
                       env=env)
    save_corpus()


if __name__ == "__main__":
    main()
