#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Static int8 quantization quality and calibration time: ONNX Runtime's quantize_static next
to `ember quantize`, by calibration method (issue #20's targets).

    bench/.env/ort/bin/python bench/quantize.py [--models resnet18,resnet50,...]
        [--methods minmax,entropy,percentile] [--calib 32] [--eval 100] [--out bench/quantize.md]

Runs under the Python that has onnxruntime and numpy (bench/setup.sh's bench/.env/ort). For
each model (CACHE/<model>/op13.onnx, the suite's fp32 exports: --cache, default
bench/.cache/suite, what `bench/run.py --suite` exports) it makes --calib calibration and --eval held-apart evaluation inputs
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


def run_ort(path, inputs, optimize=True):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    if not optimize:
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    name = s.get_inputs()[0].name
    return np.concatenate([s.run(None, {name: x})[0] for x in inputs])


def run_ember(path, inputs):
    """ember running the QDQ file on its int8 kernels (`ember run FILE --int8 on`), through the
    Python package over build/libember.so: one load for all inputs."""
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import ember
    with ember.Model(path, threads=1, int8="on") as m:
        return np.concatenate([list(m.run([x]).values())[0] for x in inputs])


def quality(ref, q):
    err = np.sum((ref.astype(np.float64) - q) ** 2)
    sqnr = 10 * np.log10(np.sum(ref.astype(np.float64) ** 2) / err) if err > 0 else float("inf")
    agree = float(np.mean(np.argmax(ref, axis=-1) == np.argmax(q, axis=-1)))
    return sqnr, agree


def output_lsb(path):
    """The scale of the DequantizeLinear that makes the first graph output (one output LSB), or
    None when the output is not dequantized there."""
    import onnx
    from onnx import numpy_helper
    m = onnx.load(path, load_external_data=False)
    out = m.graph.output[0].name
    inits = {t.name: t for t in m.graph.initializer}
    consts = {n.output[0]: n for n in m.graph.node if n.op_type == "Constant"}
    for n in m.graph.node:
        if n.op_type == "DequantizeLinear" and n.output[0] == out:
            if n.input[1] in inits:
                s = numpy_helper.to_array(inits[n.input[1]])
            elif n.input[1] in consts:
                s = numpy_helper.to_array(consts[n.input[1]].attribute[0].t)
            else:
                return None
            return float(np.max(s))
    return None


def lsb_agreement(path, evals, n):
    """ember's output on its own QDQ file against ORT's (optimized: ORT's int8 kernels; and
    with graph optimizations off: the QDQ graph op by op in fp32, ONNX's exact semantics):
    the fraction of elements within one output LSB."""
    lsb = output_lsb(path)
    xs = evals[:n]
    e = run_ember(path, xs)
    res = {"lsb": lsb, "lsb_n": len(xs)}
    for key, opt in (("ort", True), ("exact", False)):
        o = run_ort(path, xs, optimize=opt)
        d = np.abs(e.astype(np.float64) - o)
        res["maxdiff_" + key] = float(d.max())
        if lsb:
            res["lsb_" + key] = float(np.mean(d <= lsb * 1.0001))
    return res


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
                                                             "--output", dst, "--quiet"]
    t0, r0 = time.time(), resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.time() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(cmd[:4]) + " ...", (p.stderr or p.stdout)[-400:]))
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def model_files(args, model):
    """(fp32 ONNX, TorchScript trace) of a model: the suite's folder, or the fp32 bench's
    transformer encoder."""
    if model == "transformer":
        d = args.transformer
        return os.path.join(d, "model.onnx"), os.path.join(d, "trace-torch2.pt")
    d = os.path.join(args.cache, model)
    return os.path.join(d, "op13.onnx"), os.path.join(d, "trace-torch2.pt")


