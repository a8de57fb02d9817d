"""The PyTorch face of jitgemm: the ``jitgemm::gemm`` custom op (with a fake for
torch.compile and autograd through ``jitgemm::gemm_backward``), ``jitgemm::gemm_out``
for ``out=``, and the public functions built on them.

Batched operands (leading batch dimensions, broadcast as torch.matmul does) run as a loop
of 2-D products on the current stream, one library call each.
"""
import itertools
from typing import Optional, Tuple

import torch
from torch import Tensor

from . import _problem, _runtime
from .errors import InvalidArgumentError

# Called before every library call as launch_observer(problem, a_ptr, b_ptr, c_ptr), where
# problem is the jitgemm_problem struct: tests use it to see that a transposed view is
# read in place (its data_ptr reaches the library, with op T).
launch_observer = None


try:
    _raw_stream = torch._C._cuda_getCurrentRawStream  # the current stream of a device index, as an int
except AttributeError:  # a torch without the private accessor
    def _raw_stream(index):
        return torch.cuda.current_stream(index).cuda_stream


def _current_stream(device):
    return _raw_stream(device.index)


def check_tensor(name, t, device=None):
    """A float32 CUDA tensor on ``device`` (when given), else ValueError naming ``name``."""
    if not isinstance(t, Tensor):
        raise InvalidArgumentError(f"jitgemm: {name} must be a torch.Tensor, not {type(t).__name__}")
    if t.dtype != torch.float32:
        raise InvalidArgumentError(
            f"jitgemm: {name} has dtype {t.dtype}; jitgemm computes float32 products only ({name}.float() converts)")
    if t.device.type != "cuda":
        raise InvalidArgumentError(f"jitgemm: {name} is on {t.device}; jitgemm needs CUDA tensors")
    if device is not None and t.device != device:
        raise InvalidArgumentError(f"jitgemm: {name} is on {t.device} but a is on {device}: operands must share a device")


def _batch_indices(batch):
    return itertools.product(*(range(d) for d in batch)) if batch else [()]


class _Batched:
    """An operand broadcast to the batch shape, as the library reads it: one layout for every
    item (the items share their 2-D strides) and each item's address, or a contiguous copy of
    the item where the layout cannot be read in place."""

    def __init__(self, x, batch, rows, cols):
        self.x = x.expand(batch + (rows, cols)) if batch else x
        self.layout = _problem.operand_layout(rows, cols, self.x.stride(-2), self.x.stride(-1))
        self.base = self.x.data_ptr()
        self.steps = [x_step * self.x.element_size() for x_step in self.x.stride()[:-2]]

    def item(self, idx):
        """(address of item idx, the copy to keep alive until the launch is queued, or None)."""
        if self.layout.copy:
            copy = self.x[idx].contiguous()
            return copy.data_ptr(), copy
        return self.base + sum(i * step for i, step in zip(idx, self.steps)), None


def _launch(rt, problem, a, b, c, stream):
    if launch_observer is not None:
        launch_observer(problem, a, b, c)
    rt.gemm(problem, a, b, c, stream)


def gemm_into(a, b, out, options):
    """out = fill(alpha a @ b + beta out) (batched), out's last dimension contiguous."""
    batch, m, n, k = _problem.check_shapes(a.shape, b.shape, out.shape, "out")
    if out.numel() == 0:
        return
    rt = _runtime.runtime(a.device.index)
    stream = _current_stream(a.device)
    xa, xb = _Batched(a, batch, m, k), _Batched(b, batch, k, n)
    problem = _problem.make_problem(m, n, k, xa.layout, xb.layout, out.stride(-2) if m > 1 else n, options)
    c_steps = [step * out.element_size() for step in out.stride()[:-2]]
    c_base = out.data_ptr()
    for idx in _batch_indices(batch):
        pa, keep_a = xa.item(idx)
        pb, keep_b = xb.item(idx)
        _launch(rt, problem, pa, pb, c_base + sum(i * step for i, step in zip(idx, c_steps)), stream)


