# SPDX-License-Identifier: Apache-2.0
"""ember.serving.mlserver.EmberRuntime: predict() on InferenceRequest objects, then a real
`mlserver start` on 127.0.0.1 (free ports) driven with tritonclient (HTTP) and plain JSON.

Needs `pip install "./python[mlserver]"` (mlserver and tritonclient[http]: about 300 MB and
minutes of downloads); the whole module is skipped, saying so, without them, unless
EMBER_REQUIRE_MLSERVER=1 (tools/test.sh's MLServer stage, which installs them) makes that a
failure. The server test is bounded: the server must
be ready within EMBER_MLSERVER_START_S seconds (default 120), every request has a 60 s
timeout, and the server's process group is killed in teardown.
"""
import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import numpy as np
import pytest

if os.environ.get("EMBER_REQUIRE_MLSERVER") == "1":
    import mlserver  # noqa: F401  (CI's MLServer stage: missing is a failure, not a skip)
else:
    mlserver = pytest.importorskip(
        "mlserver", reason="mlserver is not installed (pip install './python[mlserver]')")

import ember  # noqa: E402
from ember.serving.mlserver import EmberRuntime  # noqa: E402
from mlserver.errors import InferenceError, MLServerError  # noqa: E402
from mlserver.settings import ModelParameters, ModelSettings  # noqa: E402
from mlserver.types import InferenceRequest, RequestInput, RequestOutput  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def runtime(uri, name="m", **extra):
    settings = ModelSettings(name=name, implementation=EmberRuntime,
                             parameters=ModelParameters(uri=uri, extra=extra))
    rt = EmberRuntime(settings)
    assert asyncio.run(rt.load()) is True
    return rt


def tensor(name, x, datatype=None):
    x = np.asarray(x)
    if datatype == "BYTES" or x.dtype == object:
        return RequestInput(name=name, shape=list(x.shape), datatype="BYTES",
                            data=[str(s) for s in x.ravel()])
    dt = datatype or {"float32": "FP32", "float64": "FP64", "int64": "INT64"}[str(x.dtype)]
    return RequestInput(name=name, shape=list(x.shape), datatype=dt, data=x.ravel().tolist())


def predict(rt, *inputs, outputs=None):
    req = InferenceRequest(inputs=list(inputs), id="r1",
                           outputs=[RequestOutput(name=o) for o in outputs] if outputs else None)
    return asyncio.run(rt.predict(req))


def as_array(out):
    data = getattr(out.data, "root", out.data)
    dtype = {"FP32": np.float32, "INT64": np.int64, "FP64": np.float64}[
        getattr(out.datatype, "value", out.datatype)]
    return np.asarray(data, dtype=dtype).reshape(out.shape)


def rejects(rt, *inputs, outputs=None):
    with pytest.raises(InferenceError) as e:
        predict(rt, *inputs, outputs=outputs)
    assert e.value.status_code == 400
    return str(e.value)


# ---- the runtime on its own ----------------------------------------------------------------

def test_builtin_predict_matches_expected_and_model(data):
    x = np.load(data("default_model", "input.npy"))
    rt = runtime("builtin", threads=1)
    assert [t.name for t in rt.inputs] == ["input"]
    assert rt.inputs[0].shape == [-1, 1, 28, 28] and rt.outputs[0].shape == [-1, 10]
    r = predict(rt, tensor("input", x))
    assert r.model_name == "m" and r.id == "r1"
    (out,) = r.outputs
    assert out.name == "probs" and out.shape == [3, 10]
    got = as_array(out)
    np.testing.assert_allclose(got, np.load(data("default_model", "expected.npy")), rtol=1e-4)
    with ember.Model.builtin(threads=1) as m:
        np.testing.assert_array_equal(got, m.run({"input": x})["probs"])
    asyncio.run(rt.unload())


def test_file_model_matches_cli(data, cli, tmp_path):
    path, xin = data("onnx", "cnn_v13.onnx"), data("onnx", "cnn_v13.in0.npy")
    rt = runtime(path, threads=1)
    name = rt._model.inputs[0].name
    (out,) = predict(rt, tensor(name, np.load(xin))).outputs
    cmd = [cli, "run", path, "--input", xin, "--output-dir", str(tmp_path), "--iters", "1",
           "--warmup", "0", "--threads", "1"]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    np.testing.assert_array_equal(as_array(out), np.load(tmp_path / "output_0.npy"))


