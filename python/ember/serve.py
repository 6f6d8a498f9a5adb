# SPDX-License-Identifier: Apache-2.0
"""A minimal Open Inference Protocol (KServe V2) HTTP/JSON endpoint, on the standard library.

    python -m ember.serve model.onnx [--name NAME] [--host 127.0.0.1] [--port 8000] [--threads N]

or, in a program: `server = ember.serve.make_server({"name": ember.Model(...)}, port=8000)`
then `server.serve_forever()` (`server.server_address` gives the port when 0 was asked).

Routes (https://kserve.github.io/website/latest/modelserving/data_plane/v2_protocol/):
  GET  /v2/health/live, /v2/health/ready        {"live": true} / {"ready": true}
  GET  /v2                                      server metadata
  GET  /v2/models/{name}[/versions/{v}]         model metadata (inputs, outputs, datatypes)
  GET  /v2/models/{name}[/versions/{v}]/ready   {"name": ..., "ready": true}
  POST /v2/models/{name}[/versions/{v}]/infer   inference: JSON tensors in and out
Inputs are `{"name", "shape", "datatype", "data"}` with `data` flat in row-major order (nested
lists are accepted too); `outputs: [{"name": ...}]` picks outputs. A bad request (malformed
JSON, an unknown input, a wrong datatype or shape: ember's own message) gets 400 with
`{"error": message}`, an unknown model 404, a body over `max_body` bytes 413; the server stays
up. Each request runs on its own thread (ThreadingHTTPServer) and runs release the GIL, so
concurrent requests run in parallel on one Model. Not implemented: the binary tensor data
extension, the gRPC endpoint, model repository (load / unload) routes, sequence inputs.
"""
import argparse
import json
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

from . import __version__
from . import _dtypes
from ._errors import Error, InvalidArgument
from ._model import Model

# ember dtype name -> V2 datatype (the protocol has no float8 / 4-bit types)
_V2 = {"bool": "BOOL", "u8": "UINT8", "u16": "UINT16", "u32": "UINT32", "u64": "UINT64",
       "i8": "INT8", "i16": "INT16", "i32": "INT32", "i64": "INT64", "f16": "FP16",
       "f32": "FP32", "f64": "FP64", "string": "BYTES", "bf16": "BF16"}
_FROM_V2 = {v: k for k, v in _V2.items()}

DEFAULT_MAX_BODY = 64 << 20
_DRAIN = 1 << 20  # an oversized body up to this much over the limit is read and dropped