def product(a, b, options):
    """fill(alpha a @ b) into a new contiguous (..., M, N) tensor: the body of jitgemm::gemm."""
    batch, m, n, _ = _problem.check_shapes(a.shape, b.shape)
    out = torch.empty(batch + (m, n), dtype=a.dtype, device=a.device)
    gemm_into(a, b, out, options)
    return out


def _writable_out(out, n):
    """out can be written in place: row-major rows with a unit column stride."""
    return out.dim() >= 2 and (n == 1 or out.stride(-1) == 1) and (out.size(-2) <= 1 or out.stride(-2) >= n)


# ---------------------------------------------------------------------------- the ops
@torch.library.custom_op("jitgemm::gemm", mutates_args=())
def gemm(a: Tensor, b: Tensor, structure_a: str, structure_b: str, fill: str, precision: str,
         alpha: float) -> Tensor:
    """fill(alpha a @ b): a (..., M, K), b (..., K, N) -> (..., M, N), contiguous."""
    return product(a, b, _problem.Options.checked(structure_a, structure_b, fill, precision, alpha, 0.0))


@gemm.register_fake
def _gemm_fake(a, b, structure_a, structure_b, fill, precision, alpha):
    batch, m, n, _ = _problem.check_shapes(a.shape, b.shape)
    return a.new_empty(batch + (m, n))


@torch.library.custom_op("jitgemm::gemm_out", mutates_args=("out",))
def gemm_out(a: Tensor, b: Tensor, out: Tensor, structure_a: str, structure_b: str, fill: str, precision: str,
             alpha: float, beta: float) -> None:
    """out = fill(alpha a @ b + beta out), in place."""
    options = _problem.Options.checked(structure_a, structure_b, fill, precision, alpha, beta)
    _, _, n, _ = _problem.check_shapes(a.shape, b.shape, out.shape, "out")
    if _writable_out(out, n):
        gemm_into(a, b, out, options)
    else:  # a column-major or strided out: through one contiguous copy
        staged = out.contiguous() if options.beta != 0.0 else torch.empty(out.shape, dtype=out.dtype, device=out.device)
        gemm_into(a, b, staged, options)
        out.copy_(staged)


@gemm_out.register_fake
def _gemm_out_fake(a, b, out, structure_a, structure_b, fill, precision, alpha, beta):
    _problem.check_shapes(a.shape, b.shape, out.shape, "out")


def _gradient_buffer(x, batch, rows, cols):
    """Where the gradient of operand x (..., rows, cols) is written: per batch item laid out
    as the library reads x (so its leading dimension is x's), items one after another."""
    layout = _problem.operand_layout(rows, cols, x.stride(-2), x.stride(-1))
    if layout.copy or rows == 0 or cols == 0:
        return x.new_empty(batch + (rows, cols))
    item = (1, layout.ld) if layout.op == "T" else (layout.ld, 1)
    extent = layout.ld * (cols if layout.op == "T" else rows)
    strides = []
    step = extent
    for d in reversed(batch):
        strides.append(step)
        step *= max(d, 1)
    return x.new_empty_strided(batch + (rows, cols), tuple(reversed(strides)) + item)


def _gradient_result(buffer, x):
    """The gradient of x from its buffer: summed over the batch dimensions x was broadcast in."""
    if tuple(buffer.shape) == tuple(x.shape):
        return buffer
    return buffer.sum_to_size(x.shape).contiguous()


