# SPDX-License-Identifier: Apache-2.0
"""bench/run.py --int8: quantized models in ember, ONNX Runtime, LibTorch and ExecuTorch.

Imported by run.py (standard library only, like run.py). bench/qmodels.py makes, once, into
CACHE/int8/<model>/ (see its docstring): fp32.onnx, the PyTorch-quantized TorchScript files
(q-x86.pt, q-onednn.pt; the transformer dq-x86.pt, dq-onednn.pt), ORT's QDQ file qdq.onnx
(the transformer: dq.onnx) and ExecuTorch's xnnpack.pte, with each quantizer's own output on
the timed input and on N accuracy inputs. Then, with run.py's machinery (time_rounds: one
process per measurement, groups in alternation, the order flipped every other round), per
model and thread count each round times

    [ember qdq.onnx, ORT qdq.onnx, ExecuTorch xnnpack.pte, ember fp32.onnx]
    [ember q-x86.pt, LibTorch q-x86.pt]   [ember q-onednn.pt, LibTorch q-onednn.pt]

and afterwards runs every (runtime, file) once on the N accuracy inputs: the fraction of
output elements within 1 output LSB of the quantizer's own output, and argmax agreement.
"""
import datetime
import json
import os
import shlex
import subprocess
import sys
import time
from array import array

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = ["resnet18", "resnet50", "mobilenet_v2", "transformer"]
QUICK = ["resnet18", "transformer"]
R_NAMES = {"ember": "ember", "ort": "ORT", "libtorch2": "LibTorch", "executorch": "ExecuTorch"}
ENGINES = ["x86", "onednn"]
ACC_CHUNK = 20   # bench/qmodels.py's: accuracy inputs per forward call of the references
R = None   # run.py's module, bound by run() / render()


def is_cnn(model):
    return model != "transformer"


def qform(model):
    return "qdq.onnx" if is_cnn(model) else "dq.onnx"


def pt_forms(model):
    return ["%s-%s.pt" % ("q" if is_cnn(model) else "dq", e) for e in ENGINES]


def tag(form):
    return form.rsplit(".", 1)[0] if form != "xnnpack.pte" else "xnn"


def make(args, models):
    """The three stages of bench/qmodels.py, each under its Python; returns
    {model: {form: meta}} and the stages' versions."""
    forms, info = {m: {} for m in models}, {}
    stages = [("torch", args.py_torch2), ("ort", args.py_ort)]
    if args.executorch_ok:
        stages.append(("executorch", args.py_executorch))
    for stage, py in stages:
        cmd = [py, os.path.join(HERE, "qmodels.py"), "--stage", stage, "--cache", args.int8_cache,
               "--models", ",".join(models), "--acc-n", str(args.acc_n)] + \
              (["--force"] if args.regen else [])
        R.log("bench: making the int8 models (%s): %s" % (stage, " ".join(cmd)))
        t0 = time.time()
        r = subprocess.run(cmd, stdout=subprocess.PIPE, env=R.thread_env(os.cpu_count() or 1))
        info[stage] = {"seconds": round(time.time() - t0, 1)}
        try:
            metas = json.loads(r.stdout.decode().strip().splitlines()[-1])
        except (ValueError, IndexError):
            if stage == "torch":
                sys.exit("bench: %s failed (exit %d)" % (" ".join(cmd), r.returncode))
            info[stage]["error"] = "exit %d" % r.returncode
            continue
        for m, meta in metas.items():
            info[stage].setdefault("versions", meta.get("versions"))
            if meta.get("error"):
                info[stage].setdefault("errors", {})[m] = meta["error"]
            for f, fm in meta.get("forms", {}).items():
                forms[m][f] = fm
            if stage == "torch":
                forms[m]["_meta"] = {k: meta.get(k) for k in ("input_shape", "batch_axis", "acc_n",
                                                              "calib")}
    return forms, info


