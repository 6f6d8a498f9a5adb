# SPDX-License-Identifier: Apache-2.0
"""int8 from Python: ember.quantize() writes a QDQ ONNX file; ember.Model(path,
precision="int8") quantizes at load (the C API's ember_quantizer_*, include/ember.h section 9;
`ember quantize` and `ember run --precision int8` on the command line)."""
import ctypes
import os

from ._errors import InvalidArgument
from ._lib import c_obj_p, lib
from ._model import _Feeds, _choice, check, order_feeds, value_info

_METHODS = {"minmax": 0, "percentile": 1, "entropy": 2, "mse": 3}
_MODE_DYNAMIC = 1


class Quantizer:
    """One model being quantized (internal; used through quantize() and Model). `static`:
    calibrated activations (QDQ), else dynamic (MatMul weights int8, activations quantized at
    run time)."""

    def __init__(self, path, model_opts, static, per_channel=True, method="minmax",
                 percentile=99.999, exclude=()):
        L = lib()
        self.q = None
        qo = c_obj_p()
        check(L.ember_quantize_options_create(ctypes.byref(qo)))
        try:
            if not static:
                check(L.ember_quantize_options_set_mode(qo, _MODE_DYNAMIC))
            check(L.ember_quantize_options_set_per_channel(qo, bool(per_channel)))
            check(L.ember_quantize_options_set_method(qo, _choice("method", method, _METHODS),
                                                      float(percentile)))
            for name in ([exclude] if isinstance(exclude, str) else exclude):
                check(L.ember_quantize_options_add_exclude(qo, str(name).encode()))
            q = c_obj_p()
            check(L.ember_quantizer_create(os.fsencode(path), model_opts, qo, ctypes.byref(q)))
            self.q = q.value
        finally:
            L.ember_quantize_options_destroy(qo)
        m = L.ember_quantizer_model(self.q)
        self.inputs = [value_info(L, m, True, i) for i in range(L.ember_model_input_count(m))]
        self.codes = [L.ember_model_input_dtype(m, i) for i in range(len(self.inputs))]
        self.index = {v.name: i for i, v in enumerate(self.inputs)}

    def calibrate(self, batches):
        """Adds each batch (feeds as Model.run takes them) to the observed ranges."""
        L = lib()
        for k, feeds in enumerate(batches):
            try:
                values = order_feeds(self.inputs, self.index, feeds)
            except InvalidArgument as e:
                raise InvalidArgument("calibration batch %d: %s" % (k, e)) from None
            with _Feeds() as fd:
                ins = (c_obj_p * max(len(values), 1))()
                for i, v in enumerate(values):
                    ins[i] = fd.value(v, self.inputs[i], self.codes[i])
                check(L.ember_quantizer_add_batch(self.q, ins, len(values)))

    @property
    def batches(self):
        return lib().ember_quantizer_batch_count(self.q)

    def load_cache(self, path):
        check(lib().ember_quantizer_load_calibration(self.q, os.fsencode(path)))

    def save_cache(self, path):
        check(lib().ember_quantizer_save_calibration(self.q, os.fsencode(path)))

    def save_onnx(self, path):
        check(lib().ember_quantizer_save_onnx(self.q, os.fsencode(path)))

    def load_model(self, model_opts):
        m = c_obj_p()
        check(lib().ember_quantizer_load_model(self.q, model_opts, ctypes.byref(m)))
        return m.value

    def close(self):
        q, self.q = self.q, None
        if q:
            lib().ember_quantizer_destroy(q)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def quantize(source, output, *, calibration=None, calibration_cache=None,
             save_calibration=None, per_channel=True, method="minmax", percentile=99.999,
             exclude=(), shapes=None, dims=None, input_ranks=None):
    """Quantizes the fp32 model file `source` (ONNX or TorchScript) to int8 and writes it to
    `output` as a QDQ ONNX file (opset 21; whole or not at all), as `ember quantize` does.

    Static when `calibration` (an iterable of feeds, each as Model.run takes them) or
    `calibration_cache` (a file written by `save_calibration` or `ember quantize
    --calibration-cache`) is given, else dynamic. `method`: "minmax", "percentile" (with
    `percentile`), "entropy" or "mse"; `per_channel` weights; `exclude`: node names or op
    types left in fp32. `shapes` / `dims` / `input_ranks` as for Model (a TorchScript model
    needs its input ranks). Returns the number of calibration batches used."""
    from ._model import Model
    L = lib()
    opts = Model._load_options(L, "all", "auto", shapes, dims, input_ranks, True)
    try:
        static = calibration is not None or calibration_cache is not None
        with Quantizer(os.fspath(source), opts, static, per_channel, method, percentile,
                       exclude) as q:
            if calibration_cache is not None:
                q.load_cache(calibration_cache)
            if calibration is not None:
                q.calibrate(calibration)
            if save_calibration is not None:
                q.save_cache(save_calibration)
            q.save_onnx(os.fspath(output))
            return q.batches
    finally:
        L.ember_model_options_destroy(opts)
