#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""fp16 ONNX models in ember and ONNX Runtime (issue #21's target: ember <= 0.5x ORT).

Converts an fp32 ONNX export to fp16 as onnxconverter-common's convert_float_to_float16 does
with keep_io_types=False (float initializers, Constant values, inputs and outputs to fp16;
Cast(to=FLOAT) -> FLOAT16), then times, per thread count and in alternation (one process per
measurement, the order flipped every other round), `ember run FILE --threads T` against an
ORT InferenceSession (intra_op_num_threads T, all graph optimizations) on the same file and
input, and reports the medians of wall time and of CPU time per run (robust on a shared
machine: ember's from two processes' rusage, ORT's from process_time around the timed runs),
their ratios, and the output agreement: ember's fp16 output
against ORT's fp16 output and against ORT's fp32 output of the original file (max abs diff,
the issue's rtol 1e-2 / atol 1%-of-max check, argmax).
A third column runs the fp32 file with `ember run --precision fp16` (weights held in half,
fp32 arithmetic; --precision-col bf16 for bf16), its output checked against ORT's fp32 one;
every column also reports the process's peak RSS (ember's peak_rss_mb, ORT's ru_maxrss).

Run with the ONNX Runtime venv (onnx + onnxruntime + numpy):
    bench/.env/ort/bin/python bench/half.py [--src resnet18.onnx] [--threads 1,2]
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SRC_DEFAULTS = [os.path.join(os.path.dirname(os.path.abspath(__file__)), ".cache", "suite",
                             "resnet18", "op13.onnx"),
                os.path.join(os.path.dirname(os.path.abspath(__file__)), ".cache", "resnet18",
                             "model.onnx")]


def to_f16_onnx(model):
    """fp32 ONNX -> fp16, as onnxconverter-common's convert_float_to_float16(keep_io_types=False)."""
    g = model.graph
    for i, t in enumerate(g.initializer):
        if t.data_type == TensorProto.FLOAT:
            a = numpy_helper.to_array(t).astype(np.float16)
            g.initializer[i].CopyFrom(numpy_helper.from_array(a, t.name))
    for v in list(g.input) + list(g.output):
        if v.type.tensor_type.elem_type == TensorProto.FLOAT:
            v.type.tensor_type.elem_type = TensorProto.FLOAT16
    del g.value_info[:]
    for n in g.node:
        for a in n.attribute:
            if n.op_type == "Cast" and a.name == "to" and a.i == TensorProto.FLOAT:
                a.i = TensorProto.FLOAT16
            if a.type == onnx.AttributeProto.TENSOR and a.t.data_type == TensorProto.FLOAT:
                arr = numpy_helper.to_array(a.t).astype(np.float16)
                a.t.CopyFrom(numpy_helper.from_array(arr, a.t.name))
    onnx.checker.check_model(model)
    return model


ORT_TIMER = r"""
import json, sys, time, numpy as np, onnxruntime as ort
path, inp, threads, warmup, iters, out = sys.argv[1:7]
so = ort.SessionOptions()
so.intra_op_num_threads = int(threads)
so.inter_op_num_threads = 1
s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
x = np.load(inp)
feed = {s.get_inputs()[0].name: x}
y = s.run(None, feed)[0]
for _ in range(int(warmup)):
    s.run(None, feed)
t = []
c0 = time.process_time()
for _ in range(int(iters)):
    t0 = time.perf_counter(); s.run(None, feed); t.append((time.perf_counter() - t0) * 1e3)
cpu = (time.process_time() - c0) * 1e3 / int(iters)
t.sort()
if out != "-":
    np.save(out, y)
import resource
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
print(json.dumps({"median_ms": t[len(t) // 2], "cpu_ms": cpu, "rss_mb": rss}))
"""


def child_cpu_ms():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r.ru_utime + r.ru_stime) * 1e3


def run_ember(ember, path, inp, threads, warmup, iters, outdir=None, extra=()):
    """(median wall ms, CPU ms of the whole process, peak RSS MB)."""
    cmd = [ember, "run", path, "--input", inp, "--threads", str(threads), "--warmup",
           str(warmup), "--iters", str(iters)] + list(extra)
    if outdir:
        cmd += ["--output-dir", outdir]
    c0 = child_cpu_ms()
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    cpu = child_cpu_ms() - c0
    tok = dict(t.split("=", 1) for t in r.stdout.split() if "=" in t)
    if "median_ms" not in tok:
        raise RuntimeError("no median_ms in: " + r.stdout)
    return float(tok["median_ms"]), cpu, float(tok.get("peak_rss_mb", "nan"))


def time_ember(ember, path, inp, threads, warmup, iters, extra=()):
    """(median wall ms, CPU ms per run, peak RSS MB): the CPU time of a run of warmup + iters
    runs less that of a run of one (load, planning and the first run cancel out)."""
    wall, cpu, rss = run_ember(ember, path, inp, threads, warmup, iters, extra=extra)
    _, cpu1, _ = run_ember(ember, path, inp, threads, 0, 1, extra=extra)
    return wall, (cpu - cpu1) / (warmup + iters - 1), rss


def time_ort(path, inp, threads, warmup, iters, out="-"):
    """(median wall ms, CPU ms per timed run, peak RSS MB)."""
    r = subprocess.run([sys.executable, "-c", ORT_TIMER, path, inp, str(threads), str(warmup),
                        str(iters), out], capture_output=True, text=True, check=True)
    js = json.loads(r.stdout.strip().splitlines()[-1])
    return js["median_ms"], js["cpu_ms"], js["rss_mb"]


def agree(y, ref, rtol):
    y, ref = y.astype(np.float32).ravel(), ref.astype(np.float32).ravel()
    atol = 0.01 * float(np.abs(ref).max())
    ok = bool(np.all(np.abs(y - ref) <= rtol * np.abs(ref) + atol))
    return {"max_abs": float(np.abs(y - ref).max()), "within_rtol": ok,
            "argmax_equal": int(y.argmax()) == int(ref.argmax())}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", help="fp32 ONNX file (default: the suite's resnet18 export)")
    ap.add_argument("--input", help="fp32 input .npy (default: input.npy beside --src)")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--ember", default=os.path.join(ROOT, "build", "ember"))
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "ember-half-bench"))
    ap.add_argument("--out", help="write the results as JSON here")
    ap.add_argument("--precision-col", default="fp16", choices=["fp16", "bf16"],
                    help="the precision of the third column (the fp32 file, ember run "
                         "--precision P)")
    args = ap.parse_args()
    src = args.src or next(p for p in SRC_DEFAULTS if os.path.exists(p))
    inp32 = args.input or os.path.join(os.path.dirname(src), "input.npy")
    os.makedirs(args.work, exist_ok=True)
    f16 = os.path.join(args.work, "fp16.onnx")
    onnx.save(to_f16_onnx(onnx.load(src)), f16)
    inp16 = os.path.join(args.work, "input16.npy")
    np.save(inp16, np.load(inp32).astype(np.float16))

    # agreement on the timed input
    ed = os.path.join(args.work, "ember-out")
    os.makedirs(ed, exist_ok=True)
    run_ember(args.ember, f16, inp16, 1, 0, 1, ed)
    y = np.load(os.path.join(ed, "output_0.npy"))
    ort16, ort32 = os.path.join(args.work, "ort16.npy"), os.path.join(args.work, "ort32.npy")
    time_ort(f16, inp16, 1, 0, 1, ort16)
    time_ort(src, inp32, 1, 0, 1, ort32)
    prec = ["--precision", args.precision_col]
    pd = os.path.join(args.work, "ember-prec-out")
    os.makedirs(pd, exist_ok=True)
    run_ember(args.ember, src, inp32, 1, 0, 1, pd, prec)
    yp = np.load(os.path.join(pd, "output_0.npy"))
    res = {"src": src, "fp16": f16, "ember_dtype": str(y.dtype),
           "vs_ort_fp16": agree(y, np.load(ort16), 1e-2),
           "vs_ort_fp32": agree(y, np.load(ort32), 1e-2),
           "precision_col": args.precision_col,
           "prec_vs_ort_fp32": agree(yp, np.load(ort32),
                                     1e-2 if args.precision_col == "fp16" else 3e-2),
           "timing": []}
    cols = [("ember", lambda t: time_ember(args.ember, f16, inp16, t, args.warmup, args.iters)),
            ("prec", lambda t: time_ember(args.ember, src, inp32, t, args.warmup, args.iters,
                                          prec)),
            ("ort", lambda t: time_ort(f16, inp16, t, args.warmup, args.iters))]
    for t in [int(s) for s in args.threads.split(",")]:
        got = {name: [] for name, _ in cols}
        for r in range(args.rounds):
            order = cols if r % 2 == 0 else cols[::-1]
            for name, fn in order:
                got[name].append(fn(t))
        row = {"threads": t}
        for name, _ in cols:
            row[name + "_rounds"] = got[name]
            for k, i in (("ms", 0), ("cpu_ms", 1), ("rss_mb", 2)):
                row[name + "_" + k] = statistics.median(x[i] for x in got[name])
        for name in ("ember", "prec"):
            for k in ("ms", "cpu_ms", "rss_mb"):
                row["ratio_%s_%s" % (name, k)] = row[name + "_" + k] / row["ort_" + k]
        res["timing"].append(row)
        print("threads %d: wall ember %.2f ms, ember --precision %s (fp32 file) %.2f ms, ORT "
              "%.2f ms; CPU per run %.2f / %.2f / %.2f ms (ember/ORT %.2f, %.2f); peak RSS "
              "%.1f / %.1f / %.1f MB" % (
                  t, row["ember_ms"], args.precision_col, row["prec_ms"], row["ort_ms"],
                  row["ember_cpu_ms"], row["prec_cpu_ms"], row["ort_cpu_ms"],
                  row["ratio_ember_cpu_ms"], row["ratio_prec_cpu_ms"], row["ember_rss_mb"],
                  row["prec_rss_mb"], row["ort_rss_mb"]), flush=True)
    print(json.dumps({k: v for k, v in res.items() if k != "timing"}, indent=1))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
