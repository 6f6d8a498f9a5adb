#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ember vs ONNX Runtime vs LibTorch (2.x and 1.13), same models, same inputs, one run.

  bench/run.py [--models a,b] [--threads 1,2] [--rounds R] [--iters N] [--out bench/results.md]
               [--quick]

See bench/README.md. Standard library only (any python3 >= 3.9 runs it). Every
measurement is its own process: `ember run`, or bench/worker.py under the Python that has
onnxruntime / torch 2.x / torch 1.13. For each model and thread count the runtimes run pair by
pair (ember on the ONNX file next to ORT, ember on a .pt next to the LibTorch that saved it),
round after round, the order inside each pair flipped every other round, so drift cancels.
"""
import argparse
import datetime
import json
import math
import os
import platform
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from array import array
import ast

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

DEFAULT_MODELS = ["resnet18", "resnet50", "mobilenet_v2", "squeezenet1_1", "efficientnet_b0",
                  "densenet121", "lstm", "transformer"]
QUICK_MODELS = ["resnet18", "lstm"]
# bench/models.py keeps the full list; these are the shapes the table names.
SHAPES = {"lstm": "LSTM(64->128, 2 layers) x[32,1,64]",
          "transformer": "TransformerEncoder(d256, h4, ff2048, 2 layers) x[64,1,256]"}

RUNTIME_NAMES = {"ember": "ember", "ort": "ORT", "libtorch2": "LibTorch 2", "libtorch1": "LibTorch 1.13",
                 "executorch": "ExecuTorch"}
WORKER_MODE = {"ort": "ort", "executorch": "executorch"}   # every other runtime: torch


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------- processes

def run_measured(cmd, env, timeout, cwd=None):
    """Runs cmd; returns (rc, stdout, stderr, rusage, wall_s). rusage is this child's own
    (os.wait4), so ru_maxrss is its peak RSS and utime+stime its CPU time."""
    with tempfile.TemporaryFile() as fo, tempfile.TemporaryFile() as fe:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=fo, stderr=fe, env=env, cwd=cwd,
                             start_new_session=True)
        killed = []

        def kill():
            killed.append(True)
            try:
                os.killpg(p.pid, signal.SIGKILL)   # our child's own process group
            except ProcessLookupError:
                pass
        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            while True:
                try:
                    _, status, ru = os.wait4(p.pid, 0)   # blocks: no polling next to a measurement
                    break
                except InterruptedError:
                    continue
        finally:
            timer.cancel()
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        fo.seek(0)
        fe.seek(0)
        out = fo.read().decode("utf-8", "replace")
        err = fe.read().decode("utf-8", "replace")
    if killed:
        err = "timeout after %ds\n" % timeout + err
    return p.returncode, out, err, ru, wall


def error_line(err, rc, python):
    lines = [ln.strip() for ln in err.splitlines() if ln.strip()]
    lines = [ln for ln in lines if "Warning" not in ln and not ln.startswith("warnings.warn")]
    if not lines:
        return "exit code %d" % rc
    if python:   # a traceback: the exception is its last line
        return lines[-1][:300]
    for ln in lines:
        if "error" in ln.lower():
            return ln[:300]
    return lines[0][:300]


def job_error(err, rc, job):
    """The one-line error of a failed measurement of job, without the model's directory."""
    e = error_line(err, rc, job["runtime"] != "ember")
    e = e.replace(os.path.dirname(job["file"]) + os.sep, "")
    return e[len("ember: error: "):] if e.startswith("ember: error: ") else e


def thread_env(n):
    env = dict(os.environ)
    for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
              "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
        env[k] = str(n)
    env["PYTHONWARNINGS"] = "ignore"
    return env


# ----------------------------------------------------------------------------- .npy

