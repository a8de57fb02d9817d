"""One jitgemm Runtime per CUDA device, created on first use and kept for the process.

Thin: each method is one C ABI call; a failed status raises the library's message as a
Python exception (jitgemm.errors).
"""
import ctypes
import threading
from typing import NamedTuple

from . import _abi, _library


class ServeCounters(NamedTuple):
    """How many gemm calls each serving rule answered on a device (Runtime::serve_counters)."""

    exact: int
    nearest: int
    fallback: int
    stale: int


class Explanation(NamedTuple):
    """How gemm serves a problem now (Runtime::explain)."""

    rule: str      # "exact", "nearest" or "default"
    kernel: str    # the kernel config's name
    record: str    # the key of the record served ("" under the default rule)
    stale: bool    # the record was tuned in another environment (driver, NVRTC, templates)
    text: str      # the decision, as jitgemm-db explain prints it

    def __str__(self):
        return self.text


class Runtime:
    """A jitgemm_runtime on one device (the shipped or $JITGEMM_TUNING_DB records)."""

    def __init__(self, device):
        self.lib = _library.load()
        self.device = device
        handle = ctypes.c_void_p()
        self.lib.check(self.lib.create(ctypes.byref(handle), device, None, None))
        self.handle = handle

    def gemm(self, problem, a, b, c, stream):
        """C = alpha op(A) op(B) + beta C; a, b, c device addresses, stream a CUstream (int)."""
        self.lib.check(self.lib.gemm(self.handle, ctypes.byref(problem), a, b, c, stream))

    def plan(self, problem):
        """A Plan of ``problem``: its kernel selected and loaded now (Runtime::plan)."""
        handle = ctypes.c_void_p()
        self.lib.check(self.lib.plan_create(self.handle, ctypes.byref(problem), ctypes.byref(handle)))
        return Plan(self.lib, handle.value)

    def gemm_backward(self, problem, dc, a, b, da, db, stream, project_a=False, project_b=False):
        self.lib.check(self.lib.gemm_backward(self.handle, ctypes.byref(problem), dc, a, b, da, db,
                                              int(project_a), int(project_b), stream))

    def tune(self, problem, jobs=0, timing_runs=25, write_database=True, budget_s=20.0):
        options = _abi.TuneOptions(jobs, timing_runs, int(bool(write_database)), float(budget_s))
        ms = ctypes.c_double()
        self.lib.check(self.lib.tune_with(self.handle, ctypes.byref(problem), ctypes.byref(options), ctypes.byref(ms)))
        return ms.value

    def explain(self, problem):
        out = _abi.Explanation()
        self.lib.check(self.lib.explain(self.handle, ctypes.byref(problem), ctypes.byref(out)))
        return Explanation(_abi.SERVE_RULES[out.rule], out.kernel.decode(), out.record.decode(), bool(out.stale),
                           out.text.decode())

    def serve_counters(self):
        out = _abi.ServeCounters()
        self.lib.check(self.lib.get_serve_counters(self.handle, ctypes.byref(out)))
        return ServeCounters(out.exact, out.nearest, out.fallback, out.stale)


class Plan:
    """A jitgemm_plan: ``run_fn(handle, a, b, c, stream)`` (jitgemm_plan_run, returning its
    status) launches its problem's kernel with no lookup. Its decision is fixed when it is made
    (a later tune needs a new plan); destroyed with the object. Runtimes live as long as the
    process, so a plan never outlives its runtime."""

    def __init__(self, lib, handle):
        self.lib, self.handle = lib, handle
        self.run_fn = lib.plan_run

    def __del__(self):
        if self.handle:
            self.lib.plan_destroy(self.handle)
            self.handle = None


_lock = threading.Lock()
_runtimes = {}


def runtime(device):
    """The Runtime of CUDA device ``device`` (an ordinal), created once."""
    rt = _runtimes.get(device)
    if rt is None:
        with _lock:
            rt = _runtimes.get(device)
            if rt is None:
                rt = _runtimes[device] = Runtime(device)
    return rt
