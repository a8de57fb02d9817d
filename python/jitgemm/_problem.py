"""From tensors to a jitgemm_problem: how each operand is read, checked before any GPU call.

Torch-free: it sees operands through ``shape`` and ``stride()`` only, so the layout rules
are tested where PyTorch is not installed.

A 2-D operand as passed (its logical matrix, ``rows x cols``) is read in place when one of
its two strides is 1 and the other is a valid leading dimension:
  * column stride 1 (row-major, maybe padded): op N, ld = row stride;
  * row stride 1 (a transposed view such as ``A.T``): op T on the stored transpose,
    ld = column stride.
Any other strides (a broadcast, a slice with a step) need one contiguous copy.

``structure_a`` / ``structure_b`` describe the tensor as passed. Read through op T, the
stored matrix is its transpose, so the structure handed to the library is the mirrored one
(a lower-triangular ``A.T`` is an upper-triangular stored matrix).
"""
from dataclasses import dataclass

from . import _abi
from .errors import InvalidArgumentError

_MIRRORED = {
    "general": "general",
    "symmetric": "symmetric_upper",
    "symmetric_upper": "symmetric",
    "lower": "upper",
    "upper": "lower",
    "lower_unit": "upper_unit",
    "upper_unit": "lower_unit",
}


def check_choice(name, value, choices):
    """``value`` must be one of ``choices`` (a dict or a list); else ValueError naming ``name``."""
    if not isinstance(value, str) or value not in choices:
        raise InvalidArgumentError(f"jitgemm: {name}={value!r} must be one of {', '.join(choices)}")
    return value


def check_scalar(name, value):
    """alpha / beta: a real number (a Python or numpy scalar, not a bool)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, bool):
        try:
            return float(value)
        except (TypeError, ValueError):
            pass
    raise InvalidArgumentError(f"jitgemm: {name}={value!r} must be a real number")


@dataclass(frozen=True)
class Layout:
    """How the library reads a rows x cols operand: op, leading dimension, and whether a
    contiguous copy is needed first (then op N, ld = cols)."""

    op: str
    ld: int
    copy: bool = False


def operand_layout(rows, cols, row_stride, col_stride):
    """The in-place layout of a rows x cols matrix with these strides, or a copy's."""
    if rows == 0 or cols == 0:
        return Layout("N", 0)
    # A dimension of extent 1 may carry any stride: it is never stepped over.
    if cols == 1 or col_stride == 1:
        ld = row_stride if rows > 1 else cols
        if ld >= cols:
            return Layout("N", ld)
    if rows == 1 or row_stride == 1:
        ld = col_stride if cols > 1 else rows
        if ld >= rows:
            return Layout("T", ld)
    return Layout("N", cols, copy=True)


def matrix_dims(name, shape):
    """(batch shape, rows, cols) of an operand of at least 2 dimensions."""
    if len(shape) < 2:
        raise InvalidArgumentError(
            f"jitgemm: {name} has {len(shape)} dimension(s) (shape {tuple(shape)}); a matrix operand needs 2, "
            "or more with leading batch dimensions")
    return tuple(shape[:-2]), shape[-2], shape[-1]


def check_shapes(a_shape, b_shape, c_shape=None, c_name="c"):
    """(M, N, K) of a @ b; ValueError naming the argument when the inner sizes disagree or
    ``c`` (the beta input or out=) is not the product's shape (with the batch dimensions)."""
    batch_a, m, k = matrix_dims("a", a_shape)
    batch_b, k_b, n = matrix_dims("b", b_shape)
    if k != k_b:
        raise InvalidArgumentError(
            f"jitgemm: a is {m}x{k} and b is {k_b}x{n}: a's columns ({k}) must equal b's rows ({k_b})")
    batch = broadcast_batch(batch_a, batch_b)
    if c_shape is not None:
        expected = batch + (m, n)
        if tuple(c_shape) != expected:
            raise InvalidArgumentError(f"jitgemm: {c_name} has shape {tuple(c_shape)}; the product's is {expected}")
    return batch, m, n, k


def broadcast_batch(batch_a, batch_b):
    """The broadcast of two batch shapes (as torch.matmul), or ValueError."""
    out = []
    for i in range(max(len(batch_a), len(batch_b))):
        x = batch_a[len(batch_a) - 1 - i] if i < len(batch_a) else 1
        y = batch_b[len(batch_b) - 1 - i] if i < len(batch_b) else 1
        if x != y and x != 1 and y != 1:
            raise InvalidArgumentError(
                f"jitgemm: batch dimensions {tuple(batch_a)} of a and {tuple(batch_b)} of b do not broadcast")
        out.append(max(x, y) if x != 0 and y != 0 else 0)
    return tuple(reversed(out))


@dataclass(frozen=True)
class Options:
    """The keyword arguments of jitgemm.matmul, checked."""

    structure_a: str = "general"
    structure_b: str = "general"
    fill: str = "full"
    precision: str = "tf32x3"
    alpha: float = 1.0
    beta: float = 0.0

    @staticmethod
    def checked(structure_a, structure_b, fill, precision, alpha, beta):
        return Options(
            check_choice("structure_a", structure_a, _abi.STRUCTURES),
            check_choice("structure_b", structure_b, _abi.STRUCTURES),
            check_choice("fill", fill, _abi.FILLS),
            check_choice("precision", precision, _abi.PRECISIONS),
            check_scalar("alpha", alpha),
            check_scalar("beta", beta),
        )


def make_problem(m, n, k, layout_a, layout_b, ldc, options):
    """The C struct for one 2-D product."""
    p = _abi.Problem()
    p.m, p.n, p.k = m, n, k
    p.trans_a, p.trans_b = _abi.OPS[layout_a.op], _abi.OPS[layout_b.op]
    p.lda, p.ldb, p.ldc = layout_a.ld, layout_b.ld, ldc
    p.alpha, p.beta = options.alpha, options.beta
    sa = _MIRRORED[options.structure_a] if layout_a.op == "T" else options.structure_a
    sb = _MIRRORED[options.structure_b] if layout_b.op == "T" else options.structure_b
    p.structure_a, p.structure_b = _abi.STRUCTURES[sa], _abi.STRUCTURES[sb]
    p.fill = _abi.FILLS[options.fill]
    p.precision = _abi.PRECISIONS[options.precision]
    return p
