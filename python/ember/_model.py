# SPDX-License-Identifier: Apache-2.0
"""ember.Model: a loaded model and its session, run on NumPy arrays."""
import ctypes
import os
import threading
from collections import namedtuple

import numpy as np

from . import _dtypes
from ._errors import InvalidArgument, StateError, Unsupported, from_code
from ._lib import c_obj_p, finalizing, lib, text

_KINDS = ("tensor", "sequence", "optional", "optional_sequence")
_DEVICES = {"cpu": 0, "cuda": 1}
_PRECISIONS = {"fp32": 0, "fp16": 1, "int8": 2, "bf16": 3}
_PREC_FP16, _PREC_INT8, _PREC_BF16 = 1, 2, 3
_OPTIMIZE = {"none": 0, "basic": 1, "all": 2, "fold": 3}
_INT8 = {"auto": 0, "on": 1, "off": 2}
_VALUE_TENSOR, _VALUE_SEQUENCE, _VALUE_NONE = 0, 1, 2


class ProfileEvent(namedtuple("ProfileEvent", "node op kernel start_ns dur_ns run thread")):
    """One node of one run of a session created with profiling=True: `start_ns` counts from
    the session's creation; `run` is the run's sequence number; `thread` a small thread id."""
    __slots__ = ()


class ValueInfo(namedtuple("ValueInfo", "name dtype dtype_name shape kind")):
    """A declared input or output: `name`; `dtype`, the NumPy dtype its arrays have (object for
    strings; the raw bit-pattern dtype for bfloat16 / low-precision types without ml_dtypes);
    `dtype_name`, ember's name ("f32", "bf16", ...); `shape`, a tuple whose entries are ints,
    the name of a symbolic dim ("batch") or None for an unknown one, or None when even the rank
    is unknown; `kind`: "tensor", "sequence", "optional" or "optional_sequence"."""
    __slots__ = ()


def check(st):
    """Raises the ember.Error for a non-NULL status (freeing it), else returns."""
    if not st:
        return
    L = lib()
    code = L.ember_status_code(st)
    message = text(L.ember_status_message(st))
    code_name = text(L.ember_code_name(code))
    L.ember_status_destroy(st)
    raise from_code(code, code_name, message)


def _choice(what, value, table):
    if isinstance(value, int) and not isinstance(value, bool) and value in table.values():
        return value
    try:
        return table[value]
    except (KeyError, TypeError):
        raise InvalidArgument("%s: %r is not one of %s" % (what, value, ", ".join(table))) \
            from None


_I64 = [ctypes.c_int64 * max(n, 1) for n in range(9)]  # dims arrays by rank (types cached)


def _dims(shape):
    shape = tuple(int(d) for d in shape)
    if len(shape) > 8:
        raise InvalidArgument("a shape of rank %d: ember's limit is 8" % len(shape))
    return _I64[len(shape)](*shape), len(shape)


def _address(arr):
    """The address of a C-contiguous array's data (the buffer protocol is the quickest way;
    NumPy's ctypes attribute where it does not apply: read-only arrays, ml_dtypes types)."""
    if arr.nbytes and arr.flags.writeable:
        try:
            return ctypes.addressof(ctypes.c_char.from_buffer(arr))
        except (TypeError, ValueError, BufferError):
            pass
    return arr.ctypes.data


class _TensorBuffer:
    """Owns one ember_tensor whose memory a NumPy array views (zero-copy outputs): the array
    keeps this object as its base, and the tensor is destroyed once, when the last view goes."""
    __slots__ = ("_t", "__array_interface__", "__weakref__")

    def __init__(self, t, shape, typestr, data):
        self._t = t
        self.__array_interface__ = {"version": 3, "shape": shape, "typestr": typestr,
                                    "data": (data, False)}

    def __del__(self):
        t, self._t = self._t, None
        if t and not finalizing():
            lib().ember_tensor_destroy(t)


