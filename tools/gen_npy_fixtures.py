#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generates the .npy test fixtures (committed; the tests never run Python).

  tests/data/npy/        reference files written by numpy (needs numpy): one per dtype,
                         ranks 0..4, a zero-sized dim, format versions 2.0 and 3.0.
  tests/data/npy_bad/    malformed files (plain Python): each must be rejected cleanly.
  tests/fuzz/corpus/npy/ the fuzzer's seed corpus: a few of each.

Element i (flat, C order) of every reference file has a value the C test recomputes
(tests/loaders/test_npy.c, expected_*):
  float kinds:    i * 0.5 - 1.25
  signed ints:    (3 * i - 7) * scale      scale: i1 1, i2 100, i4 100000, i8 10**12
  unsigned ints:  3 * i * scale + 1        scale: u1 1, u2 100, u4 10**7, u8 10**17
  bool:           i % 3 == 0

Usage: python3 tools/gen_npy_fixtures.py   (from anywhere; paths are relative to the repo)
"""
import os
import shutil
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOOD = os.path.join(ROOT, "tests", "data", "npy")
BAD = os.path.join(ROOT, "tests", "data", "npy_bad")
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus", "npy")

SIGNED_SCALE = {1: 1, 2: 100, 4: 100000, 8: 10**12}
UNSIGNED_SCALE = {1: 1, 2: 100, 4: 10**7, 8: 10**17}

# (file name, descr, shape, format version)
REFERENCE = [
    ("f32_2x3.npy", "<f4", (2, 3), (1, 0)),
    ("f64_scalar.npy", "<f8", (), (1, 0)),
    ("f16_5.npy", "<f2", (5,), (1, 0)),
    ("i8_4.npy", "|i1", (4,), (1, 0)),
    ("i16_2x2.npy", "<i2", (2, 2), (1, 0)),
    ("i32_3x1x2.npy", "<i4", (3, 1, 2), (1, 0)),
    ("i64_2x3.npy", "<i8", (2, 3), (1, 0)),
    ("u8_7.npy", "|u1", (7,), (1, 0)),
    ("u16_3.npy", "<u2", (3,), (1, 0)),
    ("u32_2x2.npy", "<u4", (2, 2), (1, 0)),
    ("u64_3.npy", "<u8", (3,), (1, 0)),
    ("bool_2x3.npy", "|b1", (2, 3), (1, 0)),
    ("f32_0x3.npy", "<f4", (0, 3), (1, 0)),
    ("f32_1x2x2x3.npy", "<f4", (1, 2, 2, 3), (1, 0)),
    ("f32_2x2_v2.npy", "<f4", (2, 2), (2, 0)),
    ("i32_3_v3.npy", "<i4", (3,), (3, 0)),
]


def reference_array(np, descr, shape):
    dt = np.dtype(descr)
    n = int(np.prod(shape)) if shape else 1
    i = np.arange(n, dtype=np.int64)
    if dt.kind == "f":
        v = (i * 0.5 - 1.25).astype(dt)
    elif dt.kind == "i":
        v = ((3 * i - 7) * SIGNED_SCALE[dt.itemsize]).astype(dt)
    elif dt.kind == "u":
        v = (i.astype(np.uint64) * np.uint64(3 * UNSIGNED_SCALE[dt.itemsize]) + np.uint64(1))
        v = v.astype(dt)
    else:
        v = i % 3 == 0
    return v.reshape(shape)


def write_reference():
    import numpy as np
    from numpy.lib import format as npformat

    os.makedirs(GOOD, exist_ok=True)
    for name, descr, shape, version in REFERENCE:
        a = reference_array(np, descr, shape)
        with open(os.path.join(GOOD, name), "wb") as f:
            if version == (1, 0):
                np.save(f, a)
            else:
                npformat.write_array(f, a, version=version)


def npy(header, data=b"", version=(1, 0), pad=True, length=None):
    """A .npy image with `header` (str) as its dict text, padded as numpy does."""
    h = header.encode("latin1")
    pre = 10 if version[0] == 1 else 12
    if pad:
        h += b" " * (63 - (pre + len(h)) % 64) + b"\n"
    n = len(h) if length is None else length
    fmt = "<H" if version[0] == 1 else "<I"
    return b"\x93NUMPY" + bytes(version) + struct.pack(fmt, n) + h + data


def d(descr="'<f4'", fortran="False", shape="(2,)"):
    return "{'descr': %s, 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape)


F4x2 = struct.pack("<2f", 1.0, 2.0)

MALFORMED = {
    "empty.npy": b"",
    "magic_prefix.npy": b"\x93NUM",
    "bad_magic.npy": b"\x93NUMPZ\x01\x00" + npy(d(), F4x2)[8:],
    "zip_magic.npy": b"PK\x03\x04" + b"\x00" * 60,
    "no_header_len.npy": b"\x93NUMPY\x01\x00\x10",
    "v2_no_header_len.npy": b"\x93NUMPY\x02\x00\x10\x00\x00",
    "version_4.npy": npy(d(), F4x2, version=(4, 0)),
    "version_1_1.npy": npy(d(), F4x2, version=(1, 1)),
    "header_past_end.npy": npy(d(), F4x2, length=4000),
    "v2_header_past_end.npy": npy(d(), F4x2, version=(2, 0), length=0xFFFFFFFF),
    "header_len_zero.npy": npy(d(), F4x2, length=0),
    "header_cut.npy": npy(d(), F4x2)[:40],
    "not_a_dict.npy": npy("[1, 2, 3]", F4x2),
    "unclosed_dict.npy": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), ", F4x2),
    "no_shape.npy": npy("{'descr': '<f4', 'fortran_order': False, }", F4x2),
    "no_descr.npy": npy("{'fortran_order': False, 'shape': (2,), }", F4x2),
    "no_fortran.npy": npy("{'descr': '<f4', 'shape': (2,), }", F4x2),
    "duplicate_key.npy": npy("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
                             "'shape': (2,), }", F4x2),
    "unknown_key.npy": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), "
                           "'extra': 1, }", F4x2),
    "unterminated_string.npy": npy("{'descr': '<f4", F4x2),
    "key_not_string.npy": npy("{descr: '<f4', 'fortran_order': False, 'shape': (2,), }", F4x2),
    "missing_colon.npy": npy("{'descr' '<f4', 'fortran_order': False, 'shape': (2,), }", F4x2),
    "fortran_int.npy": npy(d(fortran="0"), F4x2),
    "fortran_truex.npy": npy(d(fortran="Truex"), F4x2),
    "fortran.npy": npy(d(fortran="True", shape="(1, 2)"), F4x2),
    "big_endian.npy": npy(d(descr="'>f4'"), struct.pack(">2f", 1.0, 2.0)),
    "unknown_dtype.npy": npy(d(descr="'<c8'"), F4x2 * 2),
    "empty_descr.npy": npy(d(descr="''"), F4x2),
    "descr_not_string.npy": npy(d(descr="4"), F4x2),
    "structured.npy": npy(d(descr="[('a', '<f4')]"), F4x2),
    "object_dtype.npy": npy(d(descr="'|O'"), F4x2),
    "shape_not_tuple.npy": npy(d(shape="(2)"), F4x2),
    "shape_list.npy": npy(d(shape="[2]"), F4x2),
    "shape_garbage.npy": npy(d(shape="(2, x)"), F4x2),
    "shape_float.npy": npy(d(shape="(2.0,)"), F4x2),
    "shape_lonely_comma.npy": npy(d(shape="(,)"), F4x2),
    "rank_9.npy": npy(d(shape="(1, 1, 1, 1, 1, 1, 1, 1, 2)"), F4x2),
    "negative_dim.npy": npy(d(shape="(-2,)"), F4x2),
    "dim_overflows_int64.npy": npy(d(shape="(99999999999999999999,)"), F4x2),
    "numel_overflows.npy": npy(d(shape="(4294967296, 4294967296)"), F4x2),
    "bytes_overflow.npy": npy(d(shape="(4611686018427387904,)"), F4x2),
    "truncated_data.npy": npy(d(shape="(3, 4)"), F4x2),
    "huge_claim.npy": npy(d(shape="(1000000000, 1000)"), F4x2),
    "text_after_dict.npy": npy(d() + " junk", F4x2),
    "nul_in_header.npy": npy(d() + "\0", F4x2),
    "escape_in_descr.npy": npy(d(descr="'<f\\x34'"), F4x2),
}

# Seeds for the fuzzer: some reference files and some malformed ones.
CORPUS_GOOD = ["f32_2x3.npy", "f64_scalar.npy", "bool_2x3.npy", "f32_0x3.npy",
               "f32_2x2_v2.npy", "i32_3_v3.npy", "u64_3.npy"]
CORPUS_BAD = ["fortran.npy", "big_endian.npy", "truncated_data.npy", "header_past_end.npy",
              "structured.npy", "rank_9.npy", "shape_not_tuple.npy"]


def main():
    try:
        write_reference()
        have_numpy = True
    except ImportError:
        print("numpy not found: tests/data/npy/ left as is", file=sys.stderr)
        have_numpy = False
    os.makedirs(BAD, exist_ok=True)
    for name, blob in sorted(MALFORMED.items()):
        with open(os.path.join(BAD, name), "wb") as f:
            f.write(blob)
    os.makedirs(CORPUS, exist_ok=True)
    if have_numpy:
        for name in CORPUS_GOOD:
            shutil.copyfile(os.path.join(GOOD, name), os.path.join(CORPUS, name))
    for name in CORPUS_BAD:
        shutil.copyfile(os.path.join(BAD, name), os.path.join(CORPUS, "bad_" + name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
