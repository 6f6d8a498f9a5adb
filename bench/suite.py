# SPDX-License-Identifier: Apache-2.0
"""bench/run.py --suite: every torchvision classifier, three export forms, ember vs ORT/LibTorch.

Imported by run.py (standard library only, like run.py). For each model of torchvision's own
list (torchvision.models.list_models(module=torchvision.models), in the torch 2.x venv) plus
the issue's small TransformerEncoder, bench/models.py --stage suite writes op13.onnx, op17.onnx
and trace-torch2.pt (random weights, nothing downloaded) into CACHE/suite/<model>/, once. Then,
with run.py's own machinery (time_rounds: one process per measurement, pairs in alternation,
outputs checked against torch's eager output), per model and thread count it times the pairs

    [ember op13.onnx, ORT op13.onnx]  [ember op17.onnx, ORT op17.onnx]
    [ember trace-torch2.pt, LibTorch 2 trace-torch2.pt]

and reports ember/ORT per ONNX form, ember on the TorchScript file over ORT on op17.onnx (the
file a user would otherwise run) and over LibTorch 2, the 2-thread/1-thread speed-ups, the
geometric means and the worst models, what was skipped and why, and the per-op profile of
ember (and ORT) on the worst models.
"""
import datetime
import json
import os
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Covers the op forms issue #18 names: LayerNorm + GELU + 7x7 depthwise (convnext_tiny),
# grouped conv + squeeze-and-excitation (regnet_y_400mf, resnext50_32x4d), HardSwish and
# HardSigmoid SE (mobilenet_v3_small), SiLU + SE + depthwise (efficientnet_b0), channel
# shuffle Reshape/Transpose (shufflenet_v2_x1_0), attention (vit_b_32, transformer_d128).
QUICK = ["convnext_tiny", "regnet_y_400mf", "mobilenet_v3_small", "resnext50_32x4d",
         "efficientnet_b0", "shufflenet_v2_x1_0", "vit_b_32", "transformer_d128"]
FORMS = ["op13.onnx", "op17.onnx", "trace-torch2.pt"]
# (column key, title, (runtime, form) of ember, (runtime, form) of the other)
RATIOS = [("op13", "ember/ORT op13", ("ember", "op13.onnx"), ("ort", "op13.onnx")),
          ("op17", "ember/ORT op17", ("ember", "op17.onnx"), ("ort", "op17.onnx")),
          ("ts_ort", "ember .pt / ORT op17", ("ember", "trace-torch2.pt"), ("ort", "op17.onnx")),
          ("ts_lt2", "ember .pt / LibTorch 2 .pt", ("ember", "trace-torch2.pt"),
           ("libtorch2", "trace-torch2.pt"))]
SPEEDUPS = [("ember", "op13.onnx"), ("ort", "op13.onnx"), ("ember", "op17.onnx"),
            ("ort", "op17.onnx"), ("ember", "trace-torch2.pt")]


def sh(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=60).stdout.strip()
    except Exception:  # noqa: BLE001
        return ""


def lscpu_model():
    """'Model name (family F model M, hypervisor, vector ISA)' from lscpu."""
    f = {}
    for ln in sh(["lscpu"]).splitlines():
        k, _, v = ln.partition(":")
        f[k.strip()] = v.strip()
    flags = f.get("Flags", "").split()
    isa = "AVX-512" if "avx512f" in flags else "AVX2, no AVX-512" if "avx2" in flags else "no AVX2"
    return "%s (family %s model %s%s, %s)" % (
        f.get("Model name", "?"), f.get("CPU family", "?"), f.get("Model", "?"),
        ", " + f["Hypervisor vendor"] + " VM" if f.get("Hypervisor vendor") else "", isa)


def list_models(R, args, only):
    """torchvision's list with sizes: cached in CACHE/suite-list.json for the full list."""
    path = os.path.join(args.suite_cache, "suite-list.json")
    tv = R.python_check(args.py_torch2, "torchvision")[0]
    if only is None and os.path.exists(path):
        with open(path) as f:
            old = json.load(f)
        if old.get("torchvision") == tv:
            return old["models"]
    cmd = [args.py_torch2, os.path.join(HERE, "models.py"), "--stage", "suite-list",
           "--cache", args.suite_cache] + (["--models", ",".join(only)] if only else [])
    R.log("bench: listing torchvision's models: %s" % " ".join(cmd))
    r = subprocess.run(cmd, stdout=subprocess.PIPE, env=R.thread_env(os.cpu_count() or 1))
    if r.returncode != 0:
        sys.exit("bench: %s failed (exit %d)" % (" ".join(cmd), r.returncode))
    models = json.loads(r.stdout.decode().strip().splitlines()[-1])
    if only is None:
        with open(path, "w") as f:
            json.dump({"torchvision": tv, "models": models}, f, indent=1)
    return models


