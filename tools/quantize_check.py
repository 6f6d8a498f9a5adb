#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks `ember quantize` against ONNX Runtime's quantize_static (issue #20), outside CI.

Run with the ORT venv (onnxruntime + onnx):
  /work/main/bench/.env/ort/bin/python tools/quantize_check.py build/ember MODEL.onnx CALDIR [--keep DIR]

CALDIR holds .npy calibration batches (one input). It quantizes MODEL with ember (static,
MinMax, per-channel, u8 activations, s8 weights) and with ORT's quantize_static (same data,
QDQ), then: onnx.checker on ember's file; every scale / zero point / quantized weight of
ember's file against ORT's of the same tensor (matched by the tensor they quantize); ORT
running ember's file; output SQNR and argmax agreement of both QDQ models against fp32 on the
calibration inputs. Exit status 1 when ember's file fails the checker or a parameter differs.
"""
import glob, os, subprocess, sys, tempfile, time
import numpy as np
import onnx
from onnx import numpy_helper
import onnxruntime as ort
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                      quantize_static)


def params(path):
    """{quantized tensor name: (scale, zero_point)} of a QDQ model, keyed by the fp32 tensor a
    QuantizeLinear reads or the weight a DequantizeLinear dequantizes."""
    m = onnx.load(path)
    inits = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    out = {}
    for n in m.graph.node:
        if n.op_type not in ("QuantizeLinear", "DequantizeLinear"):
            continue
        x = n.input[0]
        if n.op_type == "DequantizeLinear" and x in inits:
            key = ("w", x.replace("_quantized", ""))
            out[key] = (inits[n.input[1]], inits[n.input[2]], inits[x])
        elif n.op_type == "QuantizeLinear":
            key = ("a", x.replace("_QuantizeLinear_Input", ""))
            out[key] = (inits[n.input[1]], inits[n.input[2]], None)
    return out


def main():
    ember, model, caldir = sys.argv[1:4]
    keep = sys.argv[sys.argv.index("--keep") + 1] if "--keep" in sys.argv else None
    files = sorted(glob.glob(os.path.join(caldir, "*.npy")))
    fp = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    iname = fp.get_inputs()[0].name
    data = [np.load(f) for f in files]
    tmp = keep or tempfile.mkdtemp()
    eo, oo = os.path.join(tmp, "ember.onnx"), os.path.join(tmp, "ort.onnx")
    t = time.time()
    subprocess.run([ember, "quantize", model, "--calibrate", *files, "--output", eo, "--quiet"],
                   check=True)
    t_ember = time.time() - t

    class R(CalibrationDataReader):
        def __init__(s):
            s.i = 0

        def get_next(s):
            if s.i >= len(data):
                return None
            s.i += 1
            return {iname: data[s.i - 1]}

    t = time.time()
    quantize_static(model, oo, R(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    t_ort = time.time() - t
    onnx.checker.check_model(onnx.load(eo), full_check=True)
    pe, po = params(eo), params(oo)
    bad = 0
    common = sorted(set(pe) & set(po))
    worst = {"w": [0, 0.0, 0, 0], "a": [0, 0.0, 0, 0]}  # count, max rel scale diff, zp diffs, q diffs
    for k in common:
        se, ze, qe = pe[k]
        so, zo, qw = po[k]
        w = worst[k[0]]
        w[0] += 1
        se64, so64 = se.astype(np.float64).ravel(), so.astype(np.float64).ravel()
        rel = float(np.max(np.abs(se64 - so64) / np.maximum(np.abs(so64), 1e-30))) if se64.size == so64.size else np.inf
        w[1] = max(w[1], rel)
        w[2] += int(np.sum(ze.astype(np.int64).ravel() != zo.astype(np.int64).ravel())) if ze.size == zo.size else ze.size
        if qe is not None and qw is not None:
            w[3] += int(np.sum(qe.astype(np.int64) != qw.astype(np.int64))) if qe.shape == qw.shape else qe.size
        if rel > 1e-6 or w[2] or w[3]:
            bad += 1
            if bad <= 5:
                print("differs:", k, "rel scale diff", rel)
    print(f"parameters: {len(common)} tensors compared ({len(pe)} in ember's file, {len(po)} in "
          f"ORT's), {bad} differ by more than 1e-6 relative or in a zero point / int8 value")
    for kind, name in (("w", "weights/biases"), ("a", "activations")):
        c, rel, zd, qd = worst[kind]
        print(f"  {name}: {c} tensors, max relative scale difference {rel:.3g}, {zd} zero points "
              f"differ, {qd} quantized values differ")
    se_ = ort.InferenceSession(eo, providers=["CPUExecutionProvider"])
    so_ = ort.InferenceSession(oo, providers=["CPUExecutionProvider"])

    def stats(sess):
        sig = noise = 0.0
        agree = rows = 0
        for x in data:
            ref = fp.run(None, {iname: x})[0]
            y = sess.run(None, {iname: x})[0]
            sig += float((ref.astype(np.float64) ** 2).sum())
            noise += float(((ref.astype(np.float64) - y) ** 2).sum())
            a, b = ref.reshape(-1, ref.shape[-1]), y.reshape(-1, y.shape[-1])
            agree += int((a.argmax(1) == b.argmax(1)).sum())
            rows += a.shape[0]
        return 10 * np.log10(sig / max(noise, 1e-30)), agree, rows

    for name, s in (("ember's QDQ file, run by ORT", se_), ("ORT's QDQ file, run by ORT", so_)):
        db, a, r = stats(s)
        print(f"{name}: output SQNR {db:.2f} dB, argmax agreement {a}/{r}")
    print(f"quantize wall time: ember {t_ember:.2f} s, ORT quantize_static {t_ort:.2f} s "
          f"({len(data)} batches)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
