# SPDX-License-Identifier: Apache-2.0
"""Makes bench/run.py --int8's quantized models (run by run.py, one stage per Python).

Every file goes to CACHE/int8/<model>/. Models: torchvision resnet18, resnet50, mobilenet_v2
(random weights, seed 0, random BatchNorm statistics: bench/models.py's builders, nothing is
downloaded) and models.py's TransformerEncoder (d_model 256, 4 heads, ff 2048, 2 layers).

  --stage torch     (PyPI torch 2.x + torchvision + onnx: bench/.env/torch2)
      input.npy       the timed input, numpy RNG seed 0 (as bench/models.py)
      calib.npy       the calibration set: CALIB_N=8 images of numpy standard-normal noise,
                      seed 1 (random, not ImageNet: the weights are random too). CNNs only.
      acc.npy         the accuracy inputs: N (--acc-n, 100) standard-normal inputs, seed 2,
                      batched along the batch axis
      fp32.onnx       torch.onnx.export(dynamo=False), opset 17, dynamic batch axis: what
                      ORT's quantizer quantizes, and ember's fp32 baseline
      ref-fp32.npy, acc-fp32.npy   torch's eager fp32 output on input.npy and acc.npy
      CNNs, per engine E of x86 and onednn (those torch.backends.quantized has):
        q-E.pt        FX-mode static post-training quantization (prepare_fx with
                      get_default_qconfig_mapping(E): per-channel symmetric s8 weights,
                      HistogramObserver u8 activations, reduce_range on x86), calibrated on
                      calib.npy, convert_fx, torch.jit.trace'd
        ref-q-E.npy, acc-q-E.npy   the converted model's output (PyTorch's quantized output,
                      engine E), and its output scale (one LSB) in the meta
      transformer, per engine E:
        dq-E.pt       quantize_dynamic({nn.Linear}, qint8), traced
        ref-dq-E.npy, acc-dq-E.npy
  --stage ort       (PyPI onnxruntime + onnx: bench/.env/ort)
      CNNs: qdq.onnx  onnxruntime.quantization.quantize_static(fp32.onnx after ORT's
                      quant_pre_process, kept as fp32-pre.onnx): QDQ format,
                      per-channel s8 weights, u8 activations, MinMax calibration on calib.npy
      transformer: dq.onnx  quantize_dynamic(fp32.onnx, weight_type=QInt8)
      ref-qdq.npy / acc-qdq.npy (ref-dq / acc-dq): ORT's own output on the file, its output
      scale (the last DequantizeLinear's) in the meta; acc-qdq-exact.npy (acc-dq-exact): ORT
      with graph optimizations off, which runs the QDQ graph op by op in fp32 (the ONNX
      semantics, no saturating int8 kernel)
  --stage executorch  (PyPI executorch on the torch 2.x of bench/.env/torch2:
                      bench/.env/executorch, `bench/setup.sh --executorch`)
      CNNs: xnnpack.pte  PT2E: torch.export, prepare_pt2e with XNNPACKQuantizer
                      (get_symmetric_quantization_config(is_per_channel=True): per-channel
                      symmetric s8 weights, s8 activations), calibrated on calib.npy,
                      convert_pt2e, to_edge_transform_and_lower(XnnpackPartitioner), batch 1
      ref-xnn.npy, acc-xnn.npy  the converted model's eager output (acc: image by image,
                      the first --acc-n only: the decomposed q/dq graph is slow in eager)

Each stage prints one JSON line {model: meta}; a file that cannot be made is recorded with
its error (never fatal). Files are remade when SPEC or the library versions change, or when
--acc-n asks for more accuracy inputs than the cache holds (run.py uses the first --acc-n).
"""
import argparse
import json
import os
import sys
import time
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = 1
STAGE_SPEC = {"ort": 2}   # 2: the exact reference acc-*-exact.npy
SEED = 0
CALIB_N = 8
CNNS = ["resnet18", "resnet50", "mobilenet_v2"]
DYNAMIC = ["transformer"]
MODELS = CNNS + DYNAMIC
ENGINES = ["x86", "onednn"]
BATCH_AXIS = {"transformer": 1}   # [seq, batch, d]; the CNNs: 0
ACC_CHUNK = 20                    # accuracy inputs per forward call (bounds memory)


def first_line(e):
    s = "%s: %s" % (type(e).__name__, str(e).strip())
    return s.splitlines()[0][:300]