def gflop(info):
    fl = info.get("flops") or {}
    return (fl.get("conv", 0) + fl.get("linear", 0)) / 1e9 if fl else None


def make(R, args, model):
    """Exports one model in its own process (bounded memory, a crash is that model's alone)."""
    cmd = [args.py_torch2, os.path.join(HERE, "models.py"), "--stage", "suite",
           "--cache", args.suite_cache, "--models", model] + (["--force"] if args.regen else [])
    rc, out, err, _, wall = R.run_measured(cmd, R.thread_env(os.cpu_count() or 1), args.timeout)
    try:
        meta = json.loads(out.strip().splitlines()[-1])[model]
    except Exception:  # noqa: BLE001
        return {"error": "export process: " + R.error_line(err, rc, True), "forms": {}}
    if wall > 5:
        R.log("bench: made %s in %.0f s: %s" % (model, wall, " ".join(
            "%s=%s" % (k, "ok" if v.get("ok") else "FAIL") for k, v in meta.get("forms", {}).items())))
    return meta


def summarize(records, models, threads, rounds):
    def recs(model, nt, rt, form, rd=None):
        return [r for r in records if r["model"] == model and r["threads"] == nt
                and r["runtime"] == rt and r["form"] == form and r.get("ok")
                and (rd is None or r["round"] == rd)]

    rows = []
    for model in models:
        row = {"model": model, "median_ms": {}, "ratio": {}, "speedup": {}, "errors": {},
               "max_rel_diff": {}}
        for nt in threads:
            for rt, form in {(r["runtime"], r["form"]) for r in records if r["model"] == model}:
                ok = recs(model, nt, rt, form)
                k = "%s %s %d" % (rt, form, nt)
                if ok:
                    row["median_ms"][k] = R_med([r["median_ms"] for r in ok])
                    d = [r.get("max_rel_diff") for r in ok if r.get("max_rel_diff") is not None]
                    row["max_rel_diff"]["%s %s" % (rt, form)] = max(
                        d + [row["max_rel_diff"].get("%s %s" % (rt, form), 0.0)]) if d else None
                else:
                    bad = [r for r in records if r["model"] == model and r["threads"] == nt
                           and r["runtime"] == rt and r["form"] == form]
                    if bad:
                        row["errors"]["%s %s" % (rt, form)] = bad[0].get("error", "?")
            for key, _, a, b in RATIOS:
                per = []
                for rd in range(rounds):
                    ea, eb = recs(model, nt, *a, rd=rd), recs(model, nt, *b, rd=rd)
                    if ea and eb:
                        per.append(ea[0]["median_ms"] / eb[0]["median_ms"])
                row["ratio"]["%s %d" % (key, nt)] = R_med(per)
        if 1 in threads and 2 in threads:
            for rt, form in SPEEDUPS:
                t1 = row["median_ms"].get("%s %s 1" % (rt, form))
                t2 = row["median_ms"].get("%s %s 2" % (rt, form))
                row["speedup"]["%s %s" % (rt, form)] = t1 / t2 if t1 and t2 else None
        rows.append(row)
    agg = {}
    cols = ["%s %d" % (k, nt) for k, _, _, _ in RATIOS for nt in threads]
    for c in cols:
        vals = [(r["ratio"].get(c), r["model"]) for r in rows if r["ratio"].get(c)]
        worst = max(vals) if vals else (None, None)
        agg[c] = {"geomean": R_gmean([v for v, _ in vals]), "n": len(vals),
                  "worst": worst[0], "worst_model": worst[1],
                  "over_1_1": sorted(m for v, m in vals if v > 1.1)}
    for rt, form in SPEEDUPS:
        c = "%s %s" % (rt, form)
        vals = [r["speedup"].get(c) for r in rows if r["speedup"].get(c)]
        agg["speedup " + c] = {"geomean": R_gmean(vals), "n": len(vals)}
    return {"rows": rows, "agg": agg}


