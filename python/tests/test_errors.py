# SPDX-License-Identifier: Apache-2.0
"""Errors come back as ember.Error subclasses carrying ember's message; closing is safe."""
import numpy as np
import pytest

import ember


@pytest.fixture
def model():
    with ember.Model.builtin(threads=1) as m:
        yield m


def test_class_hierarchy():
    for cls in (ember.InvalidArgument, ember.InvalidModel, ember.Unsupported,
                ember.OutOfMemory, ember.IoError, ember.DeviceError, ember.StateError,
                ember.InternalError, ember.LibraryNotFound):
        assert issubclass(cls, ember.Error)
    assert issubclass(ember.InvalidArgument, ValueError)
    assert issubclass(ember.IoError, OSError)
    assert issubclass(ember.OutOfMemory, MemoryError)
    assert issubclass(ember.Unsupported, NotImplementedError)


def test_wrong_dtype_carries_embers_message(model):
    x = np.zeros((1, 1, 28, 28), np.float64)
    with pytest.raises(ember.InvalidArgument) as e:
        model.run({"input": x})
    assert e.value.code == 1 and e.value.code_name == "INVALID_ARG"
    assert str(e.value) == "input 0 'input': dtype f64, expected f32"  # ember's message


def test_wrong_shape(model):
    with pytest.raises(ember.InvalidArgument) as e:
        model.run({"input": np.zeros((1, 28, 28), np.float32)})
    assert "input" in str(e.value)
    with pytest.raises(ember.InvalidArgument) as e:
        model.run({"input": np.zeros((1, 2, 28, 28), np.float32)})
    assert "'input'" in str(e.value) and "dim 1 is 2" in str(e.value)


def test_dtype_numpy_lacks_an_ember_type(model):
    with pytest.raises(ember.InvalidArgument, match="complex"):
        model.run({"input": np.zeros((1, 1, 28, 28), np.complex64)})


def test_missing_unknown_and_extra_inputs(model):
    with pytest.raises(ember.InvalidArgument, match="missing input 'input'"):
        model.run({})
    with pytest.raises(ember.InvalidArgument, match="no input named 'x'"):
        model.run({"input": np.zeros((1, 1, 28, 28), np.float32), "x": 1})
    with pytest.raises(ember.InvalidArgument, match="2 inputs given"):
        model.run([np.zeros((1, 1, 28, 28), np.float32)] * 2)
    with pytest.raises(ember.InvalidArgument, match="not optional"):
        model.run({"input": None})
    with pytest.raises(ember.InvalidArgument, match="no output named 'nope'"):
        model.run({"input": np.zeros((1, 1, 28, 28), np.float32)}, outputs=["nope"])


def test_wrong_files(tmp_path, data):
    with pytest.raises(ember.IoError) as e:
        ember.Model(tmp_path / "does_not_exist.onnx")
    assert "does_not_exist.onnx" in str(e.value)
    assert isinstance(e.value, OSError)
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"this is not a model" * 10)
    with pytest.raises(ember.Error) as e:
        ember.Model(junk)
    assert e.value.code_name in ("INVALID_MODEL", "UNSUPPORTED")
    with pytest.raises(ember.InvalidModel):
        ember.Model(data("onnx_bad", "negative_dim.onnx"))
    with pytest.raises(ember.InvalidArgument):
        ember.Model.builtin("no_such_builtin")
    with pytest.raises(ember.InvalidArgument, match="path or the model's bytes"):
        ember.Model(None)


def test_bad_options():
    with pytest.raises(ember.InvalidArgument, match="precision"):
        ember.Model.builtin(precision="fp8")
    with pytest.raises(ember.InvalidArgument, match="device"):
        ember.Model.builtin(device="tpu")
    with pytest.raises(ember.InvalidArgument, match="optimize"):
        ember.Model.builtin(optimize="max")
    with pytest.raises(ember.InvalidArgument):  # ember's own check: more than 1024 threads
        ember.Model.builtin(threads=5000)
    with pytest.raises(ember.InvalidArgument):
        ember.Model.builtin(isa="avx9000")
    with pytest.raises(ember.InvalidArgument, match="input_ranks"):
        ember.Model.builtin(input_ranks={0: ("nonsense", 4)})


def test_memory_limit_is_out_of_memory():
    with ember.Model.builtin(threads=1, memory_limit=1024) as m:
        with pytest.raises(ember.OutOfMemory, match="memory limit"):
            m.run({"input": np.zeros((64, 1, 28, 28), np.float32)})


def test_close_twice_and_use_after_close():
    m = ember.Model.builtin()
    m.close()
    m.close()
    assert m.closed
    with pytest.raises(ember.StateError, match="closed"):
        m.run({"input": np.zeros((1, 1, 28, 28), np.float32)})
    with pytest.raises(ember.StateError):
        m.format
    with ember.Model.builtin() as m2:
        pass
    m2.close()
    assert m2.closed
    del m, m2  # __del__ after close frees nothing again


def test_failed_load_leaves_nothing_to_free(tmp_path):
    for _ in range(3):
        with pytest.raises(ember.IoError):
            ember.Model(tmp_path / "missing.pt")
