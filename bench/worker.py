# SPDX-License-Identifier: Apache-2.0
"""One measurement of ONNX Runtime or LibTorch, in its own process (started by bench/run.py).

  python worker.py ort|torch|executorch MODEL INPUT.npy OUTPUT.npy --threads N --warmup W --iters I
                   [--qengine x86|onednn|fbgemm|qnnpack] [--per-item AXIS]

--qengine sets torch.backends.quantized.engine before the load (a quantized TorchScript
file's packed weights are repacked for that engine as it loads). --per-item AXIS runs each
item of the input along AXIS as its own inference (a model exported for batch 1, such as an
ExecuTorch .pte) and writes the outputs concatenated: bench/run.py --int8's accuracy runs.
executorch: an ExecuTorch .pte through executorch.runtime (its XNNPACK delegate's thread
pool set to N threads).

The thread-count environment variables (OMP_NUM_THREADS, MKL_NUM_THREADS, ...) are set by
run.py before this process starts. Prints one JSON line:
  load_ms    ORT: InferenceSession(...) ; LibTorch: torch.jit.load(...) + eval()
  first_ms   the first inference
  median_ms, min_ms, p90_ms   over ITERS timed inferences after WARMUP untimed ones
  base_rss_mb   VmRSS after the runtime's imports, before the model loads
  hwm_rss_mb    VmHWM at the end (run.py measures the same from outside with wait4)
Same protocol as `ember run`: load, first run, WARMUP runs, ITERS timed runs.
"""
import argparse
import json
import os
import sys
import time


def status_mb(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024.0
    return None


def percentile(xs, q):
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runtime", choices=["ort", "torch", "executorch"])
    ap.add_argument("model")
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--threads", type=int, required=True)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--qengine")
    ap.add_argument("--per-item", type=int, default=None, metavar="AXIS")
    a = ap.parse_args()

    import numpy as np
    x_np = np.load(a.input)
    info = {}
    if a.runtime == "ort":
        import onnxruntime as ort
        info["version"] = ort.__version__
        base = status_mb("VmRSS")
        so = ort.SessionOptions()
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        so.intra_op_num_threads = a.threads
        so.inter_op_num_threads = 1
        t0 = time.perf_counter()
        sess = ort.InferenceSession(a.model, sess_options=so,
                                    providers=["CPUExecutionProvider"])
        load = time.perf_counter() - t0
        feed = {sess.get_inputs()[0].name: x_np}

        def run():
            return sess.run(None, feed)[0]

        def run_on(x):
            return sess.run(None, {sess.get_inputs()[0].name: x})[0]
    elif a.runtime == "executorch":
        import torch
        import executorch.version
        from executorch.runtime import Runtime
        info["version"] = executorch.version.__version__
        torch.set_num_threads(a.threads)
        try:
            from executorch.extension.pybindings import portable_lib
            portable_lib._unsafe_reset_threadpool(a.threads)
            info["threads_seen"] = a.threads
        except (ImportError, AttributeError) as e:
            info["threadpool"] = "not set: %s" % e
        x = torch.from_numpy(x_np)
        base = status_mb("VmRSS")
        t0 = time.perf_counter()
        method = Runtime.get().load_program(a.model).load_method("forward")
        load = time.perf_counter() - t0

        def run_on(x):
            return method.execute([torch.from_numpy(x) if isinstance(x, np.ndarray) else x])[0]

        def run():
            return run_on(x)
    else:
        import torch
        info["version"] = torch.__version__
        if a.qengine:
            torch.backends.quantized.engine = a.qengine
            info["qengine"] = a.qengine
        torch.set_num_threads(a.threads)
        try:
            torch.set_num_interop_threads(1)
        except RuntimeError:
            pass
        x = torch.from_numpy(x_np)
        base = status_mb("VmRSS")
        t0 = time.perf_counter()
        m = torch.jit.load(a.model, map_location="cpu")
        m.eval()
        load = time.perf_counter() - t0
        torch.set_grad_enabled(False)   # the whole run is under no_grad

        def run():
            return m(x)

        def run_on(x):
            return m(torch.from_numpy(x))

    if a.per_item is not None:
        t0 = time.perf_counter()
        ys = [np.array(run_on(np.ascontiguousarray(np.take(x_np, [i], axis=a.per_item))))
              for i in range(x_np.shape[a.per_item])]
        np.save(a.output, np.ascontiguousarray(np.concatenate(ys, a.per_item)))
        sys.stdout.write(json.dumps(dict(info, load_ms=load * 1e3, base_rss_mb=base,
                                         all_ms=(time.perf_counter() - t0) * 1e3)) + "\n")
        return
    t0 = time.perf_counter()
    y = run()
    first = time.perf_counter() - t0
    y = np.array(y)   # a copy: a runtime may reuse its output buffer in the next runs
    for _ in range(a.warmup):
        run()
    ts = []
    for _ in range(a.iters):
        t0 = time.perf_counter()
        run()
        ts.append(time.perf_counter() - t0)
    if a.runtime == "torch":
        info["threads_seen"] = torch.get_num_threads()
    np.save(a.output, np.ascontiguousarray(y))
    ms = [t * 1e3 for t in ts]
    out = dict(info, load_ms=load * 1e3, first_ms=first * 1e3,
               median_ms=median(ms),
               min_ms=min(ms), p90_ms=percentile(ms, 0.9), base_rss_mb=base,
               hwm_rss_mb=status_mb("VmHWM"), iters=len(ms), warmup=a.warmup)
    sys.stdout.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