R_med = R_gmean = None   # run.py's med and gmean, bound by bind()


def bind(R):
    global R_med, R_gmean
    R_med, R_gmean = R.med, R.gmean


def profile_worst(R, args, rows, n, warmup, iters):
    """ember's and ORT's per-op time on the n models with the highest 1-thread ember/ORT."""
    scored = []
    for r in rows:
        for form, key in (("op13.onnx", "op13 1"), ("op17.onnx", "op17 1")):
            if r["ratio"].get(key):
                scored.append((r["ratio"][key], r["model"], form))
    scored.sort(reverse=True)
    out, seen = [], set()
    for ratio, model, form in scored:
        if len(out) >= n:
            break
        if model in seen:
            continue
        seen.add(model)
        d = os.path.join(args.suite_cache, model)
        f, inp = os.path.join(d, form), os.path.join(d, "input.npy")
        env = R.thread_env(1)
        ent = {"model": model, "form": form, "ratio": ratio}
        cmd = [args.ember, "run", f, "--input", inp, "--threads", "1", "--warmup", str(warmup),
               "--iters", str(iters), "--json", "--profile"]
        R.log("bench: profiling ember: %s" % " ".join(cmd))
        rc, so, se, _, _ = R.run_measured(cmd, env, args.timeout)
        try:
            js = json.loads([ln for ln in so.splitlines() if ln.startswith("{")][-1])
            ent["ember"] = {o["op"]: o["total_ms"] / iters for o in js.get("profile", [])}
        except Exception:  # noqa: BLE001
            ent["ember_error"] = R.error_line(se, rc, False)
        cmd = [args.py_ort, "-c", R.ORT_PROFILE, f, inp, str(warmup), str(iters), args.cache]
        rc, so, se, _, _ = R.run_measured(cmd, env, args.timeout)
        try:
            ent["ort"] = json.loads(so.strip().splitlines()[-1])["ops"]
        except Exception:  # noqa: BLE001
            ent["ort_error"] = R.error_line(se, rc, True)
        out.append(ent)
    return out


def top_ops(ops, k=6):
    if not ops:
        return "n/a"
    tot = sum(ops.values()) or 1.0
    items = sorted(ops.items(), key=lambda kv: -kv[1])[:k]
    return ", ".join("%s %.2f ms (%.0f%%)" % (op, ms, 100 * ms / tot) for op, ms in items)


def merge(raws):
    """One suite run from several (--render a.json,b.json: the same list run in chunks with
    --models): records, models and profiles joined, the summary computed again; the header
    lists every chunk's command, commit and load average."""
    if len(raws) == 1:
        return raws[0]
    out = dict(raws[-1])
    out["chunks"] = [{k: r[k] for k in ("date", "commit", "command", "elapsed_s", "loadavg",
                                        "loadavg_end")} for r in raws]
    out["commit"] = ", ".join(dict.fromkeys(r["commit"] for r in raws))
    out["command"] = " ; ".join(r["command"] for r in raws)
    out["elapsed_s"] = sum(r["elapsed_s"] for r in raws)
    out["loadavg"] = [max(r["loadavg"][i] for r in raws) for i in range(3)]
    out["loadavg_end"] = [max(r["loadavg_end"][i] for r in raws) for i in range(3)]
    for k in ("models", "profiles", "records"):
        out[k] = [x for r in raws for x in r[k]]
    for k in ("sizes", "skipped", "meta"):
        out[k] = {m: v for r in raws for m, v in r[k].items()}
    out["rounds"] = max(r["rounds"] for r in raws)
    out["summary"] = summarize(out["records"], out["models"], out["threads"], out["rounds"])
    return out


