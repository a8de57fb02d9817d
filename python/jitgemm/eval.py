"""KernelBench-style evaluation of the jitgemm Models: ``python -m jitgemm.eval``.

For every reference problem (jitgemm.models.MODELS) and precision mode:

1. Correctness over ``--trials`` random trials (fresh inputs, seed = trial number).
   The ModelNew output must be ``torch.allclose(atol=1e-2, rtol=1e-2)`` to the original
   Model run eagerly in float32 (TF32 off), and its relative Frobenius error
   ``||C - C64|| / ||C64||`` against the original Model run on float64 copies of the
   inputs must meet the mode's contract (shared/reference-problems.md):

   * fp32, tf32x3: ``max(2 * error of eager fp32, 4u)``, u = 2**-24;
   * tf32: ``4 * error of eager fp32 with TF32 allowed``.

   Gradients: a random upstream gradient dC (torch.randn) is pushed back through
   ModelNew and through the float64 original by autograd; each of dA, dB must meet
   the same kind of bound, relative to the eager original's gradient of the same
   operand.
2. Timing: median of ``--runs`` runs, each between CUDA events, with the L2 cache
   flushed (a 256 MiB buffer zeroed) before every run, after 3 warm-up runs: the
   ModelNew forward, the original forward in eager fp32 and in eager TF32, and (unless
   ``--no-backward``) the same three for forward + backward(dC).
3. A table on stdout, and a JSON file (default ``bench/results/<gpu>-torch.json``).

The exit status is 1 when any row fails correctness. ``evaluate_model`` is the
reusable entry point (the tests call it with a small ``scale``).
"""

import argparse
import contextlib
import json
import math
import re
import statistics
import sys
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

import torch

from .models import MODELS, PRECISIONS, ModelSpec, get_spec

UNIT_ROUNDOFF = 2.0**-24
ERROR_FLOOR = 4 * UNIT_ROUNDOFF
ALLCLOSE_ATOL = 1e-2
ALLCLOSE_RTOL = 1e-2

L2_FLUSH_BYTES = 256 * 2**20
WARMUP_RUNS = 3
MIN_RUNS = 20
TIMING_SEED = 1234

FORWARD = "forward"
FORWARD_BACKWARD = "forward+backward"


