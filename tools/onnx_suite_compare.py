#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs ONNX conformance groups through the `ember run` CLI and through ONNX Runtime, side by
side, and prints `N passed, N failed` per group for each.

This is the CLI contract measured from outside (DESIGN.md): one `ember run MODEL --input
input_0.pb ... --output-dir DIR` per test data set, outputs read back from DIR/output_<i>.npy
(or output_<i>.pb where .npy cannot hold them), compared with the data set's output_<i>.pb.
ONNX Runtime (CPU provider, graph optimizations on, sequential execution, one thread) gets the
same inputs in a worker process that is restarted if it crashes.

A case passes when every data set does. Comparison as in tests/conformance/onnx_conformance.c:
floats within rtol 1e-3 and atol 1e-5 (NaN where NaN is expected, infinities exactly),
everything else exactly; per-case `tol RTOL ATOL` and `random set|scale` entries of the
expected-failure list (--expected, repeatable) apply to both runtimes alike.

Needs numpy, onnx and onnxruntime: run it with a virtual environment's python, e.g.
    python3 -m venv /work/venv && /work/venv/bin/pip install onnx==1.23.2 onnxruntime numpy
    /work/venv/bin/python tools/onnx_suite_compare.py --ember build/ember \\
        --expected tests/conformance/onnx_expected_failures.txt \\
        /usr/share/libonnx-testdata/data/{node,pytorch-converted,pytorch-operator,simple}
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import numpy_helper

RTOL, ATOL = 1e-3, 1e-5


# ---- values: reading .pb / .npy files by the model's declared types -------------------------

def type_kind(tp):
    """'tensor', 'sequence', 'optional' or 'optional_sequence' of an onnx TypeProto."""
    which = tp.WhichOneof("value")
    if which == "sequence_type":
        return "sequence"
    if which == "optional_type":
        inner = tp.optional_type.elem_type.WhichOneof("value")
        return "optional_sequence" if inner == "sequence_type" else "optional"
    return "tensor"


def read_pb(path, kind):
    """A tensor (ndarray), a sequence (list of ndarrays) or an optional (None or either)."""
    data = open(path, "rb").read()
    if kind == "tensor":
        t = onnx.TensorProto()
        t.ParseFromString(data)
        return numpy_helper.to_array(t, base_dir=os.path.dirname(path))
    if kind == "sequence":
        s = onnx.SequenceProto()
        s.ParseFromString(data)
        return numpy_helper.to_list(s)
    o = onnx.OptionalProto()
    o.ParseFromString(data)
    return numpy_helper.to_optional(o)


def model_kinds(model_path):
    m = onnx.load(model_path, load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    ins = [type_kind(v.type) for v in m.graph.input if v.name not in inits]
    outs = [type_kind(v.type) for v in m.graph.output]
    return ins, outs


def data_sets(case_dir):
    return sorted(glob.glob(os.path.join(case_dir, "test_data_set_*")),
                  key=lambda d: int(d.rsplit("_", 1)[1]))


def numbered(ds, prefix):
    files = glob.glob(os.path.join(ds, prefix + "_*.pb"))
    return sorted(files, key=lambda f: int(re.search(r"_(\d+)\.pb$", f).group(1)))


# ---- comparison -------------------------------------------------------------------------

def is_float(a):
    return a.dtype.kind == "f" or a.dtype.name in (
        "bfloat16", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
        "float4_e2m1fn", "float8_e8m0fnu")


def as_text(a):
    return np.vectorize(lambda x: x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x),
                        otypes=[object])(a) if a.size else a.astype(object)


