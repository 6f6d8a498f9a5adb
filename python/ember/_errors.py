# SPDX-License-Identifier: Apache-2.0
"""ember's statuses as Python exceptions.

Every exception ember raises is an ember.Error; the subclass follows the status code of the C
API (ember.h, section 2), and the message is ember's own. Where a built-in exception means the
same, the class derives from it too (InvalidArgument is a ValueError, IoError an OSError,
OutOfMemory a MemoryError, Unsupported a NotImplementedError), so generic handlers work.
"""


class Error(Exception):
    """Base of every ember exception: `code` (the ember_code number), `code_name` ("INVALID_ARG"
    ...) and the message ember returned."""

    code = 8
    code_name = "INTERNAL"

    def __init__(self, message, code=None, code_name=None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if code_name is not None:
            self.code_name = code_name

    def __str__(self):
        return self.message


class InvalidArgument(Error, ValueError):
    """EMBER_ERR_INVALID_ARG: a bad argument (wrong dtype or shape, missing input, ...)."""
    code, code_name = 1, "INVALID_ARG"


class InvalidModel(Error):
    """EMBER_ERR_INVALID_MODEL: the model file or bytes are malformed."""
    code, code_name = 2, "INVALID_MODEL"


class Unsupported(Error, NotImplementedError):
    """EMBER_ERR_UNSUPPORTED: an op, dtype, ISA, device or format this build does not run."""
    code, code_name = 3, "UNSUPPORTED"


class OutOfMemory(Error, MemoryError):
    """EMBER_ERR_OUT_OF_MEMORY (also a session's memory limit)."""
    code, code_name = 4, "OUT_OF_MEMORY"


class IoError(Error, OSError):
    """EMBER_ERR_IO: a file could not be opened, read, mapped or written."""
    code, code_name = 5, "IO"

    def __init__(self, message, code=None, code_name=None):
        Error.__init__(self, message, code, code_name)

    def __str__(self):
        return self.message


class DeviceError(Error):
    """EMBER_ERR_DEVICE: a device (CUDA) call failed."""
    code, code_name = 6, "DEVICE"


class StateError(Error):
    """EMBER_ERR_STATE: not valid in the object's current state (also: a closed Model)."""
    code, code_name = 7, "STATE"


class InternalError(Error):
    """EMBER_ERR_INTERNAL."""
    code, code_name = 8, "INTERNAL"


class LibraryNotFound(Error, ImportError):
    """libember could not be found or loaded (not an ember status)."""
    code, code_name = -1, "LIBRARY_NOT_FOUND"

    def __init__(self, message):
        Error.__init__(self, message)

    def __str__(self):
        return self.message


_BY_CODE = {c.code: c for c in (InvalidArgument, InvalidModel, Unsupported, OutOfMemory,
                                IoError, DeviceError, StateError, InternalError)}


def from_code(code, code_name, message):
    """The exception for an ember_code (an unknown code gives a plain Error)."""
    cls = _BY_CODE.get(code, Error)
    return cls(message, code, code_name)
