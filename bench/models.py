# SPDX-License-Identifier: Apache-2.0
"""Makes the benchmark's models (run by bench/run.py under each PyTorch, never imported by it).

Two stages, each run by the Python that has that PyTorch:

  --stage torch2   (PyPI torch 2.x, bench/.env/torch2/bin/python from bench/setup.sh)
      builds each model with a fixed seed and random weights (weights=None: nothing is
      downloaded), gives BatchNorm layers random statistics (so Conv+BN folding is exercised),
      and writes to CACHE/<model>/:
        weights.npz          the state dict (numpy), the single source of the weights
        input.npy            the input (numpy RNG, fixed seed)
        ref.npy              the eager output of torch 2.x (the reference for every runtime)
        trace-torch2.pt      torch.jit.trace under no_grad, saved by torch 2.x
        script-torch2.pt     torch.jit.script, where scripting works
        meta-torch2.json     versions, shapes, FLOPs, what failed and why
  --stage torch1   (Debian's torch 1.13, /usr/bin/python3; it also has onnx)
      loads weights.npz into the same architecture and writes
        model.onnx           torch.onnx.export, opset 17 (torch 2.x's exporter needs the onnx
                             package, which that venv lacks)
        trace-torch1.pt, script-torch1.pt, meta-torch1.json
      and records the eager torch 1.13 output's max abs diff from ref.npy.

Model list: the torchvision constructors of tools/ts_models.py (the TorchScript loader's own
list) plus this file's LSTM and TransformerEncoder.

The suite (bench/run.py --suite) uses two more stages, both under torch 2.x (with torchvision
and the onnx package, from bench/setup.sh):

  --stage suite-list
      prints every torchvision classification model (torchvision.models.list_models(
      module=torchvision.models)) plus transformer_d128, with its input shape, parameter count
      and Conv/Linear FLOPs, measured on the meta device (nothing is allocated or computed).
  --stage suite --models NAME
      builds NAME (weights=None, seed 0, random BatchNorm statistics) and writes to
      CACHE/NAME/: input.npy, ref.npy, trace-torch2.pt, op13.onnx and op17.onnx
      (torch.onnx.export with dynamo=False, the TorchScript-based exporter most published
      ONNX files come from; constant folding), meta-suite.json.
"""
import argparse
import json
import os
import sys
import time
import traceback

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools"))
import ts_models  # noqa: E402  (tools/ts_models.py: torchvision constructors)

SPEC_VERSION = 1          # bump when a model's definition or the files written change
ONNX_OPSET = 17
SEED = 0


class LSTM(torch.nn.Module):
    """nn.LSTM(64, 128, 2 layers); returns the output sequence [seq, batch, 128]."""

    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.LSTM(64, 128, num_layers=2)

    def forward(self, x):
        y, _ = self.rnn(x)
        return y


def transformer(d_model=256, ff=2048):
    layer = torch.nn.TransformerEncoderLayer(d_model, 4, ff)  # relu, post-norm
    m = torch.nn.TransformerEncoder(layer, 2)
    # The encoder deep-copies one layer: draw every layer's weights afresh so they differ.
    for mod in m.modules():
        if isinstance(mod, torch.nn.MultiheadAttention):
            mod._reset_parameters()
        elif isinstance(mod, torch.nn.Linear) and not isinstance(
                mod, torch.nn.modules.linear.NonDynamicallyQuantizableLinear):
            mod.reset_parameters()
    return m


def _lstm_flops(seq=32, i=64, h=128, layers=2):
    f, n_in = 0, i
    for _ in range(layers):
        f += 2 * seq * 4 * h * (n_in + h)
        n_in = h
    return f


def _transformer_flops(s=64, d=256, ff=2048, layers=2):
    per = 2 * (4 * s * d * d + 2 * s * s * d + 2 * s * d * ff)  # qkv+out proj, attn, ffn
    return layers * per


# name -> (constructor, input shape, shape note for the table)
MODELS = {}
for _n in ("resnet18", "resnet50", "mobilenet_v2", "squeezenet1_1", "efficientnet_b0",
           "densenet121"):
    MODELS[_n] = (ts_models.TORCHVISION[_n][0], ts_models.TORCHVISION[_n][1], None)