def compare_array(got, want, tol, x0):
    if not isinstance(got, np.ndarray):
        return "a %s where a tensor is expected" % type(got).__name__
    if want.dtype.kind in "OSU" or got.dtype.kind in "OSU":
        if got.shape != want.shape:
            return "shape %s, expected %s" % (got.shape, want.shape)
        if want.dtype.kind not in "OSU" or got.dtype.kind not in "OSU":
            return "dtype %s, expected %s" % (got.dtype, want.dtype)
        bad = np.flatnonzero(as_text(got).ravel() != as_text(want).ravel())
        return "string element %d differs" % bad[0] if bad.size else None
    if want.dtype == np.uint16 and got.dtype.name == "bfloat16":
        got = got.view(np.uint16)  # onnx 1.12 stores bfloat16 data as uint16 bits
    if got.dtype != want.dtype:
        return "dtype %s, expected %s" % (got.dtype, want.dtype)
    if got.shape != want.shape:
        return "shape %s, expected %s" % (got.shape, want.shape)
    rtol, atol, rnd = tol
    if rnd:
        return compare_random(got, want, rnd, x0)
    if not is_float(want):
        bad = np.flatnonzero(got.ravel() != want.ravel())
        return "element %d differs" % bad[0] if bad.size else None
    g = got.astype(np.float64).ravel()
    w = want.astype(np.float64).ravel()
    with np.errstate(invalid="ignore"):
        ok = np.where(np.isnan(w), np.isnan(g),
                      np.where(np.isinf(w), g == w, np.abs(g - w) <= atol + rtol * np.abs(w)))
    bad = np.flatnonzero(~ok)
    return "element %d: %r, expected %r" % (bad[0], g[bad[0]], w[bad[0]]) if bad.size else None


def compare_random(got, want, rnd, x0):
    """Random ops by properties (see compare_random in onnx_conformance.c)."""
    g = got.astype(np.float64).ravel()
    w = want.astype(np.float64).ravel()
    if rnd == "scale" and is_float(want):
        if x0 is None or x0.size != g.size:
            return "no input 0 of the output's size to scale"
        x = x0.astype(np.float64).ravel()
        nz = (w != 0) & (x != 0)
        scale = (w[nz] / x[nz])[0] if nz.any() else None
        for i in np.flatnonzero(g != 0):
            if scale is None:
                scale = g[i] / x[i]
            if not abs(g[i] - x[i] * scale) <= 1e-6 + 1e-5 * abs(x[i] * scale):
                return "element %d is neither 0 nor input 0 times the reference's factor" % i
        return None
    if is_float(want):
        lo, hi = (w.min(), w.max()) if w.size else (0.0, 0.0)
        ok = (g == 0) | ((g >= lo - 1e-6 - 1e-5 * abs(lo)) & (g <= hi + 1e-6 + 1e-5 * abs(hi)))
    else:
        ok = (g == 0) | np.isin(g, w)
    bad = np.flatnonzero(~ok)
    return "element %d is outside the values a random op may give" % bad[0] if bad.size else None


def compare_value(got, want, tol, x0):
    if want is None:
        return None if got is None else "a value where an empty optional is expected"
    if isinstance(want, list):
        if not isinstance(got, list):
            return "not a sequence"
        if len(got) != len(want):
            return "sequence of %d, expected %d" % (len(got), len(want))
        for i, (a, b) in enumerate(zip(got, want)):
            r = compare_array(a, b, tol, None)
            if r:
                return "item %d: %s" % (i, r)
        return None
    if got is None:
        return "an empty optional where a value is expected"
    return compare_array(got, want, tol, x0)


def check_data_set(ds, in_kinds, out_kinds, tol, run):
    """Runs one data set through `run(inputs, input_files) -> outputs` and compares."""
    in_files = numbered(ds, "input")
    want_files = numbered(ds, "output")
    inputs = [read_pb(f, k) for f, k in zip(in_files, in_kinds)]
    got = run(inputs, in_files)
    if isinstance(got, str):
        return got
    if len(got) != len(want_files):
        return "%d outputs, expected %d" % (len(got), len(want_files))
    x0 = inputs[0] if inputs and isinstance(inputs[0], np.ndarray) else None
    for i, (g, f) in enumerate(zip(got, want_files)):
        r = compare_value(g, read_pb(f, out_kinds[i] if i < len(out_kinds) else "tensor"),
                          tol, x0)
        if r:
            return "%s: output %d: %s" % (os.path.basename(ds), i, r)
    return None


