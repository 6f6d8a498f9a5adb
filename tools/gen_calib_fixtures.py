#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the calibration fixtures into tests/data/calib: small data sets of several
distributions, and the ranges ONNX Runtime's calibrators and PyTorch's HistogramObserver choose
for them (tests/quantization/test_calib.c compares ember's quantization/calib.c with these).

tests/data/calib/<case>.npy   float32 [batches, n]: each row is one calibration batch
tests/data/calib/expected.txt one line per (case, reference):
                              <case> <key> <lo> <hi> <bin>
                              <bin> is the width of the reference's histogram bin (0 for
                              minmax), the unit of the test's tolerance.

Keys ("1": all rows in one collect, as quantize_static does; "b": one collect per row):
  minmax, minmax_ma, minmax_sym   ORT MinMaxCalibrater (moving_average, symmetric) on an
                                  Identity model fed one row per run
  pct_sym_<p>_<1|b>               ORT HistogramCollector('percentile', symmetric=True,
                                  num_bins=BINS): the |x| histogram
  pct_asym_<p>_<1|b>              the same with symmetric=False (value histogram, 2 * BINS bins)
  entropy_<1|b>                   HistogramCollector('entropy', num_bins=2 * BINS,
                                  num_quantized_bins=LEVELS)
  entropy64_<1|b>                 the same with the KL divergence (calibrate.entropy and
                                  smooth_distribution) computed in float64 instead of ORT's
                                  float32, the rest ORT's code: on these small data sets the KL
                                  curve is flat near its minimum and float32 rounding alone can
                                  move ORT's choice by a few bins
  entropyort_<nb>_<nq>_<1|b>      ORT's EntropyCalibrater as quantize_static runs it: one
                                  collect of all rows, num_bins=nb, num_quantized_bins=nq (ORT's
                                  defaults 128 / 128, then finer histograms); the same reference
                                  under _1 and _b: ember (a collector of the default bins, as the
                                  quantizer makes) fed all rows at once (_1) or row by row (_b)
  entropyort64_<nb>_<nq>_<1|b>    the same with the KL in float64 (see entropy64_)
  mse_1                           torch HistogramObserver(bins=BINS) fed all rows at once, then
                                  _non_linear_param_search() (PyTorch's own min / max search)

Run with the onnxruntime venv; the mse part runs PyTorch's python as a child process:
    /work/main/bench/.env/ort/bin/python tools/gen_calib_fixtures.py
(TORCH_PYTHON overrides /work/main/bench/.env/torch2/bin/python). Deterministic (numpy seed).
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

BINS = 256  # ember's em_calib_new(BINS): |x| histogram BINS bins, value histogram 2 * BINS
LEVELS = 256
PERCENTILES = (99.999, 99.9, 99.0)
ORT_ENTROPY = ((128, 128), (512, 128), (2048, 128))  # (num_bins, num_quantized_bins)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "calib")


def make_cases():
    rng = np.random.default_rng(20)
    rows, n = 4, 2048
    c = {}
    c["relu"] = np.maximum(rng.standard_normal((rows, n)), 0)
    c["gauss"] = rng.normal(0.3, 1.5, (rows, n))
    c["heavy"] = rng.standard_t(2.0, (rows, n))
    o = rng.standard_normal((rows, n))
    idx = rng.choice(rows * n, rows * n // 500, replace=False)
    o.flat[idx] *= 40.0
    c["outliers"] = o
    c["const"] = np.full((2, 64), 0.75)
    c["zeros"] = np.zeros((2, 64))
    c["single"] = np.array([[-2.5]])
    h = rng.standard_normal((rows, n))
    h[0, 100] = 1.0e6  # in the first row: ORT's per-row histogram would otherwise need 10^9 bins
    c["huge"] = h
    return {k: v.astype(np.float32) for k, v in c.items()}


def ort_minmax(data):
    import onnx
    from onnx import TensorProto, helper
    from onnxruntime.quantization.calibrate import CalibrationDataReader, create_calibrator, \
        CalibrationMethod

    n = data.shape[1]
    g = helper.make_graph([helper.make_node("Identity", ["X"], ["Y"])], "g",
                          [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, n])],
                          [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, n])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.it = iter([{"X": r[None, :]} for r in data])

        def get_next(self):
            return next(self.it, None)

    out = {}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.onnx")
        onnx.save(m, path)
        for key, opts in (("minmax", {}), ("minmax_ma", {"moving_average": True}),
                          ("minmax_sym", {"symmetric": True})):
            cal = create_calibrator(path, None, os.path.join(d, "aug.onnx"),
                                    CalibrationMethod.MinMax, extra_options=opts)
            cal.collect_data(Reader())
            lo, hi = cal.compute_data()["X"].range_value
            out[key] = (np.asarray(lo).item(), np.asarray(hi).item(), 0.0)
    return out