def axis(name):
    return BATCH_AXIS.get(name, 0)


def chunks(x, ax, n=ACC_CHUNK):
    for i in range(0, x.shape[ax], n):
        yield np.take(x, range(i, min(i + n, x.shape[ax])), axis=ax)


def attempt(meta, fname, fn):
    """Runs fn() (which makes fname and returns extra meta); records ok/error and seconds."""
    t0 = time.perf_counter()
    try:
        extra = fn() or {}
        meta["forms"][fname] = dict(extra, ok=True, seconds=round(time.perf_counter() - t0, 1))
    except Exception as e:  # noqa: BLE001  a form that cannot be made is reported, not fatal
        traceback.print_exc()
        meta["forms"][fname] = {"ok": False, "error": first_line(e)}


# ----------------------------------------------------------------------------- torch

def stage_torch(name, d, acc_n):
    import torch
    sys.path.insert(0, HERE)
    import models  # bench/models.py: the same builders, seeds and BatchNorm statistics
    torch.backends.mha.set_fastpath_enabled(False)   # no ONNX symbolic for the fast path
    m, shape = models.build(name)
    x = models.random_bn_and_input(m, shape, d)
    ax = axis(name)
    acc_shape = list(shape)
    acc_shape[ax] = acc_n
    acc = np.random.default_rng(SEED + 2).standard_normal(acc_shape).astype(np.float32)
    np.save(os.path.join(d, "acc.npy"), acc)
    meta = {"spec": SPEC, "torch": torch.__version__, "model": name, "input_shape": list(shape),
            "batch_axis": ax, "acc_n": acc_n, "forms": {}}
    if name in CNNS:
        calib = np.random.default_rng(SEED + 1).standard_normal(
            (CALIB_N,) + tuple(shape[1:])).astype(np.float32)
        np.save(os.path.join(d, "calib.npy"), calib)
        meta["calib"] = "%d images of numpy standard-normal noise, seed %d" % (CALIB_N, SEED + 1)

    def run_acc(f):
        with torch.no_grad():
            return np.concatenate([f(torch.from_numpy(c)).numpy() for c in chunks(acc, ax)], ax)

    with torch.no_grad():
        np.save(os.path.join(d, "ref-fp32.npy"), m(x).numpy())
    np.save(os.path.join(d, "acc-fp32.npy"), run_acc(m))

    def export():
        dyn = {"input": {ax: "N"}, "output": {ax: "N"}}
        with torch.no_grad():
            torch.onnx.export(m, (x,), os.path.join(d, "fp32.onnx"), opset_version=17,
                              dynamo=False, input_names=["input"], output_names=["output"],
                              dynamic_axes=dyn, do_constant_folding=True)
        return {"opset": 17}
    attempt(meta, "fp32.onnx", export)

    engines = [e for e in ENGINES if e in torch.backends.quantized.supported_engines]
    for eng in engines:
        torch.backends.quantized.engine = eng
        if name in CNNS:
            fname = "q-%s.pt" % eng

            def make(eng=eng, fname=fname):
                from torch.ao.quantization import get_default_qconfig_mapping
                from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx
                import copy
                qm = get_default_qconfig_mapping(eng)
                p = prepare_fx(copy.deepcopy(m), qm, (x,))
                with torch.no_grad():
                    p(torch.from_numpy(calib))
                c = convert_fx(p)
                return save_quantized(c, x, d, fname, run_acc, out_scale_fx(c, x))
            attempt(meta, fname, make)
        else:
            fname = "dq-%s.pt" % eng

            def make(fname=fname):
                import copy
                c = torch.ao.quantization.quantize_dynamic(copy.deepcopy(m), {torch.nn.Linear},
                                                           dtype=torch.qint8)
                return save_quantized(c, x, d, fname, run_acc, None)
            attempt(meta, fname, make)
    return meta


def save_quantized(c, x, d, fname, run_acc, scale):
    import torch
    tag = fname[:-3]
    with torch.no_grad():
        np.save(os.path.join(d, "ref-%s.npy" % tag), c(x).numpy())
        ts = torch.jit.trace(c, x, check_trace=False)
    torch.jit.save(ts, os.path.join(d, fname))
    np.save(os.path.join(d, "acc-%s.npy" % tag), run_acc(c))
    return {"engine": torch.backends.quantized.engine, "out_scale": scale,
            "ref": "PyTorch %s, engine %s (the converted model, eager)"
                   % (torch.__version__, torch.backends.quantized.engine)}