@torch.library.custom_op("jitgemm::gemm_backward", mutates_args=())
def gemm_backward(grad: Tensor, a: Tensor, b: Tensor, structure_a: str, structure_b: str, fill: str,
                  precision: str, alpha: float, needs_a: bool, needs_b: bool) -> Tuple[Tensor, Tensor]:
    """(dA, dB) of fill(alpha a @ b) given grad (jitgemm/backward.hpp: no projection); an
    unneeded one is an empty tensor."""
    options = _problem.Options.checked(structure_a, structure_b, fill, precision, alpha, 0.0)
    batch, m, n, k = _problem.check_shapes(a.shape, b.shape, grad.shape, "grad")
    da = _gradient_buffer(a, batch, m, k) if needs_a else None
    db = _gradient_buffer(b, batch, k, n) if needs_b else None
    if (da is not None and da.numel() > 0) or (db is not None and db.numel() > 0):
        rt = _runtime.runtime(a.device.index)
        stream = _current_stream(a.device)
        xa, xb = _Batched(a, batch, m, k), _Batched(b, batch, k, n)
        problem = _problem.make_problem(m, n, k, xa.layout, xb.layout, n, options)
        g = grad.contiguous()
        for idx in _batch_indices(batch):
            pa, keep_a = xa.item(idx)
            pb, keep_b = xb.item(idx)
            rt.gemm_backward(problem, g[idx].data_ptr(), pa, pb, da[idx].data_ptr() if da is not None else None,
                             db[idx].data_ptr() if db is not None else None, stream)
    return (_gradient_result(da, a) if da is not None else a.new_empty(0),
            _gradient_result(db, b) if db is not None else b.new_empty(0))


@gemm_backward.register_fake
def _gemm_backward_fake(grad, a, b, structure_a, structure_b, fill, precision, alpha, needs_a, needs_b):
    batch, m, n, k = _problem.check_shapes(a.shape, b.shape, grad.shape, "grad")
    da = _gradient_result(_gradient_buffer(a, batch, m, k), a) if needs_a else a.new_empty(0)
    db = _gradient_result(_gradient_buffer(b, batch, k, n), b) if needs_b else b.new_empty(0)
    return da, db


def _setup_context(ctx, inputs, output):
    a, b, structure_a, structure_b, fill, precision, alpha = inputs
    ctx.save_for_backward(a, b)
    ctx.options = (structure_a, structure_b, fill, precision, alpha)


def _backward(ctx, grad):
    a, b = ctx.saved_tensors
    needs_a, needs_b = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
    da, db = torch.ops.jitgemm.gemm_backward(grad, a, b, *ctx.options, needs_a, needs_b)
    return (da if needs_a else None, db if needs_b else None, None, None, None, None, None)


gemm.register_autograd(_backward, setup_context=_setup_context)


# ---------------------------------------------------------------------------- the API
def matmul(a, b, *, structure_a="general", structure_b="general", fill="full", precision="tf32x3", alpha=1.0,
           beta=0.0, out=None):
    """fill(alpha * a @ b + beta * out) on the current CUDA stream; see the package docstring."""
    if out is None and launch_observer is None and type(a) is Tensor and type(b) is Tensor:
        # The hot path: a 2-D product of a call signature seen before, in eager mode without autograd.
        key = (a.shape, a.stride(), b.shape, b.stride(), a.get_device(), b.get_device(), a.dtype, b.dtype,
               structure_a, structure_b, fill, precision, alpha, beta)
        try:
            call = _seen_calls.get(key)
        except TypeError:  # an unhashable alpha or beta (a tensor): the checked path
            key = call = None
        if call is not None and not torch.compiler.is_compiling() and not (
                torch.is_grad_enabled() and (a.requires_grad or b.requires_grad)):
            return call(a, b)
    else:
        key = None
    check_tensor("a", a)
    check_tensor("b", b, a.device)
    options = _problem.Options.checked(structure_a, structure_b, fill, precision, alpha, beta)
    if out is not None:
        check_tensor("out", out, a.device)
        if torch.is_grad_enabled() and (a.requires_grad or b.requires_grad or out.requires_grad):
            raise InvalidArgumentError(
                "jitgemm.matmul: out= does not support automatic differentiation (an input requires grad)")
        torch.ops.jitgemm.gemm_out(a, b, out, *_op_arguments(options), options.beta)
        return out
    if options.beta != 0.0:
        raise InvalidArgumentError(f"jitgemm.matmul: beta={options.beta} needs out= (beta scales the C given as out)")
    if torch.compiler.is_compiling() or (torch.is_grad_enabled() and (a.requires_grad or b.requires_grad)):
        return torch.ops.jitgemm.gemm(a, b, *_op_arguments(options))
    # Eager without autograd: the op's body directly (the same code, without the dispatcher).
    result = product(a, b, options)
    if key is not None and result.dim() == 2:
        _remember(key, a, b, options)
    return result