def read_npy(path):
    """(shape, flat list of floats) of a little-endian, C-order numeric .npy file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError("not a .npy file")
    major = data[6]
    if major == 1:
        hl, off = int.from_bytes(data[8:10], "little"), 10
    else:
        hl, off = int.from_bytes(data[8:12], "little"), 12
    hdr = ast.literal_eval(data[off:off + hl].decode("latin1"))
    if hdr.get("fortran_order"):
        raise ValueError("fortran-order .npy")
    codes = {"<f4": "f", "<f8": "d", "<i4": "i", "<i8": "q", "|u1": "B", "|b1": "B",
             "<f2": None}
    descr = hdr["descr"]
    if descr not in codes or codes[descr] is None or sys.byteorder != "little":
        raise ValueError("dtype %s not handled" % descr)
    a = array(codes[descr])
    a.frombytes(data[off + hl:])
    return tuple(hdr["shape"]), a


# ----------------------------------------------------------------------------- one measurement

def measure(job, threads, warmup, iters, args, outdir):
    """job: dict(runtime, form, file, input, py). Returns a record."""
    rec = {"runtime": job["runtime"], "form": job["form"], "threads": threads}
    if not os.path.exists(job["file"]):
        rec.update(ok=False, error=job.get("missing") or "no such file: " + job["file"])
        return rec
    os.makedirs(outdir, exist_ok=True)
    if job["runtime"] == "ember":
        cmd = [args.ember, "run", job["file"], "--input", job["input"], "--threads", str(threads),
               "--warmup", str(warmup), "--iters", str(iters), "--json", "--output-dir", outdir]
        env = dict(os.environ) if args.ember_no_env else thread_env(threads)
        out_npy = os.path.join(outdir, "output_0.npy")
    else:
        out_npy = os.path.join(outdir, "output.npy")
        cmd = [job["py"], os.path.join(HERE, "worker.py"),
               WORKER_MODE.get(job["runtime"], "torch"), job["file"], job["input"], out_npy,
               "--threads", str(threads), "--warmup", str(warmup), "--iters", str(iters)]
        cmd += job.get("worker_args", [])
        env = thread_env(threads)
    if os.path.exists(out_npy):
        os.remove(out_npy)
    rc, out, err, ru, wall = run_measured(cmd, env, args.timeout)
    rec["cmd"] = " ".join(shlex.quote(c) for c in cmd)
    rec["wall_s"] = wall
    if ru is not None:
        rec["maxrss_mb"] = ru.ru_maxrss / 1024.0
        rec["cpu_s"] = ru.ru_utime + ru.ru_stime
    js = None
    for ln in out.splitlines():
        ln = ln.strip()
        if ln.startswith("{"):
            try:
                js = json.loads(ln)
            except ValueError:
                pass
    if rc != 0 or js is None:
        rec.update(ok=False, error=job_error(err, rc, job))
        return rec
    rec["ok"] = True
    for k in ("load_ms", "first_ms", "median_ms", "min_ms", "p90_ms", "base_rss_mb",
              "hwm_rss_mb", "version"):
        if k in js:
            rec[k] = js[k]
    if "peak_rss_mb" in js:
        rec["self_peak_rss_mb"] = js["peak_rss_mb"]
    if os.path.exists(out_npy):
        try:
            ys, y = read_npy(out_npy)
            rs, ref = read_npy(job["ref"])
            if ys != rs:
                rec["diff_error"] = "shape %s, expected %s" % (list(ys), list(rs))
            else:
                rec["max_abs_diff"] = max((abs(a - b) for a, b in zip(y, ref)), default=0.0)
                if any(v != v for v in y):
                    rec["max_abs_diff"] = float("nan")
                scale = max((abs(b) for b in ref), default=0.0)
                rec["max_rel_diff"] = rec["max_abs_diff"] / scale if scale > 0 else rec["max_abs_diff"]
                rec["ref_max_abs"] = scale
        except Exception as e:  # noqa: BLE001
            rec["diff_error"] = str(e).splitlines()[0][:200]
    else:
        rec["diff_error"] = "no output written"
    return rec


# ----------------------------------------------------------------------------- machine

def cpu_info():
    info = {"model": platform.processor() or "?", "cores": os.cpu_count(), "flags": []}
    try:
        with open("/proc/cpuinfo") as f:
            txt = f.read()
        m = re.search(r"^model name\s*:\s*(.*)$", txt, re.M)
        if m:
            info["model"] = m.group(1).strip()
        for key, name in (("cpu family", "family"), ("model", "model_no"), ("cpu MHz", "mhz")):
            m = re.search(r"^%s\s*:\s*(.*)$" % re.escape(key), txt, re.M)
            if m:
                info[name] = m.group(1).strip()
        m = re.search(r"^flags\s*:\s*(.*)$", txt, re.M)
        if m:
            info["flags"] = m.group(1).split()
        info["hypervisor"] = "hypervisor" in info["flags"]
    except OSError:
        pass
    try:
        with open("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq") as f:
            info["max_mhz"] = int(f.read()) / 1000.0
    except OSError:
        pass
    try:
        with open("/proc/meminfo") as f:
            m = re.search(r"MemTotal:\s*(\d+)", f.read())
            info["mem_gb"] = int(m.group(1)) / 1048576.0
    except (OSError, AttributeError):
        pass
    try:
        info["loadavg"] = os.getloadavg()
    except OSError:
        pass
    return info


def probe_peak(cache, cpu):
    """Compiles and runs bench/peak.c: clock (dependent-add chain) and FMA throughput."""
    res = {}
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        return {"error": "no C compiler"}
    has512 = "avx512f" in cpu.get("flags", [])
    exe = os.path.join(cache, "peak")
    flags = ["-O2", "-mavx2", "-mfma"] + (["-mavx512f"] if has512 else [])
    r = subprocess.run([cc] + flags + [os.path.join(HERE, "peak.c"), "-o", exe],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return {"error": "cc: " + (r.stderr.strip().splitlines() or ["failed"])[0]}
    best = None
    for _ in range(2):
        r = subprocess.run([exe, "512" if has512 else "256"], capture_output=True, text=True)
        try:
            js = json.loads(r.stdout)
        except ValueError:
            return {"error": "peak probe: " + (r.stderr.strip() or "no output")[:200]}
        if best is None:
            best = js
        else:
            best = {k: max(best[k], js[k]) for k in js}
    res.update(best)
    ghz = res["ghz"]
    vec = res["zmm_gflops"] if has512 else res["ymm_gflops"]
    lanes = 16 if has512 else 8
    res["vector_bits"] = 512 if has512 else 256
    res["flops_per_cycle_measured"] = vec / ghz if ghz else 0
    # FMA instructions retired per cycle: measured throughput rounded to a whole number.
    units = max(1, int(round(res["flops_per_cycle_measured"] / (2 * lanes))))
    res["fma_per_cycle"] = units
    res["peak_gflops"] = 2 * lanes * units * ghz
    res["how"] = ("2 flops x %d lanes (%d-bit fp32) x %d %d-bit FMA/cycle x %.2f GHz = %.0f GFLOP/s; "
                  "clock measured by a chain of dependent 1-cycle adds, FMAs/cycle from the "
                  "measured FMA throughput (%.0f GFLOP/s, %.1f flop/cycle), both in thread CPU time "
                  "(bench/peak.c)" % (lanes, res["vector_bits"], units, res["vector_bits"], ghz,
                                      res["peak_gflops"], vec, res["flops_per_cycle_measured"]))
    return res


def ember_version(ember):
    try:
        r = subprocess.run([ember, "--version"], capture_output=True, text=True, timeout=30)
        v = r.stdout.strip().splitlines()[0] if r.stdout.strip() else "?"
        return v[len("ember "):] if v.startswith("ember ") else v
    except Exception:  # noqa: BLE001
        return "?"


def python_check(py, module):
    if not py or not os.path.exists(py):
        return None, "no python: %s" % py
    r = subprocess.run([py, "-c", "import %s, sys; print(%s.__version__)" % (module, module)],
                       capture_output=True, text=True, env=thread_env(1))
    if r.returncode != 0:
        return None, "%s: cannot import %s" % (py, module)
    return r.stdout.strip().splitlines()[-1], None


# ----------------------------------------------------------------------------- models

def make_models(models, args):
    os.makedirs(args.cache, exist_ok=True)
    metas = {}
    for stage, py in (("torch2", args.py_torch2), ("torch1", args.py_torch1)):
        cmd = [py, os.path.join(HERE, "models.py"), "--stage", stage, "--cache", args.cache,
               "--models", ",".join(models)] + (["--force"] if args.regen and stage == "torch2" else [])
        log("bench: making models (%s): %s" % (stage, " ".join(cmd)))
        r = subprocess.run(cmd, stdout=subprocess.PIPE, env=thread_env(os.cpu_count() or 1))
        if r.returncode != 0:
            sys.exit("bench: %s failed (exit %d)" % (" ".join(cmd), r.returncode))
        metas[stage] = json.loads(r.stdout.decode().strip().splitlines()[-1])
    return metas


def form_error(meta, fname):
    for st in ("torch2", "torch1"):
        f = meta.get(st, {}).get("forms", {}).get(fname)
        if f and not f.get("ok"):
            return "not made: " + f.get("error", "?")
    return None


# ----------------------------------------------------------------------------- statistics

def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def gmean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def fmt(x, nd=1):
    if x is None:
        return "n/a"
    if abs(x) >= 100:
        return "%.0f" % x
    if abs(x) >= 10:
        return "%.1f" % x if nd >= 1 else "%.0f" % x
    return "%.*f" % (max(nd, 2), x)


def fmt_ratio(x):
    return "n/a" if x is None else "%.2f" % x


def fmt_diff(x):
    return "n/a" if x is None else "%.1e" % x


# ----------------------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", help="comma list (default: %s)" % ",".join(DEFAULT_MODELS))
    ap.add_argument("--threads", default="1,2", help="comma list of thread counts (default 1,2)")
    ap.add_argument("--rounds", type=int, help="alternation rounds per model and thread count (3)")
    ap.add_argument("--iters", type=int, help="timed runs per measurement (30, at least 20)")
    ap.add_argument("--warmup", type=int, help="untimed runs after the first (5)")
    ap.add_argument("--out", help="markdown table (the JSON goes next to it, .json; default "
                    "bench/results.md, with --suite bench/suite.md)")
    ap.add_argument("--quick", action="store_true",
                    help="smoke test: %s, 1 round, 3 warm-up, 5 timed runs" % ",".join(QUICK_MODELS))
    ap.add_argument("--runtimes", default=None,
                    help="subset of ember,ort,libtorch2,libtorch1 (default: all; --int8: "
                         "ember,ort,libtorch2,executorch)")
    ap.add_argument("--ts-form", default="trace", choices=["trace", "script"],
                    help="TorchScript form LibTorch (and ember, next to it) runs (trace)")
    ap.add_argument("--ember", default=os.path.join(ROOT, "build", "ember"), help="ember binary")
    ap.add_argument("--ember-no-env", action="store_true",
                    help="do not set OMP/OPENBLAS/MKL_NUM_THREADS for ember (only --threads "
                         "bounds it: checks that --threads is the one bound)")
    ap.add_argument("--py-ort", default=os.environ.get("BENCH_PY_ORT",
                    os.path.join(HERE, ".env", "ort", "bin", "python")),
                    help="Python with onnxruntime")
    ap.add_argument("--py-torch2", default=os.environ.get("BENCH_PY_TORCH2",
                    os.path.join(HERE, ".env", "torch2", "bin", "python")), help="Python with torch 2.x + torchvision")
    ap.add_argument("--py-torch1", default=os.environ.get("BENCH_PY_TORCH1", "/usr/bin/python3"),
                    help="Python with Debian's torch 1.13 + torchvision + onnx (exports ONNX)")
    ap.add_argument("--cache", default=os.path.join(HERE, ".cache"), help="model cache dir")
    ap.add_argument("--regen", action="store_true", help="remake the models")
    ap.add_argument("--no-profile", action="store_true",
                    help="skip the resnet18 per-op profile runs (conv GFLOP/s)")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per measurement")
    ap.add_argument("--readme", action="store_true",
                    help="also put the headline table into bench/README.md (between its markers)")
    ap.add_argument("--suite", nargs="?", const="full", choices=["full", "quick"],
                    help="every torchvision classifier as ONNX opset 13, opset 17 and TorchScript "
                         "(bench/suite.py); `--suite quick` or `--suite --quick`: a subset of "
                         "8 that covers the op forms")
    ap.add_argument("--max-params-mb", type=int, default=1400,
                    help="--suite: skip models whose fp32 weights exceed this (1400)")
    ap.add_argument("--max-gflop", type=float, default=70,
                    help="--suite: skip models above this many GFLOP per image (70)")
    ap.add_argument("--profile-worst", type=int, default=4,
                    help="--suite: per-op profiles of the N worst models (4; 0: none)")
    ap.add_argument("--int8", action="store_true",
                    help="quantized models (bench/int8.py, bench/qmodels.py): ember int8 next to "
                         "ONNX Runtime, LibTorch (x86 and onednn engines) and ExecuTorch XNNPACK; "
                         "writes bench/int8.md and int8.json")
    ap.add_argument("--quantize", action="store_true",
                    help="static int8 quantization quality and calibration time, ORT's "
                         "quantize_static next to `ember quantize` (bench/quantize.py, under "
                         "--py-ort; --models, --out; writes bench/quantize.md)")
    ap.add_argument("--py-executorch", default=os.environ.get("BENCH_PY_EXECUTORCH",
                    os.path.join(HERE, ".env", "executorch", "bin", "python")),
                    help="--int8: Python with PyPI executorch (bench/setup.sh --executorch)")
    ap.add_argument("--acc-n", type=int, default=100,
                    help="--int8: random inputs of the accuracy check (100; 0: no check)")
    ap.add_argument("--note", help="--int8: a line for the header (what else ran on the machine)")
    ap.add_argument("--render", metavar="JSON",
                    help="only rewrite the markdown (and with --readme the README) from a results .json; "
                         "--suite chunks: a comma list of their .json, merged (and the merged "
                         ".json written next to --out)")
    args = ap.parse_args()
    args.runtimes_set = args.runtimes is not None
    if args.runtimes is None:
        args.runtimes = "ember,ort,libtorch2,libtorch1"

    if args.render:
        raws = []
        for path in args.render.split(","):   # several: --suite chunks, merged
            with open(path) as f:
                raws.append(json.load(f))
        raw = raws[0]
        if raw.get("kind") == "int8":   # a --int8 run's JSON (several: chunks, merged)
            import int8
            raw = int8.merge(raws, sys.modules[__name__])
            if len(raws) > 1:
                with open(os.path.splitext(args.out or os.path.join(HERE, "int8.md"))[0] +
                          ".json", "w") as f:
                    json.dump(raw, f, indent=1)
            md = int8.render(raw, sys.modules[__name__])
            with open(args.out or os.path.join(HERE, "int8.md"), "w") as f:
                f.write(md)
            sys.stdout.write(md)
            return
        if "n_listed" in raw:   # a --suite run's JSON
            import suite   # bench/suite.py, next to this file
            suite.bind(sys.modules[__name__])
            raw = suite.merge(raws)
            if len(raws) > 1:
                with open(os.path.splitext(args.out or os.path.join(HERE, "suite.md"))[0] +
                          ".json", "w") as f:
                    json.dump(raw, f, indent=1)
            md = suite.render(raw)
            with open(args.out or os.path.join(HERE, "suite.md"), "w") as f:
                f.write(md)
            sys.stdout.write(md)
            return
        args.out = args.out or os.path.join(HERE, "results.md")
        md, short = render(raw, raw.get("ember_base_rss_mb"))
        with open(args.out, "w") as f:
            f.write(md)
        if args.readme:
            update_readme(os.path.join(HERE, "README.md"), short,
                          os.path.relpath(os.path.abspath(args.out), HERE))
        sys.stdout.write(md)
        return

    if args.suite:
        import suite
        return suite.run(args, sys.modules[__name__])
    if args.int8:
        import int8
        return int8.run(args, sys.modules[__name__])
    if args.quantize:
        cmd = [args.py_ort, os.path.join(HERE, "quantize.py"), "--ember", args.ember,
               "--out", args.out or os.path.join(HERE, "quantize.md")]
        return subprocess.call(cmd + (["--models", args.models] if args.models else []))
    args.out = args.out or os.path.join(HERE, "results.md")

    if args.quick:
        models = args.models.split(",") if args.models else QUICK_MODELS
        rounds, iters, warmup = args.rounds or 1, args.iters or 5, 3 if args.warmup is None else args.warmup
    else:
        models = args.models.split(",") if args.models else DEFAULT_MODELS
        rounds, iters, warmup = args.rounds or 3, args.iters or 30, 5 if args.warmup is None else args.warmup
        if iters < 20:
            log("bench: note: --iters %d < 20 (the issue asks for at least 20)" % iters)
    threads = [int(t) for t in args.threads.split(",")]
    runtimes = args.runtimes.split(",")
    args.ember = os.path.abspath(args.ember)
    args.cache = os.path.abspath(args.cache)
    command = "bench/run.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    t_start = time.time()

    # --- what is available
    avail, versions = {}, {}
    if "ember" in runtimes:
        if os.path.exists(args.ember):
            avail["ember"], versions["ember"] = None, ember_version(args.ember)
        else:
            sys.exit("bench: no ember binary at %s; build it: cmake -S . -B build "
                     "-DCMAKE_BUILD_TYPE=Release && cmake --build build -j --target ember_cli"
                     % args.ember)
    for rt, py, mod in (("ort", args.py_ort, "onnxruntime"), ("libtorch2", args.py_torch2, "torch"),
                        ("libtorch1", args.py_torch1, "torch")):
        if rt in runtimes:
            versions[rt], avail[rt] = python_check(py, mod)
            if avail[rt]:
                log("bench: %s unavailable: %s" % (rt, avail[rt]))
    for py, mod in ((args.py_torch2, "torchvision"), (args.py_torch1, "onnx")):
        v, e = python_check(py, mod)
        if e:
            sys.exit("bench: making the models needs %s: %s" % (mod, e))

    cpu = cpu_info()
    metas = make_models(models, args)
    log("bench: probing the clock and FMA throughput (bench/peak.c)")
    peak = probe_peak(args.cache, cpu)
    log("bench: peak: %s" % peak.get("how", peak.get("error")))
    ember_base = None
    if "ember" in runtimes:
        _, _, _, ru, _ = run_measured([args.ember, "--version"], dict(os.environ), 30)
        ember_base = ru.ru_maxrss / 1024.0 if ru else None

    # --- the jobs of one round, in pairs
    py_of = {"ort": args.py_ort, "libtorch2": args.py_torch2, "libtorch1": args.py_torch1}
    pt_of = {"libtorch2": "%s-torch2.pt" % args.ts_form, "libtorch1": "%s-torch1.pt" % args.ts_form}

    def pairs_for(model):
        d = os.path.join(args.cache, model)
        meta = {st: metas[st].get(model, {}) for st in metas}
        base = {"input": os.path.join(d, "input.npy"), "ref": os.path.join(d, "ref.npy")}

        def job(rt, fname):
            j = dict(base, runtime=rt, form=fname, file=os.path.join(d, fname), py=py_of.get(rt))
            j["missing"] = form_error(meta, fname)
            return j
        pairs = []
        want = [("ort", "model.onnx"), ("libtorch2", pt_of["libtorch2"]), ("libtorch1", pt_of["libtorch1"])]
        for rt, fname in want:
            p = []
            if "ember" in runtimes and (rt in runtimes or runtimes == ["ember"]):
                p.append(job("ember", fname))
            if rt in runtimes:
                p.append(job(rt, fname))
            if p:
                pairs.append(p)
        return pairs

    records = time_rounds(models, threads, rounds, pairs_for, args, warmup, iters, avail,
                          ember_base)

    # --- profile: resnet18's convolutions, 1 thread, ember and ORT
    profile = {}
    if "resnet18" in models and not args.no_profile:
        profile = profile_resnet18(args, metas, warmup, max(iters, 10), runtimes, avail)

    elapsed = time.time() - t_start
    result = summarize(records, models, threads, metas, rounds, iters, warmup)
    raw = {"date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
           "command": command, "elapsed_s": elapsed, "cpu": {k: v for k, v in cpu.items() if k != "flags"},
           "isa": [f for f in ("avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile")
                   if f in cpu.get("flags", [])],
           "versions": versions, "rounds": rounds, "iters": iters, "warmup": warmup,
           "threads": threads, "models": models, "ts_form": args.ts_form, "quick": args.quick,
           "loadavg_end": os.getloadavg(),
           "ember_base_rss_mb": ember_base, "ember_env_threads": not args.ember_no_env,
           "peak": peak, "profile": profile, "meta": metas, "summary": result,
           "records": records}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)) or ".", exist_ok=True)
    jpath = os.path.splitext(args.out)[0] + ".json"
    md, short = render(raw, ember_base)
    with open(jpath, "w") as f:
        json.dump(raw, f, indent=1)
    with open(args.out, "w") as f:
        f.write(md)
    if args.readme:
        rel = os.path.relpath(os.path.abspath(args.out), HERE)
        update_readme(os.path.join(HERE, "README.md"), short, rel)
    sys.stdout.write(md)
    log("bench: wrote %s and %s (%.0f s)" % (args.out, jpath, elapsed))


# ----------------------------------------------------------------------------- the rounds

def time_rounds(models, threads, rounds, pairs_for, args, warmup, iters, avail, ember_base,
                out_prefix=""):
    """Times every pair of pairs_for(model) (lists of jobs, ember first), for each model,
    thread count and round, the order inside each pair flipped every other round. Returns the
    records. A job that fails is not retried in later rounds (nor at other thread counts,
    when the failure cannot depend on them)."""
    def warm_files(model):
        """Reads the model's files once so every runtime finds them in the page cache: this
        machine reclaims cold pages proactively (DAMON pageout), and the first runtime of a
        model's first round otherwise paid for reading its file from disk in its load time."""
        files = {f for pair in pairs_for(model) for jb in pair for f in (jb["file"], jb["input"])}
        for f in sorted(files):  # each once: ember and its partner share model.onnx and input
            try:
                with open(f, "rb") as fh:
                    while fh.read(1 << 22):
                        pass
            except OSError:
                pass

    records = []
    failed = {}      # (model, threads, runtime, form) -> error: not retried in later rounds
    static_fail = {}  # (model, runtime, form) -> error that does not depend on the thread count
    n_total = len(models) * len(threads) * rounds
    k = 0
    for model in models:
        for nt in threads:
            for r in range(rounds):
                k += 1
                log("bench: [%d/%d] %s threads=%d round %d" % (k, n_total, model, nt, r + 1))
                warm_files(model)
                for pair in pairs_for(model):
                    order = pair if r % 2 == 0 else list(reversed(pair))
                    for jb in order:
                        key = (model, nt, jb["runtime"], jb["form"])
                        skey = (model, jb["runtime"], jb["form"])
                        rec = {"model": model, "round": r}
                        if jb["runtime"] != "ember" and avail.get(jb["runtime"]):
                            rec.update(runtime=jb["runtime"], form=jb["form"], threads=nt,
                                       ok=False, error=avail[jb["runtime"]])
                        elif skey in static_fail or key in failed:
                            rec.update(runtime=jb["runtime"], form=jb["form"], threads=nt,
                                       ok=False, error=static_fail.get(skey) or failed[key],
                                       skipped=True)
                        else:
                            outdir = os.path.join(args.cache, "out", out_prefix + model,
                                                  "%s-%s-t%d" % (jb["runtime"], jb["form"], nt))
                            rec.update(measure(jb, nt, warmup, iters, args, outdir))
                            base = ember_base if jb["runtime"] == "ember" else rec.get("base_rss_mb")
                            if rec.get("maxrss_mb") and base is not None:
                                rec["rss_over_mb"] = max(0.0, rec["maxrss_mb"] - base)
                            if not rec["ok"]:
                                failed[key] = rec["error"]
                                if ("no TorchScript loader" in rec["error"]
                                        or rec["error"].startswith(("not made", "no such file"))):
                                    static_fail[skey] = rec["error"]
                            log("  %-9s %-16s %s" % (jb["runtime"], jb["form"],
                                "median %.2f ms  load %.1f ms  rss %.0f MB  diff %s" % (
                                    rec["median_ms"], rec["load_ms"], rec.get("maxrss_mb", 0),
                                    fmt_diff(rec.get("max_abs_diff"))) if rec["ok"]
                                else "n/a: " + rec["error"]))
                        rec["model"], rec["round"] = model, r
                        records.append(rec)
    return records


