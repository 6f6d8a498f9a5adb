# SPDX-License-Identifier: Apache-2.0
"""A KServe model server model that runs models with ember.

    python -m ember.serving.kserve --model_name mnist --model_uri model.onnx --threads 1 \\
        [KServe's ModelServer options: --http_port 8080 --grpc_port 8081 --enable_grpc ...]

or in a program: `kserve.ModelServer().start([EmberModel("mnist", "model.onnx", threads=1)])`.
`model_uri` is an ONNX, TorchScript or torch.export file or "builtin" (ember's built-in default
model); the keyword options are ember.Model's (serving.OPTIONS: threads, precision, ...).

predict() takes the Open Inference Protocol (V2) request KServe parses (kserve.InferRequest):
inputs by name, decoded with InferInput.as_numpy() as the datatype they were sent in (ember
refuses one that is not the model's, with its own message), run on a worker thread (ember
releases the GIL), and the outputs the request asks for (all by default) returned as an
InferResponse with their exact shapes. A V1 request ({"instances": [...]}) feeds a one-input
model and returns {"predictions": [...]}. A bad request raises kserve.errors.InvalidInput,
which KServe answers with 400 and ember's message.
"""
import argparse
import asyncio

import kserve
import kserve.model_server
import numpy as np
from kserve.errors import InvalidInput
from kserve.protocol.infer_type import InferOutput, InferRequest, InferResponse

from .. import serving
from .._errors import Error, InvalidArgument


def _read(inp, datatype):
    flat = np.asarray(inp.as_numpy()).reshape(-1)  # InvalidInput is a ValueError
    if datatype == "BYTES":
        flat = np.array([s.decode() if isinstance(s, bytes) else str(s) for s in flat],
                        dtype=object)
    return flat


class EmberModel(kserve.Model):
    """kserve.Model over ember.Model. The model is loaded by the constructor (load())."""

    def __init__(self, name, model_uri, **options):
        super().__init__(name)
        self.model_uri = model_uri
        self.options = serving.model_options(options, "model '%s'" % name)
        self._model = None
        self.load()

    def load(self) -> bool:
        self._model = serving.open_model(self.model_uri, self.options, "model '%s'" % self.name)
        self._in = {v.name: v for v in self._model.inputs}
        self._out = {v.name: v for v in self._model.outputs}
        self.ready = True
        return self.ready

    def stop(self):
        if self._model is not None:
            self._model.close()
        self.ready = False

    def _decode(self, request):
        return serving.decode_inputs(request.inputs, self._in, _read)

    def _encode(self, name, value):
        info = self._out[name]
        if not isinstance(value, np.ndarray):
            raise InvalidArgument("output '%s' is a %s: the V2 protocol carries tensors only"
                                  % (name, "sequence" if isinstance(value, list) else "None"))
        if info.dtype_name == "bf16":
            value = value.astype(np.float32)  # KServe's NumPy mapping has no bfloat16
        datatype = "FP32" if info.dtype_name == "bf16" else serving.v2_datatype(info)
        out = InferOutput(name=name, shape=list(value.shape), datatype=datatype)
        out.set_data_from_numpy(value, binary_data=False)
        return out

    async def predict(self, payload, headers=None, response_headers=None):
        try:
            if isinstance(payload, dict) and "instances" in payload:  # V1
                if len(self._in) != 1:
                    raise InvalidArgument("a V1 request ('instances') needs a one-input model; "
                                          "this one takes %s" % ", ".join(self._in))
                (info,) = self._in.values()
                x = np.asarray(payload["instances"], dtype=info.dtype)
                result = await asyncio.to_thread(self._model.run, {info.name: x})
                return {"predictions": [v.tolist() if isinstance(v, np.ndarray) else v
                                        for v in result.values()][0]}
            if not isinstance(payload, InferRequest):
                raise InvalidArgument("expected a V2 inference request")
            feeds = self._decode(payload)
            wanted = getattr(payload, "request_outputs", None)
            names = [o.name for o in wanted] if wanted else None
            result = await asyncio.to_thread(self._model.run, feeds, names)
            outputs = [self._encode(k, v) for k, v in result.items()]
        except InvalidArgument as e:
            raise InvalidInput(str(e)) from None
        except Error as e:
            raise RuntimeError("%s: %s" % (e.code_name, e)) from None
        return InferResponse(response_id=payload.id or "", model_name=self.name,
                             infer_outputs=outputs)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m ember.serving.kserve",
                                 parents=[kserve.model_server.parser])
    ap.set_defaults(model_name="default")  # --model_name is KServe's own option
    ap.add_argument("--model_uri", default="builtin",
                    help="an ONNX, TorchScript or torch.export file, or 'builtin'")
    ap.add_argument("--threads", type=int, default=0, help="compute threads per run")
    ap.add_argument("--precision", default="fp32")
    args, _ = ap.parse_known_args(argv)
    model = EmberModel(args.model_name, args.model_uri, threads=args.threads,
                       precision=args.precision)
    kserve.ModelServer(http_port=args.http_port, grpc_port=args.grpc_port,
                       enable_grpc=args.enable_grpc).start([model])


if __name__ == "__main__":
    main()
