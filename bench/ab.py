# SPDX-License-Identifier: Apache-2.0
"""Two ember builds side by side on bench/'s models: is a change within noise?

    python3 bench/ab.py OLD_EMBER NEW_EMBER [--models a,b] [--threads 1,2] [--rounds 5]
                        [--forms model.onnx,trace-torch2.pt] [--iters 30] [--warmup 5]

Runs `ember run FILE --input input.npy --threads T --json` for the old and the new binary in
alternating order (old, new, new, old, ...: neither always goes first), each in its own
process, on the models bench/run.py made into bench/.cache (run it, or bench/models.py, first).
Prints per model, form and thread count the median over rounds of each binary's median_ms and
load_ms, and new/old; the last rows are the geometric means. Also checks that both binaries
write byte-identical outputs. Needs only the standard library.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = "resnet18,resnet50,mobilenet_v2,squeezenet1_1,efficientnet_b0,densenet121,lstm,transformer"


def run(ember, path, inp, threads, iters, warmup, outdir):
    cmd = [ember, "run", path, "--input", inp, "--threads", str(threads), "--iters", str(iters),
           "--warmup", str(warmup), "--json", "--output-dir", outdir]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        sys.exit("%s: %s" % (" ".join(cmd), p.stderr.strip()))
    line = [l for l in p.stdout.splitlines() if l.startswith("{")][-1]
    return json.loads(line)


def same_outputs(a, b):
    fa, fb = sorted(os.listdir(a)), sorted(os.listdir(b))
    if fa != fb:
        return False
    for f in fa:
        with open(os.path.join(a, f), "rb") as x, open(os.path.join(b, f), "rb") as y:
            if x.read() != y.read():
                return False
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--models", default=MODELS)
    ap.add_argument("--forms", default="model.onnx,trace-torch2.pt")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--cache", default=os.path.join(HERE, ".cache"))
    args = ap.parse_args()
    rows, ratios, lratios = [], [], []
    tmp = tempfile.mkdtemp(prefix="ember-ab-")
    for model in args.models.split(","):
        inp = os.path.join(args.cache, model, "input.npy")
        for form in args.forms.split(","):
            path = os.path.join(args.cache, model, form)
            if not os.path.exists(path) or not os.path.exists(inp):
                print("%s/%s: not in %s (make the models with bench/run.py)" % (model, form,
                                                                                 args.cache))
                continue
            for t in [int(x) for x in args.threads.split(",")]:
                res = {"old": [], "new": []}
                identical = True
                for r in range(args.rounds):
                    order = ["old", "new"] if r % 2 == 0 else ["new", "old"]
                    outs = {}
                    for who in order:
                        outs[who] = os.path.join(tmp, who)
                        subprocess.run(["rm", "-rf", outs[who]])
                        os.makedirs(outs[who])
                        ember = args.old if who == "old" else args.new
                        res[who].append(run(ember, path, inp, t, args.iters, args.warmup,
                                            outs[who]))
                    identical = identical and same_outputs(outs["old"], outs["new"])
                med = {w: statistics.median(x["median_ms"] for x in res[w]) for w in res}
                load = {w: statistics.median(x["load_ms"] for x in res[w]) for w in res}
                ratios.append(med["new"] / med["old"])
                lratios.append(load["new"] / load["old"])
                rows.append((model, form, t, med["old"], med["new"], ratios[-1], load["old"],
                             load["new"], lratios[-1], identical))
                print("%-16s %-16s t=%d  median_ms %8.3f -> %8.3f (%.3f)  load_ms %7.1f -> %7.1f"
                      " (%.3f)  outputs %s" % (rows[-1][:9] + ("identical" if identical
                                                               else "DIFFER",)), flush=True)
    if ratios:
        gm = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        gl = math.exp(sum(math.log(x) for x in lratios) / len(lratios))
        print("geomean new/old: median_ms %.3f, load_ms %.3f over %d rows (min %.3f, max %.3f)"
              % (gm, gl, len(ratios), min(ratios), max(ratios)))
    print("outputs: %s" % ("byte-identical in every row" if all(r[9] for r in rows)
                           else "DIFFER in some rows"))


if __name__ == "__main__":
    main()