def _tensor_to_numpy(t, owned):
    """A NumPy array of the dense tensor `t`. With `owned`, the array takes `t` over (viewing
    its memory, no copy) and destroys it when collected; otherwise the data are copied."""
    L = lib()
    code = L.ember_tensor_dtype(t)
    rank = L.ember_tensor_rank(t)
    dp = L.ember_tensor_dims(t)
    shape = tuple(dp[:rank])
    if code == _dtypes.STRING:
        n = L.ember_tensor_elem_count(t)
        flat = np.empty(n, dtype=object)
        for i in range(n):
            flat[i] = text(L.ember_tensor_string(t, i))
        if owned:
            L.ember_tensor_destroy(t)
        return flat.reshape(shape)
    dtype = _dtypes.to_numpy(code)
    if dtype is None:
        if owned:
            L.ember_tensor_destroy(t)
        raise InvalidArgument("an output has dtype %d, which this package does not know" % code)
    rw = _dtypes.raw(code)  # bfloat16 / low-precision: read the bit patterns, then view
    store = rw if rw is not None else dtype
    data = L.ember_tensor_data(t)
    nbytes = L.ember_tensor_nbytes(t)
    if not data or nbytes == 0:
        arr = np.zeros(shape, dtype=store)
        if owned:
            L.ember_tensor_destroy(t)
    elif owned:
        arr = np.asarray(_TensorBuffer(t, shape, store.str, data))
    else:
        buf = (ctypes.c_char * nbytes).from_address(data)
        arr = np.frombuffer(buf, dtype=store).reshape(shape).copy()
    return arr.view(dtype) if dtype != store else arr


def _value_to_python(t, declared_kind):
    """Takes over the output handle `t`: an array, a list of arrays (sequence) or None."""
    L = lib()
    kind = _VALUE_TENSOR if declared_kind == "tensor" else L.ember_tensor_kind(t)
    if kind == _VALUE_TENSOR:
        return _tensor_to_numpy(t, owned=True)
    try:
        if kind == _VALUE_NONE:
            return None
        return [_tensor_to_numpy(L.ember_sequence_item(t, i), owned=False)
                for i in range(L.ember_sequence_length(t))]
    finally:
        L.ember_tensor_destroy(t)


class _Feeds:
    """The input handles of one run; frees them (not the NumPy memory they wrap) at exit."""

    def __init__(self):
        self.handles = []
        self.keep = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        L = lib()
        for h in self.handles:
            L.ember_tensor_destroy(h)
        self.handles = []
        self.keep = []

    def _own(self, h):
        self.handles.append(h)
        return h

    def tensor(self, value, declared, where):
        """A handle for a dense tensor: wraps the array's memory when its dtype is ember's and
        it is C-contiguous and aligned, else a contiguous copy is wrapped."""
        L = lib()
        if isinstance(value, np.ndarray):
            arr = value
        else:
            want = _dtypes.to_numpy(declared) if declared else None
            if want is not None and want.kind == "O":
                want = None
            try:
                arr = np.asarray(value, dtype=want)
            except (TypeError, ValueError) as e:
                raise InvalidArgument("%s: cannot be made an array: %s" % (where, e)) from None
        code = _dtypes.from_numpy(arr.dtype, declared)
        if code is None:
            raise InvalidArgument("%s: NumPy dtype %s has no ember dtype" % (where, arr.dtype))
        if arr.ndim > 8:
            raise InvalidArgument("%s: rank %d is above ember's limit of 8" % (where, arr.ndim))
        rank = arr.ndim
        dims = _I64[rank](*arr.shape)
        out = c_obj_p()
        if code == _dtypes.STRING:
            flat = arr.reshape(-1)
            items = [(x if isinstance(x, bytes) else str(x).encode("utf-8")) for x in flat]
            strs = (ctypes.c_char_p * max(len(items), 1))(*items)
            check(L.ember_tensor_create_strings(dims, rank, strs, ctypes.byref(out)))
            return self._own(out.value)
        if not (arr.flags.c_contiguous and arr.flags.aligned):
            arr = np.ascontiguousarray(arr)
        self.keep.append(arr)
        check(L.ember_tensor_wrap(code, dims, rank, _address(arr), arr.nbytes,
                                  ctypes.byref(out)))
        return self._own(out.value)

    def value(self, value, info, declared):
        """A handle for one input as the model declares it (tensor, sequence, optional)."""
        L = lib()
        kind = info.kind
        where = "input '%s'" % info.name
        if value is None:
            if kind not in ("optional", "optional_sequence"):
                raise InvalidArgument("%s: None given for an input that is not optional" % where)
            out = c_obj_p()
            check(L.ember_optional_none_create(declared, ctypes.byref(out)))
            return self._own(out.value)
        if kind in ("sequence", "optional_sequence"):
            if isinstance(value, np.ndarray) or not hasattr(value, "__iter__"):
                raise InvalidArgument("%s: the model takes a sequence: pass a list of arrays"
                                      % where)
            items = [self.tensor(v, declared, "%s item %d" % (where, i))
                     for i, v in enumerate(value)]
            arr = (c_obj_p * max(len(items), 1))(*items)
            out = c_obj_p()
            check(L.ember_sequence_create(declared, arr, len(items), ctypes.byref(out)))
            return self._own(out.value)
        return self.tensor(value, declared, where)


