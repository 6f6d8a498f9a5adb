# SPDX-License-Identifier: Apache-2.0
"""ONNX Runtime as an MLServer runtime, for bench/serve_load.py: the counterpart of
ember.serving.mlserver.EmberRuntime, written the same way so that the two differ only in the
runtime under them (MLServer ships no ONNX Runtime runtime of its own).

model-settings.json: {"implementation": "serve_ort.OrtRuntime", "parameters": {"uri": FILE,
"extra": {"threads": N}}} with this folder on PYTHONPATH. `threads` is the session's
intra_op_num_threads (inter_op 1, sequential execution), as ember's session threads.
"""
import asyncio

import numpy as np
import onnxruntime as ort
from mlserver import MLModel
from mlserver.codecs import NumpyCodec
from mlserver.errors import InferenceError
from mlserver.types import InferenceRequest, InferenceResponse, MetadataTensor
from mlserver.utils import get_model_uri

_V2 = {"tensor(float)": "FP32", "tensor(int64)": "INT64", "tensor(int32)": "INT32",
       "tensor(double)": "FP64", "tensor(uint8)": "UINT8", "tensor(int8)": "INT8",
       "tensor(bool)": "BOOL", "tensor(float16)": "FP16"}


class OrtRuntime(MLModel):
    async def load(self) -> bool:
        extra = (self.settings.parameters.extra or {}) if self.settings.parameters else {}
        so = ort.SessionOptions()
        so.intra_op_num_threads = int(extra.get("threads", 0))
        so.inter_op_num_threads = 1
        so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        uri = await get_model_uri(self.settings)
        self._sess = ort.InferenceSession(uri, so, providers=["CPUExecutionProvider"])
        self._in = {i.name: i for i in self._sess.get_inputs()}
        self._out = [o.name for o in self._sess.get_outputs()]
        if not self.inputs:
            self.inputs = [MetadataTensor(name=i.name, datatype=_V2.get(i.type, "BYTES"),
                                          shape=[d if isinstance(d, int) else -1
                                                 for d in i.shape])
                           for i in self._sess.get_inputs()]
        self.ready = True
        return True

    def decode(self, payload):
        feeds = {}
        for inp in payload.inputs:
            if inp.name not in self._in or inp.name in feeds:
                raise InferenceError("input '%s': not one of the model's inputs, or repeated"
                                     % inp.name)
            try:
                feeds[inp.name] = NumpyCodec.decode_input(inp)
            except (TypeError, ValueError) as e:
                raise InferenceError("input '%s': %s" % (inp.name, e)) from None
        return feeds

    async def predict(self, payload: InferenceRequest) -> InferenceResponse:
        feeds = self.decode(payload)
        names = [o.name for o in payload.outputs] if payload.outputs else self._out
        try:
            result = await asyncio.to_thread(self._sess.run, names, feeds)
        except Exception as e:  # ORT's InvalidArgument, Fail, ...
            raise InferenceError(str(e)) from None
        outs = []
        for name, value in zip(names, result):
            out = NumpyCodec.encode_output(name, np.asarray(value))
            out.shape = list(np.shape(value))
            outs.append(out)
        return InferenceResponse(model_name=self.name, model_version=self.version,
                                 id=payload.id, outputs=outs)
