# SPDX-License-Identifier: Apache-2.0
"""Model(precision=...) and ember.quantize(): the same models as `ember run --precision` and
`ember quantize` make (bit for bit: one library, one thread), and the errors."""
import subprocess

import numpy as np
import pytest

import ember
from test_model import run_cli

CAL = ["cnn_cal%d.npy" % i for i in range(4)]


def relative_error(y, ref):
    return float(np.abs(y - ref).max() / np.abs(ref).max())


@pytest.mark.parametrize("precision,rounded", [("fp16", "w16"), ("bf16", "wbf16")])
def test_half_weights(data, cli, tmp_path, precision, rounded):
    """Weights held in half: at optimize="fold" the output is bit for bit the fp32 run of the
    file whose packed weights numpy rounded (tools/gen_halfw_fixtures.py), and `ember run
    --precision`'s."""
    path, xin = data("half", "halfw.onnx"), data("half", "halfw.in0.npy")
    x = np.load(xin)
    with ember.Model(data("half", "halfw.%s.onnx" % rounded), threads=1, optimize="fold") as m:
        (ref,) = m.run([x]).values()
    with ember.Model(path, threads=1, optimize="fold") as m:
        (fp32,) = m.run([x]).values()
    with ember.Model(path, threads=1, optimize="fold", precision=precision) as m:
        (got,) = m.run([x]).values()
    (want,) = run_cli(cli, path, [xin], tmp_path, ["--precision", precision, "--optimize",
                                                  "fold"])
    assert got.dtype == np.float32  # activations stay fp32
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(got, want)
    assert 0 < relative_error(got, fp32) < (1e-2 if precision == "fp16" else 5e-2)


def test_int8_dynamic_matches_the_cli(data, cli, tmp_path):
    path, xin = data("onnx", "mlp.onnx"), data("onnx", "mlp.in0.npy")
    x = np.load(xin)
    with ember.Model(path, threads=1) as m:
        ref = m.run([x])
    with ember.Model(path, threads=1, precision="int8") as m:
        y = m.run([x])
    (want,) = run_cli(cli, path, [xin], tmp_path, ["--precision", "int8"])
    (got,), (r,) = y.values(), ref.values()
    np.testing.assert_array_equal(got, want)
    assert 0 < relative_error(got, r) < 0.05


def test_int8_static_and_quantize(data, cli, tmp_path):
    path, xin = data("onnx", "cnn_v13.onnx"), data("onnx", "cnn_v13.in0.npy")
    x = np.load(xin)
    cal = [data("quant", f) for f in CAL]
    batches = [[np.load(f)] for f in cal]
    with ember.Model(path, threads=1) as m:
        ref = m.run([x])
    with ember.Model(path, threads=1, precision="int8", calibration=batches) as m:
        y = m.run([x])
    want = run_cli(cli, path, [xin], tmp_path, ["--precision", "int8", "--calibrate"] + cal)
    for got, w, r in zip(y.values(), want, ref.values()):
        np.testing.assert_array_equal(got, w)
        assert 0 < relative_error(got, r) < 0.1
    # the file ember.quantize writes is `ember quantize`'s, and runs to the same numbers
    out, cache = tmp_path / "q.onnx", tmp_path / "q.cache"
    assert ember.quantize(path, out, calibration=iter(batches), save_calibration=cache) == 4
    subprocess.run([cli, "quantize", path, "--calibrate"] + cal + ["--output",
                   str(tmp_path / "cli.onnx"), "--quiet"], check=True, capture_output=True)
    assert out.read_bytes() == (tmp_path / "cli.onnx").read_bytes()
    with ember.Model(out, threads=1, int8="on") as q:
        for got, w in zip(q.run([x]).values(), want):
            np.testing.assert_array_equal(got, w)
    # the cache gives the same ranges without the batches
    with ember.Model(path, threads=1, precision="int8", calibration_cache=cache) as m:
        for got, w in zip(m.run([x]).values(), want):
            np.testing.assert_array_equal(got, w)
    out2 = tmp_path / "q2.onnx"
    assert ember.quantize(path, out2, calibration_cache=cache) == 0
    assert out2.read_bytes() == out.read_bytes()


def test_precision_errors(data, tmp_path):
    path = data("onnx", "cnn_v13.onnx")
    with pytest.raises(ember.InvalidArgument, match="precision: 'fp8' is not one of"):
        ember.Model(path, precision="fp8")
    with pytest.raises(ember.InvalidArgument, match="go with precision='int8'"):
        ember.Model(path, calibration=[])
    with pytest.raises(ember.Unsupported, match="quantizes a model file"):
        ember.Model(open(path, "rb").read(), precision="int8")
    with pytest.raises(ember.Unsupported, match="quantizes a model file"):
        ember.Model.builtin(precision="int8")
    with pytest.raises(ember.InvalidArgument, match="calibration batch 1: run: no input named"):
        ember.Model(path, precision="int8",
                    calibration=[[np.load(data("quant", CAL[0]))], {"nope": 1}])
    with pytest.raises(ember.InvalidArgument, match="input 0"):  # ember's own check
        ember.quantize(path, tmp_path / "x.onnx", calibration=[[np.zeros((1, 3, 5, 5),
                                                                          np.float32)]])
    assert not (tmp_path / "x.onnx").exists()
    with pytest.raises(ember.InvalidArgument, match="method: 'best' is not one of"):
        ember.quantize(path, tmp_path / "x.onnx", method="best")
    with pytest.raises(ember.InvalidArgument, match="nosuchnode"):
        ember.quantize(path, tmp_path / "x.onnx", exclude=["nosuchnode"])
    with pytest.raises(ember.IoError):
        ember.quantize(path, tmp_path / "x.onnx", calibration_cache=tmp_path / "none.cache")
    with pytest.raises(ember.IoError):
        ember.quantize(path, tmp_path / "nodir" / "x.onnx")