def log(message: str) -> None:
    """Progress line on stderr (stdout holds the table)."""
    print(message, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- eager TF32 switch


@contextlib.contextmanager
def eager_tf32(enabled: bool):
    """Set ``torch.backends.cuda.matmul.allow_tf32`` inside the block, restore it after.

    PyTorch >= 2.9 warns that this flag will be deprecated in favour of
    ``fp32_precision``; the legacy setter keeps both settings consistent, so the
    warning is silenced here rather than mixing the two APIs (which PyTorch rejects).
    """
    matmul = torch.backends.cuda.matmul
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*TF32.*")
        previous = matmul.allow_tf32
        matmul.allow_tf32 = enabled
    try:
        yield
    finally:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*TF32.*")
            matmul.allow_tf32 = previous


# --------------------------------------------------------------------------- errors and bounds


def relative_error(value: Optional[torch.Tensor], reference: torch.Tensor) -> float:
    """||value - reference|| / ||reference|| (Frobenius), in float64.

    A missing value, a wrong shape, or a NaN / infinite error gives ``math.inf``.
    """
    if value is None or value.shape != reference.shape:
        return math.inf
    difference = value.detach().to(torch.float64) - reference
    error = (torch.linalg.vector_norm(difference) / torch.linalg.vector_norm(reference)).item()
    return error if math.isfinite(error) else math.inf


def contract_bound(precision: str, baseline_error: float) -> float:
    """The most error a precision mode may have, given the eager baseline's error.

    ``baseline_error`` is eager fp32's error for fp32 and tf32x3, eager TF32's for tf32.
    """
    if precision == "tf32":
        return 4 * baseline_error
    return max(2 * baseline_error, ERROR_FLOOR)


# --------------------------------------------------------------------------- running a model


def run_model(model, inputs: Sequence[torch.Tensor], grad_output: Optional[torch.Tensor] = None):
    """Run ``model`` on ``inputs``; with ``grad_output``, also backward.

    Returns ``(output, grads)``: ``grads`` holds the gradient of each input (None
    where autograd left none), or is empty without ``grad_output``. The inputs
    themselves are not modified: autograd runs on detached leaves sharing their storage.
    """
    if grad_output is None:
        with torch.no_grad():
            return model(*inputs), []
    leaves = [x.detach().requires_grad_(True) for x in inputs]
    output = model(*leaves)
    output.backward(grad_output)
    return output.detach(), [leaf.grad for leaf in leaves]


# --------------------------------------------------------------------------- correctness


@dataclass
class TrialResult:
    """Errors and bounds of one random trial."""

    error: float
    bound: float
    allclose: bool
    grad_errors: List[float] = field(default_factory=list)  # dA, dB
    grad_bounds: List[float] = field(default_factory=list)


@dataclass
class Check:
    """One quantity (output or gradients) over all trials.

    ``passed`` is decided trial by trial (error <= that trial's bound); ``max_error``
    is the largest error and ``bound`` the smallest bound seen, for the report.
    """

    max_error: float = 0.0
    bound: float = math.inf
    passed: bool = True

    def add(self, error: float, bound: float) -> None:
        self.max_error = max(self.max_error, error)
        self.bound = min(self.bound, bound)
        self.passed = self.passed and error <= bound


@dataclass
class Correctness:
    """Outcome of all trials of one Model in one precision mode."""

    output: Check = field(default_factory=Check)
    gradients: Check = field(default_factory=Check)
    allclose: bool = True


def run_trial(spec: ModelSpec, precision: str, seed: int, scale: float, backward: bool) -> TrialResult:
    """One trial: fresh inputs from ``seed``, ModelNew against the float64 original."""
    torch.manual_seed(seed)
    inputs = spec.get_inputs(scale=scale)
    original = spec.make_original()

    with eager_tf32(False):
        eager_output, _ = run_model(original, inputs)
    grad_output = torch.randn_like(eager_output) if backward else None

    # float64 reference
    inputs64 = [x.to(torch.float64) for x in inputs]
    grad_output64 = grad_output.to(torch.float64) if backward else None
    output64, grads64 = run_model(original, inputs64, grad_output64)

    # the eager baseline the contract is relative to: cuBLAS SGEMM, or cuBLAS TF32 for tf32
    with eager_tf32(precision == "tf32"):
        baseline_output, baseline_grads = run_model(original, inputs, grad_output)

    with eager_tf32(False):
        new_output, new_grads = run_model(spec.make_new(precision), inputs, grad_output)

    allclose = new_output.shape == eager_output.shape and torch.allclose(
        new_output, eager_output, atol=ALLCLOSE_ATOL, rtol=ALLCLOSE_RTOL
    )
    result = TrialResult(
        error=relative_error(new_output, output64),
        bound=contract_bound(precision, relative_error(baseline_output, output64)),
        allclose=bool(allclose),
    )
    for new_grad, baseline_grad, grad64 in zip(new_grads, baseline_grads, grads64):
        result.grad_errors.append(relative_error(new_grad, grad64))
        result.grad_bounds.append(contract_bound(precision, relative_error(baseline_grad, grad64)))
    return result


def check_correctness(
    spec: ModelSpec, precision: str, trials: int, scale: float, backward: bool
) -> Correctness:
    """Run ``trials`` trials (seeds 0, 1, ...) and collect the worst cases."""
    correctness = Correctness()
    for seed in range(trials):
        trial = run_trial(spec, precision, seed, scale, backward)
        correctness.output.add(trial.error, trial.bound)
        correctness.allclose = correctness.allclose and trial.allclose
        for error, bound in zip(trial.grad_errors, trial.grad_bounds):
            correctness.gradients.add(error, bound)
    return correctness


# --------------------------------------------------------------------------- timing


def make_flush_buffer() -> torch.Tensor:
    """A 256 MiB buffer; zeroing it evicts the operands from L2 (50-60 MB on Hopper)."""
    return torch.empty(L2_FLUSH_BYTES, dtype=torch.uint8, device="cuda")


def median_ms(
    run: Callable[[], None],
    runs: int,
    flush_buffer: torch.Tensor,
    setup: Optional[Callable[[], None]] = None,
) -> float:
    """Median milliseconds of ``run`` over ``runs`` runs after WARMUP_RUNS warm-up runs.

    Before every run, ``setup`` (untimed) and an L2 flush; each run is timed between
    two CUDA events on the current stream.
    """
    for _ in range(WARMUP_RUNS):
        if setup is not None:
            setup()
        run()
    torch.cuda.synchronize()

    starts = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(runs)]
    for start, end in zip(starts, ends):
        if setup is not None:
            setup()
        flush_buffer.zero_()
        start.record()
        run()
        end.record()
    torch.cuda.synchronize()
    times = [start.elapsed_time(end) for start, end in zip(starts, ends)]
    return statistics.median(times)