def jobs(args, model, forms, py_of):
    """The groups of one round for model: lists of jobs (ember first)."""
    d = os.path.join(args.int8_cache, model)
    base = {"input": os.path.join(d, "input.npy")}

    def job(rt, form, **kw):
        f = forms.get(form, {})
        j = dict(base, runtime=rt, form=form, file=os.path.join(d, form), py=py_of.get(rt),
                 ref=os.path.join(d, "ref-%s.npy" % tag(form)),
                 missing=None if f.get("ok") else "not made: " + f.get("error", "not made"))
        j.update(kw)
        return j
    want = args.int8_runtimes
    g = []
    if "ember" in want:
        g.append(job("ember", qform(model)))
    if "ort" in want:
        g.append(job("ort", qform(model)))
    if "executorch" in want and is_cnn(model):
        g.append(job("executorch", "xnnpack.pte"))
    if "ember" in want:
        g.append(job("ember", "fp32.onnx"))
    groups = [g] if g else []
    for form in pt_forms(model):
        p = []
        if "ember" in want:
            p.append(job("ember", form))
        if "libtorch2" in want:
            p.append(job("libtorch2", form, worker_args=["--qengine", form.split("-")[1][:-3]]))
        if p:
            groups.append(p)
    return groups


# ----------------------------------------------------------------------------- accuracy

def accuracy(args, models, forms, py_of, avail, threads):
    """Each (runtime, file) of the timing once on the N accuracy inputs (one batch; ExecuTorch
    image by image), compared with the quantizer's own output on them."""
    out = []
    nt = max(threads)
    for model in models:
        d = os.path.join(args.int8_cache, model)
        meta = forms[model].get("_meta", {})
        ax = meta.get("batch_axis", 0)
        acc_in = os.path.join(d, "acc.npy")
        n = min(args.acc_n, meta.get("acc_n") or args.acc_n)
        if not is_cnn(model):
            # dynamic quantization takes each activation's range over the whole batch, so the
            # runtimes must see the batches the references were made with (qmodels.py's
            # ACC_CHUNK): the first one, whatever --acc-n
            n = min(ACC_CHUNK, meta.get("acc_n") or ACC_CHUNK)
        if n < (meta.get("acc_n") or n):   # fewer than the cache holds: the first n
            acc_in = os.path.join(args.cache, "out", "int8-acc-%s-n%d.npy" % (model, n))
            shape, a = R.read_npy(os.path.join(d, "acc.npy"))
            write_npy(acc_in, *take_first(shape, a, ax, n))
        for grp in jobs(args, model, forms[model], py_of):
            for jb in grp:
                rec = {"model": model, "runtime": jb["runtime"], "form": jb["form"]}
                fm = forms[model].get(jb["form"], {})
                rec["out_scale"] = fm.get("out_scale")
                rec["reference"] = fm.get("ref") or "torch eager fp32"
                ref = os.path.join(d, "acc-%s.npy" % tag(jb["form"]))
                outdir = os.path.join(args.cache, "out", "int8-acc-" + model,
                                      "%s-%s" % (jb["runtime"], jb["form"]))
                if jb.get("missing"):
                    rec.update(ok=False, error=jb["missing"])
                elif jb["runtime"] != "ember" and avail.get(jb["runtime"]):
                    rec.update(ok=False, error=avail[jb["runtime"]])
                else:
                    rec.update(run_one(args, jb, acc_in, ref, outdir, nt, ax, n))
                rec["n"] = n
                finish_accuracy([rec])
                out.append(rec)
                R.log("  accuracy %-10s %-12s %s" % (jb["runtime"], jb["form"], (
                    "within 1 LSB %s, argmax %s/%s, max abs diff %s" % (
                        fmt_pct(rec.get("within_1lsb")), rec.get("argmax_agree"),
                        rec.get("argmax_n"), R.fmt_diff(rec.get("max_abs_diff"))))
                    if rec.get("ok") else "n/a: " + rec.get("error", "?")))
    return out


def take_first(shape, a, ax, n):
    """(shape, array) of the first n items along axis ax of a C-order array."""
    outer = 1
    for s_ in shape[:ax]:
        outer *= s_
    inner = 1
    for s_ in shape[ax + 1:]:
        inner *= s_
    out = array(a.typecode)
    for o in range(outer):
        b = o * shape[ax] * inner
        out.extend(a[b:b + n * inner])
    return tuple(shape[:ax]) + (n,) + tuple(shape[ax + 1:]), out


def write_npy(path, shape, a):
    """A little-endian float32 .npy (version 1.0)."""
    assert a.typecode == "f"
    hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
        "".join("%d, " % d for d in shape) if len(shape) != 1 else "%d," % shape[0])
    hdr += " " * (63 - (10 + len(hdr)) % 64) + "\n"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(hdr).to_bytes(2, "little") + hdr.encode("latin1"))
        f.write(a.tobytes())


