# SPDX-License-Identifier: Apache-2.0
"""ONNX Runtime's side of bench/gemm_bench.c: one-node Gemm models (A [M, K] input, B [K, N]
and a [N] bias constant, optionally followed by an activation node) on the same shapes, timed
with session.run at a given thread count; prints GFLOP/s (best, median) like gemm_bench.

Two steps, because the ORT venv has no `onnx` package:
  bench/.env/torch2/bin/python bench/gemm_ort.py make DIR [--act Gelu]
  bench/.env/ort/bin/python bench/gemm_ort.py time DIR [--threads N] [--cpu-time]
                                                        [--shape M,K,N]...
--cpu-time (1 thread, where ORT runs the op on the calling thread) times with the thread's CPU
time, as gemm_bench --cpu-time, so that other processes' time slices do not count.
The models also run in ember (`build/ember run DIR/<name>.onnx --profile`).
"""
import os
import sys
import time

SHAPES = [
    ("convnext s1 fc1", 3136, 96, 384), ("convnext s1 fc2", 3136, 384, 96),
    ("convnext s2 fc1", 784, 192, 768), ("convnext s2 fc2", 784, 768, 192),
    ("convnext s3 fc1", 196, 384, 1536), ("convnext s3 fc2", 196, 1536, 384),
    ("convnext s4 fc1", 49, 768, 3072), ("convnext s4 fc2", 49, 3072, 768),
    ("vit_b_32 qkv", 50, 768, 2304), ("vit_b_32 out", 50, 768, 768),
    ("vit_b_32 fc1", 50, 768, 3072), ("vit_b_32 fc2", 50, 3072, 768),
    ("transf d128 qkv", 64, 128, 384), ("transf d128 out", 64, 128, 128),
    ("transf d128 fc1", 64, 128, 512), ("transf d128 fc2", 64, 512, 128),
    ("square 512", 512, 512, 512),
    ("vit_b_16 qkv", 197, 768, 2304), ("vit_b_16 out", 197, 768, 768),
    ("vit_b_16 fc1", 197, 768, 3072), ("vit_b_16 fc2", 197, 3072, 768),
    ("vit_l_32 qkv", 50, 1024, 3072), ("vit_l_32 fc1", 50, 1024, 4096),
    ("vit_l_32 fc2", 50, 4096, 1024),
]


def fname(m, k, n):
    return f"gemm_{m}x{k}x{n}.onnx"


def make(out_dir, act):
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(0)
    for _, m, k, n in SHAPES:
        b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
        c = rng.uniform(-1, 1, (n,)).astype(np.float32)
        nodes = [helper.make_node("Gemm", ["a", "b", "c"], ["g" if act else "y"])]
        if act:
            nodes.append(helper.make_node(act, ["g"], ["y"]))
        graph = helper.make_graph(
            nodes, "gemm",
            [helper.make_tensor_value_info("a", TensorProto.FLOAT, [m, k])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n])],
            [numpy_helper.from_array(b, "b"), numpy_helper.from_array(c, "c")])
        opset = 20 if act == "Gelu" else 13
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        onnx.save(model, os.path.join(out_dir, fname(m, k, n)))


def time_all(model_dir, threads, cpu_time=False, budget=0.4, only=None):
    import numpy as np
    import onnxruntime as ort
    print(f"{'shape':16} {'M':>5} {'K':>5} {'N':>5}  {'kernel':26} {'best':>7} {'median':>7} "
          f"{'ms':>9}")
    for name, m, k, n in SHAPES:
        if only and (m, k, n) not in only:
            continue
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        s = ort.InferenceSession(os.path.join(model_dir, fname(m, k, n)), so,
                                 providers=["CPUExecutionProvider"])
        a = np.random.default_rng(1).uniform(-1, 1, (m, k)).astype(np.float32)
        feed = {"a": a}
        for _ in range(3):
            s.run(None, feed)
        ts = []
        clock = time.thread_time if cpu_time else time.perf_counter
        start = time.perf_counter()
        while len(ts) < 5 or time.perf_counter() - start < budget:
            t0 = clock()
            s.run(None, feed)
            ts.append(clock() - t0)
        ts.sort()
        flop = 2.0 * m * n * k
        print(f"{name:16} {m:5d} {k:5d} {n:5d}  {'ort (mlas)':26} {flop / ts[0] * 1e-9:7.1f} "
              f"{flop / ts[len(ts) // 2] * 1e-9:7.1f} {ts[len(ts) // 2] * 1e3:9.4f}", flush=True)


def main():
    args = sys.argv[1:]
    if len(args) < 2 or args[0] not in ("make", "time"):
        sys.exit(__doc__)
    if args[0] == "make":
        act = args[args.index("--act") + 1] if "--act" in args else None
        make(args[1], act)
    else:
        threads = int(args[args.index("--threads") + 1]) if "--threads" in args else 1
        if "--cpu-time" in args and threads != 1:
            sys.exit("--cpu-time measures one thread: use --threads 1")
        only = [tuple(int(v) for v in args[i + 1].split(","))
                for i, a in enumerate(args) if a == "--shape"]
        time_all(args[1], threads, "--cpu-time" in args, only=only)


if __name__ == "__main__":
    main()