def render(raw):
    fr = lambda x: "n/a" if x is None else "%.2f" % x  # noqa: E731
    S, threads = raw["summary"], raw["threads"]
    L = ["# ember suite: every torchvision classifier, three export forms\n"]
    L.append("- date: %s; git commit %s" % (raw["date"], raw["commit"]))
    L.append("- command: `%s` (%d round(s) x %d timed runs after the first run and %d warm-up "
             "runs; %.0f min)" % (raw["command"], raw["rounds"], raw["iters"], raw["warmup"],
                                  raw["elapsed_s"] / 60))
    L.append("- CPU (lscpu): %s, %s cores; load average %s at the start, %s at the end%s"
             % (raw["lscpu"], raw["cores"], ", ".join("%.1f" % x for x in raw["loadavg"]),
                ", ".join("%.1f" % x for x in raw["loadavg_end"]),
                " (the highest over the chunks)" if raw.get("chunks") else ""))
    for c in raw.get("chunks", []):
        L.append("  - chunk: `%s` on %s, %s, %.0f min, load average %.1f at the start, %.1f "
                 "at the end" % (c["command"], c["commit"], c["date"], c["elapsed_s"] / 60,
                                 c["loadavg"][0], c["loadavg_end"][0]))
    # the bench itself keeps up to `cores` runnable threads: busy means more than that + 1
    if max(raw["loadavg"][0], raw["loadavg_end"][0]) > (raw["cores"] or 1) + 1:
        L.append("- **the machine was shared and busy** (other builds, tests and fuzzers; load "
                 "average above): every figure is noisy, the 2-thread ones most (two threads "
                 "rarely had two cores). A first map of where ember is slow, not final numbers.")
    L.append("- versions: %s" % ", ".join("%s %s" % (k, v) for k, v in raw["versions"].items() if v))
    L.append("- models: torchvision %s's `list_models(module=torchvision.models)` (%d) + "
             "transformer_d128 (`nn.TransformerEncoder`, d_model 128, 4 heads, ff 512, 2 layers, "
             "[seq 64, batch 1, 128]); random weights (`weights=None`, seed 0, random BatchNorm "
             "statistics), input [1, 3, 224, 224] (inception_v3: 299). Exported by torch %s: "
             "op13.onnx and op17.onnx (`torch.onnx.export(dynamo=False)`, constant folding), "
             "trace-torch2.pt (`torch.jit.trace`)."
             % (raw["versions"].get("torchvision", "?"), raw["n_listed"] - 1,
                raw["versions"].get("LibTorch 2", "?")))
    L.append("- run here: %d model(s)%s" % (len(raw["models"]), " (the --quick subset)" if raw["quick"] else ""))
    L.append("")
    L.append("Ratios: median latency, per round, median over rounds; < 1: ember is faster. "
             "Speed-up: median latency at 1 thread / at 2 threads.\n")
    cols = [(k, t) for k, t, _, _ in RATIOS]
    hdr = ["model", "GFLOP"] + ["%s %dT" % (t, nt) for _, t in cols for nt in threads]
    sp = [("ember", "op13.onnx"), ("ort", "op13.onnx"), ("ember", "op17.onnx"), ("ort", "op17.onnx")]
    if 1 in threads and 2 in threads:
        hdr += ["1T/2T %s %s" % ("ember" if rt == "ember" else "ORT", f.split(".")[0]) for rt, f in sp]
    L.append("| " + " | ".join(hdr) + " |")
    L.append("|---|" + "---:|" * (len(hdr) - 1))
    for r in S["rows"]:
        g = raw["sizes"].get(r["model"], {}).get("gflop")
        cells = [r["model"], "%.2f" % g if g else "?"]
        for k, _ in cols:
            for nt in threads:
                v = r["ratio"].get("%s %d" % (k, nt))
                cells.append(("**%.2f**" % v if v > 1.1 else "%.2f" % v) if v else "n/a")
        if 1 in threads and 2 in threads:
            cells += [fr(r["speedup"].get("%s %s" % x)) for x in sp]
        L.append("| " + " | ".join(cells) + " |")
    A = S["agg"]
    cells = ["**geomean**", ""] + ["**%s**" % fr(A["%s %d" % (k, nt)]["geomean"]) for k, _ in cols for nt in threads]
    if 1 in threads and 2 in threads:
        cells += [fr(A["speedup %s %s" % x]["geomean"]) for x in sp]
    L.append("| " + " | ".join(cells) + " |")
    cells = ["**worst**", ""] + ["%s (%s)" % (fr(A["%s %d" % (k, nt)]["worst"]),
                                              A["%s %d" % (k, nt)]["worst_model"] or "-")
                                 for k, _ in cols for nt in threads]
    if 1 in threads and 2 in threads:
        cells += [""] * len(sp)
    L.append("| " + " | ".join(cells) + " |")
    L.append("")
    L.append("Bold: above 1.1. Targets (issue #18): ember/ORT geomean <= 0.85 at 1 and 2 threads "
             "over both ONNX forms with no model above 1.1; every TorchScript file <= 1.0x ORT on "
             "the ONNX file.\n")
    for k, t in cols:
        for nt in threads:
            o = A["%s %d" % (k, nt)]["over_1_1"]
            if o:
                L.append("- %s, %d thread(s), above 1.1: %s" % (t, nt, ", ".join(o)))
    L.append("")
    # --- what did not run
    L.append("## Not measured, and failures\n")
    if raw["skipped"]:
        for m, why in raw["skipped"].items():
            L.append("- %s: skipped, %s" % (m, why))
    for r in S["rows"]:
        for k, e in sorted(r["errors"].items()):
            L.append("- %s, %s: %s" % (r["model"], k, e.replace("|", "\\|")))
    off = [(r["model"], k, v) for r in S["rows"] for k, v in r["max_rel_diff"].items()
           if v is not None and v > 1e-3]
    for m, k, v in off:
        L.append("- %s, %s: output differs from torch eager by %.1e of its max |value| **!**" % (m, k, v))
    if not raw["skipped"] and not off and not any(r["errors"] for r in S["rows"]):
        L.append("- none: every model of the run was made and ran in every runtime and form, "
                 "outputs within 1e-3 (relative to the output's max |value|) of torch eager.")
    L.append("")
    # --- profiles
    if raw.get("profiles"):
        L.append("## Where ember's time goes on the worst models (1 thread, ms per run by op)\n")
        L.append("| model (form, ember/ORT) | ember: top ops | ORT: top ops |")
        L.append("|---|---|---|")
        for p in raw["profiles"]:
            L.append("| %s (%s, %.2f) | %s | %s |" % (
                p["model"], p["form"], p["ratio"], p.get("ember_error") or top_ops(p.get("ember")),
                p.get("ort_error") or top_ops(p.get("ort"))))
        L.append("")
    # --- medians
    L.append("## Median latency, ms (median over rounds)\n")
    keys = [(rt, f) for f in FORMS for rt in (("ember", "ort") if f.endswith(".onnx") else ("ember", "libtorch2"))]
    hdr = ["model"] + ["%s %s %dT" % (R_NAMES.get(rt, rt), f.replace(".onnx", "").replace("trace-torch2", ""),
                                       nt) for rt, f in keys for nt in threads]
    L.append("| " + " | ".join(hdr) + " |")
    L.append("|---|" + "---:|" * (len(hdr) - 1))
    for r in S["rows"]:
        cells = [r["model"]]
        for rt, f in keys:
            for nt in threads:
                v = r["median_ms"].get("%s %s %d" % (rt, f, nt))
                cells.append("%.2f" % v if v is not None else "n/a")
        L.append("| " + " | ".join(cells) + " |")
    L.append("")
    return "\n".join(L) + "\n"