# ----------------------------------------------------------------------------- resnet18 profile

def profile_resnet18(args, metas, warmup, iters, runtimes, avail):
    d = os.path.join(args.cache, "resnet18")
    conv_flops = metas["torch2"].get("resnet18", {}).get("flops", {}).get("conv")
    out = {"conv_flops": conv_flops, "threads": 1, "iters": iters}
    env = thread_env(1)
    if "ember" in runtimes:
        cmd = [args.ember, "run", os.path.join(d, "model.onnx"), "--input",
               os.path.join(d, "input.npy"), "--threads", "1", "--warmup", str(warmup),
               "--iters", str(iters), "--json", "--profile"]
        log("bench: profiling ember on resnet18: %s" % " ".join(cmd))
        rc, so, se, _, _ = run_measured(cmd, env, args.timeout)
        try:
            js = json.loads([ln for ln in so.splitlines() if ln.startswith("{")][-1])
            ops = js.get("profile", [])
            conv = [o for o in ops if "conv" in o["op"].lower()]
            conv_ms = sum(o["total_ms"] for o in conv) / iters
            out["ember"] = {"conv_ms": conv_ms, "conv_ops": sorted({o["op"] for o in conv}),
                            "median_ms": js.get("median_ms"),
                            "ops": ops}
        except Exception as e:  # noqa: BLE001
            out["ember"] = {"error": error_line(se, rc, False) if rc else str(e)[:200]}
    if "ort" in runtimes and not avail.get("ort"):
        cmd = [args.py_ort, "-c", ORT_PROFILE, os.path.join(d, "model.onnx"),
               os.path.join(d, "input.npy"), str(warmup), str(iters), args.cache]
        log("bench: profiling ORT on resnet18")
        rc, so, se, _, _ = run_measured(cmd, env, args.timeout)
        try:
            out["ort"] = json.loads(so.strip().splitlines()[-1])
        except Exception:  # noqa: BLE001
            out["ort"] = {"error": error_line(se, rc, True)}
    return out


