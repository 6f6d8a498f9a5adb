#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Static int8 quantization quality and calibration time: ONNX Runtime's quantize_static next
to `ember quantize`, by calibration method (issue #20's targets).

    /work/main/bench/.env/ort/bin/python bench/quantize.py [--models resnet18,resnet50,...]
        [--methods minmax,entropy,percentile] [--calib 32] [--eval 100] [--out bench/quantize.md]

Runs under the Python that has onnxruntime and numpy (bench/setup.sh's bench/.env/ort). For
each model (CACHE/<model>/op13.onnx, the suite's fp32 exports: --cache, default
/work/suite-cache/suite) it makes --calib calibration and --eval held-apart evaluation inputs
(deterministic: smooth random images, 8x8 blocks of N(0, 1) plus N(0, 0.1) noise, in the range
of ImageNet-normalised pixels; no data set is downloaded), then for each method:

  ORT    quantize_static(QDQ, per-channel s8 weights, u8 activations, the method), after
         quant_pre_process, as ORT's documentation does; the wall time of quantize_static
         (calibration and writing) is the calibration time;
  ember  `ember quantize MODEL --calibrate <the same inputs as .npy> --method M --per-channel
         --output OUT.onnx`, wall time of the process; skipped, with a note, when the binary has
         no quantize command (issue #20, in progress).

Both quantized files are evaluated the same way, in ONNX Runtime (the issue asks for QDQ files
ORT runs): SQNR of the output against the fp32 model's (10 log10(sum ref^2 / sum (ref - q)^2),
over all evaluation inputs) and argmax agreement with fp32. Writes a markdown table (--out) and
its JSON next to it.
"""
import argparse
import datetime
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
METHODS = {"minmax": "MinMax", "entropy": "Entropy", "percentile": "Percentile"}


def make_inputs(shape, n, seed):
    rng = np.random.default_rng(seed)
    c, h, w = shape[1:]
    out = []
    for _ in range(n):
        base = rng.standard_normal((1, c, (h + 7) // 8, (w + 7) // 8))
        img = np.repeat(np.repeat(base, 8, axis=2), 8, axis=3)[:, :, :h, :w]
        img = np.clip(img + 0.1 * rng.standard_normal(img.shape), -2.1, 2.6)
        out.append(img.astype(np.float32))
    return out


def run_ort(path, name, inputs):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    return np.concatenate([s.run(None, {name: x})[0] for x in inputs])


def quality(ref, q):
    err = np.sum((ref.astype(np.float64) - q) ** 2)
    sqnr = 10 * np.log10(np.sum(ref.astype(np.float64) ** 2) / err) if err > 0 else float("inf")
    agree = float(np.mean(np.argmax(ref, axis=1) == np.argmax(q, axis=1)))
    return sqnr, agree


def ort_quantize(src, dst, name, calib, method):
    from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod, QuantFormat,
                                          QuantType, quantize_static)

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.it = iter([{name: x} for x in calib])

        def get_next(self):
            return next(self.it, None)

    t0, c0 = time.time(), time.process_time()
    quantize_static(src, dst, Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                    calibrate_method=getattr(CalibrationMethod, METHODS[method]))
    return time.time() - t0, time.process_time() - c0


def ember_has_quantize(ember):
    if not os.access(ember, os.X_OK):
        return "no ember binary at %s" % os.path.relpath(ember, ROOT)
    p = subprocess.run([ember, "quantize", "--help"], capture_output=True, text=True)
    text = p.stdout + p.stderr
    if p.returncode != 0 or "--calibrate" not in text:
        return "%s has no `quantize` command yet (issue #20 in progress)" % os.path.relpath(
            ember, ROOT)
    return None


def ember_quantize(ember, src, dst, files, method):
    cmd = [ember, "quantize", src, "--calibrate"] + files + ["--method", method, "--per-channel",
                                                             "--output", dst]
    t0, r0 = time.time(), resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(cmd[:4]) + " ...", (p.stderr or p.stdout)[-400:]))
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="resnet18,resnet50,mobilenet_v2")
    ap.add_argument("--methods", default="minmax,entropy,percentile")
    ap.add_argument("--calib", type=int, default=32, help="calibration inputs (32)")
    ap.add_argument("--eval", type=int, default=100, help="evaluation inputs (100)")
    ap.add_argument("--cache", default="/work/suite-cache/suite",
                    help="folder of <model>/op13.onnx (bench/run.py --suite's cache)")
    ap.add_argument("--ember", default=os.path.join(ROOT, "build", "ember"))
    ap.add_argument("--out", default=os.path.join(HERE, "quantize.md"))
    ap.add_argument("--note", help="a line for the header (what else ran on the machine)")
    args = ap.parse_args()
    import onnxruntime as ort
    from onnxruntime.quantization.shape_inference import quant_pre_process

    ember_note = ember_has_quantize(args.ember)
    rows, missing = [], []
    work = tempfile.mkdtemp(prefix="ember-quantize-bench-")
    try:
        for model in args.models.split(","):
            src = os.path.join(args.cache, model, "op13.onnx")
            if not os.path.exists(src):
                print("bench/quantize.py: %s: no %s, skipped" % (model, src), file=sys.stderr)
                missing.append(model)
                continue
            s = ort.InferenceSession(src, providers=["CPUExecutionProvider"])
            inp = s.get_inputs()[0]
            shape = [d if isinstance(d, int) else 1 for d in inp.shape]
            calib = make_inputs(shape, args.calib, 1)
            evals = make_inputs(shape, args.eval, 2)
            ref = run_ort(src, inp.name, evals)
            pre = os.path.join(work, model + ".pre.onnx")
            quant_pre_process(src, pre)
            files = []
            for i, x in enumerate(calib):
                files.append(os.path.join(work, "%s.calib%d.npy" % (model, i)))
                np.save(files[-1], x)
            for method in args.methods.split(","):
                row = {"model": model, "method": method}
                dst = os.path.join(work, "%s.%s.ort.onnx" % (model, method))
                row["ort_calib_s"], row["ort_cpu_s"] = ort_quantize(pre, dst, inp.name, calib,
                                                                    method)
                row["ort_sqnr"], row["ort_argmax"] = quality(ref, run_ort(dst, inp.name, evals))
                if ember_note is None:
                    dst = os.path.join(work, "%s.%s.ember.onnx" % (model, method))
                    try:
                        row["ember_calib_s"], row["ember_cpu_s"] = ember_quantize(
                            args.ember, src, dst, files, method)
                        row["ember_sqnr"], row["ember_argmax"] = quality(
                            ref, run_ort(dst, inp.name, evals))
                    except RuntimeError as e:
                        row["ember_error"] = str(e)
                print(json.dumps(row), file=sys.stderr)
                rows.append(row)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def f(v, fmt):
        return fmt % v if isinstance(v, (int, float)) else "-"

    lines = ["# Static int8 quantization: ORT quantize_static vs `ember quantize`", "",
             "%s, %s, onnxruntime %s, %d calibration + %d evaluation inputs (bench/quantize.py: "
             "smooth random images), per-channel QDQ, u8 activations, s8 weights; both files "
             "evaluated in ORT against the fp32 model's output." % (
                 datetime.date.today().isoformat(), platform.processor() or platform.machine(),
                 ort.__version__, args.calib, args.eval), ""]
    if args.note:
        lines += [args.note, ""]
    if ember_note:
        lines += ["ember columns skipped: %s." % ember_note, ""]
    if missing:
        lines += ["Not in %s (skipped): %s." % (args.cache, ", ".join(missing)), ""]
    lines += ["Calibration time: wall seconds (CPU seconds of the process, all threads: "
              "comparable on a shared machine).", ""]
    lines += ["| model | method | ORT SQNR dB | ORT argmax | ORT calib s (CPU) | "
              "**ember** SQNR dB | **ember** argmax | **ember** calib s (CPU) |",
              "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append("| %s | %s | %s | %s | %s (%s) | %s | %s | %s (%s) |" % (
            r["model"], r["method"], f(r["ort_sqnr"], "%.2f"), f(r["ort_argmax"], "%.3f"),
            f(r["ort_calib_s"], "%.1f"), f(r.get("ort_cpu_s"), "%.1f"),
            f(r.get("ember_sqnr"), "%.2f"), f(r.get("ember_argmax"), "%.3f"),
            f(r.get("ember_calib_s"), "%.1f"), f(r.get("ember_cpu_s"), "%.1f")))
        if "ember_error" in r:
            lines.append("|  | ember failed: %s |||||||" % r["ember_error"].replace("|", "/"))
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as fo:
        fo.write("\n".join(lines) + "\n")
    with open(os.path.splitext(args.out)[0] + ".json", "w") as fo:
        json.dump({"kind": "quantize", "rows": rows, "ember_note": ember_note}, fo, indent=1)
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