class _HttpError(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


def _v2_datatype(info):
    return _V2.get(info.dtype_name, info.dtype_name.upper())


def _v2_shape(shape):
    return [-1 if not isinstance(d, int) else d for d in shape] if shape is not None else []


def model_metadata(name, model):
    def io(v):
        return {"name": v.name, "datatype": _v2_datatype(v), "shape": _v2_shape(v.shape)}
    return {"name": name, "versions": ["1"], "platform": "ember_" + (model.format or ""),
            "inputs": [io(v) for v in model.inputs], "outputs": [io(v) for v in model.outputs]}


def _decode_input(spec, info):
    """A NumPy array from one V2 JSON input, checked against the model's declaration."""
    where = "input '%s'" % spec.get("name")
    datatype = spec.get("datatype")
    shape = spec.get("shape")
    if "data" not in spec:
        raise InvalidArgument("%s: no 'data' (the binary data extension is not supported)"
                              % where)
    if not isinstance(shape, list) or not all(isinstance(d, int) and d >= 0 for d in shape):
        raise InvalidArgument("%s: 'shape' must be a list of sizes, got %r" % (where, shape))
    ember_name = _FROM_V2.get(datatype)
    if ember_name is None:
        raise InvalidArgument("%s: datatype %r is not one of %s" % (where, datatype,
                                                                   ", ".join(_FROM_V2)))
    if _V2.get(info.dtype_name) != datatype:
        raise InvalidArgument("%s: datatype %s, the model takes %s" % (where, datatype,
                                                                       _v2_datatype(info)))
    data = spec["data"]
    code = _dtypes.from_name(ember_name)
    try:
        if ember_name == "string":
            flat = np.array([d if isinstance(d, str) else str(d) for d in np.ravel(
                np.array(data, dtype=object))], dtype=object)
        elif ember_name == "bf16":
            if not _dtypes.has_ml_dtypes():
                raise InvalidArgument("%s: BF16 over JSON needs ml_dtypes installed" % where)
            flat = np.asarray(data, dtype=np.float32).astype(_dtypes.to_numpy(code)).ravel()
        else:
            flat = np.asarray(data, dtype=_dtypes.to_numpy(code)).ravel()
    except (TypeError, ValueError) as e:
        raise InvalidArgument("%s: data do not read as %s: %s" % (where, datatype, e)) from None
    n = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if flat.size != n:
        raise InvalidArgument("%s: %d data elements for shape %s (%d elements)"
                              % (where, flat.size, shape, n))
    return flat.reshape(shape)


def _encode_output(name, value, info):
    if not isinstance(value, np.ndarray):
        raise InvalidArgument("output '%s' is a %s: the V2 protocol carries tensors only"
                              % (name, "sequence" if isinstance(value, list) else "None"))
    datatype = _V2.get(info.dtype_name)
    if datatype is None:
        raise InvalidArgument("output '%s': ember dtype %s has no V2 datatype"
                              % (name, info.dtype_name))
    if datatype == "BF16" or datatype == "FP16":
        data = value.astype(np.float32).ravel().tolist()
    elif datatype == "BYTES":
        data = [str(s) for s in value.ravel()]
    else:
        data = value.ravel().tolist()
    return {"name": name, "datatype": datatype, "shape": list(value.shape), "data": data}


def infer(name, model, request):
    """Runs one V2 inference request (a dict) on `model`; returns the response dict."""
    if not isinstance(request, dict) or not isinstance(request.get("inputs"), list):
        raise InvalidArgument("the request must be a JSON object with an 'inputs' list")
    declared = {v.name: v for v in model.inputs}
    feeds = {}
    for spec in request["inputs"]:
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
            raise InvalidArgument("each input must be an object with a 'name'")
        info = declared.get(spec["name"])
        if info is None:
            raise InvalidArgument("no input named '%s'; the model's inputs: %s"
                                  % (spec["name"], ", ".join(declared)))
        if spec["name"] in feeds:
            raise InvalidArgument("input '%s' given twice" % spec["name"])
        feeds[spec["name"]] = _decode_input(spec, info)
    wanted = request.get("outputs")
    names = None
    if wanted is not None:
        if not isinstance(wanted, list) or not all(isinstance(o, dict) and "name" in o
                                                   for o in wanted):
            raise InvalidArgument("'outputs' must be a list of objects with a 'name'")
        names = [o["name"] for o in wanted]
    result = model.run(feeds, outputs=names)
    out_info = {v.name: v for v in model.outputs}
    response = {"model_name": name, "model_version": "1",
                "outputs": [_encode_output(k, v, out_info[k]) for k, v in result.items()]}
    if "id" in request:
        response["id"] = request["id"]
    return response


_ROUTE = re.compile(r"^/v2/models/([^/]+)(?:/versions/([^/]+))?(/ready|/infer)?/?$")


class _Handler(BaseHTTPRequestHandler):
    server_version = "ember/" + __version__
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet unless asked
        if self.server.verbose:
            sys.stderr.write("ember.serve: " + fmt % args + "\n")

    def _send(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _model(self, name):
        model = self.server.models.get(name)
        if model is None:
            raise _HttpError(404, "no model named '%s'; this server has: %s"
                             % (name, ", ".join(self.server.models)))
        return model

    def _handle(self, method):
        path = self.path.split("?", 1)[0]
        try:
            if method == "GET" and path in ("/v2/health/live", "/v2/health/ready"):
                key = path.rsplit("/", 1)[1]
                return self._send(200, {key: True})
            if method == "GET" and path in ("/v2", "/v2/"):
                return self._send(200, {"name": "ember", "version": __version__,
                                        "extensions": []})
            m = _ROUTE.match(path)
            if m is None:
                raise _HttpError(404, "no route %s %s" % (method, path))
            name, _version, action = m.groups()
            model = self._model(name)
            if method == "GET" and action is None:
                return self._send(200, model_metadata(name, model))
            if method == "GET" and action == "/ready":
                return self._send(200, {"name": name, "ready": not model.closed})
            if method == "POST" and action == "/infer":
                return self._send(200, infer(name, model, self._read_json()))
            raise _HttpError(405, "%s is not allowed on %s" % (method, path))
        except _HttpError as e:
            self._send(e.status, {"error": e.message})
        except InvalidArgument as e:
            self._send(400, {"error": str(e)})
        except Error as e:  # ember refused the model or failed: the server's side
            self._send(500, {"error": "%s: %s" % (e.code_name, e)})

    def _read_json(self):
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            raise _HttpError(411, "a Content-Length header is required") from None
        if length < 0 or length > self.server.max_body:
            if 0 < length <= self.server.max_body + _DRAIN:
                self.rfile.read(length)  # so that the client, still sending, reads the reply
            else:
                self.close_connection = True
            raise _HttpError(413, "request body of %d bytes, over the limit of %d"
                             % (length, self.server.max_body))
        body = self.rfile.read(length)
        try:
            return json.loads(body)
        except (ValueError, UnicodeDecodeError) as e:
            raise _HttpError(400, "the body is not JSON: %s" % e) from None

    def do_GET(self):
        self._handle("GET")

    def do_POST(self):
        self._handle("POST")


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, models, host="127.0.0.1", port=8000, max_body=DEFAULT_MAX_BODY,
                 verbose=False):
        self.models = dict(models)
        self.max_body = max_body
        self.verbose = verbose
        super().__init__((host, port), _Handler)


def make_server(models, host="127.0.0.1", port=8000, max_body=DEFAULT_MAX_BODY, verbose=False):
    """A V2 server for {name: ember.Model}; call serve_forever() (and shutdown() from another
    thread). port 0 picks a free port: `server.server_address[1]`."""
    return Server(models, host, port, max_body, verbose)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m ember.serve",
                                 description="Serve a model over the KServe V2 HTTP protocol.")
    ap.add_argument("model", help="an ONNX or TorchScript file, or 'builtin'")
    ap.add_argument("--name", default=None, help="the model's name in URLs (default: file stem)")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8000)
    ap.add_argument("--threads", type=int, default=0, help="compute threads per run")
    ap.add_argument("--max-body", type=int, default=DEFAULT_MAX_BODY)
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args(argv)
    import os
    if a.model == "builtin":
        model, name = Model.builtin(threads=a.threads), a.name or "default"
    else:
        model = Model(a.model, threads=a.threads)
        name = a.name or os.path.splitext(os.path.basename(a.model))[0]
    server = make_server({name: model}, a.host, a.port, a.max_body, a.verbose)
    print("ember.serve: model '%s' on http://%s:%d/v2/models/%s/infer"
          % (name, a.host, server.server_address[1], name), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        model.close()


if __name__ == "__main__":
    main()