def run_one(args, jb, acc_in, ref, outdir, nt, ax, n):
    os.makedirs(outdir, exist_ok=True)
    if jb["runtime"] == "ember":
        cmd = [args.ember, "run", jb["file"], "--input", acc_in, "--threads", str(nt),
               "--warmup", "0", "--iters", "1", "--json", "--output-dir", outdir]
        out_npy = os.path.join(outdir, "output_0.npy")
    else:
        out_npy = os.path.join(outdir, "output.npy")
        cmd = [jb["py"], os.path.join(HERE, "worker.py"),
               {"ort": "ort", "executorch": "executorch"}.get(jb["runtime"], "torch"),
               jb["file"], acc_in, out_npy, "--threads", str(nt), "--warmup", "0", "--iters", "1"]
        cmd += jb.get("worker_args", [])
        if jb["runtime"] == "executorch":
            cmd += ["--per-item", str(ax)]
    if os.path.exists(out_npy):
        os.remove(out_npy)
    rc, so, se, _, wall = R.run_measured(cmd, R.thread_env(nt), args.timeout)
    res = {"cmd": " ".join(shlex.quote(c) for c in cmd), "wall_s": wall}
    if rc != 0 or not os.path.exists(out_npy):
        res.update(ok=False, error=R.job_error(se, rc, jb))
        return res
    try:
        ys, y = R.read_npy(out_npy)
        rs, r = R.read_npy(ref)
        if rs[ax] > n:
            rs, r = take_first(rs, r, ax, n)
    except Exception as e:  # noqa: BLE001
        res.update(ok=False, error="output: " + str(e)[:200])
        return res
    if ys != rs:
        res.update(ok=False, error="output shape %s, reference %s" % (list(ys), list(rs)))
        return res
    res.update(compare(y, r, ys))
    exact = ref[:-len(".npy")] + "-exact.npy"
    if os.path.exists(exact):   # ORT's files: also against the graph's exact result
        try:
            es, e = R.read_npy(exact)
            if es[ax] > n:
                es, e = take_first(es, e, ax, n)
            c = compare(y, e, ys)
            res.update(exact_max_abs_diff=c["max_abs_diff"], exact_argmax_agree=c["argmax_agree"],
                       _de=c["_d"])
        except Exception as ex:  # noqa: BLE001
            res["exact_error"] = str(ex)[:200]
    res["ok"] = True
    return res


def compare(y, r, shape):
    """max |y - r|, and argmax agreement over the last axis (per image for the classifiers,
    per position and item for the transformer)."""
    d = [abs(a - b) for a, b in zip(y, r)]
    out = {"max_abs_diff": max(d, default=0.0), "n_elems": len(d), "_d": d}
    k = shape[-1] if shape else 1
    rows = len(y) // k if k else 0
    agree = 0
    for i in range(rows):
        ya, ra = y[i * k:(i + 1) * k], r[i * k:(i + 1) * k]
        agree += max(range(k), key=ya.__getitem__) == max(range(k), key=ra.__getitem__)
    out["argmax_agree"], out["argmax_n"] = agree, rows
    return out


def finish_accuracy(recs):
    """Fraction within 1 LSB (the quantized output's scale) from the diffs; drops them."""
    for rec in recs:
        d, de = rec.pop("_d", None), rec.pop("_de", None)
        if d is None:
            continue
        s = rec.get("out_scale")
        if s:
            rec["within_1lsb"] = sum(1 for v in d if v <= s * 1.001) / len(d) if d else None
            rec["max_diff_lsb"] = rec["max_abs_diff"] / s
            if de:
                rec["exact_within_1lsb"] = sum(1 for v in de if v <= s * 1.001) / len(de)


# ----------------------------------------------------------------------------- summary

