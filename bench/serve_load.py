#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Load test (issue #26 item 4): ember and ONNX Runtime behind MLServer, same model, same
worker count, concurrent clients on loopback; throughput and p50 / p90 / p99 latency.

    bench/setup.sh --serve                  # once: bench/.env/serve (MLServer, ONNX Runtime)
    cmake --build build --target ember_shared
    python3 bench/serve_load.py [--models resnet18,transformer] [--workers 2] [--threads 1]
        [--clients 4] [--seconds 60] [--rounds 2] [--soak SECONDS] [--out bench/serve.md]

For each model and round, each runtime in turn (the order alternates by round) gets a fresh
`mlserver start` with `parallel_workers` = --workers, each worker holding one model with
--threads compute threads: ember through ember.serving.mlserver.EmberRuntime, ONNX Runtime
through bench/serve_ort.py's OrtRuntime (written the same way: NumpyCodec, the run on a worker
thread). Then --clients threads, each with one keep-alive HTTP connection, send the same V2 JSON
request (the model's bench input, batch 1) back to back for --seconds after --warmup requests;
every response must be a 200 whose output has the reference's size (the first one of each run
is compared with the model's PyTorch output). Malformed requests (wrong shape, wrong datatype,
missing input, unknown input, an oversized payload, a body that is not JSON) are sent once per
server: each must get a 4xx, and the server must still answer a good request after them.
--soak SECONDS then runs ember alone for that long with the first model, printing progress,
and reports the failed requests (the issue's 10-minute bounded run: --soak 600).

The models are bench/run.py's (bench/.cache/NAME/model.onnx, made with bench/setup.sh's
environments when missing). The client is this script (stdlib only); its threads share the
machine with the server, as loopback clients do. Results: --out (markdown) and its .json.
"""
import argparse
import http.client
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import run as bench_run  # noqa: E402  (read_npy, make_models, cpu_info)


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One `mlserver start` in a temporary folder, killed with its process group."""

    def __init__(self, args, runtime, model, path):
        self.dir = tempfile.mkdtemp(prefix="serve-%s-" % runtime)
        self.port, self.grpc_port, self.name = free_port(), free_port(), model
        settings = {"debug": False, "host": "127.0.0.1", "http_port": self.port,
                    "grpc_port": self.grpc_port, "metrics_port": free_port(),
                    "parallel_workers": args.workers}
        impl = ("ember.serving.mlserver.EmberRuntime" if runtime == "ember"
                else "serve_ort.OrtRuntime")
        ms = {"name": model, "implementation": impl,
              "parameters": {"uri": path, "extra": {"threads": args.threads}}}
        with open(os.path.join(self.dir, "settings.json"), "w") as f:
            json.dump(settings, f)
        with open(os.path.join(self.dir, "model-settings.json"), "w") as f:
            json.dump(ms, f)
        env = bench_run.thread_env(args.threads)
        env["PYTHONPATH"] = os.pathsep.join([os.path.join(ROOT, "python"), HERE])
        env["EMBER_LIBRARY"] = os.path.abspath(args.library)
        self.log = open(os.path.join(self.dir, "mlserver.log"), "w+")
        exe = os.path.join(os.path.dirname(args.py), "mlserver")
        self.proc = subprocess.Popen([exe, "start", self.dir], cwd=self.dir, env=env,
                                     stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.monotonic() + args.start_timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError("mlserver (%s) exited with %s: %s" % (
                    runtime, self.proc.returncode, self.tail()))
            if self.ready():
                return
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("mlserver (%s) not ready after %d s: %s" % (
                    runtime, args.start_timeout, self.tail()))
            time.sleep(0.5)

    def tail(self):
        self.log.seek(0)
        return self.log.read()[-3000:]

    def request(self, method, path, body=None, timeout=60):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            c.request(method, path, body, {"Content-Type": "application/json"} if body else {})
            r = c.getresponse()
            return r.status, r.read()
        finally:
            c.close()

    def ready(self):
        try:
            return self.request("GET", "/v2/models/%s/ready" % self.name, timeout=5)[0] == 200
        except OSError:
            return False

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def request_body(server, shape, data):
    status, meta = server.request("GET", "/v2/models/%s" % server.name)
    if status != 200:
        raise RuntimeError("model metadata: HTTP %d %s" % (status, meta[:200]))
    name = json.loads(meta)["inputs"][0]["name"]
    doc = {"inputs": [{"name": name, "shape": list(shape), "datatype": "FP32",
                       "data": data.tolist()}]}
    return name, json.dumps(doc).encode()


def first_output(body):
    out = json.loads(body)["outputs"][0]
    return out["shape"], out["data"]


def compare(body, ref):
    """max |y - ref| / max |ref| of a response's first output against the reference."""
    _, y = first_output(body)
    if len(y) != len(ref):
        return None
    scale = max(abs(v) for v in ref) or 1.0
    return max(abs(a - b) for a, b in zip(y, ref)) / scale


def http_client(server, body, n_ref):
    """A V2 REST client on one keep-alive connection: call() -> None or why it failed."""
    path = "/v2/models/%s/infer" % server.name
    hdr = {"Content-Type": "application/json"}
    conn = [http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)]

    def call():
        try:
            conn[0].request("POST", path, body, hdr)
            r = conn[0].getresponse()
            data = r.read()
            if r.status != 200:
                return "HTTP %d %s" % (r.status, data[:200])
            n = len(first_output(data)[1])
            return None if n == n_ref else "%d output elements, expected %d" % (n, n_ref)
        except (OSError, ValueError, KeyError, http.client.HTTPException) as e:
            conn[0].close()
            conn[0] = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
            return "%s: %s" % (type(e).__name__, e)
    call.close = lambda: conn[0].close()
    return call


