#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Accuracy and memory of `ember run --precision fp16|bf16` on fp32 models (issue #21).

For each suite model (bench/.cache/suite/<model>/op13.onnx by default: `bench/run.py --suite` makes them), runs ember on
N inputs (the suite's input.npy, then seeded standard-normal images of the same shape) at
fp32, fp16 and bf16 (weights held in half, fp32 arithmetic) and reports, per precision, the
largest absolute error against ember's fp32 output, that error relative to the fp32 output's
largest magnitude, whether every element is within the issue's rtol (1e-2 fp16, 3e-2 bf16)
with atol 1% of the output's largest magnitude, top-1 agreement over the N inputs, and the
peak RSS of the first run (ember's peak_rss_mb). With --rounds R, also the latency: R rounds
of `ember run --iters I --threads T` per precision, the order of fp32 / fp16 / bf16 rotated
each round (the machine may be shared: compare the medians, and the ratio to fp32).

    bench/.env/ort/bin/python bench/half_weights.py --models resnet50,mobilenet_v2 -n 8
    bench/.env/ort/bin/python bench/half_weights.py --models resnet50 -n 1 \
        --export op17 --rounds 3 --iters 20
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SUITE = os.path.join(os.path.dirname(os.path.abspath(__file__)), ".cache", "suite")


def run(ember, model, inp, outdir, precision):
    cmd = [ember, "run", model, "--input", inp, "--iters", "1", "--warmup", "0", "--threads",
           "1", "--output-dir", outdir]
    if precision != "fp32":
        cmd += ["--precision", precision]
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    tok = dict(t.split("=", 1) for t in r.stdout.split() if "=" in t)
    return np.load(os.path.join(outdir, "output_0.npy")), float(tok["peak_rss_mb"])


def latency(ember, model, precision, threads, iters):
    """ember's median_ms of one `ember run` process."""
    cmd = [ember, "run", model, "--iters", str(iters), "--warmup", "3", "--threads",
           str(threads)]
    if precision != "fp32":
        cmd += ["--precision", precision]
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    tok = dict(t.split("=", 1) for t in r.stdout.split() if "=" in t)
    return float(tok["median_ms"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--models", default="resnet50,mobilenet_v2,efficientnet_b0,vit_b_16")
    ap.add_argument("-n", type=int, default=8, help="inputs per model")
    ap.add_argument("--ember", default=os.path.join(ROOT, "build", "ember"))
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "ember-halfw-bench"))
    ap.add_argument("--out", help="write the results as JSON here")
    ap.add_argument("--export", default="op13", help="the suite's export: op13 or op17")
    ap.add_argument("--rounds", type=int, default=0, help="latency rounds (0: none)")
    ap.add_argument("--iters", type=int, default=20, help="runs per latency measurement")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    rtol = {"fp16": 1e-2, "bf16": 3e-2}
    results = []
    for name in args.models.split(","):
        model = os.path.join(SUITE, name, args.export + ".onnx")
        x0 = np.load(os.path.join(SUITE, name, "input.npy"))
        rng = np.random.default_rng(21)
        row = {"model": name, "n": args.n}
        stats = {p: {"max_abs": 0.0, "max_rel": 0.0, "within": True, "top1": 0}
                 for p in ("fp16", "bf16")}
        for i in range(args.n):
            x = x0 if i == 0 else rng.standard_normal(x0.shape).astype(np.float32)
            inp = os.path.join(args.work, "in.npy")
            os.makedirs(args.work, exist_ok=True)
            np.save(inp, x)
            y32, rss32 = run(args.ember, model, inp, os.path.join(args.work, "o32"), "fp32")
            if i == 0:
                row["rss_fp32_mb"] = rss32
            amax = float(np.abs(y32).max())
            for p in ("fp16", "bf16"):
                y, rss = run(args.ember, model, inp, os.path.join(args.work, "o" + p), p)
                if i == 0:
                    row["rss_%s_mb" % p] = rss
                err = np.abs(y.astype(np.float64) - y32)
                s = stats[p]
                s["max_abs"] = max(s["max_abs"], float(err.max()))
                s["max_rel"] = max(s["max_rel"], float(err.max()) / amax)
                s["within"] = s["within"] and bool(np.all(err <= rtol[p] * np.abs(y32) +
                                                          0.01 * amax))
                s["top1"] += int(y.reshape(y.shape[0], -1).argmax(1)[0] ==
                                 y32.reshape(y32.shape[0], -1).argmax(1)[0])
        row.update(stats)
        precs = ["fp32", "fp16", "bf16"]
        ms = {p: [] for p in precs}
        for r in range(args.rounds):
            for p in precs[r % 3:] + precs[:r % 3]:
                ms[p].append(latency(args.ember, model, p, args.threads, args.iters))
        if args.rounds > 0:
            for p in precs:
                row["ms_" + p] = statistics.median(ms[p])
                row["ms_%s_rounds" % p] = ms[p]
            print("%-16s latency (median of %d rounds, %d threads): fp32 %.1f ms, fp16 %.1f ms "
                  "(%.2fx), bf16 %.1f ms (%.2fx)" % (
                      name, args.rounds, args.threads, row["ms_fp32"], row["ms_fp16"],
                      row["ms_fp16"] / row["ms_fp32"], row["ms_bf16"],
                      row["ms_bf16"] / row["ms_fp32"]), flush=True)
        results.append(row)
        print("%-16s fp32 %.1f MB | fp16: max abs %.3g, rel-to-max %.3g, within %s, top-1 "
              "%d/%d, %.1f MB | bf16: max abs %.3g, rel-to-max %.3g, within %s, top-1 %d/%d, "
              "%.1f MB" % (name, row["rss_fp32_mb"], stats["fp16"]["max_abs"],
                           stats["fp16"]["max_rel"], stats["fp16"]["within"],
                           stats["fp16"]["top1"], args.n, row["rss_fp16_mb"],
                           stats["bf16"]["max_abs"], stats["bf16"]["max_rel"],
                           stats["bf16"]["within"], stats["bf16"]["top1"], args.n,
                           row["rss_bf16_mb"]), flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
