"""The four reference problems as KernelBench-style Models, and jitgemm drop-ins.

Each problem (see shared/reference-problems.md) comes as

* ``Model``: the plain PyTorch expression users write; its result is the contract
  (``LargeK``, ``Symmetric``, ``LowerTri``, ``TransA``);
* ``ModelNew``: the same forward through :func:`jitgemm.matmul`, declaring the
  structure the problem has (``LargeKNew``, ``SymmetricNew``, ``LowerTriNew``,
  ``TransANew``); it takes a keyword ``precision`` ("fp32", "tf32x3" or "tf32");
* ``get_inputs(scale=1.0, device="cuda")``: fresh random float32 inputs, drawn from
  PyTorch's global random generator (seed it with ``torch.manual_seed``), every
  dimension multiplied by ``scale`` (rounded to a multiple of 16, at least 16) so that
  tests can run small versions;
* ``get_init_inputs()``: the constructor arguments, none.

``MODELS`` maps the problem ids (largeK, symmetric, lowertri, transA) to a
:class:`ModelSpec` holding all of these.
"""

from dataclasses import dataclass
from typing import Callable, List

import torch
from torch import nn

import jitgemm  # jitgemm.matmul is looked up at call time, so importing from the package's __init__ is fine

PRECISIONS = ("fp32", "tf32x3", "tf32")
"""The precision modes of jitgemm.matmul, most accurate first."""

DEFAULT_PRECISION = "tf32x3"


# --------------------------------------------------------------------------- inputs


def scaled_dim(size: int, scale: float) -> int:
    """``size * scale`` rounded to a multiple of 16, at least 16."""
    if scale <= 0:
        raise ValueError(f"scale must be positive, got {scale}")
    return max(16, 16 * round(size * scale / 16))


def _rand(rows: int, cols: int, device) -> torch.Tensor:
    """Uniform [0, 1) float32 matrix, as the reference setup draws it."""
    return torch.rand(rows, cols, device=device, dtype=torch.float32)


def _symmetric(n: int, device) -> torch.Tensor:
    """(X + X^T) / 2 for a uniform X: exactly symmetric."""
    x = _rand(n, n, device)
    return (x + x.T) / 2


def _lower(n: int, device) -> torch.Tensor:
    """tril(X) for a uniform X."""
    return torch.tril(_rand(n, n, device))


def get_inputs_largek(scale: float = 1.0, device="cuda") -> List[torch.Tensor]:
    """largeK: A (256 x 524288), B (524288 x 256)."""
    m, k, n = scaled_dim(256, scale), scaled_dim(524288, scale), scaled_dim(256, scale)
    return [_rand(m, k, device), _rand(k, n, device)]


def get_inputs_symmetric(scale: float = 1.0, device="cuda") -> List[torch.Tensor]:
    """symmetric: A, B (4096 x 4096), both symmetric."""
    n = scaled_dim(4096, scale)
    return [_symmetric(n, device), _symmetric(n, device)]


def get_inputs_lowertri(scale: float = 1.0, device="cuda") -> List[torch.Tensor]:
    """lowertri: A, B (4096 x 4096), both lower triangular."""
    n = scaled_dim(4096, scale)
    return [_lower(n, device), _lower(n, device)]


def get_inputs_transa(scale: float = 1.0, device="cuda") -> List[torch.Tensor]:
    """transA: A stored K x M (8192 x 2048), B (8192 x 4096)."""
    k, m, n = scaled_dim(8192, scale), scaled_dim(2048, scale), scaled_dim(4096, scale)
    return [_rand(k, m, device), _rand(k, n, device)]


def get_init_inputs() -> list:
    """Constructor arguments of every Model and ModelNew here: none."""
    return []


# --------------------------------------------------------------------------- original Models


class LargeK(nn.Module):
    """C = A @ B with a tiny output and a huge K (A 256 x 524288, B 524288 x 256)."""

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


class Symmetric(nn.Module):
    """C = A @ B with A and B symmetric (4096 x 4096); C is not symmetric."""

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


class LowerTri(nn.Module):
    """C = tril(A @ B) with A and B lower triangular (4096 x 4096)."""

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.tril(torch.matmul(A, B))


class TransA(nn.Module):
    """C = A^T @ B with A stored K x M (8192 x 2048) and B K x N (8192 x 4096)."""

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A.T, B)


# --------------------------------------------------------------------------- jitgemm Models


class _JitgemmModel(nn.Module):
    """Common part of the ModelNew classes: the precision mode they run in."""

    def __init__(self, *, precision: str = DEFAULT_PRECISION):
        super().__init__()
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
        self.precision = precision

    def extra_repr(self) -> str:
        return f"precision={self.precision!r}"


class LargeKNew(_JitgemmModel):
    """LargeK through jitgemm: a plain product (jitgemm splits K itself)."""

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return jitgemm.matmul(A, B, precision=self.precision)


class SymmetricNew(_JitgemmModel):
    """Symmetric through jitgemm: both operands declared symmetric (lower triangles read)."""

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return jitgemm.matmul(
            A, B, structure_a="symmetric", structure_b="symmetric", precision=self.precision
        )


class LowerTriNew(_JitgemmModel):
    """LowerTri through jitgemm: both operands lower triangular, lower fill (no tril pass)."""

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return jitgemm.matmul(
            A, B, structure_a="lower", structure_b="lower", fill="lower", precision=self.precision
        )


class TransANew(_JitgemmModel):
    """TransA through jitgemm: A.T is read in place, no copy."""

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return jitgemm.matmul(A.T, B, precision=self.precision)


# --------------------------------------------------------------------------- registry


@dataclass(frozen=True)
class ModelSpec:
    """One reference problem: its Model, its ModelNew and its input generator."""

    model_id: str
    original: type
    new: type
    get_inputs: Callable[..., List[torch.Tensor]]
    description: str

    def get_init_inputs(self) -> list:
        """Constructor arguments of both Models: none."""
        return get_init_inputs()

    def make_original(self) -> nn.Module:
        """The original Model."""
        return self.original(*self.get_init_inputs())

    def make_new(self, precision: str = DEFAULT_PRECISION) -> nn.Module:
        """The jitgemm Model in the given precision mode."""
        return self.new(*self.get_init_inputs(), precision=precision)


MODELS = {
    "largeK": ModelSpec(
        model_id="largeK",
        original=LargeK,
        new=LargeKNew,
        get_inputs=get_inputs_largek,
        description="A @ B, A 256x524288, B 524288x256",
    ),
    "symmetric": ModelSpec(
        model_id="symmetric",
        original=Symmetric,
        new=SymmetricNew,
        get_inputs=get_inputs_symmetric,
        description="A @ B, A and B 4096x4096 symmetric",
    ),
    "lowertri": ModelSpec(
        model_id="lowertri",
        original=LowerTri,
        new=LowerTriNew,
        get_inputs=get_inputs_lowertri,
        description="tril(A @ B), A and B 4096x4096 lower triangular",
    ),
    "transA": ModelSpec(
        model_id="transA",
        original=TransA,
        new=TransANew,
        get_inputs=get_inputs_transa,
        description="A.T @ B, A 8192x2048 (K x M), B 8192x4096",
    ),
}
"""The reference problems by id, in the order of reference-problems.md."""


def get_spec(model_id: str) -> ModelSpec:
    """The ModelSpec of a problem id; the id's case does not matter ("largek" works)."""
    for known_id, spec in MODELS.items():
        if known_id.lower() == model_id.lower():
            return spec
    raise KeyError(f"unknown model {model_id!r}; known: {', '.join(MODELS)}")