def grpc_client(server, raw, n_ref, input_name, shape):
    """A V2 gRPC client on its own channel, the input as raw_input_contents (the binary form;
    MLServer's REST endpoint takes JSON only): call() -> None or why it failed."""
    import grpc
    from mlserver.grpc import dataplane_pb2 as pb, dataplane_pb2_grpc as pbg
    ch = grpc.insecure_channel("127.0.0.1:%d" % server.grpc_port,
                               options=[("grpc.max_send_message_length", 1 << 28),
                                        ("grpc.max_receive_message_length", 1 << 28)])
    stub = pbg.GRPCInferenceServiceStub(ch)
    req = pb.ModelInferRequest(model_name=server.name, inputs=[
        pb.ModelInferRequest.InferInputTensor(name=input_name, datatype="FP32",
                                              shape=list(shape))], raw_input_contents=[raw])

    def call():
        try:
            resp = stub.ModelInfer(req, timeout=120)
        except grpc.RpcError as e:
            return "gRPC %s: %s" % (e.code(), e.details())
        if resp.raw_output_contents:
            n = len(resp.raw_output_contents[0]) // 4
        else:
            n = len(resp.outputs[0].contents.fp32_contents)
        return None if n == n_ref else "%d output elements, expected %d" % (n, n_ref)
    call.close = ch.close
    return call


def load(make_client, clients, seconds, warmup, progress=None):
    """--clients threads, each with its own client (make_client()), sending the request back
    to back for `seconds` after `warmup` requests in all; latencies in ms of the successful
    requests, the others counted as failures with their first message."""
    lock = threading.Lock()
    lat, failures, first, done = [], [0], [], [0]
    warm = threading.Semaphore(warmup)
    start = threading.Barrier(clients + 1)
    stop_at = [0.0]

    def client():
        call = make_client()
        while warm.acquire(blocking=False):
            call()
        start.wait()
        mine = []
        while time.perf_counter() < stop_at[0]:
            t = time.perf_counter()
            why = call()
            dt = (time.perf_counter() - t) * 1e3
            if why is None:
                mine.append(dt)
                done[0] += 1  # for the progress line only (not exact across threads)
            else:
                with lock:
                    failures[0] += 1
                    if not first:
                        first.append(why)
        call.close()
        with lock:
            lat.extend(mine)

    threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
    stop_at[0] = time.perf_counter() + 1e9  # set for real once every client is warm
    for t in threads:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    stop_at[0] = t0 + seconds
    while any(t.is_alive() for t in threads):
        time.sleep(min(1.0, max(0.05, stop_at[0] - time.perf_counter())))
        if progress:
            progress(time.perf_counter() - t0, done[0], failures[0])
        if time.perf_counter() > stop_at[0] + 300:
            break
    wall = time.perf_counter() - t0
    lat.sort()

    def pct(p):
        return lat[min(len(lat) - 1, int(p / 100.0 * len(lat)))] if lat else None
    return {"requests": len(lat) + failures[0], "ok": len(lat), "failed": failures[0],
            "first_failure": first[0] if first else None, "seconds": round(wall, 2),
            "throughput": len(lat) / wall, "p50": pct(50), "p90": pct(90), "p99": pct(99),
            "mean": statistics.fmean(lat) if lat else None}