def time_forward(model, inputs: Sequence[torch.Tensor], runs: int, flush_buffer: torch.Tensor) -> float:
    """Median forward time in ms (no autograd graph)."""
    with torch.no_grad():
        return median_ms(lambda: model(*inputs), runs, flush_buffer)


def time_forward_backward(
    model,
    inputs: Sequence[torch.Tensor],
    grad_output: torch.Tensor,
    runs: int,
    flush_buffer: torch.Tensor,
) -> float:
    """Median time in ms of forward then backward(grad_output), inputs requiring grad.

    The inputs' ``.grad`` is reset to None between runs, outside the timed region.
    """
    leaves = [x.detach().requires_grad_(True) for x in inputs]

    def clear_grads() -> None:
        for leaf in leaves:
            leaf.grad = None

    def forward_backward() -> None:
        model(*leaves).backward(grad_output)

    return median_ms(forward_backward, runs, flush_buffer, setup=clear_grads)


def measure_times(
    model,
    inputs: Sequence[torch.Tensor],
    grad_output: Optional[torch.Tensor],
    runs: int,
    flush_buffer: torch.Tensor,
    tf32: bool = False,
) -> Dict[str, float]:
    """Median ms by direction: forward, and forward+backward when ``grad_output`` is given.

    ``tf32`` sets torch.backends.cuda.matmul.allow_tf32 while timing.
    """
    times = {}
    with eager_tf32(tf32):
        times[FORWARD] = time_forward(model, inputs, runs, flush_buffer)
        if grad_output is not None:
            times[FORWARD_BACKWARD] = time_forward_backward(model, inputs, grad_output, runs, flush_buffer)
    return times


def timing_data(spec: ModelSpec, scale: float, backward: bool):
    """The inputs and upstream gradient (None without backward) every timing uses."""
    torch.manual_seed(TIMING_SEED)
    inputs = spec.get_inputs(scale=scale)
    with eager_tf32(False):
        output, _ = run_model(spec.make_original(), inputs)
    grad_output = torch.randn_like(output) if backward else None
    return inputs, grad_output


def time_eager(
    spec: ModelSpec, scale: float, runs: int, backward: bool, flush_buffer: torch.Tensor
) -> Dict[str, Dict[str, float]]:
    """Times of the original Model: ``{"fp32": {direction: ms}, "tf32": {direction: ms}}``.

    They do not depend on jitgemm's precision mode, so callers may reuse them.
    """
    inputs, grad_output = timing_data(spec, scale, backward)
    original = spec.make_original()
    return {
        "fp32": measure_times(original, inputs, grad_output, runs, flush_buffer, tf32=False),
        "tf32": measure_times(original, inputs, grad_output, runs, flush_buffer, tf32=True),
    }


# --------------------------------------------------------------------------- one Model, one mode


def make_row(
    model_id: str,
    precision: str,
    direction: str,
    jitgemm_ms: float,
    eager_fp32_ms: float,
    eager_tf32_ms: float,
    correctness: Correctness,
) -> dict:
    """One result row; forward+backward rows also carry the gradients' check."""
    row = {
        "model": model_id,
        "precision": precision,
        "direction": direction,
        "jitgemm_ms": jitgemm_ms,
        "eager_fp32_ms": eager_fp32_ms,
        "eager_tf32_ms": eager_tf32_ms,
        "speedup_fp32": eager_fp32_ms / jitgemm_ms,
        "speedup_tf32": eager_tf32_ms / jitgemm_ms,
        "max_error": correctness.output.max_error,
        "bound": correctness.output.bound,
        "grad_max_error": None,
        "grad_bound": None,
        "allclose": correctness.allclose,
    }
    passed = correctness.allclose and correctness.output.passed
    if direction == FORWARD_BACKWARD:
        row["grad_max_error"] = correctness.gradients.max_error
        row["grad_bound"] = correctness.gradients.bound
        passed = passed and correctness.gradients.passed
    row["passed"] = passed
    return row


