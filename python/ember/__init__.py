# SPDX-License-Identifier: Apache-2.0
"""ember: a neural-network inference runtime (ONNX and TorchScript models), from Python.

    import ember, numpy as np
    with ember.Model("model.onnx", threads=2) as m:
        print(m.inputs, m.outputs)
        y = m.run({"input": np.zeros((1, 3, 224, 224), np.float32)})

The package calls libember's C API (include/ember.h) through ctypes; see python/README.md for
where it finds the library.
"""
from ._errors import (DeviceError, Error, InternalError, InvalidArgument, InvalidModel,
                      IoError, LibraryNotFound, OutOfMemory, StateError, Unsupported)
from ._lib import find_library, library_path
from ._model import Model, ProfileEvent, ValueInfo
from ._quantize import quantize

__version__ = "0.1.0"

__all__ = ["Model", "quantize", "ValueInfo", "ProfileEvent", "Error", "InvalidArgument", "InvalidModel", "Unsupported",
           "OutOfMemory", "IoError", "DeviceError", "StateError", "InternalError",
           "LibraryNotFound", "library_version", "build_info", "find_library",
           "library_path", "__version__"]


def library_version():
    """The version of the loaded libember, e.g. "0.1.0" (the package's is __version__)."""
    from ._lib import lib, text
    return text(lib().ember_version_string())


def build_info():
    """What the loaded libember contains, as a dict of its `key=value` tokens (version, isa,
    backends, cuda, ...; ember_build_info() in ember.h)."""
    from ._lib import lib, text
    out = {}
    for tok in text(lib().ember_build_info()).split():
        k, _, v = tok.partition("=")
        out[k] = v
    return out