def test_scalar_input_two_outputs_and_selection(data):
    feeds = [np.load(data("onnx", "loop.in%d.npy" % i)) for i in range(3)]
    rt = runtime(data("onnx", "loop.onnx"))
    names = [v.name for v in rt._model.inputs]
    r = predict(rt, *[tensor(n, f) for n, f in zip(names, feeds)])
    assert [o.name for o in r.outputs] == ["acc", "accs"]
    for i, o in enumerate(r.outputs):
        want = np.load(data("onnx", "loop.out%d.npy" % i))
        assert o.shape == list(want.shape)  # exact shapes, not the codec's batch dim
        np.testing.assert_allclose(as_array(o), want, rtol=1e-6)
    r = predict(rt, *[tensor(n, f) for n, f in zip(names, feeds)], outputs=["accs"])
    assert [o.name for o in r.outputs] == ["accs"]
    assert "no output named 'nope'" in rejects(
        rt, *[tensor(n, f) for n, f in zip(names, feeds)], outputs=["nope"])


def test_strings_in_and_out(data):
    rt = runtime(data("onnx", "text.onnx"))
    feeds = [np.load(data("onnx", "text.in%d.npy" % i)) for i in range(2)]
    names = [v.name for v in rt._model.inputs]
    r = predict(rt, *[tensor(n, f.astype(object)) for n, f in zip(names, feeds)])
    for i, o in enumerate(r.outputs):
        want = np.load(data("onnx", "text.out%d.npy" % i))
        assert o.shape == list(want.shape)
        if getattr(o.datatype, "value", o.datatype) == "BYTES":
            got = [s.decode() if isinstance(s, bytes) else s
                   for s in getattr(o.data, "root", o.data)]
            assert got == want.ravel().tolist()
        else:
            np.testing.assert_allclose(as_array(o), want, rtol=1e-6)


def test_bad_requests_get_400_with_embers_message(data):
    x = np.load(data("default_model", "input.npy"))
    rt = runtime("builtin", threads=1)
    msg = rejects(rt, tensor("input", x[:, :, :, :27].copy()))
    assert msg == "input 0 'input': dim 3 is 27, expected 28"
    msg = rejects(rt, tensor("input", x.astype(np.float64)))
    assert msg == "input 0 'input': dtype f64, expected f32"
    msg = rejects(rt, tensor("input", x.astype(np.int64)))
    assert "dtype i64, expected f32" in msg
    assert rejects(rt) == "run: missing input 'input'; the model's inputs: input"
    assert rejects(rt, tensor("image", x)) == \
        "no input named 'image'; the model's inputs: input"
    assert rejects(rt, tensor("input", x), tensor("input", x)) == "input 'input' given twice"
    bad = RequestInput(name="input", shape=[1, 1, 28, 28], datatype="FP32", data=[1.0] * 5)
    assert rejects(rt, bad) == \
        "input 'input': 5 data elements for shape [1, 1, 28, 28] (784 elements)"
    assert "dtype string, expected f32" in rejects(rt, tensor("input", np.array(
        [["a"]], dtype=object)))
    # and the runtime still answers
    np.testing.assert_allclose(as_array(predict(rt, tensor("input", x)).outputs[0]),
                               np.load(data("default_model", "expected.npy")), rtol=1e-4)


def test_load_errors_name_the_problem(data, tmp_path):
    with pytest.raises(MLServerError, match="unknown ember option thread; known: threads"):
        runtime("builtin", thread=1)
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model")
    with pytest.raises(MLServerError, match="model 'm': .*junk.onnx"):
        runtime(str(junk))
    with pytest.raises(MLServerError, match="Invalid URI"):
        runtime(str(tmp_path / "missing.onnx"))
    with pytest.raises(MLServerError, match="threads"):
        runtime("builtin", threads=5000)


# ---- a real MLServer -----------------------------------------------------------------------

def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read()