# Call signatures (shapes, strides, devices, dtypes, options) that passed every check, each
# with its prepared library call (a plan): a repeated eager call skips the checks, the struct
# and the library's lookup. jitgemm.tune clears it.
_seen_calls = {}
_MAX_SEEN_CALLS = 1024


def _remember(key, a, b, options):
    """Prepares the call of a checked 2-D product whose operands are read in place: a plan of
    its problem (jitgemm_plan_run skips Runtime::gemm's lookup; operands at other alignments
    than 16 bytes take Runtime::gemm's path inside it)."""
    (m, k), n = a.shape, b.shape[1]
    la, lb = _Batched(a, (), m, k).layout, _Batched(b, (), k, n).layout
    if la.copy or lb.copy or m == 0 or n == 0:
        return
    plan = _runtime.runtime(a.device.index).plan(_problem.make_problem(m, n, k, la, lb, n, options))
    run, handle, check, index = plan.run_fn, plan.handle, plan.lib.check, a.device.index
    shape, raw_stream = (m, n), _raw_stream

    def call(x, y):
        c = x.new_empty(shape)
        status = run(handle, x.data_ptr(), y.data_ptr(), c.data_ptr(), raw_stream(index))
        if status:
            check(status)
        return c

    call.plan = plan  # destroyed with the call
    if len(_seen_calls) >= _MAX_SEEN_CALLS:
        _seen_calls.clear()
    _seen_calls[key] = call


def _op_arguments(options):
    return (options.structure_a, options.structure_b, options.fill, options.precision, options.alpha)


def _first_item_problem(a, b, options):
    """The 2-D problem of a @ b's first batch item (what tune and explain look at)."""
    check_tensor("a", a)
    check_tensor("b", b, a.device)
    batch, m, n, k = _problem.check_shapes(a.shape, b.shape)
    la, lb = _Batched(a, batch, m, k).layout, _Batched(b, batch, k, n).layout
    return _problem.make_problem(m, n, k, la, lb, n, options)


def tune(a, b, *, structure_a="general", structure_b="general", fill="full", precision="tf32x3", alpha=1.0,
         beta=0.0, jobs=0, timing_runs=25, write_database=True, budget_s=20.0):
    """Tunes the product matmul(a, b, ...) would run (its first batch item) on a's device;
    the winner, checked against float64, is stored in the database and served from now on.
    Returns its median time in milliseconds. ``budget_s`` seconds of wall time (candidates
    ranked by a performance model, pruned, successive halving to the finalists); 0: every
    candidate compiled, verified and timed (about a minute). Never called by matmul."""
    options = _problem.Options.checked(structure_a, structure_b, fill, precision, alpha, beta)
    problem = _first_item_problem(a, b, options)
    ms = _runtime.runtime(a.device.index).tune(problem, jobs, timing_runs, write_database, budget_s)
    _seen_calls.clear()  # their plans chose before this record existed
    return ms


def explain(a, b, *, structure_a="general", structure_b="general", fill="full", precision="tf32x3", alpha=1.0,
            beta=0.0):
    """How matmul(a, b, ...) is served now: the rule (exact, nearest, default), the kernel,
    the record, whether it is stale; ``str()`` of it reads like jitgemm-db explain."""
    options = _problem.Options.checked(structure_a, structure_b, fill, precision, alpha, beta)
    problem = _first_item_problem(a, b, options)
    return _runtime.runtime(a.device.index).explain(problem)
