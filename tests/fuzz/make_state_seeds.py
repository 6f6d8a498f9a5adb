#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Seeds of fuzz_train_state: optimizer states of the harness's trainer (the built-in model,
Adam, conv1.bias [8] and fc2.bias [10]) in the layout ember_trainer_save_state writes
(runtime/api/train.c), plus an SGD one (refused: another optimizer) and the parameters in the
other order.   usage: python3 tests/fuzz/make_state_seeds.py [OUT_DIR]"""
import os
import struct
import sys


def state(kind, steps, params, n_buf):
    b = b"EMBEROPT" + struct.pack("<IIqI", 1, kind, steps, len(params))
    for name, n in params:
        b += struct.pack("<I", len(name)) + name.encode() + struct.pack("<Iq", 1, n)
        b += struct.pack("<I", n_buf)
        for k in range(n_buf):
            b += struct.pack("<%df" % n, *[(i + 1) * 0.01 * (k + 1) for i in range(n)])
    return b


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "corpus", "fuzz_train_state")
    os.makedirs(out, exist_ok=True)
    params = [("conv1.bias", 8), ("fc2.bias", 10)]
    seeds = {"adam_3_steps": state(1, 3, params, 2),
             "adam_reordered": state(1, 7, params[::-1], 2),
             "sgd_other_optimizer": state(0, 2, params, 1)}
    for name, data in seeds.items():
        with open(os.path.join(out, name + ".bin"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
