# SPDX-License-Identifier: Apache-2.0
"""What the Python package adds to a run, and how Python threads scale on one Model.

    python python/bench/overhead.py [--cli build/ember] [--iters 3000] [--threads 1,2,4]

1. Overhead: the median of `Model.run` on the built-in model (batch 1, one compute thread)
   minus the median the `ember` program reports for the same runs through the C API (its
   median_ms; both in-process loops, the same library); and, less disturbed by a shared
   machine, CPU time per run of Model.run against a bare ctypes call of ember_session_run on
   bound tensors (the C run itself in both).
2. Scaling: N Python threads calling run() on one Model (session threads=1, batch 64) for a
   fixed time; runs per second against one thread. On a shared machine take the medians of a
   few repetitions (--reps). For the machine's own ceiling, the same work in separate
   processes: N `ember run --threads 1` at once against one (--cli).
"""
import argparse
import os
import statistics
import subprocess
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import ember  # noqa: E402


def python_median_us(m, x, iters):
    feeds = {"input": x}
    for _ in range(200):
        m.run(feeds)
    ts = []
    for _ in range(iters):
        t = time.perf_counter_ns()
        m.run(feeds)
        ts.append(time.perf_counter_ns() - t)
    return statistics.median(ts) / 1e3


def cpu_us_per_run(fn, iters):
    """CPU time of this thread per call (the session has one compute thread: the caller's),
    less disturbed than wall time by other processes on a shared machine."""
    for _ in range(200):
        fn()
    t = time.thread_time_ns()
    for _ in range(iters):
        fn()
    return (time.thread_time_ns() - t) / iters / 1e3


def raw_c_call(m, x):
    """A run through the bare C API from Python: input wrapped and output created once,
    bound; one ctypes call per run (what any binding pays at least)."""
    import ctypes
    from ember._lib import lib
    L = lib()
    dims = (ctypes.c_int64 * 4)(*x.shape)
    t_in, t_out = ctypes.c_void_p(), ctypes.c_void_p()
    assert not L.ember_tensor_wrap(1, dims, 4, x.ctypes.data, x.nbytes, ctypes.byref(t_in))
    dims_o = (ctypes.c_int64 * 2)(x.shape[0], 10)
    assert not L.ember_tensor_create(1, dims_o, 2, ctypes.byref(t_out))
    ins, outs = (ctypes.c_void_p * 1)(t_in.value), (ctypes.c_void_p * 1)(t_out.value)
    sess, run = m._session, L.ember_session_run

    def call():
        st = run(sess, ins, 1, outs, 1)
        assert not st
    return call


def cli_median_us(cli, iters):
    out = subprocess.run([cli, "run", "--threads", "1", "--warmup", "200", "--iters", str(iters)],
                         check=True, capture_output=True, text=True).stdout
    tok = dict(t.split("=", 1) for t in out.split() if "=" in t)
    return float(tok["median_ms"]) * 1e3


def throughput(m, x, n_threads, seconds):
    stop = time.perf_counter() + seconds
    counts = [0] * n_threads

    def work(k):
        feeds = {m.inputs[0].name: x}
        while time.perf_counter() < stop:
            m.run(feeds)
            counts[k] += 1

    ts = [threading.Thread(target=work, args=(k,)) for k in range(n_threads)]
    t0 = time.perf_counter()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return sum(counts) / (time.perf_counter() - t0)


def process_throughput(cli, n, iters):
    """Runs per second of n `ember run` processes at once (batch 64, one thread each): what
    the machine gives independent work, without Python (load and warm-up included, alike)."""
    cmd = [cli, "run", "--threads", "1", "--shape", "N=64", "--warmup", "20", "--iters",
           str(iters)]
    t = time.perf_counter()
    procs = [subprocess.Popen(cmd, stdout=subprocess.DEVNULL) for _ in range(n)]
    for p in procs:
        p.wait()
    return n * iters / (time.perf_counter() - t)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=None)
    ap.add_argument("--iters", type=int, default=3000)
    ap.add_argument("--threads", default="1,2,4")
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    cli = a.cli or os.path.join(os.path.dirname(os.path.realpath(ember.library_path())), "ember")
    print("library:", ember.library_path())
    print("build:", " ".join("%s=%s" % kv for kv in ember.build_info().items()))
    with ember.Model.builtin(threads=1) as m:
        x = np.random.default_rng(0).random((1, 1, 28, 28), dtype=np.float32)
        py, c = [], []
        for _ in range(a.reps):  # alternate, take medians
            c.append(cli_median_us(cli, a.iters))
            py.append(python_median_us(m, x, a.iters))
        pm, cm = statistics.median(py), statistics.median(c)
        print("default model, batch 1, threads=1, wall medians: Model.run %.1f us, C API "
              "(ember run's median_ms) %.1f us, difference %.1f us" % (pm, cm, pm - cm))
        feeds, raw = {"input": x}, raw_c_call(m, x)
        pc, rc, diff = [], [], []
        # short blocks, alternated: a neighbour's burst of load hits both sides alike
        for _ in range(max(a.reps, 1) * 10):
            pc.append(cpu_us_per_run(lambda: m.run(feeds), max(a.iters // 10, 50)))
            rc.append(cpu_us_per_run(raw, max(a.iters // 10, 50)))
            diff.append(pc[-1] - rc[-1])
        pcm, rcm = statistics.median(pc), statistics.median(rc)
        print("CPU time per run (medians of %d alternated blocks): Model.run %.1f us, bare "
              "ctypes ember_session_run %.1f us, the package's overhead %.1f us (median of the "
              "blocks' differences; fastest blocks: %.1f - %.1f = %.1f us)"
              % (len(pc), pcm, rcm, statistics.median(diff), min(pc), min(rc),
                 min(pc) - min(rc)))
        xb = np.random.default_rng(1).random((64, 1, 28, 28), dtype=np.float32)
        m.run([xb])
        base = None
        for n in [int(t) for t in a.threads.split(",")]:
            r = statistics.median(throughput(m, xb, n, a.seconds) for _ in range(a.reps))
            base = base or r
            print("batch 64, %d python thread(s): %.1f runs/s, %.2fx one thread" % (n, r, r / base))
        one = None
        for n in (1, 2, 4):
            r = statistics.median(process_throughput(cli, n, 2000 // n * 2)
                                  for _ in range(a.reps))
            one = one or r
            print("batch 64, %d ember process(es) at once: %.1f runs/s, %.2fx one (the "
                  "machine's ceiling)" % (n, r, r / one))


if __name__ == "__main__":
    main()
