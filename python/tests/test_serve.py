# SPDX-License-Identifier: Apache-2.0
"""ember.serve: real HTTP requests on loopback against the V2 (KServe) JSON protocol."""
import http.client
import json
import threading

import numpy as np
import pytest

import ember
from ember import serve


@pytest.fixture
def server(data):
    models = {"mnist": ember.Model.builtin(threads=1),
              "text": ember.Model(data("onnx", "text.onnx"))}
    srv = serve.make_server(models, "127.0.0.1", 0, max_body=128 << 10)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    t.join()
    for m in models.values():
        m.close()


def request(srv, method, path, body=None, raw=None):
    conn = http.client.HTTPConnection("127.0.0.1", srv.server_address[1], timeout=30)
    try:
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None
                                            else None)
        conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        return r.status, json.loads(r.read())
    finally:
        conn.close()


def mnist_request(x, **extra):
    req = {"inputs": [{"name": "input", "shape": list(x.shape), "datatype": "FP32",
                       "data": x.ravel().tolist()}]}
    req.update(extra)
    return req


def test_health_and_metadata(server):
    assert request(server, "GET", "/v2/health/live") == (200, {"live": True})
    assert request(server, "GET", "/v2/health/ready") == (200, {"ready": True})
    status, meta = request(server, "GET", "/v2")
    assert status == 200 and meta["name"] == "ember" and meta["version"] == ember.__version__
    status, meta = request(server, "GET", "/v2/models/mnist")
    assert status == 200
    assert meta["inputs"] == [{"name": "input", "datatype": "FP32", "shape": [-1, 1, 28, 28]}]
    assert meta["outputs"] == [{"name": "probs", "datatype": "FP32", "shape": [-1, 10]}]
    assert request(server, "GET", "/v2/models/mnist/versions/1/ready") == \
        (200, {"name": "mnist", "ready": True})


def test_infer_matches_model_run(server, data):
    x = np.load(data("default_model", "input.npy"))
    with ember.Model.builtin(threads=1) as m:
        want = m.run([x])["probs"]
    status, resp = request(server, "POST", "/v2/models/mnist/infer", mnist_request(x, id="r1"))
    assert status == 200, resp
    assert resp["model_name"] == "mnist" and resp["id"] == "r1"
    (out,) = resp["outputs"]
    assert out["name"] == "probs" and out["datatype"] == "FP32" and out["shape"] == [3, 10]
    # JSON carries the float32 values exactly (as doubles)
    np.testing.assert_array_equal(np.array(out["data"], np.float32).reshape(3, 10), want)
    # nested data and an outputs list are accepted
    req = mnist_request(x, outputs=[{"name": "probs"}])
    req["inputs"][0]["data"] = x.tolist()
    status, resp2 = request(server, "POST", "/v2/models/mnist/versions/1/infer", req)
    assert status == 200 and resp2["outputs"][0]["data"] == out["data"]


def test_infer_strings(server, data):
    feeds = [np.load(data("onnx", "text.in%d.npy" % i)) for i in range(2)]
    with ember.Model(data("onnx", "text.onnx")) as m:
        names = [v.name for v in m.inputs]
        want = m.run(feeds)
    req = {"inputs": [{"name": n, "shape": list(f.shape), "datatype": "BYTES",
                       "data": f.ravel().tolist()} for n, f in zip(names, feeds)]}
    status, resp = request(server, "POST", "/v2/models/text/infer", req)
    assert status == 200, resp
    got = {o["name"]: o for o in resp["outputs"]}
    assert set(got) == set(want)
    for k, v in want.items():
        assert got[k]["shape"] == list(v.shape)
        if v.dtype == object:
            assert got[k]["datatype"] == "BYTES" and got[k]["data"] == v.ravel().tolist()
        else:
            np.testing.assert_array_equal(np.array(got[k]["data"], v.dtype), v.ravel())


