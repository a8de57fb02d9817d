"""Errors from the library, as Python exceptions carrying its message.

jitgemm_status -> exception: JITGEMM_INVALID_ARGUMENT is a ``ValueError``,
JITGEMM_NOT_SUPPORTED a ``NotImplementedError``, everything else a ``RuntimeError``. Each
is also a ``JitgemmError``, whose ``status`` is the C status name.
"""
from . import _abi


class JitgemmError(Exception):
    """Base of the errors jitgemm raises; ``status`` is the C ABI's status name."""

    status = "JITGEMM_INTERNAL_ERROR"


class InvalidArgumentError(JitgemmError, ValueError):
    status = "JITGEMM_INVALID_ARGUMENT"


class NotSupportedError(JitgemmError, NotImplementedError):
    status = "JITGEMM_NOT_SUPPORTED"


class CudaError(JitgemmError, RuntimeError):
    status = "JITGEMM_CUDA_ERROR"


class CompileError(JitgemmError, RuntimeError):
    status = "JITGEMM_COMPILE_ERROR"


class DatabaseError(JitgemmError, RuntimeError):
    status = "JITGEMM_DATABASE_ERROR"


class InternalError(JitgemmError, RuntimeError):
    status = "JITGEMM_INTERNAL_ERROR"


class LibraryNotFoundError(JitgemmError, OSError):
    """libjitgemm.so was not found or does not match this package."""

    status = "-"


_BY_STATUS = {
    _abi.INVALID_ARGUMENT: InvalidArgumentError,
    _abi.NOT_SUPPORTED: NotSupportedError,
    _abi.CUDA_ERROR: CudaError,
    _abi.COMPILE_ERROR: CompileError,
    _abi.DATABASE_ERROR: DatabaseError,
}


def from_status(status, message):
    """The exception for a failed call's status and the library's message."""
    return _BY_STATUS.get(status, InternalError)(message)
