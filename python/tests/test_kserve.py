# SPDX-License-Identifier: Apache-2.0
"""ember.serving.kserve.EmberModel: predict() on kserve.InferRequest objects, then a real KServe
ModelServer (`python -m ember.serving.kserve`) on a free loopback port driven with plain JSON.

Opt-in: needs `pip install "./python[kserve]"` (about 450 MB with its dependencies; its pins
differ from MLServer's, so a venv of its own); skipped, saying so, without it. The server must
be ready within EMBER_KSERVE_START_S seconds (default 120) and is killed in teardown.
"""
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import numpy as np
import pytest

kserve = pytest.importorskip(
    "kserve", reason="kserve is not installed (opt-in: pip install './python[kserve]')")

import ember  # noqa: E402
from ember.serving.kserve import EmberModel  # noqa: E402
from kserve.errors import InvalidInput  # noqa: E402
from kserve.protocol.infer_type import InferInput, InferRequest, RequestedOutput  # noqa: E402


def infer_input(name, x, datatype=None):
    x = np.asarray(x)
    dt = datatype or {"float32": "FP32", "float64": "FP64", "int64": "INT64",
                      "object": "BYTES"}[str(x.dtype)]
    data = [str(s) for s in x.ravel()] if dt == "BYTES" else x.ravel().tolist()
    return InferInput(name=name, shape=list(x.shape), datatype=dt, data=data)


def predict(m, *inputs, outputs=None):
    req = InferRequest(model_name=m.name, infer_inputs=list(inputs), request_id="r1",
                       request_outputs=[RequestedOutput(name=o) for o in outputs]
                       if outputs else None)
    return asyncio.run(m.predict(req))


def rejects(m, *inputs, outputs=None):
    with pytest.raises(InvalidInput) as e:
        predict(m, *inputs, outputs=outputs)
    return e.value.reason


def test_builtin_predict_matches_expected_and_model(data):
    x = np.load(data("default_model", "input.npy"))
    m = EmberModel("default", "builtin", threads=1)
    assert m.ready
    r = predict(m, infer_input("input", x))
    assert r.id == "r1" and r.model_name == "default"
    (out,) = r.outputs
    assert out.name == "probs" and list(out.shape) == [3, 10] and out.datatype == "FP32"
    got = out.as_numpy()
    np.testing.assert_allclose(got, np.load(data("default_model", "expected.npy")), rtol=1e-4)
    with ember.Model.builtin(threads=1) as ref:
        np.testing.assert_array_equal(got, ref.run({"input": x})["probs"])
    # V1: {"instances": ...} on a one-input model
    v1 = asyncio.run(m.predict({"instances": x.tolist()}))
    np.testing.assert_array_equal(np.asarray(v1["predictions"], np.float32), got)
    m.stop()


def test_two_outputs_selection_and_strings(data):
    feeds = [np.load(data("onnx", "loop.in%d.npy" % i)) for i in range(3)]
    m = EmberModel("loop", data("onnx", "loop.onnx"))
    names = [v.name for v in m._model.inputs]
    r = predict(m, *[infer_input(n, f) for n, f in zip(names, feeds)])
    assert [o.name for o in r.outputs] == ["acc", "accs"]
    for i, o in enumerate(r.outputs):
        np.testing.assert_allclose(o.as_numpy(), np.load(data("onnx", "loop.out%d.npy" % i)),
                                   rtol=1e-6)
    r = predict(m, *[infer_input(n, f) for n, f in zip(names, feeds)], outputs=["accs"])
    assert [o.name for o in r.outputs] == ["accs"]
    t = EmberModel("text", data("onnx", "text.onnx"))
    feeds = [np.load(data("onnx", "text.in%d.npy" % i)).astype(object) for i in range(2)]
    names = [v.name for v in t._model.inputs]
    r = predict(t, *[infer_input(n, f) for n, f in zip(names, feeds)])
    with ember.Model(data("onnx", "text.onnx")) as ref:
        want = ref.run(dict(zip(names, feeds)))
    for o in r.outputs:
        got = o.as_numpy()
        if want[o.name].dtype == object:
            assert [s.decode() if isinstance(s, bytes) else s for s in got.ravel()] == \
                want[o.name].ravel().tolist()
        else:
            np.testing.assert_array_equal(got, want[o.name])


def test_bad_requests_raise_invalid_input_with_embers_message(data):
    x = np.load(data("default_model", "input.npy"))
    m = EmberModel("default", "builtin", threads=1)
    assert rejects(m, infer_input("input", x[:, :, :, :27].copy())) == \
        "input 0 'input': dim 3 is 27, expected 28"
    assert rejects(m, infer_input("input", x.astype(np.float64))) == \
        "input 0 'input': dtype f64, expected f32"
    assert rejects(m) == "run: missing input 'input'; the model's inputs: input"
    assert rejects(m, infer_input("image", x)) == \
        "no input named 'image'; the model's inputs: input"
    assert "no output named 'logits'" in rejects(m, infer_input("input", x),
                                                 outputs=["logits"])
    with pytest.raises(ember.InvalidArgument, match="unknown ember option thread"):
        EmberModel("x", "builtin", thread=1)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _post(port, path, body):
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path),
                                 json.dumps(body).encode(), {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def test_server_json_requests(data, tmp_path):
    port = _free_port()
    env = dict(os.environ)
    env["EMBER_LIBRARY"] = ember.library_path()
    pkg_root = os.path.dirname(os.path.dirname(os.path.abspath(ember.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([pkg_root] + [p for p in [env.get("PYTHONPATH")] if p])
    log = open(tmp_path / "kserve.log", "w+")
    proc = subprocess.Popen([sys.executable, "-m", "ember.serving.kserve", "--model_name",
                             "default", "--model_uri", "builtin", "--threads", "1",
                             "--http_port", str(port), "--enable_grpc", "false"],
                            env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + float(os.environ.get("EMBER_KSERVE_START_S", "120"))
        while True:
            if proc.poll() is not None:
                log.seek(0)
                pytest.fail("kserve exited with %s:\n%s" % (proc.returncode, log.read()[-4000:]))
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/v2/models/default/ready"
                                            % port, timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                log.seek(0)
                pytest.fail("kserve not ready in time:\n%s" % log.read()[-4000:])
            time.sleep(0.5)
        x = np.load(data("default_model", "input.npy"))
        body = {"id": "q1", "inputs": [{"name": "input", "shape": list(x.shape),
                                        "datatype": "FP32", "data": x.ravel().tolist()}]}
        status, reply = _post(port, "/v2/models/default/infer", body)
        assert status == 200, reply
        (out,) = reply["outputs"]
        assert out["name"] == "probs" and out["shape"] == [3, 10]
        with ember.Model.builtin(threads=1) as ref:
            np.testing.assert_array_equal(np.asarray(out["data"], np.float32).reshape(3, 10),
                                          ref.run({"input": x})["probs"])
        body["inputs"][0]["shape"] = [3, 1, 28, 27]
        body["inputs"][0]["data"] = x[:, :, :, :27].ravel().tolist()
        status, reply = _post(port, "/v2/models/default/infer", body)
        assert status == 400
        assert "input 0 'input': dim 3 is 27, expected 28" in json.dumps(reply)
        assert proc.poll() is None
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=20)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=20)
        log.close()