def make_factory(args, srv, shape, data, n_ref):
    """The client factory for --protocol, the input's name (from the model metadata) and the
    V2 JSON request body."""
    input_name, body = request_body(srv, shape, data)
    if args.protocol == "grpc":
        raw = data.tobytes()
        return input_name, body, lambda: grpc_client(srv, raw, n_ref, input_name, shape)
    return input_name, body, lambda: http_client(srv, body, n_ref)


def bad_requests(server, input_name, shape, data):
    """Each malformed request once: its status and the first line of its message; then a
    good request must still succeed."""
    n = len(data)
    small = data[: max(1, n // 2)].tolist()
    cases = [
        ("wrong shape", {"inputs": [{"name": input_name, "shape": [1, n // 2],
                                     "datatype": "FP32", "data": small}]}),
        ("wrong datatype", {"inputs": [{"name": input_name, "shape": list(shape),
                                        "datatype": "INT64", "data": [1] * n}]}),
        ("missing input", {"inputs": []}),
        ("unknown input", {"inputs": [{"name": "nope", "shape": list(shape),
                                       "datatype": "FP32", "data": data.tolist()}]}),
        ("oversized payload (16x the input)", {"inputs": [{"name": input_name,
                                                            "shape": [16] + list(shape[1:]),
                                                            "datatype": "FP32",
                                                            "data": data.tolist() * 16}]}),
        ("data / shape mismatch", {"inputs": [{"name": input_name, "shape": list(shape),
                                               "datatype": "FP32", "data": small}]}),
        ("not JSON", b"{\"inputs\": [ this is not json"),
    ]
    out = []
    for label, doc in cases:
        body = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
        try:
            status, msg = server.request("POST", "/v2/models/%s/infer" % server.name, body)
            try:
                text = json.loads(msg).get("error") or json.loads(msg).get("detail") or msg
            except ValueError:
                text = msg
            text = str(text if not isinstance(text, bytes) else text.decode("utf-8", "replace"))
        except OSError as e:
            status, text = None, "%s: %s" % (type(e).__name__, e)
        out.append({"case": label, "status": status, "message": " ".join(text.split())[:160]})
    return out, server.ready()


def fmt(x, nd=1):
    return "-" if x is None else ("%.*f" % (nd, x))


def render(res, args, cmd):
    lines = ["# ember and ONNX Runtime behind MLServer (issue #26 item 4)", "",
             "Generated by `%s` on %s." % (cmd, res["date"]), "",
             "- Machine: %s" % res["cpu"],
             "- MLServer %s, ONNX Runtime %s, ember %s; %d worker process(es), %d compute "
             "thread(s) per model, %d concurrent client(s) on loopback, %d s per run after %d "
             "warm-up requests, %d round(s) alternating the order." % (
                 res["mlserver"], res["onnxruntime"], res["ember"], args.workers, args.threads,
                 args.clients, args.seconds, args.warmup, args.rounds),
             "- Each request: the model's bench input (batch 1), %s; req/s counts the "
             "successful requests whose output has the reference's size; latency is the "
             "client's, per request." % ("over gRPC as raw_input_contents (binary)"
                                         if args.protocol == "grpc" else "V2 REST with JSON data"),
             ""]
    for model, m in res["models"].items():
        lines += ["## %s" % model, "",
                  "| runtime | round | req/s | p50 ms | p90 ms | p99 ms | failed / requests "
                  "| output vs PyTorch |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for r in m["runs"]:
            lines.append("| %s | %d | %.2f | %s | %s | %s | %d / %d | %s |" % (
                r["runtime"], r["round"], r["throughput"], fmt(r["p50"]), fmt(r["p90"]),
                fmt(r["p99"]), r["failed"], r["requests"],
                "-" if r.get("error") is None else "%.1e" % r["error"]))
        s = m["summary"]
        if s:
            lines += ["", "Medians over rounds: ember %.2f req/s, p99 %s ms; ONNX Runtime %.2f "
                      "req/s, p99 %s ms. **ember / ORT: throughput %.2fx, p99 %.2fx.**" % (
                          s["ember_tp"], fmt(s["ember_p99"]), s["ort_tp"], fmt(s["ort_p99"]),
                          s["tp_ratio"], s["p99_ratio"])]
        for rt, (cases, up) in m.get("bad", {}).items():
            lines += ["", "Malformed requests, %s: %s" % (
                rt, "server up and answering after them" if up else "**server not ready after "
                "them**"), "", "| request | status | message |", "|---|---:|---|"]
            for c in cases:
                lines.append("| %s | %s | %s |" % (c["case"], c["status"],
                                                  c["message"].replace("|", "/")))
        lines.append("")
    if res.get("soak"):
        s = res["soak"]
        lines += ["## Bounded run (--soak)", "",
                  "ember alone, %s, %d s: %d requests, **%d failed**, %.2f req/s, p50 %s ms, "
                  "p99 %s ms.%s" % (s["model"], s["seconds"], s["requests"], s["failed"],
                                    s["throughput"], fmt(s["p50"]), fmt(s["p99"]),
                                    " First failure: %s" % s["first_failure"]
                                    if s["first_failure"] else ""), ""]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="resnet18,transformer")
    ap.add_argument("--runtimes", default="ember,ort")
    ap.add_argument("--workers", type=int, default=2, help="MLServer parallel_workers (2)")
    ap.add_argument("--threads", type=int, default=1, help="compute threads per model (1)")
    ap.add_argument("--clients", type=int, default=4, help="concurrent clients (4)")
    ap.add_argument("--seconds", type=float, default=60, help="timed seconds per run (60)")
    ap.add_argument("--warmup", type=int, default=20, help="untimed requests per run (20)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--protocol", choices=["http", "grpc"], default="http",
                    help="V2 REST with JSON data, or gRPC with raw_input_contents (binary)")
    ap.add_argument("--soak", type=float, default=0, help="then ember alone for this long")
    ap.add_argument("--start-timeout", type=float, default=180)
    ap.add_argument("--py", default=os.environ.get(
        "BENCH_PY_SERVE", os.path.join(HERE, ".env", "serve", "bin", "python")),
        help="Python with mlserver and onnxruntime (bench/setup.sh --serve)")
    ap.add_argument("--library", default=os.path.join(ROOT, "build", "libember.so"))
    ap.add_argument("--cache", default=os.path.join(HERE, ".cache"))
    ap.add_argument("--py-torch2", default=os.environ.get(
        "BENCH_PY_TORCH2", os.path.join(HERE, ".env", "torch2", "bin", "python")))
    ap.add_argument("--py-torch1", default=os.environ.get("BENCH_PY_TORCH1", "/usr/bin/python3"))
    ap.add_argument("--out", default=os.path.join(HERE, "serve.md"))
    args = ap.parse_args()
    args.regen = False
    if args.protocol == "grpc":
        try:
            import grpc  # noqa: F401
            import mlserver  # noqa: F401
        except ImportError:  # the client needs MLServer's stubs: run under --py
            if os.path.exists(args.py) and os.environ.get("SERVE_LOAD_REEXEC") != "1":
                os.environ["SERVE_LOAD_REEXEC"] = "1"
                os.execv(args.py, [args.py, os.path.abspath(__file__)] + sys.argv[1:])
            sys.exit("serve_load: --protocol grpc needs grpc and mlserver (run under --py)")
    for what, path in (("--py (bench/setup.sh --serve makes it)", args.py),
                       ("--library (build the ember_shared target)", args.library)):
        if not os.path.exists(path):
            sys.exit("serve_load: %s: %s not found" % (what, path))
    models = [m for m in args.models.split(",") if m]
    missing = [m for m in models if not os.path.exists(os.path.join(args.cache, m, "model.onnx"))]
    if missing:
        bench_run.make_models(missing, args)
    runtimes = args.runtimes.split(",")
    versions = subprocess.run(
        [args.py, "-c", "import mlserver, onnxruntime; print(mlserver.__version__, "
         "onnxruntime.__version__)"], capture_output=True, text=True, check=True).stdout.split()
    ember_v = subprocess.run(
        [args.py, "-c", "import ember; print(ember.library_version())"], capture_output=True,
        text=True, check=True, env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"),
                                        EMBER_LIBRARY=os.path.abspath(args.library))).stdout
    cpu = bench_run.cpu_info()
    isa = [f for f in ("avx2", "fma", "avx512f", "avx512_vnni", "avx_vnni", "amx_int8")
           if f in cpu.get("flags", [])]
    res = {"date": time.strftime("%Y-%m-%d %H:%M"),
           "cpu": "%s (family %s model %s), %s CPUs, %s; load average at start %s" % (
               cpu.get("model"), cpu.get("family"), cpu.get("model_no"), cpu.get("cores"),
               "/".join(isa), ", ".join("%.1f" % x for x in cpu.get("loadavg", ()))),
           "mlserver": versions[0], "onnxruntime": versions[1], "ember": ember_v.strip(),
           "python": platform.python_version(), "args": vars(args), "models": {}}
    cmd = "python3 bench/serve_load.py " + " ".join(sys.argv[1:])
    for model in models:
        d = os.path.join(args.cache, model)
        path = os.path.join(d, "model.onnx")
        shape, data = bench_run.read_npy(os.path.join(d, "input.npy"))
        _, ref = bench_run.read_npy(os.path.join(d, "ref.npy"))
        runs, bad = [], {}
        for rnd in range(args.rounds):
            order = runtimes if rnd % 2 == 0 else runtimes[::-1]
            for rt in order:
                log("serve_load: %s, %s, round %d: starting MLServer" % (model, rt, rnd + 1))
                srv = Server(args, rt, model, path)
                try:
                    input_name, body, factory = make_factory(args, srv, shape, data, len(ref))
                    st, first = srv.request("POST", "/v2/models/%s/infer" % model, body)
                    err = compare(first, ref) if st == 200 else None
                    r = load(factory, args.clients, args.seconds, args.warmup)
                    r.update(runtime=rt, round=rnd + 1, error=err)
                    runs.append(r)
                    log("serve_load: %s %s: %.2f req/s, p50 %s ms, p99 %s ms, %d failed" % (
                        model, rt, r["throughput"], fmt(r["p50"]), fmt(r["p99"]), r["failed"]))
                    if rnd == 0:
                        bad[rt] = bad_requests(srv, input_name, shape, data)
                finally:
                    srv.stop()
        summ = None
        if not runs:
            continue  # --rounds 0: the soak alone
        if "ember" in runtimes and "ort" in runtimes:
            def medof(rt, key):
                return statistics.median(r[key] for r in runs if r["runtime"] == rt)
            summ = {"ember_tp": medof("ember", "throughput"), "ort_tp": medof("ort", "throughput"),
                    "ember_p99": medof("ember", "p99"), "ort_p99": medof("ort", "p99")}
            summ["tp_ratio"] = summ["ember_tp"] / summ["ort_tp"]
            summ["p99_ratio"] = summ["ember_p99"] / summ["ort_p99"]
        res["models"][model] = {"runs": runs, "bad": bad, "summary": summ}
    if args.soak > 0:
        model = models[0]
        d = os.path.join(args.cache, model)
        shape, data = bench_run.read_npy(os.path.join(d, "input.npy"))
        _, ref = bench_run.read_npy(os.path.join(d, "ref.npy"))
        srv = Server(args, "ember", model, os.path.join(d, "model.onnx"))
        last = [0.0]

        def progress(t, ok, failed):
            if t - last[0] >= 30:
                last[0] = t
                log("serve_load: soak %.0f / %.0f s: %d ok, %d failed" % (t, args.soak, ok,
                                                                         failed))
        try:
            _, _, factory = make_factory(args, srv, shape, data, len(ref))
            s = load(factory, args.clients, args.soak, args.warmup, progress)
        finally:
            srv.stop()
        s["model"] = model
        res["soak"] = s
    md = render(res, args, cmd)
    for path, text in ((args.out, md), (os.path.splitext(args.out)[0] + ".json",
                                        json.dumps(res, indent=1))):
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(text + "\n")
        os.replace(tmp, path)
    print(md)


if __name__ == "__main__":
    main()
