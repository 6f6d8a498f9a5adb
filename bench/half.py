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

Run with the ONNX Runtime venv (onnx + onnxruntime + numpy):
    /work/main/bench/.env/ort/bin/python bench/half.py [--src resnet18.onnx] [--threads 1,2]
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
SRC_DEFAULTS = ["/work/suite-cache/suite/resnet18/op13.onnx",
                "/work/main/bench/.cache/resnet18/model.onnx"]


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
print(json.dumps({"median_ms": t[len(t) // 2], "cpu_ms": cpu}))
"""


def child_cpu_ms():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r.ru_utime + r.ru_stime) * 1e3


def run_ember(ember, path, inp, threads, warmup, iters, outdir=None):
    """(median wall ms, CPU ms of the whole process)."""
    cmd = [ember, "run", path, "--input", inp, "--threads", str(threads), "--warmup",
           str(warmup), "--iters", str(iters)]
    if outdir:
        cmd += ["--output-dir", outdir]
    c0 = child_cpu_ms()
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    cpu = child_cpu_ms() - c0
    for tok in r.stdout.split():
        if tok.startswith("median_ms="):
            return float(tok.split("=")[1]), cpu
    raise RuntimeError("no median_ms in: " + r.stdout)


def time_ember(ember, path, inp, threads, warmup, iters):
    """(median wall ms, CPU ms per run): the CPU time of a run of warmup + iters runs less
    that of a run of one (load, planning and the first run cancel out)."""
    wall, cpu = run_ember(ember, path, inp, threads, warmup, iters)
    _, cpu1 = run_ember(ember, path, inp, threads, 0, 1)
    return wall, (cpu - cpu1) / (warmup + iters - 1)


def time_ort(path, inp, threads, warmup, iters, out="-"):
    """(median wall ms, CPU ms per timed run)."""
    r = subprocess.run([sys.executable, "-c", ORT_TIMER, path, inp, str(threads), str(warmup),
                        str(iters), out], capture_output=True, text=True, check=True)
    js = json.loads(r.stdout.strip().splitlines()[-1])
    return js["median_ms"], js["cpu_ms"]


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
    res = {"src": src, "fp16": f16, "ember_dtype": str(y.dtype),
           "vs_ort_fp16": agree(y, np.load(ort16), 1e-2),
           "vs_ort_fp32": agree(y, np.load(ort32), 1e-2), "timing": []}
    for t in [int(s) for s in args.threads.split(",")]:
        em, ort = [], []
        for r in range(args.rounds):
            order = [0, 1] if r % 2 == 0 else [1, 0]
            for o in order:
                if o == 0:
                    em.append(time_ember(args.ember, f16, inp16, t, args.warmup, args.iters))
                else:
                    ort.append(time_ort(f16, inp16, t, args.warmup, args.iters))
        row = {"threads": t, "ember_rounds": em, "ort_rounds": ort}
        for k, i in (("ms", 0), ("cpu_ms", 1)):
            e, o = statistics.median(x[i] for x in em), statistics.median(x[i] for x in ort)
            row.update({"ember_" + k: e, "ort_" + k: o, "ratio_" + k: e / o})
        res["timing"].append(row)
        print("threads %d: wall ember %.2f ms, ORT %.2f ms, ember/ORT %.2f; CPU per run ember "
              "%.2f ms, ORT %.2f ms, ember/ORT %.2f" % (
                  t, row["ember_ms"], row["ort_ms"], row["ratio_ms"], row["ember_cpu_ms"],
                  row["ort_cpu_ms"], row["ratio_cpu_ms"]), flush=True)
    print(json.dumps({k: v for k, v in res.items() if k != "timing"}, indent=1))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