NUMBER_KEYS = (
    "jitgemm_ms", "eager_fp32_ms", "eager_tf32_ms", "speedup_fp32", "speedup_tf32",
    "max_error", "bound", "grad_max_error", "grad_bound",
)


def failure_rows(model_id: str, precision: str, backward: bool, message: str) -> List[dict]:
    """Rows for a Model and mode whose evaluation raised: no numbers, failed."""
    directions = [FORWARD, FORWARD_BACKWARD] if backward else [FORWARD]
    rows = []
    for direction in directions:
        row = {"model": model_id, "precision": precision, "direction": direction}
        for key in NUMBER_KEYS:
            row[key] = None
        row["allclose"] = False
        row["passed"] = False
        row["error"] = message
        rows.append(row)
    return rows


def evaluate_model(
    model_id: str,
    precision: str = "tf32x3",
    trials: int = 5,
    runs: int = MIN_RUNS,
    scale: float = 1.0,
    backward: bool = True,
    eager_times: Optional[Dict[str, Dict[str, float]]] = None,
    flush_buffer: Optional[torch.Tensor] = None,
) -> List[dict]:
    """Correctness and timing of one Model in one precision mode.

    Returns one row for the forward and, with ``backward``, one for forward+backward
    (keys as in the JSON output). ``eager_times`` (from :func:`time_eager`, with the same
    scale, runs and backward) and ``flush_buffer`` may be passed in to share them
    between precision modes.
    """
    spec = get_spec(model_id)
    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
    if flush_buffer is None:
        flush_buffer = make_flush_buffer()

    correctness = check_correctness(spec, precision, trials, scale, backward)

    if eager_times is None:
        eager_times = time_eager(spec, scale, runs, backward, flush_buffer)
    inputs, grad_output = timing_data(spec, scale, backward)
    new_times = measure_times(spec.make_new(precision), inputs, grad_output, runs, flush_buffer)

    directions = [FORWARD, FORWARD_BACKWARD] if backward else [FORWARD]
    return [
        make_row(
            spec.model_id,
            precision,
            direction,
            new_times[direction],
            eager_times["fp32"][direction],
            eager_times["tf32"][direction],
            correctness,
        )
        for direction in directions
    ]


# --------------------------------------------------------------------------- output


def gpu_token(device_name: str) -> str:
    """The model token of a GPU name: "NVIDIA H200" -> "H200", "NVIDIA H100 80GB HBM3" -> "H100"."""
    match = re.search(r"\b[A-Z]{1,2}\d{2,4}\b", device_name)
    if match:
        return match.group(0)
    return re.sub(r"[^A-Za-z0-9]+", "-", device_name).strip("-") or "gpu"


def default_json_path(device_name: str) -> Path:
    """bench/results/<gpu>-torch.json in the repository (or the working directory)."""
    repository = Path(__file__).resolve().parents[2]
    root = repository if (repository / "bench").is_dir() else Path.cwd()
    return root / "bench" / "results" / f"{gpu_token(device_name)}-torch.json"


def _format_ms(value) -> str:
    return "-" if value is None else f"{value:.3f}"


def _format_speedup(value) -> str:
    return "-" if value is None else f"{value:.2f}x"


def _format_error(value) -> str:
    return "-" if value is None else f"{value:.2e}"


def table_cells(row: dict) -> List[str]:
    """The printed cells of one row; forward+backward rows show the gradients' error."""
    if row["direction"] == FORWARD_BACKWARD:
        error, bound = row["grad_max_error"], row["grad_bound"]
    else:
        error, bound = row["max_error"], row["bound"]
    return [
        row["model"],
        row["precision"],
        row["direction"],
        _format_ms(row["jitgemm_ms"]),
        _format_ms(row["eager_fp32_ms"]),
        _format_ms(row["eager_tf32_ms"]),
        _format_speedup(row["speedup_fp32"]),
        _format_speedup(row["speedup_tf32"]),
        _format_error(error),
        _format_error(bound),
        "ok" if row["passed"] else "FAIL",
    ]