# ---- ember through its CLI -----------------------------------------------------------------

def ember_case(ember, case_dir, tol, timeout):
    model = os.path.join(case_dir, "model.onnx")
    try:
        in_kinds, out_kinds = model_kinds(model)
    except Exception as e:  # the model does not parse in onnx either
        return "onnx cannot read the model: %s" % e
    tmp = tempfile.mkdtemp(prefix="ember_cmp_")
    try:
        for ds in data_sets(case_dir):
            def run(_inputs, in_files):
                out_dir = os.path.join(tmp, os.path.basename(ds))
                cmd = [ember, "run", model, "--output-dir", out_dir, "--warmup", "0",
                       "--iters", "1", "--threads", "1"]
                for f in in_files:
                    cmd += ["--input", f]
                try:
                    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
                except subprocess.TimeoutExpired:
                    return "timed out after %g s" % timeout
                if p.returncode < 0:
                    return "CRASH: signal %d" % -p.returncode
                if p.returncode != 0:
                    lines = p.stderr.strip().splitlines()
                    msg = lines[-1] if lines else "exit status %d" % p.returncode
                    return msg[len("ember: error: "):] if msg.startswith("ember: error: ") else msg
                outs = []
                for i, kind in enumerate(out_kinds):
                    npy = os.path.join(out_dir, "output_%d.npy" % i)
                    pb = os.path.join(out_dir, "output_%d.pb" % i)
                    if os.path.exists(npy):
                        outs.append(np.load(npy, allow_pickle=False))
                    elif os.path.exists(pb):
                        outs.append(read_pb(pb, kind))
                    else:
                        return "output %d was not written" % i
                return outs
            r = check_data_set(ds, in_kinds, out_kinds, tol, run)
            if r:
                return r
        return None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ---- ONNX Runtime in a worker process ------------------------------------------------------

def ort_worker():
    """Reads one JSON job per line ({case, tol}), prints one JSON result per line."""
    import onnxruntime as ort
    ort.set_default_logger_severity(4)
    for line in sys.stdin:
        job = json.loads(line)
        case_dir, tol = job["case"], tuple(job["tol"])
        model = os.path.join(case_dir, "model.onnx")
        try:
            in_kinds, out_kinds = model_kinds(model)
            so = ort.SessionOptions()
            so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            so.intra_op_num_threads = 1
            so.inter_op_num_threads = 1
            sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
            names = [i.name for i in sess.get_inputs()]

            def run(inputs, _files):
                if len(inputs) != len(names):
                    return "%d inputs given, the session has %d" % (len(inputs), len(names))
                return sess.run(None, dict(zip(names, inputs)))
            r = None
            for ds in data_sets(case_dir):
                r = check_data_set(ds, in_kinds, out_kinds, tol, run)
                if r:
                    break
        except Exception as e:
            r = (str(e).strip().splitlines() or [type(e).__name__])[0][:300]
        print(json.dumps({"fail": r}), flush=True)


class OrtPool:
    """One worker process; a crash or a hang fails that case and starts a new worker."""

    def __init__(self, timeout):
        self.timeout = timeout
        self.p = None

    def start(self):
        self.p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--ort-worker"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def run(self, case_dir, tol):
        if self.p is None or self.p.poll() is not None:
            self.start()
        self.p.stdin.write(json.dumps({"case": case_dir, "tol": list(tol)}) + "\n")
        self.p.stdin.flush()
        import select
        ready, _, _ = select.select([self.p.stdout], [], [], self.timeout)
        line = self.p.stdout.readline() if ready else ""
        if not line:
            self.p.kill()
            self.p.wait()
            self.p = None
            return "CRASH or timeout (%g s)" % self.timeout if ready else "timed out"
        return json.loads(line)["fail"]

    def close(self):
        if self.p is not None:
            self.p.stdin.close()
            self.p.wait()