# ORT's own profiler: sum the kernel time of every node whose op is a convolution, over the
# last ITERS runs (the model_run events delimit runs).
ORT_PROFILE = r'''
import json, os, sys
import numpy as np, onnxruntime as ort
model, inp, warmup, iters, tmp = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
so = ort.SessionOptions()
so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
so.intra_op_num_threads = 1
so.inter_op_num_threads = 1
so.enable_profiling = True
so.profile_file_prefix = os.path.join(tmp, "ort_profile")
s = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
feed = {s.get_inputs()[0].name: np.load(inp)}
for _ in range(1 + warmup + iters):
    s.run(None, feed)
path = s.end_profiling()
ev = json.load(open(path))
os.remove(path)
runs = sorted([e for e in ev if e.get("name") == "model_run"], key=lambda e: e["ts"])[-iters:]
t0 = runs[0]["ts"]
conv, total, ops = 0.0, 0.0, {}
for e in ev:
    if e.get("cat") == "Node" and e.get("name", "").endswith("_kernel_time") and e["ts"] >= t0:
        op = e.get("args", {}).get("op_name", "?")
        ops[op] = ops.get(op, 0.0) + e["dur"] / 1e3 / iters
        if "conv" in op.lower():
            conv += e["dur"] / 1e3 / iters
med = sorted(r["dur"] for r in runs)[len(runs) // 2] / 1e3
print(json.dumps({"conv_ms": conv, "conv_ops": sorted(o for o in ops if "conv" in o.lower()),
                  "median_ms": med, "ops": ops}))
'''