TABLE_HEADER = [
    "model", "precision", "direction", "jitgemm ms", "eager fp32 ms", "eager tf32 ms",
    "vs fp32", "vs tf32", "max error", "bound", "pass",
]


def format_table(rows: List[dict]) -> str:
    """The rows as an aligned text table."""
    lines = [TABLE_HEADER] + [table_cells(row) for row in rows]
    widths = [max(len(line[column]) for line in lines) for column in range(len(TABLE_HEADER))]
    text = ["  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in lines]
    text.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(text)


def _json_value(value):
    """JSON has no NaN or infinity: write those as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


# --------------------------------------------------------------------------- dispatch cost


DISPATCH_SIZE = 64
DISPATCH_CALLS = 200


def _host_us_per_call(calls_by_name: dict, calls: int, rounds: int = 15) -> dict:
    """Median over ``rounds`` of the host time per call of ``calls`` back-to-back calls, for
    each callable, the callables taking turns round by round (so drift hits them alike)."""
    import time
    times = {name: [] for name in calls_by_name}
    for _ in range(rounds):
        for name, call in calls_by_name.items():
            torch.cuda.synchronize()
            start = time.perf_counter()
            for _ in range(calls):
                call()
            times[name].append((time.perf_counter() - start) / calls * 1e6)
            torch.cuda.synchronize()
    return {name: statistics.median(values) for name, values in times.items()}


def dispatch_overhead(precision: str = "tf32x3") -> dict:
    """Host cost per call of jitgemm.matmul on a 64x64x64 product against Runtime::gemm, in
    microseconds: the C ABI's jitgemm_gemm called through ctypes with a prepared problem and
    output, less the cost of a ctypes call that does no work (jitgemm_abi_layout);
    ``overhead_us`` is jitgemm.matmul's time over Runtime::gemm's."""
    import ctypes
    import jitgemm
    from . import _problem, _runtime
    from ._torch_ops import _current_stream
    n = DISPATCH_SIZE
    a = torch.rand(n, n, device="cuda")
    b = torch.rand(n, n, device="cuda")
    out = torch.empty(n, n, device="cuda")
    options = _problem.Options.checked("general", "general", "full", precision, 1.0, 0.0)
    layout = _problem.Layout("N", n)
    problem = _problem.make_problem(n, n, n, layout, layout, n, options)
    rt = _runtime.runtime(a.device.index)
    stream = _current_stream(a.device)
    lib, handle, pointer = rt.lib, rt.handle, ctypes.byref(problem)
    a_ptr, b_ptr, c_ptr = a.data_ptr(), b.data_ptr(), out.data_ptr()

    def c_abi():
        lib.gemm(handle, pointer, a_ptr, b_ptr, c_ptr, stream)

    def python():
        jitgemm.matmul(a, b, precision=precision)

    def ctypes_only():  # a C ABI call that does no work: what ctypes itself costs per call
        lib.abi_layout(b"jitgemm_problem", None)

    for call in (c_abi, python, ctypes_only):
        for _ in range(20):
            call()
    us = _host_us_per_call({"c_abi": c_abi, "python": python, "ctypes": ctypes_only}, DISPATCH_CALLS)
    # Runtime::gemm itself is the C ABI call less what ctypes adds to it.
    runtime_us = us["c_abi"] - us["ctypes"]
    return {"size": n, "precision": precision, "python_us": us["python"], "c_abi_us": us["c_abi"],
            "ctypes_us": us["ctypes"], "runtime_gemm_us": runtime_us, "overhead_us": us["python"] - runtime_us}


def print_dispatch(dispatch: dict) -> None:
    print(f"dispatch, {dispatch['size']}^3 {dispatch['precision']}: jitgemm.matmul {dispatch['python_us']:.1f} us "
          f"per call; C ABI jitgemm_gemm {dispatch['c_abi_us']:.1f} us, of which ctypes {dispatch['ctypes_us']:.1f} us, "
          f"so Runtime::gemm {dispatch['runtime_gemm_us']:.1f} us: Python overhead {dispatch['overhead_us']:.1f} us")


def write_json(path: Path, device_name: str, rows: List[dict], settings: dict, dispatch: Optional[dict] = None) -> None:
    """Write {"device", "torch", "settings", "dispatch", "rows"} to ``path``."""
    document = {
        "device": device_name,
        "torch": torch.__version__,
        "settings": settings,
        "dispatch": dispatch,
        "rows": [{key: _json_value(value) for key, value in row.items()} for row in rows],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2) + "\n")


# --------------------------------------------------------------------------- command line


def _split_list(values: Sequence[str]) -> List[str]:
    """["a,b", "c"] -> ["a", "b", "c"]."""
    return [item.strip() for value in values for item in value.split(",") if item.strip()]


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    """Command-line options; models and precisions are checked and normalized."""
    parser = argparse.ArgumentParser(
        prog="python -m jitgemm.eval",
        description="KernelBench-style correctness and timing of jitgemm's reference Models.",
    )
    parser.add_argument("--models", nargs="+", default=list(MODELS),
                        help="model ids, comma or space separated (default: all of %(default)s)")
    parser.add_argument("--precisions", nargs="+", default=["tf32x3"],
                        help=f"precision modes, comma or space separated, from {', '.join(PRECISIONS)} "
                             "(default: tf32x3)")
    parser.add_argument("--trials", type=int, default=5, help="random correctness trials (default: 5)")
    parser.add_argument("--runs", type=int, default=MIN_RUNS,
                        help=f"timed runs per measurement, at least {MIN_RUNS} (default: {MIN_RUNS})")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiply every dimension by this (multiples of 16 kept; default: 1.0)")
    parser.add_argument("--json", type=Path, default=None,
                        help="output file (default: bench/results/<gpu>-torch.json)")
    parser.add_argument("--no-backward", action="store_true", help="skip gradients and forward+backward timing")
    parser.add_argument("--dispatch-only", action="store_true",
                        help="only the host cost per call of jitgemm.matmul vs the C ABI (64x64x64); no JSON")
    args = parser.parse_args(argv)

    try:
        args.models = [get_spec(model_id).model_id for model_id in _split_list(args.models)]
    except KeyError as error:
        parser.error(str(error.args[0]))
    args.precisions = _split_list(args.precisions)
    for precision in args.precisions:
        if precision not in PRECISIONS:
            parser.error(f"unknown precision {precision!r}; known: {', '.join(PRECISIONS)}")
    if args.trials < 1:
        parser.error("--trials must be at least 1")
    if args.runs < MIN_RUNS:
        parser.error(f"--runs must be at least {MIN_RUNS}")
    if args.scale <= 0:
        parser.error("--scale must be positive")
    return args


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Evaluate, print the table, write the JSON; 1 if any row failed, 2 without a GPU."""
    args = parse_args(argv)
    if not torch.cuda.is_available():
        log("jitgemm.eval: no CUDA device available")
        return 2
    device_name = torch.cuda.get_device_name()
    if args.dispatch_only:
        print_dispatch(dispatch_overhead())
        return 0
    backward = not args.no_backward
    flush_buffer = make_flush_buffer()

    rows: List[dict] = []
    for model_id in args.models:
        spec = get_spec(model_id)
        log(f"{model_id}: timing the eager original ({spec.description})")
        eager_times = time_eager(spec, args.scale, args.runs, backward, flush_buffer)
        for precision in args.precisions:
            log(f"{model_id} {precision}: {args.trials} correctness trials, then timing")
            try:
                rows += evaluate_model(model_id, precision, args.trials, args.runs, args.scale,
                                       backward, eager_times=eager_times, flush_buffer=flush_buffer)
            except Exception as error:  # report the failure as rows and go on with the others
                traceback.print_exc()
                rows += failure_rows(model_id, precision, backward, f"{type(error).__name__}: {error}")

    print(f"{device_name}, torch {torch.__version__}, scale {args.scale}, "
          f"median of {args.runs} runs, L2 flushed; forward+backward rows show the gradients' error")
    print(format_table(rows))
    dispatch = dispatch_overhead()
    print_dispatch(dispatch)

    json_path = args.json if args.json is not None else default_json_path(device_name)
    settings = {"models": args.models, "precisions": args.precisions, "trials": args.trials,
                "runs": args.runs, "scale": args.scale, "backward": backward}
    write_json(json_path, device_name, rows, settings, dispatch)
    log(f"wrote {json_path}")
    return 0 if all(row["passed"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