def out_scale_fx(c, x):
    """The scale of the quantized tensor a convert_fx model dequantizes into its output."""
    import copy
    import torch
    g = copy.deepcopy(c)
    out = [n for n in g.graph.nodes if n.op == "output"][0]
    src = out.args[0]
    if getattr(src, "target", None) != "dequantize":
        return None
    out.args = (src.args[0],)
    g.recompile()
    with torch.no_grad():
        q = g(x)
    return float(q.q_scale()) if q.is_quantized else None


# ----------------------------------------------------------------------------- ORT

def stage_ort(name, d, acc_n):
    import onnx
    import onnxruntime as ort
    from onnxruntime import quantization as Q
    meta = {"spec": STAGE_SPEC["ort"], "onnxruntime": ort.__version__, "model": name, "forms": {}}
    src = os.path.join(d, "fp32.onnx")
    x = np.load(os.path.join(d, "input.npy"))
    acc = np.load(os.path.join(d, "acc.npy"))
    ax = axis(name)

    def refs(path, tag):
        so = ort.SessionOptions()
        s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        nm = s.get_inputs()[0].name
        np.save(os.path.join(d, "ref-%s.npy" % tag), s.run(None, {nm: x})[0])
        np.save(os.path.join(d, "acc-%s.npy" % tag),
                np.concatenate([s.run(None, {nm: c})[0] for c in chunks(acc, ax)], ax))
        # The exact reference: graph optimizations off, so ORT runs the file's ops one by one
        # (DequantizeLinear -> fp32 op -> QuantizeLinear: the ONNX semantics), not its fused
        # int8 kernels (which saturate on CPUs without VNNI).
        so = ort.SessionOptions()
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        np.save(os.path.join(d, "acc-%s-exact.npy" % tag),
                np.concatenate([s.run(None, {nm: c})[0] for c in chunks(acc, ax)], ax))
        return {"ref": "ONNX Runtime %s on this file" % ort.__version__, "exact_ref": True,
                "out_scale": onnx_out_scale(onnx.load(path))}

    if name in CNNS:
        calib = np.load(os.path.join(d, "calib.npy"))

        class Reader(Q.CalibrationDataReader):
            def __init__(self):
                self.it = iter([{"input": calib[i:i + 1]} for i in range(len(calib))])

            def get_next(self):
                return next(self.it, None)

        def make():
            out = os.path.join(d, "qdq.onnx")
            pre = os.path.join(d, "fp32-pre.onnx")   # ORT's recommended pre-processing
            from onnxruntime.quantization.shape_inference import quant_pre_process
            quant_pre_process(src, pre)
            Q.quantize_static(pre, out, Reader(), quant_format=Q.QuantFormat.QDQ,
                              per_channel=True, activation_type=Q.QuantType.QUInt8,
                              weight_type=Q.QuantType.QInt8,
                              calibrate_method=Q.CalibrationMethod.MinMax)
            return refs(out, "qdq")
        attempt(meta, "qdq.onnx", make)
    else:
        def make():
            out = os.path.join(d, "dq.onnx")
            Q.quantize_dynamic(src, out, weight_type=Q.QuantType.QInt8)
            return refs(out, "dq")
        attempt(meta, "dq.onnx", make)
    return meta


def onnx_out_scale(model):
    """The scale of the DequantizeLinear that makes the graph's first output, if one does."""
    from onnx import numpy_helper
    out = model.graph.output[0].name
    prod = [n for n in model.graph.node if out in n.output]
    if not prod or prod[0].op_type != "DequantizeLinear":
        return None
    inits = {i.name: i for i in model.graph.initializer}
    s = inits.get(prod[0].input[1])
    return float(numpy_helper.to_array(s).reshape(-1)[0]) if s is not None else None


# ----------------------------------------------------------------------------- ExecuTorch