def make_model_inputs(shape, n, seed):
    if len(shape) == 4:
        return make_inputs(shape, n, seed)
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(np.float32) for _ in range(n)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="resnet18,resnet50,mobilenet_v2,transformer")
    ap.add_argument("--methods", default="minmax,entropy,percentile")
    ap.add_argument("--calib", type=int, default=32, help="calibration inputs (32)")
    ap.add_argument("--eval", type=int, default=100, help="evaluation inputs (100)")
    ap.add_argument("--lsb-n", type=int, default=20,
                    help="evaluation inputs for the ember-vs-ORT 1 LSB check (20; 0: none)")
    ap.add_argument("--cache", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".cache", "suite"),
                    help="folder of <model>/op13.onnx (bench/run.py --suite's cache)")
    ap.add_argument("--transformer", default=os.path.join(ROOT, "bench", ".cache", "transformer"),
                    help="folder of the transformer encoder's model.onnx / trace-torch2.pt")
    ap.add_argument("--pt", action="store_true",
                    help="also quantize each model's trace-torch2.pt with ember (rows '.pt')")
    ap.add_argument("--sides", default="ort,ember", help="ort, ember or both")
    ap.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "ember-quantize-bench"),
                    help="kept between runs: inputs, ORT's quantized files and results (an ORT "
                         "result there is reused; --fresh redoes it)")
    ap.add_argument("--fresh", action="store_true")
    ap.add_argument("--ember", default=os.path.join(ROOT, "build", "ember"))
    ap.add_argument("--out", default=os.path.join(HERE, "quantize.md"))
    ap.add_argument("--note", help="a line for the header (what else ran on the machine)")
    args = ap.parse_args()
    import onnxruntime as ort
    from onnxruntime.quantization.shape_inference import quant_pre_process

    sides = args.sides.split(",")
    ember_note = ember_has_quantize(args.ember) if "ember" in sides else "not run (--sides)"
    rows, missing = [], []
    for model in args.models.split(","):
        src, pt = model_files(args, model)
        if not os.path.exists(src):
            print("bench/quantize.py: %s: no %s, skipped" % (model, src), file=sys.stderr)
            missing.append(model)
            continue
        work = os.path.join(args.work, model)
        os.makedirs(work, exist_ok=True)
        s = ort.InferenceSession(src, providers=["CPUExecutionProvider"])
        inp = s.get_inputs()[0]
        shape = [d if isinstance(d, int) else 1 for d in inp.shape]
        calib = make_model_inputs(shape, args.calib, 1)
        evals = make_model_inputs(shape, args.eval, 2)
        refp = os.path.join(work, "ref%d.npy" % args.eval)
        if not os.path.exists(refp):
            np.save(refp, run_ort(src, evals))
        ref = np.load(refp)
        pre = os.path.join(work, "pre.onnx")
        if not os.path.exists(pre):
            quant_pre_process(src, pre)
        files = []
        for i, x in enumerate(calib):
            files.append(os.path.join(work, "calib%03d.npy" % i))
            np.save(files[-1], x)
        forms = [("onnx", src)] + ([(".pt", pt)] if args.pt and os.path.exists(pt) else [])
        for method in args.methods.split(","):
            ort_row = None
            cached = os.path.join(work, "ort-%s-%d-%d.json" % (method, args.calib, args.eval))
            if "ort" in sides:
                if os.path.exists(cached) and not args.fresh:
                    with open(cached) as fi:
                        ort_row = json.load(fi)
                else:
                    dst = os.path.join(work, "%s.ort.onnx" % method)
                    ort_row = {}
                    ort_row["ort_calib_s"], ort_row["ort_cpu_s"] = ort_quantize(
                        pre, dst, inp.name, calib, method)
                    ort_row["ort_sqnr"], ort_row["ort_argmax"] = quality(ref, run_ort(dst, evals))
                    with open(cached, "w") as fo:
                        json.dump(ort_row, fo)
            for form, path in forms:
                row = {"model": model if form == "onnx" else model + " (.pt)", "method": method}
                row.update(ort_row or {})
                if ember_note is None:
                    dst = os.path.join(work, "%s.ember%s.onnx" % (method, form.replace(".", "-")))
                    try:
                        row["ember_calib_s"], row["ember_cpu_s"] = ember_quantize(
                            args.ember, path, dst, files, method)
                        row["ember_sqnr"], row["ember_argmax"] = quality(ref, run_ort(dst, evals))
                        if args.lsb_n > 0:
                            row.update(lsb_agreement(dst, evals, args.lsb_n))
                    except RuntimeError as e:
                        row["ember_error"] = str(e)
                print(json.dumps(row), file=sys.stderr)
                rows.append(row)
    write_tables(args, rows, missing, ember_note, ort.__version__)