def summarize(records, models, threads, rounds):
    def one(model, nt, rt, form, rd=None):
        rs = [r for r in records if r["model"] == model and r["threads"] == nt and r["runtime"] == rt
              and r["form"] == form and r.get("ok") and (rd is None or r["round"] == rd)]
        return rs

    rows = []
    for model in models:
        for nt in threads:
            row = {"model": model, "threads": nt, "median_ms": {}, "rss_mb": {}, "load_ms": {},
                   "errors": {}, "ratio": {}, "fallback": {}}
            for rt, form in {(r["runtime"], r["form"]) for r in records if r["model"] == model}:
                ok = one(model, nt, rt, form)
                k = "%s %s" % (rt, form)
                if ok:
                    row["median_ms"][k] = R.med([r["median_ms"] for r in ok])
                    row["rss_mb"][k] = R.med([r.get("maxrss_mb") for r in ok])
                    row["load_ms"][k] = R.med([r.get("load_ms") for r in ok])
                else:
                    bad = [r for r in records if r["model"] == model and r["threads"] == nt
                           and r["runtime"] == rt and r["form"] == form]
                    if bad:
                        row["errors"][k] = bad[0].get("error", "?")
            q = qform(model)

            def per_round(num, den, key="median_ms", fallback=None):
                vals, fb = [], False
                for rd in range(rounds):
                    b = one(model, nt, *den, rd=rd)
                    a = one(model, nt, *num, rd=rd)
                    if not a and fallback:
                        a = one(model, nt, *fallback, rd=rd)
                        fb = fb or bool(a)
                    if a and b and a[0].get(key) and b[0].get(key):
                        vals.append(a[0][key] / b[0][key])
                return R.med(vals), fb
            row["ratio"]["ort"], _ = per_round(("ember", q), ("ort", q))
            row["ratio"]["executorch"], _ = per_round(("ember", q), ("executorch", "xnnpack.pte"))
            row["ratio"]["fp32_over_int8"], _ = per_round(("ember", "fp32.onnx"), ("ember", q))
            row["ratio"]["rss_int8_over_fp32"], _ = per_round(("ember", q), ("ember", "fp32.onnx"),
                                                              "maxrss_mb")
            for form in pt_forms(model):
                eng = form.split("-")[1][:-3]
                row["ratio"]["lt " + eng], row["fallback"]["lt " + eng] = per_round(
                    ("ember", form), ("libtorch2", form), fallback=("ember", q))
            # the fastest LibTorch engine (median over rounds), ember on that engine's file
            lts = [(row["median_ms"].get("libtorch2 " + f), f) for f in pt_forms(model)
                   if row["median_ms"].get("libtorch2 " + f)]
            if lts:
                best = min(lts)[1]
                row["lt_best"] = best.split("-")[1][:-3]
                row["ratio"]["lt best"] = row["ratio"]["lt " + row["lt_best"]]
                row["fallback"]["lt best"] = row["fallback"]["lt " + row["lt_best"]]
            rows.append(row)
    agg = {}
    for nt in threads:
        for key in ("ort", "lt best", "executorch", "fp32_over_int8", "rss_int8_over_fp32"):
            vals = [(r["ratio"].get(key), r["model"]) for r in rows if r["threads"] == nt
                    and r["ratio"].get(key)]
            agg["%s %d" % (key, nt)] = {"geomean": R.gmean([v for v, _ in vals]), "n": len(vals),
                                        "max": max(vals)[0] if vals else None,
                                        "max_model": max(vals)[1] if vals else None}
    return {"rows": rows, "agg": agg}


def merge(raws, Rmod):
    """One run from several (--render a.json,b.json: --int8 run in chunks with --models):
    records, models, forms and accuracy joined, the summary computed again; the header lists
    every chunk's command, date and load average."""
    global R
    R = Rmod or R
    if len(raws) == 1:
        return raws[0]
    out = dict(raws[-1])
    out["chunks"] = [{k: r.get(k) for k in ("date", "commit", "command", "elapsed_s", "loadavg",
                                            "loadavg_end", "note")} for r in raws]
    out["command"] = " ; ".join(r["command"] for r in raws)
    out["commit"] = ", ".join(dict.fromkeys(r["commit"] for r in raws))
    out["elapsed_s"] = sum(r["elapsed_s"] for r in raws)
    for k in ("loadavg", "loadavg_end"):
        out[k] = [max(r[k][i] for r in raws) for i in range(3)]
    for k in ("models", "records", "accuracy", "skipped"):
        out[k] = [x for r in raws for x in r[k]]
    out["forms"] = {m: v for r in raws for m, v in r["forms"].items()}
    out["make"] = {}
    for r in raws:
        for st, v in r["make"].items():
            o = out["make"].setdefault(st, {"seconds": 0})
            o["seconds"] = o["seconds"] + v.get("seconds", 0)
            for k in ("error", "versions"):
                if v.get(k):
                    o[k] = v[k]
            if v.get("errors"):
                o.setdefault("errors", {}).update(v["errors"])
    out["rounds"] = max(r["rounds"] for r in raws)
    out["note"] = None
    out["summary"] = summarize(out["records"], out["models"], out["threads"], out["rounds"])
    return out


