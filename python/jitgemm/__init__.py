"""jitgemm: fast float32 matrix products on Hopper GPUs, from PyTorch.

    import torch, jitgemm
    a = torch.rand(4096, 4096, device="cuda"); a = (a + a.T) / 2
    b = torch.rand(4096, 4096, device="cuda")
    c = jitgemm.matmul(a, b, structure_a="symmetric")          # tf32x3: float32 accuracy
    c.sum().backward()                                          # (with requires_grad inputs)

``matmul(a, b, *, structure_a, structure_b, fill, precision, alpha, beta, out)`` computes
``fill(alpha * a @ b + beta * out)`` as the ``jitgemm::gemm`` custom op (torch.compile
traces it with no graph break; autograd runs jitgemm's backward products). The structures
describe the tensors as passed: "general", "symmetric" (read from the lower triangle),
"symmetric_upper", "lower", "upper", "lower_unit", "upper_unit" (the other triangle is never
read); fill "full", "lower" (torch.tril of the result), "upper"; precision "tf32x3"
(default: tensor cores, float32 accuracy), "fp32" or "tf32". Gradients are PyTorch's for
the dense expression (for fill="lower", dA = tril(dC) @ B.T), not projected on a structure.

Operands: float32 CUDA tensors on one device; a transposed view (``A.T``) is read in place
(op T, no copy), other strides get one contiguous copy. Leading batch dimensions broadcast
as in torch.matmul and run as a loop of 2-D products. Work goes to the current stream;
one library Runtime per device serves every call. Errors from the library are
``ValueError`` (invalid argument), ``NotImplementedError`` (unsupported combination) or
``RuntimeError``, each a ``jitgemm.JitgemmError`` carrying the library's message.

The library is found through $JITGEMM_LIBRARY, the install layout, then the build tree.
"""
from ._runtime import Explanation, ServeCounters
from .errors import (CompileError, CudaError, DatabaseError, InternalError, InvalidArgumentError, JitgemmError,
                     LibraryNotFoundError, NotSupportedError)

try:
    import torch as _torch
except ImportError:  # the ctypes layer works without PyTorch; the tensor API needs it
    _torch = None

if _torch is not None and hasattr(_torch.library, "custom_op"):
    from ._torch_ops import explain, matmul, tune
else:
    _why = ("PyTorch is not installed" if _torch is None else
            f"PyTorch {_torch.__version__} lacks torch.library.custom_op (2.4 or newer needed)")

    def _needs_torch(*args, **kwargs):
        raise ModuleNotFoundError(f"jitgemm.matmul, tune and explain need PyTorch: {_why}")

    matmul = tune = explain = _needs_torch


def serve_counters(device=None):
    """How many products each serving rule answered on ``device`` (default: the current CUDA
    device): exact record, nearest record, default heuristic fallback, and stale records."""
    from . import _runtime
    if device is None:
        device = _torch.cuda.current_device() if _torch is not None else 0
    elif _torch is not None and isinstance(device, _torch.device):
        device = device.index if device.index is not None else _torch.cuda.current_device()
    return _runtime.runtime(int(device)).serve_counters()


def library_version():
    """The loaded libjitgemm's version (loads the library)."""
    from . import _library
    return _library.load().version().decode()


__version__ = "0.1.0"
__all__ = ["matmul", "tune", "explain", "serve_counters", "library_version", "Explanation", "ServeCounters",
           "JitgemmError", "InvalidArgumentError", "NotSupportedError", "CudaError", "CompileError", "DatabaseError",
           "InternalError", "LibraryNotFoundError"]
