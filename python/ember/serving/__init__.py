# SPDX-License-Identifier: Apache-2.0
"""ember inside Open Inference Protocol (KServe V2) servers.

    ember.serving.mlserver.EmberRuntime   an MLServer runtime (mlserver.MLModel)
    ember.serving.kserve.EmberModel       a KServe model server model (kserve.Model)

Both read the same options (`model_options`) and share the V2 <-> NumPy mapping of this
module; the servers' own packages are imported only by their submodule.
"""
import numpy as np

from .._errors import InvalidArgument
from .._model import Model
from ..serve import _V2, _v2_datatype, _v2_shape

# The V2 datatype mapping of ember.serve (ember dtype name -> V2 datatype, shapes with -1 for
# symbolic dims), shared by the runtimes.
V2_DATATYPE = _V2
v2_datatype = _v2_datatype
v2_shape = _v2_shape

# Keys a model's settings may give (MLServer: parameters.extra; KServe: keyword arguments),
# as ember.Model's keyword arguments.
OPTIONS = ("threads", "precision", "device", "isa", "memory_limit", "optimize", "int8",
           "shapes", "dims", "verify_checksums", "calibration_cache")


def model_options(extra, where):
    """ember.Model keyword arguments from a settings dict; unknown keys are an error naming
    them (a typo should not be silently ignored)."""
    extra = dict(extra or {})
    bad = sorted(k for k in extra if k not in OPTIONS)
    if bad:
        raise InvalidArgument("%s: unknown ember option%s %s; known: %s"
                              % (where, "s" if len(bad) > 1 else "", ", ".join(bad),
                                 ", ".join(OPTIONS)))
    if "threads" in extra:
        extra["threads"] = int(extra["threads"])
    return extra


def open_model(uri, extra, where):
    """An ember.Model for a model file or "builtin" / "builtin:NAME" (the library's own)."""
    opts = model_options(extra, where)
    if uri in ("builtin", "builtin:") or str(uri).startswith("builtin:"):
        name = str(uri).partition(":")[2] or "default"
        return Model.builtin(name, **opts)
    return Model(uri, **opts)


def is_builtin(uri):
    return isinstance(uri, str) and (uri == "builtin" or uri.startswith("builtin:"))


def decode_inputs(inputs, declared, read):
    """{input name: array} from a V2 request's inputs: each must be one of the model's
    (`declared`: name -> ValueInfo) and come once; `read(inp, datatype)` returns its data as a
    flat array (a TypeError / ValueError / OverflowError there is a 400 naming the input), which
    `inp.shape` then shapes."""
    feeds = {}
    for inp in inputs:
        if inp.name not in declared:
            raise InvalidArgument("no input named '%s'; the model's inputs: %s"
                                  % (inp.name, ", ".join(declared)))
        if inp.name in feeds:
            raise InvalidArgument("input '%s' given twice" % inp.name)
        datatype = getattr(inp.datatype, "value", inp.datatype)
        try:
            flat = read(inp, datatype)
        except (TypeError, ValueError, OverflowError) as e:
            raise InvalidArgument("input '%s': data do not read as %s: %s"
                                  % (inp.name, datatype, e)) from None
        feeds[inp.name] = reshape(inp.name, flat, list(inp.shape))
    return feeds


def reshape(name, flat, shape):
    """`flat` (array or list) as `shape`, or InvalidArgument saying what does not fit."""
    if not isinstance(shape, (list, tuple)) or not all(
            isinstance(d, (int, np.integer)) and d >= 0 for d in shape):
        raise InvalidArgument("input '%s': 'shape' must be a list of sizes, got %r"
                              % (name, shape))
    arr = flat if isinstance(flat, np.ndarray) else np.array(flat, dtype=object)
    n = int(np.prod(shape, dtype=np.int64)) if len(shape) else 1
    if arr.size != n:
        raise InvalidArgument("input '%s': %d data elements for shape %s (%d elements)"
                              % (name, arr.size, list(shape), n))
    return arr.reshape(tuple(int(d) for d in shape))