# ---- driver ------------------------------------------------------------------------------

def read_expected(paths):
    """{group/case: (rtol, atol, random)} from `tol` and `random` entries."""
    tols = {}
    for path in paths:
        for line in open(path):
            f = line.split()
            if len(f) >= 3 and not line.startswith("#"):
                if f[1] == "tol":
                    tols[f[0]] = (float(f[2]), float(f[3]), None)
                elif f[1] == "random":
                    tols[f[0]] = (RTOL, ATOL, f[2])
    return tols


def main():
    if sys.argv[1:] == ["--ort-worker"]:
        return ort_worker()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("groups", nargs="+", help="group folders (node, simple, ...)")
    ap.add_argument("--ember", default="build/ember", help="the ember CLI (default build/ember)")
    ap.add_argument("--no-ort", action="store_true", help="run ember only")
    ap.add_argument("--expected", action="append", default=[],
                    help="expected-failure list whose tol/random entries apply (repeatable)")
    ap.add_argument("--filter", default="", help="only cases whose name contains this")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per case (default 60)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--results", help="write one line per case: group/case ember ort reasons")
    ap.add_argument("--markdown", help="write the per-group table as markdown")
    ap.add_argument("--verbose", action="store_true", help="print every case")
    a = ap.parse_args()
    tols = read_expected(a.expected)
    ort_pool = None if a.no_ort else OrtPool(a.timeout)
    rows, lines = [], []
    t0 = time.time()
    for gdir in a.groups:
        group = os.path.basename(os.path.normpath(gdir))
        cases = sorted(d for d in glob.glob(os.path.join(gdir, "*"))
                       if os.path.isfile(os.path.join(d, "model.onnx"))
                       and a.filter in os.path.basename(d))
        keys = ["%s/%s" % (group, os.path.basename(c)) for c in cases]
        ctol = [tols.get(k, (RTOL, ATOL, None)) for k in keys]
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
            ember_res = list(ex.map(lambda ct: ember_case(a.ember, ct[0], ct[1], a.timeout),
                                    zip(cases, ctol)))
        ort_res = [ort_pool.run(c, t) for c, t in zip(cases, ctol)] if ort_pool else None
        e_pass = sum(r is None for r in ember_res)
        o_pass = sum(r is None for r in ort_res) if ort_res else None
        for i, k in enumerate(keys):
            e = "pass" if ember_res[i] is None else "FAIL"
            o = "-" if ort_res is None else ("pass" if ort_res[i] is None else "FAIL")
            line = "%s ember=%s ort=%s" % (k, e, o)
            reasons = [("ember: " + ember_res[i]) if ember_res[i] else "",
                       ("ort: " + ort_res[i]) if ort_res and ort_res[i] else ""]
            line += "  " + " | ".join(r for r in reasons if r) if any(reasons) else ""
            lines.append(line)
            if a.verbose:
                print(line)
        n = len(cases)
        msg = "%s: ember %d passed, %d failed" % (group, e_pass, n - e_pass)
        if ort_res is not None:
            msg += "; onnxruntime %d passed, %d failed" % (o_pass, n - o_pass)
        print(msg, flush=True)
        rows.append((group, n, e_pass, o_pass))
    if ort_pool:
        ort_pool.close()
    if a.results:
        with open(a.results, "w") as f:
            f.write("\n".join(lines) + "\n")
    if a.markdown:
        import onnxruntime
        with open(a.markdown, "w") as f:
            f.write("| group | cases | ember (CLI) | onnxruntime %s |\n|---|---:|---:|---:|\n"
                    % (onnxruntime.__version__ if ort_pool else "(not run)"))
            for g, n, e, o in rows:
                f.write("| %s | %d | %d | %s |\n" % (g, n, e, "-" if o is None else o))
    print("total %.0f s" % (time.time() - t0))


if __name__ == "__main__":
    sys.exit(main())