def value_info(L, m, is_input, i):
    """The ValueInfo of input or output `i` of the ember_model `m`."""
    pre = "ember_model_input_" if is_input else "ember_model_output_"
    name = text(getattr(L, pre + "name")(m, i))
    code = getattr(L, pre + "dtype")(m, i)
    kind = _KINDS[getattr(L, pre + "type")(m, i)]
    dims = (ctypes.c_int64 * 8)()
    rank = getattr(L, pre + "shape")(m, i, dims, 8)
    shape = None
    if rank >= 0:
        dim_name = getattr(L, pre + "dim_name")
        shape = tuple(int(dims[d]) if dims[d] >= 0 else text(dim_name(m, i, d))
                      for d in range(rank))
    return ValueInfo(name, _dtypes.to_numpy(code), _dtypes.name(code), shape, kind)


def order_feeds(inputs, index, feeds):
    """`feeds` (a dict by name, a list in positional order, or a bare array for a one-input
    model) as a list in the order of `inputs` (ValueInfos; `index`: name -> position)."""
    names = [v.name for v in inputs]
    if isinstance(feeds, dict):
        extra = [k for k in feeds if k not in index]
        if extra:
            raise InvalidArgument("run: no input named %s; the model's inputs: %s"
                                  % (", ".join(repr(k) for k in extra), ", ".join(names)))
        missing = [n for n in names if n not in feeds]
        missing = [n for n in missing
                   if inputs[index[n]].kind not in ("optional", "optional_sequence")]
        if missing:
            raise InvalidArgument("run: missing input %s; the model's inputs: %s"
                                  % (", ".join(repr(n) for n in missing), ", ".join(names)))
        return [feeds.get(n) for n in names]
    if isinstance(feeds, (list, tuple)):
        if len(feeds) != len(names):
            raise InvalidArgument("run: %d inputs given, the model takes %d (%s)"
                                  % (len(feeds), len(names), ", ".join(names)))
        return list(feeds)
    if len(names) == 1:
        return [feeds]
    raise InvalidArgument("run: feeds must be a dict {input name: array}; the model's "
                          "inputs: %s" % ", ".join(names))