def test_bad_requests_get_4xx_and_the_server_stays_up(server):
    x = np.zeros((1, 1, 28, 28), np.float32)
    cases = []
    bad_shape = mnist_request(np.zeros((1, 2, 28, 28), np.float32))
    cases.append((bad_shape, 400, "dim 1 is 2"))  # ember's own message
    bad_type = mnist_request(x)
    bad_type["inputs"][0]["datatype"] = "FP64"
    cases.append((bad_type, 400, "the model takes FP32"))
    cases.append(({"inputs": []}, 400, "missing input 'input'"))
    short = mnist_request(x)
    short["inputs"][0]["data"] = [0.0] * 5
    cases.append((short, 400, "5 data elements"))
    unknown = mnist_request(x)
    unknown["inputs"][0]["name"] = "nope"
    cases.append((unknown, 400, "no input named 'nope'"))
    cases.append((mnist_request(x, outputs=[{"name": "zz"}]), 400, "no output named 'zz'"))
    cases.append(({"inputs": "x"}, 400, "'inputs' list"))
    for body, want_status, needle in cases:
        status, resp = request(server, "POST", "/v2/models/mnist/infer", body)
        assert status == want_status and needle in resp["error"], (needle, status, resp)
    status, resp = request(server, "POST", "/v2/models/mnist/infer", raw=b"{not json")
    assert status == 400 and "not JSON" in resp["error"]
    status, resp = request(server, "POST", "/v2/models/nosuch/infer", mnist_request(x))
    assert status == 404 and "mnist" in resp["error"]
    status, resp = request(server, "POST", "/v2/models/mnist/infer", raw=b" " * (256 << 10))
    assert status == 413 and "over the limit" in resp["error"]
    status, resp = request(server, "GET", "/v2/models/mnist/infer")
    assert status == 405
    # still serving
    assert request(server, "GET", "/v2/health/live") == (200, {"live": True})
    status, resp = request(server, "POST", "/v2/models/mnist/infer", mnist_request(x))
    assert status == 200 and resp["outputs"][0]["shape"] == [1, 10]


def test_concurrent_requests(server):
    rng = np.random.default_rng(3)
    xs = [rng.random((2, 1, 28, 28), dtype=np.float32) for _ in range(6)]
    with ember.Model.builtin(threads=1) as m:
        want = [m.run([x])["probs"] for x in xs]
    got, errors = [None] * 6, []

    def work(k):
        try:
            status, resp = request(server, "POST", "/v2/models/mnist/infer", mnist_request(xs[k]))
            assert status == 200, resp
            got[k] = np.array(resp["outputs"][0]["data"], np.float32).reshape(2, 10)
        except BaseException as e:
            errors.append(e)

    ts = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, errors
    for k in range(6):
        np.testing.assert_array_equal(got[k], want[k])


def test_command_line(data):
    """`python -m ember.serve MODEL --port 0` serves the file under its stem's name."""
    import os
    import re
    import subprocess
    import sys
    env = dict(os.environ)
    pkg = os.path.dirname(os.path.dirname(ember.__file__))
    env["PYTHONPATH"] = pkg + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.Popen([sys.executable, "-m", "ember.serve", data("onnx", "cnn_v13.onnx"),
                          "--port", "0", "--threads", "1"], stdout=subprocess.PIPE, text=True,
                         env=env)
    try:
        line = p.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/v2/models/cnn_v13/infer", line)
        assert m, line

        class Srv:
            server_address = ("127.0.0.1", int(m.group(1)))
        x = np.load(data("onnx", "cnn_v13.in0.npy"))
        with ember.Model(data("onnx", "cnn_v13.onnx"), threads=1) as model:
            name = model.inputs[0].name
            (want,) = model.run([x]).values()
        req = {"inputs": [{"name": name, "shape": list(x.shape), "datatype": "FP32",
                           "data": x.ravel().tolist()}]}
        status, resp = request(Srv, "POST", "/v2/models/cnn_v13/infer", req)
        assert status == 200, resp
        got = np.array(resp["outputs"][0]["data"], np.float32).reshape(want.shape)
        np.testing.assert_array_equal(got, want)
    finally:
        p.terminate()
        p.wait(timeout=30)
        p.stdout.close()