# ----------------------------------------------------------------------------- tables

def summarize(records, models, threads, metas, rounds, iters, warmup):
    """Per (model, threads, runtime, form): medians over rounds. Per (model, threads): the
    median over rounds of each round's ratio ember/X, ember on the same file as X when it
    loads it, else ember on the ONNX file (marked)."""
    out = {"rows": [], "ratios": []}
    for model in models:
        for nt in threads:
            recs = [r for r in records if r["model"] == model and r["threads"] == nt]
            keys = []
            for r in recs:
                if (r["runtime"], r["form"]) not in keys:
                    keys.append((r["runtime"], r["form"]))
            for rt, form in keys:
                rs = [r for r in recs if r["runtime"] == rt and r["form"] == form]
                ok = [r for r in rs if r.get("ok")]
                row = {"model": model, "threads": nt, "runtime": rt, "form": form,
                       "n": len(ok), "ok": bool(ok)}
                if ok:
                    for k in ("load_ms", "first_ms", "median_ms", "min_ms", "p90_ms", "maxrss_mb",
                              "base_rss_mb", "rss_over_mb", "cpu_s", "wall_s"):
                        row[k] = med([r.get(k) for r in ok])
                    row["max_abs_diff"] = max((r.get("max_abs_diff") or 0.0) for r in ok) \
                        if any("max_abs_diff" in r for r in ok) else None
                    row["max_rel_diff"] = max((r.get("max_rel_diff") or 0.0) for r in ok) \
                        if any("max_rel_diff" in r for r in ok) else None
                    errs = [r["diff_error"] for r in ok if r.get("diff_error")]
                    if errs:
                        row["diff_error"] = errs[0]
                    row["version"] = ok[0].get("version")
                else:
                    row["error"] = rs[0].get("error", "?")
                out["rows"].append(row)
            # ratios, round by round
            rat = {"model": model, "threads": nt}
            for other, fname_of in (("ort", None), ("libtorch2", None), ("libtorch1", None)):
                per, fb = {"median_ms": [], "load_ms": [], "maxrss_mb": [], "rss_over_mb": []}, False
                for rd in range(rounds):
                    o = [r for r in recs if r["round"] == rd and r["runtime"] == other and r.get("ok")]
                    if not o:
                        continue
                    o = o[0]
                    e = [r for r in recs if r["round"] == rd and r["runtime"] == "ember"
                         and r["form"] == o["form"] and r.get("ok")]
                    if not e:
                        e = [r for r in recs if r["round"] == rd and r["runtime"] == "ember"
                             and r["form"] == "model.onnx" and r.get("ok")]
                        if e:
                            fb = fb or o["form"] != "model.onnx"
                    if not e:
                        continue
                    e = e[0]
                    for k in per:
                        if e.get(k) is not None and o.get(k):
                            per[k].append(e[k] / o[k])
                rat[other] = {k: med(v) for k, v in per.items()}
                rat[other]["ember_form_fallback"] = fb
            out["ratios"].append(rat)
    # geometric means per thread count
    out["geomean"] = {}
    for nt in threads:
        g = {}
        for other in ("ort", "libtorch2", "libtorch1"):
            vals = [r[other]["median_ms"] for r in out["ratios"] if r["threads"] == nt
                    and r.get(other)]
            g[other] = {"median_ratio_geomean": gmean(vals),
                        "n_models": len([v for v in vals if v]),
                        "max": max([v for v in vals if v], default=None)}
        out["geomean"][str(nt)] = g
    return out