def kl64(pk, qk, base=None, axis=0):
    pk = np.asarray(pk, np.float64)
    qk = np.asarray(qk, np.float64)
    pk, qk = pk / pk.sum(), qk / qk.sum()
    return np.sum(np.where(pk > 0, pk * np.log(pk / qk), 0.0))


def smooth64(p, eps=0.0001):
    p = np.asarray(p, np.float64)
    zeros = p == 0
    nz = p.size - zeros.sum()
    if not nz:
        return None
    return np.where(zeros, eps, p - eps * zeros.sum() / nz)


def ort_hist(data, method, symmetric, num_bins, **kw):
    """HistogramCollector fed all rows at once ("1") or one row per collect ("b")."""
    from onnxruntime.quantization.calibrate import HistogramCollector

    res = {}
    for mode in kw.get("modes", ("1", "b")):
        col = HistogramCollector(method=method, symmetric=symmetric, num_bins=num_bins,
                                 num_quantized_bins=kw.get("levels", 128),
                                 percentile=kw.get("percentile", 99.999), scenario="same")
        for batch in ([data.reshape(-1)] if mode == "1" else list(data)):
            col.collect({"t": batch})
        r = col.compute_collection_result()["t"]
        edges = col.histogram_dict["t"][1]
        res[mode] = (float(r[0]), float(r[1]), float(edges[1]) - float(edges[0]))
    return res


TORCH_CHILD = r"""
import json, sys, numpy as np, torch
from torch.ao.quantization.observer import HistogramObserver
out = {}
for name, path in json.loads(sys.argv[1]).items():
    x = torch.from_numpy(np.load(path).reshape(-1))
    obs = HistogramObserver(bins=%d)
    obs(x)
    lo, hi = obs._non_linear_param_search()
    out[name] = (float(lo), float(hi), float((obs.max_val - obs.min_val) / obs.bins))
print(json.dumps(out))
""" % BINS


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = make_cases()
    lines = []
    paths = {}
    for name, data in cases.items():
        path = os.path.join(OUT, name + ".npy")
        np.save(path, data)
        paths[name] = path
        refs = ort_minmax(data)
        for p in PERCENTILES:
            for sym, tag, nb in ((True, "sym", BINS), (False, "asym", 2 * BINS)):
                r = ort_hist(data, "percentile", sym, nb, percentile=p)
                for mode, v in r.items():
                    refs["pct_%s_%g_%s" % (tag, p, mode)] = v
        r = ort_hist(data, "entropy", False, 2 * BINS, levels=LEVELS)
        for mode, v in r.items():
            refs["entropy_" + mode] = v
        import onnxruntime.quantization.calibrate as cal
        saved = cal.entropy, cal.smooth_distribution
        cal.entropy, cal.smooth_distribution = kl64, smooth64
        r = ort_hist(data, "entropy", False, 2 * BINS, levels=LEVELS)
        cal.entropy, cal.smooth_distribution = saved
        for mode, v in r.items():
            refs["entropy64_" + mode] = v
        for nb, nq in ORT_ENTROPY:
            for tag, f64 in (("entropyort", False), ("entropyort64", True)):
                if f64:
                    cal.entropy, cal.smooth_distribution = kl64, smooth64
                v = ort_hist(data, "entropy", False, nb, levels=nq, modes=("1",))["1"]
                cal.entropy, cal.smooth_distribution = saved
                for mode in ("1", "b"):
                    refs["%s_%d_%d_%s" % (tag, nb, nq, mode)] = v
        for key, (lo, hi, b) in refs.items():
            lines.append("%s %s %r %r %r" % (name, key, lo, hi, b))
    tp = os.environ.get("TORCH_PYTHON", "/work/main/bench/.env/torch2/bin/python")
    mse = json.loads(subprocess.check_output([tp, "-c", TORCH_CHILD, json.dumps(paths)]))
    for name, (lo, hi, b) in mse.items():
        lines.append("%s mse_1 %r %r %r" % (name, lo, hi, b))
    with open(os.path.join(OUT, "expected.txt"), "w") as f:
        f.write("# written by tools/gen_calib_fixtures.py: case key lo hi bin\n")
        f.write("\n".join(sorted(lines)) + "\n")
    print("wrote %d references for %d cases to %s" % (len(lines), len(cases), OUT))


if __name__ == "__main__":
    sys.exit(main())