def _post(port, path, body, timeout=60):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data,
                                 {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """`mlserver start` on examples/serving/mlserver's settings, ports replaced by free ones."""
    exe = shutil.which("mlserver", path=os.path.dirname(sys.executable)) or shutil.which(
        "mlserver")
    if exe is None:
        pytest.skip("the mlserver program was not found beside %s" % sys.executable)
    folder = tmp_path_factory.mktemp("mlserver")
    example = os.path.join(ROOT, "examples", "serving", "mlserver")
    with open(os.path.join(example, "settings.json")) as f:
        settings = json.load(f)
    port = _free_port()
    settings.update(http_port=port, grpc_port=_free_port(), metrics_port=_free_port())
    (folder / "settings.json").write_text(json.dumps(settings))
    shutil.copy(os.path.join(example, "model-settings.json"), folder / "model-settings.json")
    env = dict(os.environ)
    env["EMBER_LIBRARY"] = ember.library_path()  # the library these tests use
    pkg_root = os.path.dirname(os.path.dirname(os.path.abspath(ember.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([pkg_root] + [p for p in [env.get("PYTHONPATH")] if p])
    log = open(folder / "mlserver.log", "w+")
    proc = subprocess.Popen([exe, "start", str(folder)], cwd=str(folder), env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + float(os.environ.get("EMBER_MLSERVER_START_S", "120"))
    try:
        while True:
            if proc.poll() is not None:
                log.seek(0)
                pytest.fail("mlserver exited with %s:\n%s" % (proc.returncode, log.read()[-4000:]))
            try:
                if _get("http://127.0.0.1:%d/v2/models/default/ready" % port)[0] == 200:
                    break
            except (OSError, urllib.error.URLError):
                pass
            if time.monotonic() > deadline:
                log.seek(0)
                pytest.fail("mlserver not ready in time:\n%s" % log.read()[-4000:])
            time.sleep(0.5)
        yield port, proc
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(timeout=20)
        log.close()


def _request(x, **extra):
    body = {"inputs": [{"name": "input", "shape": list(x.shape), "datatype": "FP32",
                        "data": x.ravel().tolist()}]}
    body.update(extra)
    return body


def test_server_tritonclient_and_json_match_cli(server, data, cli, tmp_path):
    httpclient = pytest.importorskip("tritonclient.http",
                                     reason="tritonclient[http] is not installed")
    port, _ = server
    xin = data("default_model", "input.npy")
    x = np.load(xin)
    subprocess.run([cli, "run", "--input", xin, "--output-dir", str(tmp_path), "--iters", "1",
                    "--warmup", "0", "--threads", "1"], check=True, capture_output=True)
    want = np.load(tmp_path / "output_0.npy")
    np.testing.assert_allclose(want, np.load(data("default_model", "expected.npy")), rtol=1e-4)

    client = httpclient.InferenceServerClient("127.0.0.1:%d" % port, network_timeout=60)
    assert client.is_model_ready("default")
    meta = client.get_model_metadata("default")
    assert meta["inputs"][0]["name"] == "input" and meta["outputs"][0]["name"] == "probs"
    for rows in (x, x[:1]):
        inp = httpclient.InferInput("input", list(rows.shape), "FP32")
        inp.set_data_from_numpy(rows, binary_data=False)
        res = client.infer("default", [inp], outputs=[httpclient.InferRequestedOutput(
            "probs", binary_data=False)])
        got = res.as_numpy("probs")
        assert got.shape == (rows.shape[0], 10)
        if rows.shape[0] == x.shape[0]:
            np.testing.assert_array_equal(got, want)  # JSON carries f32 exactly
        else:  # another batch size is another plan: compare with the same library's run
            with ember.Model.builtin(threads=1) as m:
                np.testing.assert_array_equal(got, m.run({"input": rows})["probs"])
            np.testing.assert_allclose(got, want[:rows.shape[0]], rtol=1e-5)

    status, body = _post(port, "/v2/models/default/infer", _request(x, id="q1"))
    assert status == 200 and body["id"] == "q1"
    (out,) = body["outputs"]
    assert out["name"] == "probs" and out["shape"] == [3, 10] and out["datatype"] == "FP32"
    np.testing.assert_array_equal(np.asarray(out["data"], np.float32).reshape(3, 10), want)


def test_server_malformed_requests_get_4xx_and_it_stays_up(server, data):
    port, proc = server
    x = np.load(data("default_model", "input.npy"))
    path = "/v2/models/default/infer"
    cases = [
        (_request(x[:, :, :, :27].copy()), "input 0 'input': dim 3 is 27, expected 28"),
        ({"inputs": [{"name": "input", "shape": list(x.shape), "datatype": "FP64",
                      "data": x.ravel().tolist()}]}, "input 0 'input': dtype f64, expected f32"),
        ({"inputs": []}, "run: missing input 'input'"),
        ({"inputs": [{"name": "image", "shape": list(x.shape), "datatype": "FP32",
                      "data": x.ravel().tolist()}]}, "no input named 'image'"),
        ({"inputs": [{"name": "input", "shape": [1, 1, 28, 28], "datatype": "FP32",
                      "data": [0.5] * 5}]}, "5 data elements for shape [1, 1, 28, 28]"),
        (_request(x, outputs=[{"name": "logits"}]), "no output named 'logits'"),
    ]
    for body, message in cases:
        status, reply = _post(port, path, body)
        assert status == 400, (status, reply)
        assert message in reply.get("error", ""), reply
    # malformed before the runtime sees it: MLServer's own 4xx
    for raw in (b"{not json", json.dumps({"inputs": [{"name": "input"}]}).encode()):
        status, _ = _post(port, path, raw)
        assert 400 <= status < 500
    assert proc.poll() is None
    status, reply = _post(port, path, _request(x))
    assert status == 200
    np.testing.assert_allclose(np.asarray(reply["outputs"][0]["data"]).reshape(3, 10),
                               np.load(data("default_model", "expected.npy")), rtol=1e-4)
