# SPDX-License-Identifier: Apache-2.0
"""ember_dtype <-> NumPy dtype.

The standard types map to NumPy's own. bfloat16 and the 8/6/4/2-bit types (ember stores one
element per byte, the bit pattern in the low bits, ember.h section 3) map to ml_dtypes'
types, which store them the same way, when ml_dtypes is installed; without it they travel as
their raw bit patterns (uint16 for bfloat16, uint8 for the others): outputs come back so,
and an input declared with such a type accepts them.
"""
import numpy as np

import os

_mld = None
if not os.environ.get("EMBER_NO_ML_DTYPES"):  # set: the raw bit patterns (tests both ways)
    try:  # optional: exact NumPy types for bfloat16 and the low-precision formats
        import ml_dtypes as _mld
    except ImportError:  # pragma: no cover - depends on the environment
        _mld = None

STRING = 8
BOOL = 9

# code: (ember name, NumPy dtype or None, ml_dtypes attribute or None, raw NumPy dtype)
_TABLE = {
    1: ("f32", np.float32, None, None),
    2: ("u8", np.uint8, None, None),
    3: ("i8", np.int8, None, None),
    4: ("u16", np.uint16, None, None),
    5: ("i16", np.int16, None, None),
    6: ("i32", np.int32, None, None),
    7: ("i64", np.int64, None, None),
    8: ("string", np.object_, None, None),
    9: ("bool", np.bool_, None, None),
    10: ("f16", np.float16, None, None),
    11: ("f64", np.float64, None, None),
    12: ("u32", np.uint32, None, None),
    13: ("u64", np.uint64, None, None),
    16: ("bf16", None, "bfloat16", np.uint16),
    17: ("f8e4m3fn", None, "float8_e4m3fn", np.uint8),
    18: ("f8e4m3fnuz", None, "float8_e4m3fnuz", np.uint8),
    19: ("f8e5m2", None, "float8_e5m2", np.uint8),
    20: ("f8e5m2fnuz", None, "float8_e5m2fnuz", np.uint8),
    21: ("u4", None, "uint4", np.uint8),
    22: ("i4", None, "int4", np.uint8),
    23: ("f4e2m1", None, "float4_e2m1fn", np.uint8),
    24: ("f8e8m0", None, "float8_e8m0fnu", np.uint8),
    25: ("u2", None, "uint2", np.uint8),
    26: ("i2", None, "int2", np.uint8),
    27: ("f6e2m3", None, "float6_e2m3fn", np.uint8),
    28: ("f6e3m2", None, "float6_e3m2fn", np.uint8),
}


def _exact(code):
    """The NumPy dtype that holds `code` exactly, or None (ml_dtypes missing)."""
    _, npt, mld, _ = _TABLE[code]
    if npt is not None:
        return np.dtype(npt)
    if _mld is not None and hasattr(_mld, mld):
        return np.dtype(getattr(_mld, mld))
    return None


_TO_NUMPY = {}   # code -> dtype outputs get (exact, else raw)
_FROM_NUMPY = {}  # NumPy dtype -> code (exact types only)
for _code, (_n, _npt, _m, _raw) in _TABLE.items():
    _ex = _exact(_code)
    _TO_NUMPY[_code] = _ex if _ex is not None else np.dtype(_raw)
    if _ex is not None and _code != STRING:
        _FROM_NUMPY.setdefault(_ex, _code)


def name(code):
    """ember's short name of a dtype code ("f32", "i64", ...), "?" for an unknown one."""
    entry = _TABLE.get(code)
    return entry[0] if entry else "?"


def to_numpy(code):
    """The NumPy dtype arrays of ember dtype `code` have (object for strings); None if unknown."""
    return _TO_NUMPY.get(code)


_RAW = {code: np.dtype(e[3]) for code, e in _TABLE.items() if e[3] is not None}


def raw(code):
    """The raw NumPy dtype holding `code`'s bit patterns, or None for a standard type."""
    return _RAW.get(code)


def from_numpy(dtype, declared=0):
    """The ember code for arrays of NumPy `dtype` fed to an input declared as `declared`
    (0: unknown), or None when ember has no such type. Text (str, bytes, object) is STRING;
    the raw bit-pattern dtype of a declared bf16 / low-precision input is that input's type."""
    if not isinstance(dtype, np.dtype):
        dtype = np.dtype(dtype)
    rw = _RAW.get(declared)
    if rw is not None and dtype == rw:
        return declared
    code = _FROM_NUMPY.get(dtype)
    if code is None and dtype.kind in "USO":
        return STRING
    return code


def from_name(dtype):
    """The ember code of an ember dtype name ("bf16", "f32", ...) or of a NumPy dtype; None
    when neither."""
    if isinstance(dtype, str):
        for code, entry in _TABLE.items():
            if entry[0] == dtype:
                return code
    try:
        return from_numpy(dtype)
    except TypeError:
        return None


def has_ml_dtypes():
    return _mld is not None
