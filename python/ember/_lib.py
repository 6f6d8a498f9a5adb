# SPDX-License-Identifier: Apache-2.0
"""Finding libember and declaring the C functions the package calls (ctypes, no extension).

The library is searched, first found wins:
  1. the file the environment variable EMBER_LIBRARY names;
  2. libember.so inside this package (a wheel built by tools/build_wheel.sh, or
     `pip install ./python` after the CMake build copies it there);
  3. build/libember.so of the source tree this package sits in (python/ember/ -> ../../build).
Calls through a ctypes.CDLL release the GIL for their duration, so runs of several Python
threads overlap.
"""
import ctypes
import os
import sys
import threading

_LIB_NAMES = ("libember.so", "libember.so.0", "libember.dylib", "ember.dll")

c_status_p = ctypes.c_void_p
c_obj_p = ctypes.c_void_p
c_int64_p = ctypes.POINTER(ctypes.c_int64)

# name: (restype, argtypes)
_PROTOTYPES = {
    "ember_status_code": (ctypes.c_int, [c_status_p]),
    "ember_status_message": (ctypes.c_char_p, [c_status_p]),
    "ember_status_destroy": (None, [c_status_p]),
    "ember_code_name": (ctypes.c_char_p, [ctypes.c_int]),
    "ember_dtype_size": (ctypes.c_size_t, [ctypes.c_int]),
    "ember_dtype_name": (ctypes.c_char_p, [ctypes.c_int]),
    "ember_string_free": (None, [ctypes.c_void_p]),
    # tensors, sequences, optionals
    "ember_tensor_create": (c_status_p, [ctypes.c_int, c_int64_p, ctypes.c_int,
                                         ctypes.POINTER(c_obj_p)]),
    "ember_tensor_wrap": (c_status_p, [ctypes.c_int, c_int64_p, ctypes.c_int, ctypes.c_void_p,
                                       ctypes.c_size_t, ctypes.POINTER(c_obj_p)]),
    "ember_tensor_destroy": (None, [c_obj_p]),
    "ember_tensor_dtype": (ctypes.c_int, [c_obj_p]),
    "ember_tensor_rank": (ctypes.c_int, [c_obj_p]),
    "ember_tensor_dims": (c_int64_p, [c_obj_p]),
    "ember_tensor_elem_count": (ctypes.c_int64, [c_obj_p]),
    "ember_tensor_nbytes": (ctypes.c_size_t, [c_obj_p]),
    "ember_tensor_data": (ctypes.c_void_p, [c_obj_p]),
    "ember_tensor_create_strings": (c_status_p, [c_int64_p, ctypes.c_int,
                                                 ctypes.POINTER(ctypes.c_char_p),
                                                 ctypes.POINTER(c_obj_p)]),
    "ember_tensor_string": (ctypes.c_char_p, [c_obj_p, ctypes.c_int64]),
    "ember_tensor_kind": (ctypes.c_int, [c_obj_p]),
    "ember_sequence_create": (c_status_p, [ctypes.c_int, ctypes.POINTER(c_obj_p), ctypes.c_size_t,
                                           ctypes.POINTER(c_obj_p)]),
    "ember_sequence_length": (ctypes.c_size_t, [c_obj_p]),
    "ember_sequence_item": (c_obj_p, [c_obj_p, ctypes.c_size_t]),
    "ember_optional_none_create": (c_status_p, [ctypes.c_int, ctypes.POINTER(c_obj_p)]),
    # model options and loading
    "ember_model_options_create": (c_status_p, [ctypes.POINTER(c_obj_p)]),
    "ember_model_options_destroy": (None, [c_obj_p]),
    "ember_model_options_set_input_rank": (c_status_p, [c_obj_p, ctypes.c_size_t, ctypes.c_int,
                                                        ctypes.c_int]),
    "ember_model_options_set_input_shape": (c_status_p, [c_obj_p, ctypes.c_char_p, c_int64_p,
                                                         ctypes.c_int]),
    "ember_model_options_set_dim_value": (c_status_p, [c_obj_p, ctypes.c_char_p,
                                                       ctypes.c_int64]),
    "ember_model_options_set_graph_optimization": (c_status_p, [c_obj_p, ctypes.c_int]),
    "ember_model_options_set_int8": (c_status_p, [c_obj_p, ctypes.c_int]),
    "ember_model_options_set_verify_checksums": (c_status_p, [c_obj_p, ctypes.c_bool]),
    "ember_model_load_file": (c_status_p, [ctypes.c_char_p, c_obj_p, ctypes.POINTER(c_obj_p)]),
    "ember_model_load_memory": (c_status_p, [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint,
                                             c_obj_p, ctypes.POINTER(c_obj_p)]),
    "ember_model_load_builtin": (c_status_p, [ctypes.c_char_p, c_obj_p,
                                              ctypes.POINTER(c_obj_p)]),
    "ember_model_destroy": (None, [c_obj_p]),
    "ember_model_format": (ctypes.c_char_p, [c_obj_p]),
    "ember_model_input_count": (ctypes.c_size_t, [c_obj_p]),
    "ember_model_output_count": (ctypes.c_size_t, [c_obj_p]),
    "ember_model_input_name": (ctypes.c_char_p, [c_obj_p, ctypes.c_size_t]),
    "ember_model_output_name": (ctypes.c_char_p, [c_obj_p, ctypes.c_size_t]),
    "ember_model_input_dtype": (ctypes.c_int, [c_obj_p, ctypes.c_size_t]),
    "ember_model_output_dtype": (ctypes.c_int, [c_obj_p, ctypes.c_size_t]),
    "ember_model_input_type": (ctypes.c_int, [c_obj_p, ctypes.c_size_t]),
    "ember_model_output_type": (ctypes.c_int, [c_obj_p, ctypes.c_size_t]),
    "ember_model_input_shape": (ctypes.c_int, [c_obj_p, ctypes.c_size_t, c_int64_p,
                                               ctypes.c_int]),
    "ember_model_output_shape": (ctypes.c_int, [c_obj_p, ctypes.c_size_t, c_int64_p,
                                                ctypes.c_int]),
    "ember_model_input_dim_name": (ctypes.c_char_p, [c_obj_p, ctypes.c_size_t, ctypes.c_int]),
    "ember_model_output_dim_name": (ctypes.c_char_p, [c_obj_p, ctypes.c_size_t, ctypes.c_int]),
    "ember_model_metadata_count": (ctypes.c_size_t, [c_obj_p]),
    "ember_model_metadata": (ctypes.c_bool, [c_obj_p, ctypes.c_size_t,
                                             ctypes.POINTER(ctypes.c_char_p),
                                             ctypes.POINTER(ctypes.c_char_p)]),
    # sessions
    "ember_session_options_create": (c_status_p, [ctypes.POINTER(c_obj_p)]),
    "ember_session_options_destroy": (None, [c_obj_p]),
    "ember_session_options_set_threads": (None, [c_obj_p, ctypes.c_int]),
    "ember_session_options_set_device": (None, [c_obj_p, ctypes.c_int]),
    "ember_session_options_set_precision": (None, [c_obj_p, ctypes.c_int]),
    "ember_session_options_set_isa_max": (c_status_p, [c_obj_p, ctypes.c_char_p]),
    "ember_session_options_set_memory_limit": (None, [c_obj_p, ctypes.c_size_t]),
    "ember_session_create": (c_status_p, [c_obj_p, c_obj_p, ctypes.POINTER(c_obj_p)]),
    "ember_session_destroy": (None, [c_obj_p]),
    "ember_session_run": (c_status_p, [c_obj_p, ctypes.POINTER(c_obj_p), ctypes.c_size_t,
                                       ctypes.POINTER(c_obj_p), ctypes.c_size_t]),
    "ember_session_thread_count": (ctypes.c_int, [c_obj_p]),
    "ember_session_options_set_profiling": (None, [c_obj_p, ctypes.c_bool]),
    "ember_session_profile": (c_status_p, [c_obj_p, ctypes.c_bool, ctypes.POINTER(c_obj_p)]),
    "ember_profile_destroy": (None, [c_obj_p]),
    "ember_profile_event_count": (ctypes.c_size_t, [c_obj_p]),
    "ember_profile_event_node": (ctypes.c_char_p, [c_obj_p, ctypes.c_size_t]),
    "ember_profile_event_op": (ctypes.c_char_p, [c_obj_p, ctypes.c_size_t]),
    "ember_profile_event_kernel": (ctypes.c_char_p, [c_obj_p, ctypes.c_size_t]),
    "ember_profile_event_start_ns": (ctypes.c_int64, [c_obj_p, ctypes.c_size_t]),
    "ember_profile_event_dur_ns": (ctypes.c_int64, [c_obj_p, ctypes.c_size_t]),
    "ember_profile_event_run": (ctypes.c_int64, [c_obj_p, ctypes.c_size_t]),
    "ember_profile_event_thread": (ctypes.c_int, [c_obj_p, ctypes.c_size_t]),
    # precision at load, the quantizer
    "ember_model_options_set_precision": (c_status_p, [c_obj_p, ctypes.c_int]),
    "ember_quantize_options_create": (c_status_p, [ctypes.POINTER(c_obj_p)]),
    "ember_quantize_options_destroy": (None, [c_obj_p]),
    "ember_quantize_options_set_mode": (c_status_p, [c_obj_p, ctypes.c_int]),
    "ember_quantize_options_set_per_channel": (c_status_p, [c_obj_p, ctypes.c_bool]),
    "ember_quantize_options_set_method": (c_status_p, [c_obj_p, ctypes.c_int, ctypes.c_double]),
    "ember_quantize_options_add_exclude": (c_status_p, [c_obj_p, ctypes.c_char_p]),
    "ember_quantizer_create": (c_status_p, [ctypes.c_char_p, c_obj_p, c_obj_p,
                                            ctypes.POINTER(c_obj_p)]),
    "ember_quantizer_destroy": (None, [c_obj_p]),
    "ember_quantizer_add_batch": (c_status_p, [c_obj_p, ctypes.POINTER(c_obj_p),
                                               ctypes.c_size_t]),
    "ember_quantizer_batch_count": (ctypes.c_size_t, [c_obj_p]),
    "ember_quantizer_model": (c_obj_p, [c_obj_p]),
    "ember_quantizer_save_calibration": (c_status_p, [c_obj_p, ctypes.c_char_p]),
    "ember_quantizer_load_calibration": (c_status_p, [c_obj_p, ctypes.c_char_p]),
    "ember_quantizer_save_onnx": (c_status_p, [c_obj_p, ctypes.c_char_p]),
    "ember_quantizer_load_model": (c_status_p, [c_obj_p, c_obj_p, ctypes.POINTER(c_obj_p)]),
    # version
    "ember_version_string": (ctypes.c_char_p, []),
    "ember_version_number": (ctypes.c_int, []),
    "ember_build_info": (ctypes.c_char_p, []),
}