# ----------------------------------------------------------------------------- markdown

def fmt_pct(x):
    return "n/a" if x is None else "%.2f%%" % (100 * x)


def render(raw, Rmod=None):
    global R
    R = Rmod or R
    fr = lambda x: "n/a" if x is None else "%.2f" % x if x >= 0.1 else "%.2g" % x  # noqa: E731
    fm = lambda x: "n/a" if x is None else R.fmt(x)  # noqa: E731
    S, threads = raw["summary"], raw["threads"]
    L = ["# ember int8: quantized models next to ONNX Runtime, LibTorch and ExecuTorch\n"]
    L.append("- date: %s; bench/ from git commit %s (ember: the binary below)"
             % (raw["date"], raw["commit"]))
    L.append("- command: `%s` (%d round(s) x %d timed runs after the first run and %d warm-up "
             "runs; %.0f min, of which making the models %.0f s)"
             % (raw["command"], raw["rounds"], raw["iters"], raw["warmup"], raw["elapsed_s"] / 60,
                sum(v.get("seconds", 0) for v in raw["make"].values())))
    L.append("- ember: `%s` (`ember --version`: %s)" % (raw["ember"], raw["ember_version_full"]))
    L.append("- CPU (lscpu): %s, %s cores; int8 instructions: %s; load average %s at the start, "
             "%s at the end" % (raw["lscpu"], raw["cores"], raw["int8_isa"],
                                ", ".join("%.1f" % x for x in raw["loadavg"]),
                                ", ".join("%.1f" % x for x in raw["loadavg_end"])))
    if max(raw["loadavg"][0], raw["loadavg_end"][0]) > (raw["cores"] or 1) * 0.5:
        L.append("- **the machine was shared and busy** (other builds, tests and benchmarks; load "
                 "average above): every time is noisy, the 2-thread ones most. Ratios inside a "
                 "round are the figures to read, and even they swing.")
    if raw.get("note"):
        L.append("- note: " + raw["note"])
    for c in raw.get("chunks", []):
        L.append("  - chunk: `%s` on %s, %s, %.0f min, load average %.1f at the start, %.1f at "
                 "the end%s" % (c["command"], c["commit"], c["date"], c["elapsed_s"] / 60,
                                c["loadavg"][0], c["loadavg_end"][0],
                                "; " + c["note"] if c.get("note") else ""))
    L.append("- versions: %s" % ", ".join("%s %s" % (k, v) for k, v in raw["versions"].items() if v))
    L.append("- models: torchvision resnet18, resnet50, mobilenet_v2 ([1, 3, 224, 224]) and "
             "`nn.TransformerEncoder` (d_model 256, 4 heads, ff 2048, 2 layers, [seq 64, batch 1, "
             "256]); random weights (seed 0, random BatchNorm statistics; nothing downloaded). "
             "Calibration: %s. Accuracy: the first N = %d of the cached inputs of standard-normal noise (seed 2)."
             % (raw.get("calib") or "8 images of numpy standard-normal noise, seed 1", raw["acc_n"]))
    L.append("")
    L.append("## Latency (median ms; ratios per round, median over rounds; < 1: ember is faster)\n")
    hdr = ["model", "T", "ember int8 (ORT file)", "ORT int8", "ember/ORT", "LT x86", "LT onednn",
           "ember/LT (fastest engine)", "ExecuTorch", "ember/ET", "ember fp32", "ember fp32/int8",
           "ember RSS int8/fp32"]
    L.append("| " + " | ".join(hdr) + " |")
    L.append("|---|" + "---:|" * (len(hdr) - 1))
    dag = False
    for r in S["rows"]:
        m, q = r["model"], qform(r["model"])
        ms = lambda k: fm(r["median_ms"].get(k))  # noqa: E731
        lt = r["ratio"].get("lt best")
        ltc = fr(lt) + (" (%s)" % r["lt_best"] if r.get("lt_best") and lt is not None else "")
        if r["fallback"].get("lt best") and lt is not None:
            ltc += " †"
            dag = True
        pt = pt_forms(m)
        L.append("| " + " | ".join([
            m, str(r["threads"]), ms("ember " + q), ms("ort " + q), fr(r["ratio"].get("ort")),
            ms("libtorch2 " + pt[0]), ms("libtorch2 " + pt[1]), ltc,
            ms("executorch xnnpack.pte") if is_cnn(m) else "-",
            fr(r["ratio"].get("executorch")) if is_cnn(m) else "-",
            ms("ember fp32.onnx"), fr(r["ratio"].get("fp32_over_int8")),
            fr(r["ratio"].get("rss_int8_over_fp32"))]) + " |")
    A = S["agg"]
    for nt in threads:
        g = lambda k: A.get("%s %d" % (k, nt), {})  # noqa: E731
        L.append("| **geomean** | %d | | | **%s** | | | **%s** | | **%s** | | **%s** | **%s** |" % (
            nt, fr(g("ort").get("geomean")), fr(g("lt best").get("geomean")),
            fr(g("executorch").get("geomean")), fr(g("fp32_over_int8").get("geomean")),
            fr(g("rss_int8_over_fp32").get("geomean"))))
    L.append("")
    L.append("ember int8 runs the ORT-quantized file (qdq.onnx; the transformer dq.onnx); ember/LT "
             "is ember on the `.pt` file of the faster LibTorch engine over that LibTorch; ember/ET "
             "compares ember on qdq.onnx (per-channel s8 weights, u8 activations) with ExecuTorch "
             "on its own PT2E file (per-channel symmetric s8 weights, s8 activations): the same "
             "model and calibration, the closest quantization ember loads. ember fp32/int8: "
             "ember's fp32.onnx latency over its int8 latency (the speed-up). RSS: ember's peak "
             "RSS on qdq.onnx over fp32.onnx.")
    if dag:
        L.append("† ember could not load that `.pt` file: the ratio uses ember on the ONNX int8 "
                 "file of the same round.")
    L.append("")
    L.append("Targets (issue #19): ember/ORT geomean <= 0.6, no model above 0.9; ember/LibTorch "
             "(fastest engine) <= 0.5; ember <= 1.0x ExecuTorch; resnet50 fp32/int8 >= 2.5 with "
             "VNNI, >= 4 with AMX-INT8; >= 99% of elements within 1 LSB and argmax equal on >= 98 "
             "of 100 inputs; RSS int8/fp32 <= 0.35.\n")
    # --- accuracy
    ns = sorted({a.get("n") for a in raw["accuracy"] if a.get("n")})
    L.append("## Accuracy on N = %s random inputs (%d threads)\n" % (
        "/".join(str(n) for n in ns) or raw["acc_n"], max(threads)))
    L.append("Reference: the quantizer's own output on the same inputs (PyTorch's quantized model "
             "for the .pt files, ONNX Runtime for its own QDQ file, the PT2E-converted model for "
             ".pte, torch fp32 for fp32.onnx). LSB: the scale of the quantized tensor the model "
             "dequantizes into its output (none for the dynamically quantized transformer, whose "
             "output is fp32). argmax: per image (transformer: per position and item). The "
             "transformer always uses its first 20 inputs as one batch, as its references were "
             "made: dynamic quantization takes each activation's range over the batch.\n")
    if "avx512_vnni" not in raw.get("int8_isa", "").split("; no")[0]:
        L.append("No VNNI on this CPU: ONNX Runtime's own int8 kernels use vpmaddubsw, whose int16 "
                 "sums saturate, so ORT's output is not the QDQ graph's exact result (on resnet18 "
                 "only 83% of ORT's elements were within 1 LSB of ORT's unoptimized graph, which "
                 "runs the ONNX semantics: docs/NOTES.md, helper h-int8). Agreement with ORT's "
                 "output is then a lower bound on how exact ember is; the last column compares "
                 "with the exact result (ORT with graph optimizations off: the QDQ graph op by op "
                 "in fp32), where the run has it (not in runs before it was added).\n")
    L.append("| model | file | runtime | reference | LSB | within 1 LSB | max diff (LSB) | argmax equal | max abs diff | exact ref: within 1 LSB, argmax, max abs diff |")
    L.append("|---|---|---|---|---:|---:|---:|---:|---:|---|")
    for a in raw["accuracy"]:
        if not a.get("ok"):
            L.append("| %s | %s | %s | %s | | n/a: %s | | | | |" % (
                a["model"], a["form"], R_NAMES[a["runtime"]], a.get("reference", ""),
                a.get("error", "?").replace("|", "\\|")))
            continue
        ex = "-"
        if a.get("exact_max_abs_diff") is not None:
            ex = "%s, %s/%s, %s" % (fmt_pct(a.get("exact_within_1lsb")) if a.get("out_scale") else "-",
                                    a.get("exact_argmax_agree"), a.get("argmax_n"),
                                    R.fmt_diff(a["exact_max_abs_diff"]))
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s/%s | %s | %s |" % (
            a["model"], a["form"], R_NAMES[a["runtime"]], a.get("reference", ""),
            "%.3g" % a["out_scale"] if a.get("out_scale") else "-",
            fmt_pct(a.get("within_1lsb")) if a.get("out_scale") else "-",
            "%.1f" % a["max_diff_lsb"] if a.get("max_diff_lsb") is not None else "-",
            a.get("argmax_agree"), a.get("argmax_n"), R.fmt_diff(a.get("max_abs_diff")), ex))
    L.append("")
    # --- failures
    L.append("## What did not run\n")
    n0 = len(L)
    for st, v in raw["make"].items():
        if v.get("error"):
            L.append("- making the models, stage %s: %s" % (st, v["error"]))
        for m, e in (v.get("errors") or {}).items():
            L.append("- making %s, stage %s: %s" % (m, st, e))
    for m, fs in raw["forms"].items():
        for f, x in fs.items():
            if not f.startswith("_") and not x.get("ok"):
                L.append("- %s %s: not made: %s" % (m, f, x.get("error", "?")))
    seen = set()
    for r in S["rows"]:
        for k, e in sorted(r["errors"].items()):
            if (r["model"], k, e) in seen:
                continue
            seen.add((r["model"], k, e))
            L.append("- %s, %s (%d thread(s)): %s" % (r["model"], k, r["threads"],
                                                      e.replace("|", "\\|")))
    for x in raw.get("skipped", []):
        L.append("- " + x)
    if len(L) == n0:
        L.append("- nothing: every file was made and ran in every runtime.")
    L.append("")
    # --- all measurements
    L.append("## Every timing (medians over rounds)\n")
    L.append("| model | T | runtime | file | load ms | median ms | peak RSS MB |")
    L.append("|---|---:|---|---|---:|---:|---:|")
    for r in S["rows"]:
        for k in sorted(r["median_ms"]):
            rt, form = k.split(" ", 1)
            L.append("| %s | %d | %s | %s | %s | %s | %s |" % (
                r["model"], r["threads"], R_NAMES[rt], form, fm(r["load_ms"].get(k)),
                fm(r["median_ms"][k]), fm(r["rss_mb"].get(k))))
    L.append("")
    L.append("Peak RSS: the whole process (wait4's ru_maxrss); for ORT, LibTorch and ExecuTorch "
             "it includes Python and the imports.")
    L.append("")
    return "\n".join(L) + "\n"