def write_tables(args, rows, missing, ember_note, ort_version):
    def f(v, fmt):
        return fmt % v if isinstance(v, (int, float)) else "-"

    lines = ["# Static int8 quantization: ORT quantize_static vs `ember quantize`", "",
             "%s, %s, onnxruntime %s, %d calibration + %d evaluation inputs (bench/quantize.py: "
             "smooth random images; the transformer: N(0, 1) tokens), per-channel QDQ, u8 "
             "activations, s8 weights; both files evaluated in ORT against the fp32 ONNX "
             "model's output." % (
                 datetime.date.today().isoformat(), platform.processor() or platform.machine(),
                 ort_version, args.calib, args.eval), ""]
    if args.note:
        lines += [args.note, ""]
    if ember_note:
        lines += ["ember columns skipped: %s." % ember_note, ""]
    if missing:
        lines += ["Not found (skipped): %s." % ", ".join(missing), ""]
    lines += ["Calibration time: wall seconds (CPU seconds of the process, all threads: "
              "comparable on a shared machine). '(.pt)' rows: ember quantized the model's "
              "TorchScript trace (ORT's columns repeat its ONNX row). argmax: over the last "
              "axis (the transformer: per token).", ""]
    lines += ["| model | method | ORT SQNR dB | ORT argmax | ORT calib s (CPU) | "
              "**ember** SQNR dB | **ember** argmax | **ember** calib s (CPU) |",
              "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append("| %s | %s | %s | %s | %s (%s) | %s | %s | %s (%s) |" % (
            r["model"], r["method"], f(r.get("ort_sqnr"), "%.2f"), f(r.get("ort_argmax"), "%.3f"),
            f(r.get("ort_calib_s"), "%.1f"), f(r.get("ort_cpu_s"), "%.1f"),
            f(r.get("ember_sqnr"), "%.2f"), f(r.get("ember_argmax"), "%.3f"),
            f(r.get("ember_calib_s"), "%.1f"), f(r.get("ember_cpu_s"), "%.1f")))
        if "ember_error" in r:
            lines.append("|  | ember failed: %s |||||||" % r["ember_error"].replace("|", "/"))
    if any("lsb_n" in r for r in rows):
        lines += ["", "ember's QDQ file run by ember (`--int8 on`, its integer kernels) and by "
                  "ORT, on the first N evaluation inputs: the fraction of output elements within "
                  "one output LSB (the scale of the DequantizeLinear that makes the output). "
                  "'ORT': ORT's default session (its own int8 kernels); 'ORT exact': graph "
                  "optimizations off, the QDQ graph op by op (ONNX's semantics).", "",
                  "| model | method | N | LSB | within 1 LSB of ORT | max diff | within 1 LSB of "
                  "ORT exact | max diff |", "|---|---|---:|---:|---:|---:|---:|---:|"]
        for r in rows:
            if "lsb_n" in r:
                lines.append("| %s | %s | %d | %s | %s | %s | %s | %s |" % (
                    r["model"], r["method"], r["lsb_n"], f(r.get("lsb"), "%.4g"),
                    f(r.get("lsb_ort"), "%.4f"), f(r.get("maxdiff_ort"), "%.4g"),
                    f(r.get("lsb_exact"), "%.4f"), f(r.get("maxdiff_exact"), "%.4g")))
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as fo:
        fo.write("\n".join(lines) + "\n")
    with open(os.path.splitext(args.out)[0] + ".json", "w") as fo:
        json.dump({"kind": "quantize", "rows": rows, "ember_note": ember_note}, fo, indent=1)
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
