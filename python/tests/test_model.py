# SPDX-License-Identifier: Apache-2.0
"""ember.Model on the built-in model and tests/data fixtures: declared inputs and outputs,
outputs against stored expected outputs and the ember program's, every value kind."""
import gc
import os
import subprocess

import numpy as np
import pytest

import ember
from ember import _dtypes


def test_version_and_build_info():
    assert ember.__version__ == ember.library_version()
    info = ember.build_info()
    assert info["version"] == ember.__version__
    assert "isa" in info and "loaders" in info
    assert os.path.isfile(ember.library_path())


def test_builtin_declares_its_io():
    with ember.Model.builtin(threads=1) as m:
        assert m.format == "builtin"
        assert m.threads == 1
        (i,), (o,) = m.inputs, m.outputs
        assert i.name == "input" and i.dtype == np.float32 and i.dtype_name == "f32"
        assert i.shape == ("N", 1, 28, 28) and i.kind == "tensor"
        assert o.name == "probs" and o.dtype == np.float32 and o.shape == ("N", 10)
        assert "builtin" in repr(m)
    assert repr(m) == "<ember.Model (closed)>"


def test_builtin_matches_pytorch(data):
    x = np.load(data("default_model", "input.npy"))
    want = np.load(data("default_model", "expected.npy"))
    with ember.Model.builtin(threads=2) as m:
        y = m.run({"input": x})
        assert list(y) == ["probs"]
        np.testing.assert_allclose(y["probs"], want, rtol=1e-4, atol=1e-6)
        # positional feeds and a bare array (one input) give the same numbers
        np.testing.assert_array_equal(m.run([x])["probs"], y["probs"])
        np.testing.assert_array_equal(m(x)["probs"], y["probs"])


def run_cli(cli, model, inputs, tmp_path, extra=()):
    out = tmp_path / "cli_out"
    cmd = [cli, "run", model] + [a for p in inputs for a in ("--input", p)]
    cmd += ["--output-dir", str(out), "--iters", "1", "--warmup", "0", "--threads", "1"]
    cmd += list(extra)
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return [np.load(out / ("output_%d.npy" % i)) for i in range(len(os.listdir(out)))]


def test_onnx_matches_stored_output_and_cli(data, cli, tmp_path):
    path, x = data("onnx", "cnn_v13.onnx"), data("onnx", "cnn_v13.in0.npy")
    with ember.Model(path, threads=1) as m:
        assert m.format == "onnx"
        y = m.run({m.inputs[0].name: np.load(x)})
    (got,) = y.values()
    np.testing.assert_allclose(got, np.load(data("onnx", "cnn_v13.out0.npy")),
                               rtol=1e-4, atol=1e-5)
    (want,) = run_cli(cli, path, [x], tmp_path)
    np.testing.assert_array_equal(got, want)  # same library, same kernels, one thread


def test_torchscript_matches_stored_output_and_cli(data, cli, tmp_path):
    path = data("torchscript", "models", "tiny_cnn.script.t2.pt")
    x = data("torchscript", "models", "tiny_cnn.in.npy")
    with ember.Model(path, threads=1, input_ranks={0: 4}) as m:
        assert m.format == "torchscript"
        assert len(m.inputs[0].shape) == 4
        (got,) = m.run({m.inputs[0].name: np.load(x)}).values()
        # a second shape of the same rank runs through the same model
        x2 = np.load(data("torchscript", "models", "tiny_cnn.in2.npy"))
        (got2,) = m.run([x2]).values()
    np.testing.assert_allclose(got, np.load(data("torchscript", "models", "tiny_cnn.out.npy")),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got2, np.load(data("torchscript", "models", "tiny_cnn.out2.npy")),
                               rtol=1e-4, atol=1e-5)
    (want,) = run_cli(cli, path, [x], tmp_path)
    np.testing.assert_array_equal(got, want)


def test_torchscript_needs_its_input_rank(data):
    with pytest.raises(ember.Unsupported) as e:
        ember.Model(data("torchscript", "models", "tiny_cnn.script.t2.pt"))
    assert "ember_model_options_set_input_rank" in str(e.value)
    assert e.value.code == 3 and e.value.code_name == "UNSUPPORTED"