MODELS["lstm"] = (LSTM, (32, 1, 64), "LSTM 64->128 x2 layers, [seq 32, batch 1, 64]")
MODELS["transformer"] = (transformer, (64, 1, 256),
                         "TransformerEncoder d256 h4 ff2048 x2, [seq 64, batch 1, 256]")
# Any other torchvision model tools/ts_models.py knows can be asked for by name.
for _n, (_c, _s) in ts_models.TORCHVISION.items():
    MODELS.setdefault(_n, (_c, _s, None))

DEFAULT = ["resnet18", "resnet50", "mobilenet_v2", "squeezenet1_1", "efficientnet_b0",
           "densenet121", "lstm", "transformer"]


def build(name):
    torch.manual_seed(SEED)
    ctor, shape, _ = MODELS[name]
    return ctor().eval(), shape


def randomize_bn(m):
    g = torch.Generator().manual_seed(SEED + 1)
    with torch.no_grad():
        for mod in m.modules():
            if isinstance(mod, torch.nn.modules.batchnorm._BatchNorm):
                c = mod.num_features
                mod.running_mean.copy_(torch.randn(c, generator=g) * 0.1)
                mod.running_var.copy_(torch.rand(c, generator=g) + 0.5)
                if mod.affine:
                    mod.weight.copy_(torch.rand(c, generator=g) + 0.5)
                    mod.bias.copy_(torch.randn(c, generator=g) * 0.1)