def label(rt, form):
    if rt == "ember":
        return "ember (%s)" % form
    return "%s (%s)" % (RUNTIME_NAMES[rt], form)


def model_desc(model, meta):
    m2 = meta.get("torch2", {}).get(model, {})
    shape = m2.get("input_shape")
    fl = m2.get("flops", {})
    g = (fl.get("conv", 0) + fl.get("linear", 0)) / 1e9 if fl else None
    s = SHAPES.get(model) or ("%s x%s" % (model, shape if shape else "?"))
    if g:
        s += ", %.2f GFLOP" % g if g >= 0.1 else ", %.0f MFLOP" % (g * 1e3)
    return s


def render(raw, ember_base):
    S = raw["summary"]
    cpu = raw["cpu"]
    pk = raw["peak"]
    L = []
    L.append("# ember benchmark\n")
    L.append("- date: %s" % raw["date"])
    L.append("- machine: %s, %s cores, family %s model %s, %s%s, ISA %s, %.0f GB RAM, load average at start %s"
             % (cpu.get("model"), cpu.get("cores"), cpu.get("family", "?"), cpu.get("model_no", "?"),
                "VM (hypervisor)" if cpu.get("hypervisor") else "bare metal",
                ", cpuinfo %s MHz" % cpu.get("mhz") if cpu.get("mhz") else "",
                "/".join(raw["isa"]), cpu.get("mem_gb", 0),
                ", ".join("%.2f" % x for x in cpu.get("loadavg", [])) or "?"))
    if "peak_gflops" in pk:
        L.append("- single-core fp32 peak: %.0f GFLOP/s = %s" % (pk["peak_gflops"], pk["how"]))
    L.append("- command: `%s` (%d round(s) x %d timed runs after the first run and %d warm-up runs; %.0f min)"
             % (raw["command"], raw["rounds"], raw["iters"], raw["warmup"], raw["elapsed_s"] / 60))
    la = cpu.get("loadavg") or [0]
    if raw.get("quick"):
        L.append("- **--quick smoke test** (1 round, 5 timed runs): checks the script, not a benchmark")
    if la[0] > 0.25 * (cpu.get("cores") or 1):
        L.append("- **the machine was busy** (load average %.1f at start, %.1f at the end, %s cores): "
                 "timings are noisy" % (la[0], (raw.get("loadavg_end") or [0])[0], cpu.get("cores")))
    L.append("- versions: %s" % ", ".join("%s %s" % (RUNTIME_NAMES[k], v) for k, v in raw["versions"].items() if v))
    L.append("")
    # --- headline
    L.append("## ember / other, median latency (per-round ratio, median over rounds; < 1: ember is faster)\n")
    L.append("| model | threads | ember ms | ORT ms | ember/ORT | LibTorch 2 ms | ember/LT2 | LibTorch 1.13 ms | ember/LT1.13 | load ember/ORT | peak RSS ember/ORT | RSS over start ember/ORT |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows = {(r["model"], r["threads"], r["runtime"], r["form"]): r for r in S["rows"]}
    fallback_used = False

    def ms(model, nt, rt, form):
        r = rows.get((model, nt, rt, form))
        return fmt(r.get("median_ms")) if r and r.get("ok") else "n/a"

    for rat in S["ratios"]:
        m, nt = rat["model"], rat["threads"]
        cells = [m, str(nt), ms(m, nt, "ember", "model.onnx")]
        for other in ("ort", "libtorch2", "libtorch1"):
            forms = [k[3] for k in rows if k[0] == m and k[1] == nt and k[2] == other]
            cells.append(ms(m, nt, other, forms[0]) if forms else "n/a")
            x = rat.get(other, {})
            c = fmt_ratio(x.get("median_ms"))
            if x.get("ember_form_fallback") and x.get("median_ms") is not None:
                c += " †"
                fallback_used = True
            cells.append(c)
        o = rat.get("ort", {})
        cells.append(fmt_ratio(o.get("load_ms")))
        cells.append(fmt_ratio(o.get("maxrss_mb")))
        cells.append(fmt_ratio(o.get("rss_over_mb")))
        L.append("| " + " | ".join(cells) + " |")
    for nt, g in S["geomean"].items():
        L.append("| **geomean** | %s | | | **%s** | | **%s** | | **%s** | | | |"
                 % (nt, fmt_ratio(g["ort"]["median_ratio_geomean"]),
                    fmt_ratio(g["libtorch2"]["median_ratio_geomean"]),
                    fmt_ratio(g["libtorch1"]["median_ratio_geomean"])))
    L.append("")
    if fallback_used:
        L.append("† ember could not load that TorchScript file (the error is in the full table of results.md): the ratio uses ember on "
                 "the ONNX file of the same model, same round.\n")
    L.append("Targets (issue #5): ember/ORT geomean <= 0.9 and every model <= 1.1; ember/LibTorch <= 0.6; "
             "load ember/ORT <= 1 and peak RSS ember/ORT < 1 on every model.\n")
    # --- models
    models_at = len(L)
    L.append("## Models\n")
    L.append("| model | input, work | files |")
    L.append("|---|---|---|")
    for m in raw["models"]:
        forms = []
        for st in ("torch2", "torch1"):
            for fname, f in raw["meta"].get(st, {}).get(m, {}).get("forms", {}).items():
                forms.append(fname + ("" if f.get("ok") else " (failed: %s)" % f.get("error", "?")))
        L.append("| %s | %s | %s |" % (m, model_desc(m, raw["meta"]), ", ".join(forms)))
    L.append("")
    # --- detail
    L.append("## All measurements (medians over rounds)\n")
    L.append("| model | threads | runtime (file) | load ms | first ms | median ms | min ms | peak RSS MB | RSS over start MB | CPU/wall | max abs diff (rel) |")
    L.append("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in S["rows"]:
        name = label(r["runtime"], r["form"])
        if not r["ok"]:
            L.append("| %s | %d | %s | n/a: %s | | | | | | | |" % (
                r["model"], r["threads"], name, r.get("error", "?").replace("|", "\\|")))
            continue
        over = r.get("rss_over_mb")
        util = r["cpu_s"] / r["wall_s"] if r.get("wall_s") else None
        diff = "%s (%s)" % (fmt_diff(r.get("max_abs_diff")), fmt_diff(r.get("max_rel_diff"))) \
            if r.get("max_abs_diff") is not None else "n/a: " + r.get("diff_error", "?")
        if r.get("max_rel_diff") is not None and r["max_rel_diff"] > 1e-3:
            diff += " **!**"
        L.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["model"], r["threads"], name, fmt(r.get("load_ms")), fmt(r.get("first_ms")),
            fmt(r.get("median_ms")), fmt(r.get("min_ms")), fmt(r.get("maxrss_mb"), 0),
            fmt(over, 0), "%.2f" % util if util else "n/a", diff))
    L.append("")
    L.append("- load: ember `load_ms` (read, build graph, plan); ORT `InferenceSession(...)`; LibTorch "
             "`torch.jit.load` + `eval()`. first: the first inference. median/min: over the timed runs "
             "after warm-up. All figures are medians over rounds.")
    L.append("- peak RSS: the process's maximum resident set (wait4's ru_maxrss), so for ORT and LibTorch it "
             "includes the Python interpreter and the imports; \"RSS over start\" subtracts the RSS after the "
             "imports (ORT, LibTorch) or the RSS of `ember --version` (%s MB, ember)."
             % (fmt(ember_base) if ember_base else "?"))
    L.append("- CPU/wall: the process's CPU time over its wall time (load included): about the threads it "
             "really kept busy.")
    L.append("- max abs diff: against PyTorch 2 eager on the same weights and input (rel: divided by the "
             "output's max |value|; **!** above 1e-3).")
    L.append("")
    # --- GFLOP/s
    pr = raw.get("profile") or {}
    gflops_at = len(L)
    if pr.get("conv_flops"):
        L.append("## resnet18 convolutions, 1 thread\n")
        cf = pr["conv_flops"]
        peakg = pk.get("peak_gflops")
        L.append("Convolution work: %.3f GFLOP (2 flops per multiply-add, from the model's Conv2d "
                 "shapes). Single-core peak: %s.\n" % (cf / 1e9, ("%.0f GFLOP/s" % peakg) if peakg else "n/a"))
        L.append("Conv time = (convolutions' share of the op time in a profiled run) x (median latency of "
                 "the alternating runs, 1 thread, model.onnx), so profiling overhead and a noisy profiled "
                 "run do not skew it.\n")
        L.append("| runtime | conv share of op time | conv ms per run | conv GFLOP/s | % of peak | profiled by |")
        L.append("|---|---:|---:|---:|---:|---|")
        rows1 = {r["runtime"]: r for r in S["rows"] if r["model"] == "resnet18" and r["threads"] == 1
                 and r["form"] == "model.onnx" and r.get("ok")}
        for rt, how in (("ember", "`ember run --profile`: ops whose name has \"Conv\""),
                        ("ort", "ORT's profiler: kernel time of Conv / FusedConv nodes")):
            x = pr.get(rt)
            if not x:
                continue
            ops = x.get("ops")
            if isinstance(ops, list):
                ops = {o["op"]: o["total_ms"] for o in ops}
            tot = sum((ops or {}).values())
            if "error" in x or not tot or not x.get("conv_ms") or rt not in rows1:
                L.append("| %s | n/a: %s | | | | %s |" % (RUNTIME_NAMES[rt], x.get("error", "no conv ops"), how))
                continue
            share = sum(v for k, v in ops.items() if "conv" in k.lower()) / tot
            conv_ms = share * rows1[rt]["median_ms"]
            g = cf / (conv_ms / 1e3) / 1e9
            x["conv_share"], x["conv_ms_est"], x["conv_gflops"] = share, conv_ms, g
            L.append("| %s | %.1f%% | %.2f | %.1f | %s | %s |" % (
                RUNTIME_NAMES[rt], 100 * share, conv_ms, g, "%.0f%%" % (100 * g / peakg) if peakg else "n/a", how))
        # whole-model figures from the main measurements
        for r in S["rows"]:
            if r["model"] == "resnet18" and r["threads"] == 1 and r.get("ok") and r.get("median_ms"):
                g = cf / (r["median_ms"] / 1e3) / 1e9
                L.append("| %s | | (whole model %.2f) | >= %.1f | %s | none: conv GFLOP / whole-model median, a lower bound |" % (
                    label(r["runtime"], r["form"]), r["median_ms"], g,
                    ">= %.0f%%" % (100 * g / peakg) if peakg else "n/a"))
        L.append("")
    full = "\n".join(L) + "\n"
    short = L[1:models_at] + L[gflops_at:]
    return full, "\n".join(short).strip() + "\n"


README_BEGIN = "<!-- bench:results:begin (written by bench/run.py --readme) -->"
README_END = "<!-- bench:results:end -->"


def update_readme(path, block, results_name):
    with open(path) as f:
        txt = f.read()
    i, j = txt.find(README_BEGIN), txt.find(README_END)
    if i < 0 or j < i:
        log("bench: %s has no %s ... %s markers: not updated" % (path, README_BEGIN, README_END))
        return
    new = (txt[:i] + README_BEGIN + "\n\n" + block + "\nEvery measurement: [%s](%s).\n\n"
           % (results_name, results_name) + txt[j:])
    with open(path, "w") as f:
        f.write(new)
    log("bench: updated %s" % path)


if __name__ == "__main__":
    main()