def test_load_from_bytes(data):
    path = data("onnx", "cnn_v13.onnx")
    x = np.load(data("onnx", "cnn_v13.in0.npy"))
    with open(path, "rb") as f:
        blob = f.read()
    with ember.Model(blob, threads=1) as a, ember.Model(path, threads=1) as b:
        assert a.path is None and b.path == path
        np.testing.assert_array_equal(list(a.run([x]).values())[0], list(b.run([x]).values())[0])


def test_symbolic_and_fixed_shapes(data):
    path = data("onnx", "softmax_v11_sym.onnx")
    x = np.load(data("onnx", "softmax_v11_sym.in0.npy"))
    want = np.load(data("onnx", "softmax_v11_sym.out0.npy"))
    with ember.Model(path) as m:
        assert m.inputs[0].shape == ("N", 3, 4)
        assert m.outputs[0].shape == ("N", 3, 4)
        np.testing.assert_allclose(m.run([x])["y"], want, rtol=1e-5, atol=1e-7)
    with ember.Model(path, shapes={"x": x.shape}) as m:
        assert m.inputs[0].shape == x.shape
        np.testing.assert_allclose(m.run([x])["y"], want, rtol=1e-5, atol=1e-7)
    with ember.Model(path, dims={"N": x.shape[0]}) as m:
        assert m.inputs[0].shape == x.shape


def test_int64_scalar_input_and_two_outputs(data):
    feeds = [np.load(data("onnx", "loop.in%d.npy" % i)) for i in range(3)]
    with ember.Model(data("onnx", "loop.onnx")) as m:
        assert [v.dtype_name for v in m.inputs] == ["i64", "f32", "f32"]
        assert m.inputs[0].shape == ()
        y = m.run(feeds)
        assert list(y) == ["acc", "accs"]
        np.testing.assert_allclose(y["acc"], np.load(data("onnx", "loop.out0.npy")), rtol=1e-6)
        np.testing.assert_allclose(y["accs"], np.load(data("onnx", "loop.out1.npy")), rtol=1e-6)
        # outputs= picks and orders
        only = m.run(feeds, outputs=["accs", "acc"])
        assert list(only) == ["accs", "acc"]
        np.testing.assert_array_equal(only["acc"], y["acc"])
        # a Python int for the i64 scalar becomes an array of the declared dtype
        np.testing.assert_array_equal(m.run([int(feeds[0])] + feeds[1:])["acc"], y["acc"])


def test_strings_in_and_out(data):
    with ember.Model(data("onnx", "text.onnx")) as m:
        assert [v.dtype_name for v in m.inputs] == ["string", "string"]
        assert m.inputs[0].dtype == np.dtype(object)
        feeds = [np.load(data("onnx", "text.in%d.npy" % i)) for i in range(2)]
        y = m.run(feeds)
        for i, v in enumerate(m.outputs):
            want = np.load(data("onnx", "text.out%d.npy" % i))
            got = y[v.name]
            assert got.shape == want.shape
            if v.dtype_name == "string":
                assert got.dtype == object
                assert got.tolist() == want.tolist()
            else:
                np.testing.assert_allclose(got, want, rtol=1e-6)
        # object arrays of str and of bytes are strings too
        obj = [f.astype(object) for f in feeds]
        assert m.run(obj)[m.outputs[0].name].tolist() == y[m.outputs[0].name].tolist()
        raw = [np.array([s.encode() for s in f.reshape(-1)], dtype=object).reshape(f.shape)
               for f in feeds]
        assert m.run(raw)[m.outputs[0].name].tolist() == y[m.outputs[0].name].tolist()


def test_sequence_input(data):
    items = [np.load(data("onnx", "seq_concat.in0_item%d.npy" % i)) for i in range(2)]
    with ember.Model(data("onnx", "seq_concat.onnx")) as m:
        assert m.inputs[0].kind == "sequence"
        y = m.run({"xs": items})
        np.testing.assert_allclose(y["y"], np.load(data("onnx", "seq_concat.out0.npy")),
                                   rtol=1e-6)
        with pytest.raises(ember.InvalidArgument, match="sequence"):
            m.run({"xs": items[0]})


def test_sequence_output(data):
    with ember.Model(data("onnx", "seq_split.onnx")) as m:
        assert m.outputs[0].kind == "sequence"
        x = np.arange(9, dtype=np.float32).reshape(3, 3)
        y = m.run({"x": x})
        assert isinstance(y["ys"], list) and len(y["ys"]) > 0
        assert all(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in y["ys"])
        # the items are pieces of the input, in order
        np.testing.assert_array_equal(np.concatenate([a.reshape(-1) for a in y["ys"]]),
                                      x.reshape(-1)[:sum(a.size for a in y["ys"])])


