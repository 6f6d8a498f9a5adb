# SPDX-License-Identifier: Apache-2.0
"""Issue #23: the int8 models bench/arm_insns.sh counts, made with ONNX Runtime's reference
quantizer (quantize_static, QDQ, per-channel s8 weights, u8 activations, MinMax), calibrated
on the model's input.npy and 3 standard-normal images (seed 0).
Run with the ORT venv: python bench/arm_insns_qdq.py SRC.onnx INPUT.npy OUT.onnx"""
import os
import sys
import tempfile

import numpy as np
import onnx
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                      quantize_static)
from onnxruntime.quantization.shape_inference import quant_pre_process


class Reader(CalibrationDataReader):
    def __init__(self, name, first):
        rng = np.random.default_rng(0)
        self.data = [first] + [rng.standard_normal(first.shape).astype(np.float32)
                               for _ in range(3)]
        self.name, self.i = name, 0

    def get_next(self):
        if self.i >= len(self.data):
            return None
        self.i += 1
        return {self.name: self.data[self.i - 1]}


def main():
    src, inp, out = sys.argv[1:4]
    x = np.load(inp).astype(np.float32)
    with tempfile.TemporaryDirectory() as d:
        pre = os.path.join(d, "pre.onnx")
        quant_pre_process(src, pre)
        name = onnx.load(pre).graph.input[0].name
        quantize_static(pre, out, Reader(name, x), quant_format=QuantFormat.QDQ,
                        per_channel=True, activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QInt8)
    print(out)


if __name__ == "__main__":
    main()
