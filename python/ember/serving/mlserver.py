# SPDX-License-Identifier: Apache-2.0
"""An MLServer runtime that runs models with ember.

model-settings.json:

    {"name": "mnist", "implementation": "ember.serving.mlserver.EmberRuntime",
     "parameters": {"uri": "./model.onnx",
                    "extra": {"threads": 1, "precision": "fp32"}}}

`parameters.uri` is an ONNX, TorchScript or torch.export file (relative to the settings file,
as MLServer resolves it) or "builtin" (ember's built-in default model). `parameters.extra`
takes ember.Model's options: threads, precision, device, isa, memory_limit, optimize, int8,
shapes, dims, verify_checksums (serving.OPTIONS); an unknown key fails the load, naming it.

predict() decodes each V2 input by name with MLServer's codecs (NumpyCodec; StringCodec for
BYTES) as the datatype it was sent in (ember refuses one that is not the model's), runs the model on a worker thread (ember
releases the GIL, so concurrent requests run in parallel) and encodes the outputs the request
asks for (all by default) with the same codecs, in their exact shapes. A bad request (unknown,
missing or repeated input, wrong datatype or shape, unknown output) raises MLServer's
InferenceError, a 400 carrying ember's message; other ember failures are MLServerError 500.
MLServer's V2 datatypes have no BF16: a bfloat16 output is sent as FP32 (exact), and a model
with a bfloat16 input cannot be fed through MLServer.
"""
import asyncio

import numpy as np
from mlserver import MLModel
from mlserver.codecs import NumpyCodec, StringCodec
from mlserver.errors import InferenceError, MLServerError
from mlserver.types import InferenceRequest, InferenceResponse, MetadataTensor
from mlserver.utils import get_model_uri

from .. import serving
from .._errors import Error, InvalidArgument


def _error(e):
    """MLServer's error for an ember exception: 400 for the request's faults, else 500."""
    if isinstance(e, InvalidArgument):
        return InferenceError(str(e))
    return MLServerError("%s: %s" % (getattr(e, "code_name", "ERROR"), e), 500)


def _read(inp, datatype):
    if datatype == "BYTES":
        return np.array(StringCodec.decode_input(inp), dtype=object)
    # as sent: a datatype other than the model's is ember's to refuse
    return NumpyCodec.decode_input(inp.model_copy(update={"shape": [-1]}))


class EmberRuntime(MLModel):
    """mlserver.MLModel over ember.Model (one per MLServer worker process)."""

    async def load(self) -> bool:
        params = self.settings.parameters
        uri = params.uri if params is not None else None
        extra = (params.extra if params is not None else None) or {}
        where = "model '%s'" % self.name
        if not serving.is_builtin(uri):
            uri = await get_model_uri(self.settings)
        try:
            self._model = serving.open_model(uri, extra, where)
        except Error as e:
            raise MLServerError("%s: %s" % (where, e), 500) from None
        self._in = {v.name: v for v in self._model.inputs}
        self._out = {v.name: v for v in self._model.outputs}
        # Metadata (GET /v2/models/NAME) from the model itself where the settings give none.
        if not self.inputs:
            self.inputs = [MetadataTensor(name=v.name, datatype=serving.v2_datatype(v),
                                          shape=serving.v2_shape(v.shape))
                           for v in self._model.inputs if v.dtype_name in serving.V2_DATATYPE
                           and v.dtype_name != "bf16"]
        if not self.outputs:
            self.outputs = [MetadataTensor(name=v.name, datatype=_out_datatype(v),
                                           shape=serving.v2_shape(v.shape))
                            for v in self._model.outputs
                            if v.dtype_name in serving.V2_DATATYPE]
        self.ready = True
        return self.ready

    async def unload(self) -> bool:
        model = getattr(self, "_model", None)
        if model is not None:
            model.close()  # waits for runs in flight
        return True

    def decode(self, payload):
        """{input name: array} from an InferenceRequest (InvalidArgument on a bad input)."""
        return serving.decode_inputs(payload.inputs, self._in, _read)

    def encode(self, name, value):
        info = self._out[name]
        if not isinstance(value, np.ndarray):
            raise MLServerError("output '%s' is a %s: the V2 protocol carries tensors only"
                                % (name, "sequence" if isinstance(value, list) else "None"),
                                500)
        if info.dtype_name == "string":
            out = StringCodec.encode_output(name, [str(s) for s in value.ravel()])
        else:
            if info.dtype_name == "bf16":
                value = value.astype(np.float32)
            elif info.dtype_name not in serving.V2_DATATYPE:
                raise MLServerError("output '%s': ember dtype %s has no V2 datatype"
                                    % (name, info.dtype_name), 500)
            out = NumpyCodec.encode_output(name, value)
        out.shape = list(value.shape)  # the codecs add a dim to 1-D arrays; keep the model's
        return out

    async def predict(self, payload: InferenceRequest) -> InferenceResponse:
        try:
            feeds = self.decode(payload)
            names = [o.name for o in payload.outputs] if payload.outputs else None
            result = await asyncio.to_thread(self._model.run, feeds, names)
        except Error as e:
            raise _error(e) from None
        return InferenceResponse(model_name=self.name, model_version=self.version,
                                 id=payload.id,
                                 outputs=[self.encode(k, v) for k, v in result.items()])


def _out_datatype(info):
    return "FP32" if info.dtype_name == "bf16" else serving.v2_datatype(info)