class Model:
    """A model loaded by ember, with one session to run it.

    `source`: a file path (ONNX or TorchScript, told apart by content) or the model's bytes.
    `precision`: "fp32"; "fp16" / "bf16" hold the large packed weights in half precision
    (arithmetic stays fp32; `ember run --precision fp16`); "int8" quantizes the model file at
    load (`ember run --precision int8`): static with `calibration` (an iterable of feeds as
    run() takes them) or `calibration_cache` (a file of ranges), else dynamic.
    Session options: `threads` (0: one per core), `device` ("cpu", "cuda"), `isa` (cap: "scalar", "avx2", "avx512", "native"),
    `memory_limit` (bytes per run's arena, 0: none), `profiling` (record per-node timings:
    profile()). Load options: `optimize` ("all", "basic",
    "fold", "none"), `int8` ("auto", "on", "off": a QDQ model's integer path), `shapes`
    ({input name: dims} fixed at load, -1 keeps a dim), `dims` ({symbolic dim name: size}),
    `input_ranks` ({input index: rank or (dtype, rank)}, the dtype a NumPy dtype or ember's
    name such as "bf16"; for TorchScript models, which declare neither), `verify_checksums` (TorchScript weight CRCs).

    `run()` may be called from many threads at once; each run releases the GIL. `close()` (or
    leaving a `with` block) frees the session and model once, after runs in flight end.
    """

    def __init__(self, source, *, threads=0, precision="fp32", device="cpu", isa=None,
                 memory_limit=0, profiling=False, optimize="all", int8="auto", shapes=None, dims=None,
                 input_ranks=None, verify_checksums=True, calibration=None,
                 calibration_cache=None, _builtin=None):
        L = lib()
        self._model = None
        self._session = None
        self._cond = threading.Condition()
        self._running = 0
        self._closed = False
        prec = _choice("precision", precision, _PRECISIONS)
        if prec != _PREC_INT8 and (calibration is not None or calibration_cache is not None):
            raise InvalidArgument("Model: calibration / calibration_cache go with "
                                  "precision='int8'")
        opts = self._load_options(L, optimize, int8, shapes, dims, input_ranks,
                                  verify_checksums)
        try:
            if prec in (_PREC_FP16, _PREC_BF16):  # weights held in half (ember run --precision)
                check(L.ember_model_options_set_precision(opts, prec))
            model = c_obj_p()
            if _builtin is not None:
                self.path = None
            elif isinstance(source, (bytes, bytearray, memoryview)):
                self.path = None
            else:
                try:
                    self.path = os.fspath(source)
                except TypeError:
                    raise InvalidArgument("Model: source must be a path or the model's bytes, "
                                          "not %s" % type(source).__name__) from None
            if prec == _PREC_INT8:
                if self.path is None:
                    raise Unsupported("Model: precision='int8' quantizes a model file: give its "
                                      "path (ember.quantize() writes a quantized one)", 3,
                                      "UNSUPPORTED")
                self._model = self._quantized(L, opts, optimize, calibration, calibration_cache)
            elif _builtin is not None:
                check(L.ember_model_load_builtin(_builtin.encode(), opts, ctypes.byref(model)))
                self._model = model.value
            elif self.path is None:
                buf = bytes(source)
                check(L.ember_model_load_memory(buf, len(buf), 0, opts, ctypes.byref(model)))
                self._model = model.value
            else:
                check(L.ember_model_load_file(os.fsencode(self.path), opts,
                                              ctypes.byref(model)))
                self._model = model.value
        finally:
            L.ember_model_options_destroy(opts)
        if prec == _PREC_INT8:
            prec = 0  # the quantized model's session runs as fp32 sessions do
        try:
            self._create_session(L, threads, prec, device, isa, memory_limit, profiling)
            self._inputs = [self._info(L, True, i)
                            for i in range(L.ember_model_input_count(self._model))]
            self._outputs = [self._info(L, False, i)
                             for i in range(L.ember_model_output_count(self._model))]
        except BaseException:
            self._free()
            raise
        self._in_codes = [L.ember_model_input_dtype(self._model, i)
                          for i in range(len(self._inputs))]
        self._in_array = c_obj_p * max(len(self._inputs), 1)
        self._out_array = c_obj_p * max(len(self._outputs), 1)
        self._in_index = {v.name: i for i, v in enumerate(self._inputs)}
        self._out_index = {v.name: i for i, v in enumerate(self._outputs)}
        # run()'s fast path: every input and output a plain (non-string) tensor, and every
        # input of a standard NumPy dtype (not the raw bit patterns of bf16 and the like)
        self._fast_in = None
        if (all(v.kind == "tensor" for v in self._inputs + self._outputs)
                and all(_dtypes.raw(c) is None and c != _dtypes.STRING and
                        _dtypes.to_numpy(c) is not None for c in self._in_codes)):
            self._fast_in = tuple((v.name, np.dtype(_dtypes.to_numpy(c)), c)
                                  for v, c in zip(self._inputs, self._in_codes))

    @classmethod
    def builtin(cls, name="default", **options):
        """A model built into the library: "default" is a small MNIST-sized CNN (input "input"
        f32 [N,1,28,28], output "probs" f32 [N,10])."""
        return cls(None, _builtin=name, **options)

    # -- loading -------------------------------------------------------------------------

    def _quantized(self, L, opts, optimize, calibration, calibration_cache):
        """The model at self.path quantized at load (ember run --precision int8): static with
        calibration batches or a calibration cache, else dynamic."""
        from ._quantize import Quantizer
        static = calibration is not None or calibration_cache is not None
        with Quantizer(self.path, opts, static) as q:
            if calibration_cache is not None:
                q.load_cache(calibration_cache)
            if calibration is not None:
                q.calibrate(calibration)
            check(L.ember_model_options_set_int8(opts, _INT8["on"]))
            check(L.ember_model_options_set_graph_optimization(
                opts, _choice("optimize", optimize, _OPTIMIZE)))
            return q.load_model(opts)

    @classmethod
    def _load_options(cls, L, optimize, int8, shapes, dims, input_ranks, verify):
        """A new ember_model_options with these choices (the caller destroys it)."""
        opts = c_obj_p()
        check(L.ember_model_options_create(ctypes.byref(opts)))
        try:
            cls._set_load_options(L, opts.value, optimize, int8, shapes, dims, input_ranks,
                                  verify)
        except BaseException:
            L.ember_model_options_destroy(opts)
            raise
        return opts.value

    @staticmethod
    def _set_load_options(L, opts, optimize, int8, shapes, dims, input_ranks, verify):
        check(L.ember_model_options_set_graph_optimization(
            opts, _choice("optimize", optimize, _OPTIMIZE)))
        check(L.ember_model_options_set_int8(opts, _choice("int8", int8, _INT8)))
        check(L.ember_model_options_set_verify_checksums(opts, bool(verify)))
        for name, shape in (shapes or {}).items():
            d, rank = _dims(shape)
            check(L.ember_model_options_set_input_shape(opts, str(name).encode(), d, rank))
        for name, value in (dims or {}).items():
            check(L.ember_model_options_set_dim_value(opts, str(name).encode(), int(value)))
        for index, spec in (input_ranks or {}).items():
            dtype, rank = spec if isinstance(spec, tuple) else (np.float32, spec)
            code = _dtypes.from_name(dtype)
            if code is None:
                raise InvalidArgument("input_ranks[%r]: %r is neither an ember dtype name nor "
                                      "a NumPy dtype ember has" % (index, dtype))
            check(L.ember_model_options_set_input_rank(opts, int(index), code, int(rank)))

    def _create_session(self, L, threads, precision, device, isa, memory_limit, profiling):
        so = c_obj_p()
        check(L.ember_session_options_create(ctypes.byref(so)))
        try:
            L.ember_session_options_set_threads(so, int(threads))
            L.ember_session_options_set_precision(so, _choice("precision", precision,
                                                              _PRECISIONS))
            L.ember_session_options_set_device(so, _choice("device", device, _DEVICES))
            L.ember_session_options_set_memory_limit(so, int(memory_limit))
            L.ember_session_options_set_profiling(so, bool(profiling))
            if isa is not None:
                check(L.ember_session_options_set_isa_max(so, str(isa).encode()))
            s = c_obj_p()
            check(L.ember_session_create(self._model, so, ctypes.byref(s)))
            self._session = s.value
        finally:
            L.ember_session_options_destroy(so)

    def _info(self, L, is_input, i):
        return value_info(L, self._model, is_input, i)

    # -- what the model declares ---------------------------------------------------------

    @property
    def inputs(self):
        """The declared inputs, in positional order (a list of ValueInfo)."""
        return list(self._inputs)

    @property
    def outputs(self):
        """The declared outputs, in order (a list of ValueInfo)."""
        return list(self._outputs)

    @property
    def format(self):
        """"onnx", "torchscript" or "builtin"."""
        with self._use():
            return text(lib().ember_model_format(self._model))

    @property
    def metadata(self):
        """The model's metadata (ONNX producer, metadata_props; TorchScript module tree)."""
        L = lib()
        with self._use():
            out = {}
            k, v = ctypes.c_char_p(), ctypes.c_char_p()
            for i in range(L.ember_model_metadata_count(self._model)):
                if L.ember_model_metadata(self._model, i, ctypes.byref(k), ctypes.byref(v)):
                    out[text(k.value)] = text(v.value)
            return out

    @property
    def threads(self):
        """Compute threads of the session (the calling thread included)."""
        with self._use():
            return lib().ember_session_thread_count(self._session)

    def profile(self, clear=False):
        """The per-node events recorded so far (a list of ProfileEvent; empty unless the Model
        was made with profiling=True); `clear` drops them from the session."""
        L = lib()
        with self._use():
            p = c_obj_p()
            check(L.ember_session_profile(self._session, bool(clear), ctypes.byref(p)))
            try:
                return [ProfileEvent(text(L.ember_profile_event_node(p, i)),
                                     text(L.ember_profile_event_op(p, i)),
                                     text(L.ember_profile_event_kernel(p, i)),
                                     L.ember_profile_event_start_ns(p, i),
                                     L.ember_profile_event_dur_ns(p, i),
                                     L.ember_profile_event_run(p, i),
                                     L.ember_profile_event_thread(p, i))
                        for i in range(L.ember_profile_event_count(p))]
            finally:
                L.ember_profile_destroy(p)

    @property
    def closed(self):
        return self._closed

    # -- running -------------------------------------------------------------------------

    def run(self, feeds, outputs=None):
        """Runs the model. `feeds`: {input name: array} (or a list in positional order); a
        sequence input takes a list of arrays, an optional one None. Arrays of ember's dtypes
        that are C-contiguous are used in place; others are copied. Returns {output name:
        array} (a list for a sequence output, None for an empty optional); `outputs` picks
        which, by name, in that order. The arrays own their memory (no copy was made)."""
        if outputs is None and self._fast_in is not None:
            arrays = self._fast_feeds(feeds)
            if arrays is not None:
                return self._run_fast(arrays)
        L = lib()
        n_in, n_out = len(self._inputs), len(self._outputs)
        values = self._order_feeds(feeds)
        want = self._pick_outputs(outputs)
        self._enter()
        try:
            with _Feeds() as fd:
                ins = self._in_array()
                for i, v in enumerate(values):
                    ins[i] = fd.value(v, self._inputs[i], self._in_codes[i])
                outs = self._out_array()
                check(L.ember_session_run(self._session, ins, n_in, outs, n_out))
        finally:
            self._leave()
        result = {}
        try:
            for i in want:
                h, outs[i] = outs[i], None
                result[self._outputs[i].name] = _value_to_python(h, self._outputs[i].kind)
        finally:
            for i in range(n_out):
                if outs[i]:
                    L.ember_tensor_destroy(outs[i])
        return result

    def __call__(self, feeds, outputs=None):
        return self.run(feeds, outputs)

    def _fast_feeds(self, feeds):
        """The arrays of `feeds` in positional order when each is already what ember takes in
        place (the declared NumPy dtype, C-contiguous, aligned, rank <= 8) and nothing is
        missing or extra; else None, and run() takes the general path (which also reports
        the errors)."""
        specs = self._fast_in
        kind = type(feeds)
        if kind is np.ndarray:
            feeds = (feeds,)
        elif kind is not dict and kind is not list and kind is not tuple:
            return None
        if len(feeds) != len(specs):
            return None
        arrays = []
        for i, (name, dt, _) in enumerate(specs):
            a = feeds.get(name) if kind is dict else feeds[i]
            if type(a) is not np.ndarray or a.dtype != dt or a.ndim > 8:
                return None
            f = a.flags
            if not (f.c_contiguous and f.aligned):
                return None
            arrays.append(a)
        return arrays

    def _run_fast(self, arrays):
        """run() for plain tensors in and out: the arrays wrapped in place, one C call, the
        outputs viewed where ember made them. Fewer Python steps than the general path; the
        same results and errors (ember checks shapes and dtypes itself)."""
        L = lib()
        specs = self._fast_in
        n_in, n_out = len(specs), len(self._outputs)
        ins = self._in_array()
        outs = self._out_array()
        h = c_obj_p()
        self._enter()
        try:
            for i, a in enumerate(arrays):
                check(L.ember_tensor_wrap(specs[i][2], _I64[a.ndim](*a.shape), a.ndim,
                                          _address(a), a.nbytes, ctypes.byref(h)))
                ins[i] = h.value
            check(L.ember_session_run(self._session, ins, n_in, outs, n_out))
        finally:
            for i in range(n_in):
                if ins[i]:
                    L.ember_tensor_destroy(ins[i])
            self._leave()
        result = {}
        try:
            for i, info in enumerate(self._outputs):
                t, outs[i] = outs[i], None
                result[info.name] = _tensor_to_numpy(t, owned=True)
        finally:
            for i in range(n_out):
                if outs[i]:
                    L.ember_tensor_destroy(outs[i])
        return result

    def _order_feeds(self, feeds):
        return order_feeds(self._inputs, self._in_index, feeds)

    def _pick_outputs(self, outputs):
        if outputs is None:
            return list(range(len(self._outputs)))
        if isinstance(outputs, str):
            outputs = [outputs]
        bad = [o for o in outputs if o not in self._out_index]
        if bad:
            raise InvalidArgument("run: no output named %s; the model's outputs: %s"
                                  % (", ".join(repr(b) for b in bad),
                                     ", ".join(v.name for v in self._outputs)))
        return [self._out_index[o] for o in outputs]

    # -- lifetime ------------------------------------------------------------------------

    def _use(self):
        return _InUse(self)

    def _enter(self):
        """Counts a call in flight (close() waits for it); StateError once closed."""
        with self._cond:
            if self._closed:
                raise StateError("the model is closed", 7, "STATE")
            self._running += 1

    def _leave(self):
        with self._cond:
            self._running -= 1
            if self._running == 0:
                self._cond.notify_all()

    def close(self):
        """Frees the session and the model, once: waits for runs in flight on other threads,
        and makes later calls raise ember.StateError. Closing again does nothing."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            while self._running:
                self._cond.wait()
        self._free()

    def _free(self):
        s, self._session = self._session, None
        m, self._model = self._model, None
        if finalizing():
            return
        L = lib()
        if s:
            L.ember_session_destroy(s)
        if m:
            L.ember_model_destroy(m)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_cond", None) is not None:
            self.close()

    def __repr__(self):
        if self._closed:
            return "<ember.Model (closed)>"
        return "<ember.Model %s inputs=%s outputs=%s>" % (
            self.path or "(%s)" % self.format,
            [(v.name, v.dtype_name, v.shape) for v in self._inputs],
            [(v.name, v.dtype_name, v.shape) for v in self._outputs])


class _InUse:
    """Counts a call in flight on a Model so that close() waits for it."""
    __slots__ = ("m",)

    def __init__(self, m):
        self.m = m

    def __enter__(self):
        self.m._enter()

    def __exit__(self, *exc):
        self.m._leave()