R_NAMES = {"ember": "ember", "ort": "ORT", "libtorch2": "LT2"}


def run(args, R):
    """The suite; R is run.py's module (its measurement machinery)."""
    bind(R)
    t_start = time.time()
    quick = args.suite == "quick" or args.quick
    rounds = args.rounds or (2 if quick else 1)
    iters = args.iters or 10
    warmup = 3 if args.warmup is None else args.warmup
    threads = [int(t) for t in args.threads.split(",")]
    args.ember = os.path.abspath(args.ember)
    args.cache = os.path.abspath(args.cache)
    args.suite_cache = os.path.join(args.cache, "suite")
    os.makedirs(args.suite_cache, exist_ok=True)
    out = args.out or os.path.join(HERE, "suite.md")
    command = "bench/run.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    if not os.path.exists(args.ember):
        sys.exit("bench: no ember binary at %s (see bench/README.md)" % args.ember)
    versions = {"ember": R.ember_version(args.ember)}
    avail = {}
    for rt, py, mod, name in (("ort", args.py_ort, "onnxruntime", "ORT"),
                              ("libtorch2", args.py_torch2, "torch", "LibTorch 2")):
        versions[name], avail[rt] = R.python_check(py, mod)
        if avail[rt]:
            R.log("bench: %s unavailable: %s" % (rt, avail[rt]))
    for mod in ("torchvision", "onnx"):
        versions[mod], e = R.python_check(args.py_torch2, mod)
        if e:
            sys.exit("bench: the suite needs %s in the torch 2.x Python: %s (run bench/setup.sh)"
                     % (mod, e))
    loadavg = os.getloadavg()

    want = args.models.split(",") if args.models else (QUICK if quick else None)
    listed = list_models(R, args, want)
    if want:
        bad = [m for m in want if m not in listed]
        if bad:
            sys.exit("bench: not in torchvision's list (nor transformer_d128): %s" % ", ".join(bad))
    names = want or list(listed)
    sizes, skipped, models = {}, {}, []
    for m in names:
        info = listed[m]
        g = gflop(info)
        sizes[m] = {"gflop": g, "params": info.get("params")}
        if info.get("error"):
            skipped[m] = "cannot be built: " + info["error"]
        elif info["params"] * 4 > args.max_params_mb * 1e6:
            skipped[m] = ("too large: %.0f M parameters, %.1f GB of fp32 weights (over --max-params-mb "
                          "%d: each of the three files and every runtime holds a copy; ONNX's "
                          "protobuf limit is 2 GB)" % (info["params"] / 1e6, info["params"] * 4e-9,
                                                      args.max_params_mb))
        elif g and g > args.max_gflop:
            skipped[m] = ("too slow for this machine: %.0f GFLOP per image (over --max-gflop %g)"
                          % (g, args.max_gflop))
        else:
            models.append(m)
    metas = {}
    for m in models:
        metas[m] = make(R, args, m)
        if metas[m].get("error"):
            R.log("bench: %s: %s" % (m, metas[m]["error"]))
    for m in [m for m in models if metas[m].get("error")]:
        skipped[m] = "export failed: " + metas[m]["error"]
        models.remove(m)
    ember_base = None
    _, _, _, ru, _ = R.run_measured([args.ember, "--version"], dict(os.environ), 30)
    ember_base = ru.ru_maxrss / 1024.0 if ru else None
    py_of = {"ort": args.py_ort, "libtorch2": args.py_torch2}

    def pairs_for(model):
        d = os.path.join(args.suite_cache, model)
        forms = metas[model].get("forms", {})
        base = {"input": os.path.join(d, "input.npy"), "ref": os.path.join(d, "ref.npy")}

        def job(rt, fname):
            f = forms.get(fname, {})
            return dict(base, runtime=rt, form=fname, file=os.path.join(d, fname), py=py_of.get(rt),
                        missing=None if f.get("ok") else "not made: " + f.get("error", "?"))
        return [[job("ember", f), job(rt, f)] for f, rt in
                (("op13.onnx", "ort"), ("op17.onnx", "ort"), ("trace-torch2.pt", "libtorch2"))]

    records = R.time_rounds(models, threads, rounds, pairs_for, args, warmup, iters, avail,
                            ember_base, out_prefix="suite-")
    summary = summarize(records, models, threads, rounds)
    profiles = profile_worst(R, args, summary["rows"], args.profile_worst, warmup,
                             max(iters, 10)) if args.profile_worst else []
    dirty = " (with uncommitted changes)" if sh(["git", "status", "--porcelain", "--untracked-files=no"]) else ""
    raw = {"date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
           "commit": sh(["git", "rev-parse", "--short", "HEAD"]) + dirty,
           "command": command, "elapsed_s": time.time() - t_start, "lscpu": lscpu_model(),
           "cores": os.cpu_count(), "loadavg": loadavg, "loadavg_end": os.getloadavg(),
           "versions": versions, "rounds": rounds, "iters": iters, "warmup": warmup,
           "threads": threads, "quick": quick, "n_listed": len(listed), "models": models,
           "sizes": sizes, "skipped": skipped, "meta": metas, "summary": summary,
           "profiles": profiles, "records": records}
    md = render(raw)
    with open(os.path.splitext(out)[0] + ".json", "w") as f:
        json.dump(raw, f, indent=1)
    with open(out, "w") as f:
        f.write(md)
    sys.stdout.write(md)
    R.log("bench: wrote %s (%.0f s)" % (out, raw["elapsed_s"]))