_lock = threading.Lock()
_lib = None
_lib_path = None


def _candidates():
    env = os.environ.get("EMBER_LIBRARY")
    if env:
        yield env, "EMBER_LIBRARY"
        return  # an explicit choice is not second-guessed
    here = os.path.dirname(os.path.abspath(__file__))
    for name in _LIB_NAMES:
        yield os.path.join(here, name), "the package"
    tree = os.path.dirname(os.path.dirname(here))
    for name in _LIB_NAMES:
        yield os.path.join(tree, "build", name), "the source tree's build/"


def find_library():
    """The path of the libember the package would load (see the module doc), or None."""
    for path, _ in _candidates():
        if os.path.isfile(path):
            return path
    return None


def lib():
    """The loaded library with every prototype declared; loaded on first use."""
    global _lib, _lib_path
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        tried = []
        for path, where in _candidates():
            if os.path.isfile(path):
                break
            tried.append(path)
        else:
            from ._errors import LibraryNotFound
            raise LibraryNotFound(
                "libember not found; looked at: " + ", ".join(tried) +
                ". Build it (cmake -S . -B build && cmake --build build --target ember_shared),"
                " set EMBER_LIBRARY=/path/to/libember.so, or install a wheel made by"
                " tools/build_wheel.sh")
        handle = ctypes.CDLL(path)
        for name, (restype, argtypes) in _PROTOTYPES.items():
            fn = getattr(handle, name)
            fn.restype = restype
            fn.argtypes = argtypes
        _lib_path = os.path.abspath(path)
        _lib = handle
        return _lib


def library_path():
    """The path of the loaded libember (loading it if needed)."""
    lib()
    return _lib_path


def text(b):
    return None if b is None else b.decode("utf-8", "replace")


def finalizing():
    return sys.is_finalizing()
