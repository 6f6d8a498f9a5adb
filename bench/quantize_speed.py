#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""One-thread latency of the quantized models bench/quantize.py wrote (issue #20's speed
target): ember running its own QDQ file (`--int8 on`), ember running the fp32 model, and ONNX
Runtime running ORT's quantize_static file of the same model and method.

    bench/.env/ort/bin/python bench/quantize_speed.py --work DIR
        [--models resnet18,resnet50,mobilenet_v2] [--method minmax] [--rounds 3] [--iters 20]

DIR is bench/quantize.py's --work folder (DIR/<model>/<method>.emberonnx.onnx,
<method>.ort.onnx, calib000.npy). Each measurement is one process (ember: `ember run --threads 1
--iters N --warmup 3`; ORT: a child Python with intra_op_num_threads = 1, N timed runs after 3),
the three alternating, --rounds times; the table has the median over rounds of each process's
median and the smallest min. On a shared machine the min is the figure least inflated by other
load. Prints a markdown table.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

ORT_CHILD = r"""
import sys, time, numpy as np, onnxruntime as ort
path, x, iters = sys.argv[1], np.load(sys.argv[2]), int(sys.argv[3])
o = ort.SessionOptions(); o.intra_op_num_threads = 1; o.inter_op_num_threads = 1
s = ort.InferenceSession(path, o, providers=['CPUExecutionProvider'])
n = s.get_inputs()[0].name
for _ in range(3): s.run(None, {n: x})
t = []
for _ in range(iters):
    a = time.perf_counter(); s.run(None, {n: x}); t.append((time.perf_counter() - a) * 1e3)
t.sort()
print('median_ms=%.3f min_ms=%.3f' % (t[len(t) // 2], t[0]))
"""


def measure(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    out = p.stdout + p.stderr
    med = re.search(r"median_ms=([0-9.]+)", out)
    mn = re.search(r"min_ms=([0-9.]+)", out)
    if p.returncode != 0 or med is None or mn is None:
        raise RuntimeError("%s: %s" % (" ".join(cmd[:3]), out[-300:]))
    return float(med.group(1)), float(mn.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", required=True)
    ap.add_argument("--models", default="resnet18,resnet50,mobilenet_v2")
    ap.add_argument("--method", default="minmax")
    ap.add_argument("--cache", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".cache", "suite"))
    ap.add_argument("--ember", default=os.path.join(ROOT, "build", "ember"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iters", type=int, default=20)
    args = ap.parse_args()
    rows = []
    for model in args.models.split(","):
        d = os.path.join(args.work, model)
        x = os.path.join(d, "calib000.npy")
        files = {
            "ember int8": [args.ember, "run", os.path.join(d, args.method + ".emberonnx.onnx"),
                           "--int8", "on"],
            "ember fp32": [args.ember, "run", os.path.join(args.cache, model, "op13.onnx")],
        }
        for k in files:
            files[k] += ["--threads", "1", "--iters", str(args.iters), "--warmup", "3",
                         "--input", x]
        files["ORT int8"] = [sys.executable, "-c", ORT_CHILD,
                             os.path.join(d, args.method + ".ort.onnx"), x, str(args.iters)]
        res = {k: [] for k in files}
        for _ in range(args.rounds):
            for k, cmd in files.items():
                res[k].append(measure(cmd))
                print(model, k, res[k][-1], file=sys.stderr)
        summ = {k: (statistics.median(m for m, _ in v), min(n for _, n in v))
                for k, v in res.items()}
        rows.append((model, summ))
    print("| model | ember int8 (own QDQ) median / min ms | ORT int8 (ORT's QDQ) | ember fp32 | "
          "ember int8 / ORT int8 (min) | ember int8 / ember fp32 (min) |")
    print("|---|---:|---:|---:|---:|---:|")
    for model, s in rows:
        e, o, f = s["ember int8"], s["ORT int8"], s["ember fp32"]
        print("| %s | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f | %.2fx | %.2fx |" % (
            model, e[0], e[1], o[0], o[1], f[0], f[1], e[1] / o[1], e[1] / f[1]))


if __name__ == "__main__":
    sys.exit(main())