def half_ulp(bits, x):
    """One ulp of a half format (mantissa bits 10: f16, 7: bf16) at |x|."""
    emin = -14 if bits == 10 else -126
    e = np.maximum(np.frexp(np.abs(x))[1] - 1, emin)
    return np.ldexp(np.float32(1), e - bits)


def test_float16_model(data):
    x = np.load(data("half", "cnn.f16.in0.npy"))
    ref = np.load(data("half", "cnn.f16.ref32.npy"))
    with ember.Model(data("half", "cnn.f16.onnx")) as m:
        assert m.inputs[0].dtype == np.float16 and m.outputs[0].dtype == np.float16
        (y,) = m.run([x]).values()
    assert y.dtype == np.float16 and y.size == ref.size
    err = np.abs(y.astype(np.float32).reshape(-1) - ref.reshape(-1))
    assert np.all(err <= half_ulp(10, ref.reshape(-1)))


def bf16_to_f32(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def test_bfloat16_model(data):
    bits = np.load(data("half", "cnn.bf16.in0.npy"))  # bf16 bit patterns as uint16
    ref = np.load(data("half", "cnn.bf16.ref32.npy"))
    with ember.Model(data("half", "cnn.bf16.trace.pt"), input_ranks={0: ("bf16", 4)}) as m:
        assert m.inputs[0].dtype_name == "bf16" and m.outputs[0].dtype_name == "bf16"
        (y_raw,) = m.run([bits]).values()  # raw bit patterns are accepted for bf16 inputs
        if _dtypes.has_ml_dtypes():
            import ml_dtypes
            assert m.inputs[0].dtype == ml_dtypes.bfloat16
            assert y_raw.dtype == ml_dtypes.bfloat16
            (y2,) = m.run([bits.view(ml_dtypes.bfloat16)]).values()
            np.testing.assert_array_equal(y2.view(np.uint16), y_raw.view(np.uint16))
        else:
            assert m.inputs[0].dtype == np.uint16 and y_raw.dtype == np.uint16
    y = bf16_to_f32(y_raw.view(np.uint16)).reshape(-1)
    assert y.size == ref.size
    assert np.all(np.abs(y - ref.reshape(-1)) <= half_ulp(7, ref.reshape(-1)))


def test_low_precision_dtypes_round_trip_their_bits():
    # every dtype the package maps: NumPy dtype -> ember code -> NumPy dtype
    for code in list(range(1, 14)) + list(range(16, 29)):
        dt = _dtypes.to_numpy(code)
        assert dt is not None, code
        if code == _dtypes.STRING:
            assert _dtypes.from_numpy(np.dtype("U3")) == code
            continue
        if _dtypes.raw(code) is not None and dt == _dtypes.raw(code):
            assert _dtypes.from_numpy(dt, declared=code) == code  # bits for a declared input
        else:
            assert _dtypes.from_numpy(dt) == code, (code, dt)


def test_noncontiguous_and_fortran_inputs_are_copied(data):
    x = np.load(data("default_model", "input.npy"))
    with ember.Model.builtin(threads=1) as m:
        want = m.run([x])["probs"]
        big = np.zeros((x.shape[0] * 2,) + x.shape[1:], np.float32)
        big[::2] = x
        np.testing.assert_array_equal(m.run([big[::2]])["probs"], want)
        np.testing.assert_array_equal(m.run([np.asfortranarray(x)])["probs"], want)
        ro = x.copy()
        ro.setflags(write=False)
        np.testing.assert_array_equal(m.run([ro])["probs"], want)
        np.testing.assert_array_equal(x, np.load(data("default_model", "input.npy")))


def test_outputs_own_their_memory_and_outlive_the_model(data):
    x = np.load(data("default_model", "input.npy"))
    m = ember.Model.builtin(threads=1)
    y = m.run([x])["probs"]
    first = y.copy()
    assert y.flags.writeable and y.flags.c_contiguous
    assert type(y.base).__name__ == "_TensorBuffer"  # ember's tensor, not a copy
    y2 = m.run([x])["probs"]
    assert y2.ctypes.data != y.ctypes.data
    m.close()
    del m
    gc.collect()
    np.testing.assert_array_equal(y, first)
    view = y[1:]
    del y
    gc.collect()
    np.testing.assert_array_equal(view, first[1:])


def test_library_search(tmp_path):
    """EMBER_LIBRARY wins and is not second-guessed: a wrong path fails naming it, and
    importing the package still works (the library loads on first use)."""
    import sys
    code = ("import ember\n"
            "try:\n"
            "    ember.Model.builtin()\n"
            "except ember.LibraryNotFound as e:\n"
            "    assert isinstance(e, ImportError)\n"
            "    print('notfound:', e)\n")
    env = dict(os.environ, EMBER_LIBRARY=str(tmp_path / "nolib.so"))
    pkg = os.path.dirname(os.path.dirname(ember.__file__))
    env["PYTHONPATH"] = pkg + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout
    assert out.startswith("notfound: libember not found; looked at: " + str(tmp_path))
    # without EMBER_LIBRARY: the package's own copy, else build/ of its source tree
    if not os.environ.get("EMBER_LIBRARY"):
        where = os.path.dirname(ember.library_path())
        here = os.path.dirname(os.path.abspath(ember.__file__))
        assert where in (here, os.path.join(os.path.dirname(os.path.dirname(here)), "build"))


def test_inputs_are_wrapped_not_copied():
    """A C-contiguous array of the declared dtype is handed to ember in place (the handle's data
    pointer is the array's); a strided one goes through one contiguous copy."""
    from ember import _model
    from ember._lib import lib
    L = lib()
    with ember.Model.builtin() as m:
        info, code = m.inputs[0], _dtypes.from_name("f32")
        x = np.zeros((2, 1, 28, 28), np.float32)
        with _model._Feeds() as fd:
            h = fd.value(x, info, code)
            assert L.ember_tensor_data(h) == x.ctypes.data
            ro = x.copy()
            ro.setflags(write=False)
            assert L.ember_tensor_data(fd.value(ro, info, code)) == ro.ctypes.data
            strided = np.zeros((4, 1, 28, 28), np.float32)[::2]
            h2 = fd.value(strided, info, code)
            assert L.ember_tensor_data(h2) != strided.ctypes.data
            assert fd.keep[-1].flags.c_contiguous and fd.keep[-1].shape == strided.shape


def test_fast_path_agrees_with_the_general_path(data, monkeypatch):
    """run() on plain tensors goes through _run_fast; its results, errors and lifetime rules
    are the general path's (which `outputs=` or a strided array takes)."""
    from ember import _model
    x = np.load(data("default_model", "input.npy"))
    calls = []
    real = _model.Model._run_fast
    monkeypatch.setattr(_model.Model, "_run_fast",
                        lambda self, arrays: calls.append(len(arrays)) or real(self, arrays))
    with ember.Model.builtin(threads=1) as m:
        assert m._fast_in is not None
        slow = m.run({"input": x}, outputs=["probs"])["probs"]  # outputs= given: general path
        assert calls == []
        for feeds in ({"input": x}, [x], (x,), x):
            y = m.run(feeds)
            assert list(y) == ["probs"] and type(y["probs"].base).__name__ == "_TensorBuffer"
            np.testing.assert_array_equal(y["probs"], slow)
        assert calls == [1, 1, 1, 1]
        strided = np.zeros((x.shape[0] * 2,) + x.shape[1:], np.float32)
        strided[::2] = x
        np.testing.assert_array_equal(m.run([strided[::2]])["probs"], slow)
        assert len(calls) == 4  # the copy goes through the general path
        # ember's own messages, whichever path: a wrong shape reaches the fast path
        with pytest.raises(ember.InvalidArgument, match="input 0 'input'"):
            m.run({"input": np.zeros((2, 1, 27, 28), np.float32)})
        assert len(calls) == 5
        with pytest.raises(ember.InvalidArgument, match="dtype f64, expected f32"):
            m.run({"input": x.astype(np.float64)})
        with pytest.raises(ember.InvalidArgument, match="no input named 'nope'"):
            m.run({"nope": x})
        with pytest.raises(ember.InvalidArgument, match="missing input 'input'"):
            m.run({})
        assert len(calls) == 5
        assert m._running == 0
    with pytest.raises(ember.StateError):
        m.run({"input": x})
    # models with a string, sequence or optional value never take it
    with ember.Model(data("onnx", "text.onnx")) as t:
        assert t._fast_in is None