# ----------------------------------------------------------------------------- run

def lscpu_int8():
    try:
        flags = open("/proc/cpuinfo").read().split("flags", 1)[1].split("\n", 1)[0].split()
    except (OSError, IndexError):
        return "?"
    have = [f for f in ("avx2", "avx512bw", "avx512_vnni", "avx_vnni", "amx_int8", "amx_tile")
            if f in flags]
    miss = [f for f in ("avx512_vnni", "avx_vnni", "amx_int8") if f not in flags]
    return "%s%s" % (", ".join(have) or "none", "; no " + ", ".join(miss) if miss else "")


def run(args, Rmod):
    global R
    R = Rmod
    import suite   # lscpu_model, sh
    t_start = time.time()
    quick = args.quick
    rounds = args.rounds or (1 if quick else 3)
    iters = args.iters or (5 if quick else 30)
    warmup = (3 if quick else 5) if args.warmup is None else args.warmup
    threads = [int(t) for t in args.threads.split(",")]
    args.ember = os.path.abspath(args.ember)
    args.cache = os.path.abspath(args.cache)
    args.int8_cache = os.path.join(args.cache, "int8")
    os.makedirs(args.int8_cache, exist_ok=True)
    out = args.out or os.path.join(HERE, "int8.md")
    command = "bench/run.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    models = args.models.split(",") if args.models else (QUICK if quick else MODELS)
    bad = [m for m in models if m not in MODELS]
    if bad:
        sys.exit("bench: --int8 knows %s, not %s" % (", ".join(MODELS), ", ".join(bad)))
    if not os.path.exists(args.ember):
        sys.exit("bench: no ember binary at %s (see bench/README.md)" % args.ember)
    args.int8_runtimes = args.runtimes.split(",") if args.runtimes_set else \
        ["ember", "ort", "libtorch2", "executorch"]
    versions = {"ember": R.ember_version(args.ember)}
    avail, skipped = {}, []
    for rt, py, mod, name in (("ort", args.py_ort, "onnxruntime", "ONNX Runtime"),
                              ("libtorch2", args.py_torch2, "torch", "LibTorch"),
                              ("executorch", args.py_executorch, "executorch.version",
                               "ExecuTorch")):
        if rt not in args.int8_runtimes:
            avail[rt] = "not asked for (--runtimes)"
            continue
        if rt == "executorch":   # executorch has no __version__; executorch.version has
            v, e = R.python_check(py, "executorch.version")
        else:
            v, e = R.python_check(py, mod)
        versions[name], avail[rt] = v, e
        if e:
            R.log("bench: %s unavailable: %s" % (rt, e))
            if rt == "executorch":
                skipped.append("ExecuTorch: %s (`bench/setup.sh --executorch` makes "
                               "bench/.env/executorch; or --py-executorch)" % e)
            elif rt == "libtorch2":   # makes the models
                sys.exit("bench: --int8 needs torch 2.x to make the models: %s" % e)
            elif rt == "ort":
                sys.exit("bench: --int8 needs onnxruntime to quantize the ONNX files: %s" % e)
    args.executorch_ok = not avail["executorch"] and "executorch" in args.int8_runtimes
    loadavg = os.getloadavg()
    forms, make_info = make(args, models)
    if args.executorch_ok and make_info.get("executorch", {}).get("error"):
        skipped.append("ExecuTorch: making the .pte files failed (%s)" %
                       make_info["executorch"]["error"])
    ember_base = None
    _, _, _, ru, _ = R.run_measured([args.ember, "--version"], dict(os.environ), 30)
    ember_base = ru.ru_maxrss / 1024.0 if ru else None
    py_of = {"ort": args.py_ort, "libtorch2": args.py_torch2, "executorch": args.py_executorch}
    records = R.time_rounds(models, threads, rounds, lambda m: jobs(args, m, forms[m], py_of), args,
                            warmup, iters, avail, ember_base, out_prefix="int8-")
    acc = [] if args.acc_n <= 0 else accuracy(args, models, forms, py_of, avail, threads)
    summary = summarize(records, models, threads, rounds)
    dirty = " (with uncommitted changes)" if suite.sh(
        ["git", "status", "--porcelain", "--untracked-files=no"]) else ""
    full_ver = subprocess.run([args.ember, "--version"], capture_output=True, text=True).stdout
    calib = next((f["_meta"].get("calib") for f in forms.values()
                  if f.get("_meta", {}).get("calib")), None)
    raw = {"kind": "int8", "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
           "commit": suite.sh(["git", "rev-parse", "--short", "HEAD"]) + dirty,
           "command": command, "elapsed_s": time.time() - t_start, "lscpu": suite.lscpu_model(),
           "int8_isa": lscpu_int8(), "cores": os.cpu_count(), "loadavg": loadavg,
           "loadavg_end": os.getloadavg(), "ember": args.ember,
           "ember_version_full": " ".join(full_ver.split()[1:]) if full_ver else "?",
           "versions": versions, "rounds": rounds, "iters": iters, "warmup": warmup,
           "threads": threads, "quick": quick, "models": models, "acc_n": args.acc_n,
           "calib": calib, "make": make_info, "forms": forms, "skipped": skipped,
           "note": args.note, "summary": summary, "accuracy": acc, "records": records}
    md = render(raw)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(os.path.splitext(out)[0] + ".json", "w") as f:
        json.dump(raw, f, indent=1)
    with open(out, "w") as f:
        f.write(md)
    sys.stdout.write(md)
    R.log("bench: wrote %s (%.0f s)" % (out, raw["elapsed_s"]))