def stage_executorch(name, d, acc_n):
    import torch
    import executorch.version
    sys.path.insert(0, HERE)
    import models
    meta = {"spec": SPEC, "torch": torch.__version__, "executorch": executorch.version.__version__,
            "model": name, "forms": {}}
    if name not in CNNS:
        return meta
    m, shape = models.build(name)
    models.randomize_bn(m)
    x = torch.from_numpy(np.load(os.path.join(d, "input.npy")))
    calib = np.load(os.path.join(d, "calib.npy"))
    acc = np.load(os.path.join(d, "acc.npy"))[:acc_n]   # image by image: only those asked for

    def make():
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
        from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
            XNNPACKQuantizer, get_symmetric_quantization_config)
        from executorch.exir import to_edge_transform_and_lower
        try:
            from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
        except ImportError:
            from torch.ao.quantization.quantize_pt2e import convert_pt2e, prepare_pt2e
        q = XNNPACKQuantizer()
        q.set_global(get_symmetric_quantization_config(is_per_channel=True))
        gm = torch.export.export(m, (x,)).module()
        p = prepare_pt2e(gm, q)
        with torch.no_grad():
            for i in range(len(calib)):
                p(torch.from_numpy(calib[i:i + 1]))
        c = convert_pt2e(p)
        with torch.no_grad():
            np.save(os.path.join(d, "ref-xnn.npy"), c(x).numpy())
            np.save(os.path.join(d, "acc-xnn.npy"), np.concatenate(
                [c(torch.from_numpy(acc[i:i + 1])).numpy() for i in range(len(acc))], 0))
        scale = None
        out = [n for n in c.graph.nodes if n.op == "output"][0]
        src = out.args[0][0] if isinstance(out.args[0], (list, tuple)) else out.args[0]
        if "dequantize" in str(getattr(src, "target", "")):
            scale = float(src.args[1]) if isinstance(src.args[1], float) else None
        prog = to_edge_transform_and_lower(torch.export.export(c, (x,)),
                                           partitioner=[XnnpackPartitioner()]).to_executorch()
        with open(os.path.join(d, "xnnpack.pte"), "wb") as f:
            f.write(prog.buffer)
        return {"out_scale": scale, "batch": 1,
                "ref": "the PT2E-converted model, eager (torch %s)" % torch.__version__}
    attempt(meta, "xnnpack.pte", make)
    return meta


def versions(stage):
    if stage == "ort":
        import onnxruntime
        return {"onnxruntime": onnxruntime.__version__}
    import torch
    v = {"torch": torch.__version__}
    if stage == "executorch":
        import executorch.version
        v["executorch"] = executorch.version.__version__
    return v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stage", choices=["torch", "ort", "executorch"], required=True)
    ap.add_argument("--cache", required=True, help="CACHE/int8")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--acc-n", type=int, default=100)
    ap.add_argument("--force", action="store_true")
    a = ap.parse_args()
    import warnings
    warnings.filterwarnings("ignore")
    fn = {"torch": stage_torch, "ort": stage_ort, "executorch": stage_executorch}[a.stage]
    ver = versions(a.stage)
    out = {}
    for name in a.models.split(","):
        if name not in MODELS:
            sys.exit("qmodels.py: unknown model %r (known: %s)" % (name, ", ".join(MODELS)))
        d = os.path.join(a.cache, name)
        os.makedirs(d, exist_ok=True)
        mp = os.path.join(d, "meta-%s.json" % a.stage)
        # a later stage is remade when the torch stage remade its inputs
        stamp = None
        if a.stage != "torch":
            try:
                stamp = os.stat(os.path.join(d, "meta-torch.json")).st_mtime_ns
            except OSError:
                pass
        if not a.force and os.path.exists(mp):
            with open(mp) as f:
                old = json.load(f)
            if (old.get("spec") == STAGE_SPEC.get(a.stage, SPEC) and old.get("versions") == ver
                    and (old.get("acc_n_made") or 0) >= a.acc_n and old.get("stamp") == stamp):
                out[name] = old
                continue
        t0 = time.perf_counter()
        try:
            meta = fn(name, d, a.acc_n)
        except Exception as e:  # noqa: BLE001
            traceback.print_exc()
            meta = {"spec": -1, "model": name, "error": first_line(e), "forms": {}}
        meta.update(versions=ver, acc_n_made=a.acc_n, stamp=stamp,
                    gen_seconds=round(time.perf_counter() - t0, 1))
        with open(mp, "w") as f:
            json.dump(meta, f, indent=1)
        out[name] = meta
        print("qmodels.py %s: %s %.0fs %s" % (a.stage, name, meta["gen_seconds"], " ".join(
            "%s=%s" % (k, "ok" if v["ok"] else "FAIL") for k, v in meta["forms"].items())),
            file=sys.stderr)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