def conv_linear_flops(m, x):
    """FLOPs (2 per multiply-add) of Conv2d and Linear modules, by forward hooks."""
    tot = {"conv": 0, "linear": 0}

    def hook(mod, inp, out):
        if isinstance(mod, torch.nn.Conv2d):
            kh, kw = mod.kernel_size
            tot["conv"] += 2 * out.numel() * (mod.in_channels // mod.groups) * kh * kw
        elif isinstance(mod, torch.nn.Linear):
            tot["linear"] += 2 * out.numel() * mod.in_features

    hs = [mod.register_forward_hook(hook) for mod in m.modules()
          if isinstance(mod, (torch.nn.Conv2d, torch.nn.Linear))]
    with torch.no_grad():
        m(x)
    for h in hs:
        h.remove()
    return tot


def first_line(e):
    s = "%s: %s" % (type(e).__name__, str(e).strip())
    return s.splitlines()[0][:300] if s else type(e).__name__


def save_ts(m, x, kind, path, meta):
    t0 = time.perf_counter()
    try:
        with torch.no_grad():
            if kind == "trace":
                ts = torch.jit.trace(m, x, check_trace=False)
            else:
                ts = torch.jit.script(m)
        torch.jit.save(ts, path)
        meta["forms"][os.path.basename(path)] = {"ok": True,
                                                 "seconds": time.perf_counter() - t0}
    except Exception as e:  # a form that does not work is recorded, not fatal
        meta["forms"][os.path.basename(path)] = {"ok": False, "error": first_line(e)}
        if os.path.exists(path):
            os.remove(path)


def random_bn_and_input(m, shape, d):
    """Random BatchNorm statistics, and the input (numpy RNG, seed 0) saved as d/input.npy."""
    randomize_bn(m)
    x_np = np.random.default_rng(SEED).standard_normal(shape).astype(np.float32)
    np.save(os.path.join(d, "input.npy"), x_np)
    return torch.from_numpy(x_np)


def stage_torch2(name, d):
    m, shape = build(name)
    x = random_bn_and_input(m, shape, d)
    np.savez(os.path.join(d, "weights.npz"),
             **{k: v.detach().cpu().numpy() for k, v in m.state_dict().items()})
    with torch.no_grad():
        ref = m(x)
    np.save(os.path.join(d, "ref.npy"), ref.numpy())
    fl = conv_linear_flops(m, x)
    if name == "lstm":
        fl = {"conv": 0, "linear": _lstm_flops()}
    elif name == "transformer":
        fl = {"conv": 0, "linear": _transformer_flops()}
    meta = {"spec": SPEC_VERSION, "torch": torch.__version__, "model": name,
            "input_shape": list(shape), "output_shape": list(ref.shape),
            "note": MODELS[name][2], "flops": fl, "forms": {}}
    save_ts(m, x, "trace", os.path.join(d, "trace-torch2.pt"), meta)
    save_ts(m, x, "script", os.path.join(d, "script-torch2.pt"), meta)
    return meta


def stage_torch1(name, d):
    m, shape = build(name)
    w = np.load(os.path.join(d, "weights.npz"))
    m.load_state_dict({k: torch.from_numpy(w[k]) for k in w.files}, strict=True)
    m.eval()
    x = torch.from_numpy(np.load(os.path.join(d, "input.npy")))
    ref = np.load(os.path.join(d, "ref.npy"))
    with torch.no_grad():
        y = m(x).numpy()
    meta = {"spec": SPEC_VERSION, "torch": torch.__version__, "model": name,
            "eager_max_abs_diff_vs_ref": float(np.max(np.abs(y - ref))), "forms": {}}
    path = os.path.join(d, "model.onnx")
    t0 = time.perf_counter()
    try:
        with torch.no_grad():
            torch.onnx.export(m, (x,), path, opset_version=ONNX_OPSET,
                              input_names=["input"], output_names=["output"],
                              do_constant_folding=True)
        meta["forms"]["model.onnx"] = {"ok": True, "seconds": time.perf_counter() - t0,
                                       "opset": ONNX_OPSET}
    except Exception as e:
        meta["forms"]["model.onnx"] = {"ok": False, "error": first_line(e)}
    save_ts(m, x, "trace", os.path.join(d, "trace-torch1.pt"), meta)
    save_ts(m, x, "script", os.path.join(d, "script-torch1.pt"), meta)
    return meta


# ----------------------------------------------------------------------------- the suite

SUITE_SPEC = 2           # bump when a suite model's definition or export changes
SUITE_OPSETS = (13, 17)
# Beyond torchvision's list: the small TransformerEncoder (d_model 128, 4 heads, ff 512).
SUITE_EXTRA = {"transformer_d128": (lambda: transformer(128, 512), (64, 1, 128))}
# torchvision defaults otherwise; these two as tools/ts_models.py builds them (eval-only).
SUITE_KWARGS = {"googlenet": {"aux_logits": False, "init_weights": False},
                "inception_v3": {"aux_logits": False, "init_weights": False}}


def suite_names():
    import torchvision
    return list(torchvision.models.list_models(module=torchvision.models)) + list(SUITE_EXTRA)


def suite_build(name):
    """(model, input shape) of a suite model, random weights (nothing is downloaded)."""
    if name in SUITE_EXTRA:
        ctor, shape = SUITE_EXTRA[name]
        return ctor().eval(), shape
    import torchvision
    shape = (1, 3, 299, 299) if name == "inception_v3" else (1, 3, 224, 224)
    return torchvision.models.get_model(name, weights=None, **SUITE_KWARGS.get(name, {})).eval(), shape


def suite_list(only=None):
    """name -> input shape, parameters and Conv/Linear FLOPs, from the meta device (of the
    models in `only` when given; every name is listed)."""
    out = {}
    for name in suite_names():
        if only and name not in only:
            out[name] = {}
            continue
        info = {}
        try:
            try:
                with torch.device("meta"):
                    m, shape = suite_build(name)
            except NotImplementedError:   # an initialiser that copies data (RegNet): build on
                m, shape = suite_build(name)  # the CPU, then move to the meta device
                m = m.to("meta")
            info["input_shape"] = list(shape)
            info["params"] = sum(p.numel() for p in m.parameters())
            info["flops"] = conv_linear_flops(m, torch.empty(shape, device="meta"))
        except Exception as e:  # recorded: run.py decides what to do with a model it cannot size
            info["error"] = first_line(e)
        out[name] = info
    return out


def stage_suite(name, d):
    torch.manual_seed(SEED)
    m, shape = suite_build(name)
    x = random_bn_and_input(m, shape, d)
    with torch.no_grad():
        ref = m(x)
    np.save(os.path.join(d, "ref.npy"), ref.numpy())
    meta = {"spec": SUITE_SPEC, "torch": torch.__version__, "model": name,
            "input_shape": list(shape), "output_shape": list(ref.shape),
            "params": sum(p.numel() for p in m.parameters()),
            "flops": conv_linear_flops(m, x), "forms": {}}
    save_ts(m, x, "trace", os.path.join(d, "trace-torch2.pt"), meta)
    for opset in SUITE_OPSETS:
        fname = "op%d.onnx" % opset
        path = os.path.join(d, fname)
        t0 = time.perf_counter()
        sdpa = torch.nn.functional.scaled_dot_product_attention
        calls = []
        if opset < 14:   # no exporter symbolic for SDPA before opset 14: write its math form
            torch.nn.functional.scaled_dot_product_attention = \
                lambda *a, **k: calls.append(1) or sdpa_math(*a, **k)
        fastpath = torch.backends.mha.get_fastpath_enabled()
        # MultiheadAttention's inference fast path (aten::_native_multi_head_attention) has
        # no ONNX symbolic: export the module's ordinary path (the trace keeps the fast path).
        torch.backends.mha.set_fastpath_enabled(False)
        try:
            with torch.no_grad():
                torch.onnx.export(m, (x,), path, opset_version=opset, dynamo=False,
                                  input_names=["input"], output_names=["output"],
                                  do_constant_folding=True)
            meta["forms"][fname] = {"ok": True, "seconds": time.perf_counter() - t0,
                                    "opset": opset, "sdpa_as_math": bool(calls)}
        except Exception as e:
            meta["forms"][fname] = {"ok": False, "error": first_line(e)}
            if os.path.exists(path):
                os.remove(path)
        finally:
            torch.nn.functional.scaled_dot_product_attention = sdpa
            torch.backends.mha.set_fastpath_enabled(fastpath)
    return meta


def sdpa_math(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, **_):
    """F.scaled_dot_product_attention as MatMul, Softmax, MatMul (eval: no dropout), the form
    torch 1.x's MultiheadAttention exported: opset 13 has no fused attention."""
    a = torch.matmul(q, k.transpose(-2, -1)) * (scale or 1.0 / float(q.size(-1)) ** 0.5)
    if is_causal:
        n, s = q.size(-2), k.size(-2)
        attn_mask = torch.ones(n, s, dtype=torch.bool).tril()
    if attn_mask is not None:
        a = a.masked_fill(~attn_mask, float("-inf")) if attn_mask.dtype == torch.bool else a + attn_mask
    return torch.matmul(torch.softmax(a, -1), v)


def weights_stamp(d):
    """Identifies the weights file, so torch1's files are remade when torch2 remade it."""
    try:
        st = os.stat(os.path.join(d, "weights.npz"))
        return "%d-%d" % (st.st_size, st.st_mtime_ns)
    except OSError:
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stage", choices=["torch1", "torch2", "suite", "suite-list"], required=True)
    ap.add_argument("--cache", required=True)
    ap.add_argument("--models", default=None)
    ap.add_argument("--force", action="store_true")
    a = ap.parse_args()
    import warnings
    warnings.filterwarnings("ignore")
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    if a.stage == "suite-list":
        print(json.dumps(suite_list(a.models.split(",") if a.models else None)))
        return
    out = {}
    for name in (a.models or ",".join(DEFAULT)).split(","):
        if a.stage == "suite":
            if name not in SUITE_EXTRA and name not in suite_names():
                sys.exit("models.py: %r is not in torchvision's model list" % name)
        elif name not in MODELS:
            sys.exit("models.py: unknown model %r (known: %s)" % (name, ", ".join(MODELS)))
        d = os.path.join(a.cache, name)
        os.makedirs(d, exist_ok=True)
        mp = os.path.join(d, "meta-%s.json" % a.stage)
        if not a.force and os.path.exists(mp):
            with open(mp) as f:
                old = json.load(f)
            spec = SUITE_SPEC if a.stage == "suite" else SPEC_VERSION
            if (old.get("spec") == spec and old.get("torch") == torch.__version__
                    and old.get("weights_stamp") == weights_stamp(d)):
                out[name] = old
                continue
        t0 = time.perf_counter()
        try:
            meta = {"torch2": stage_torch2, "torch1": stage_torch1,
                    "suite": stage_suite}[a.stage](name, d)
        except Exception as e:
            traceback.print_exc()
            meta = {"spec": -1, "model": name, "error": first_line(e), "forms": {}}
        meta["gen_seconds"] = time.perf_counter() - t0
        meta["weights_stamp"] = weights_stamp(d)
        with open(mp, "w") as f:
            json.dump(meta, f, indent=1)
        out[name] = meta
        print("models.py %s: %s %.1fs %s" % (a.stage, name, meta["gen_seconds"],
              " ".join("%s=%s" % (k, "ok" if v["ok"] else "FAIL")
                       for k, v in meta["forms"].items())), file=sys.stderr)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
