"""The C ABI of include/jitgemm/jitgemm.h, mirrored with ctypes.

Only this file knows the struct layouts and enum values. ``check_layout`` compares the
mirror with the layout the loaded library reports (``jitgemm_abi_layout``), so a library
built from another header is refused with a message instead of reading garbage.
"""
import ctypes

SUCCESS = 0
INVALID_ARGUMENT = 1
NOT_SUPPORTED = 2
CUDA_ERROR = 3
COMPILE_ERROR = 4
DATABASE_ERROR = 5
INTERNAL_ERROR = 6

STATUS_NAMES = {
    SUCCESS: "JITGEMM_SUCCESS",
    INVALID_ARGUMENT: "JITGEMM_INVALID_ARGUMENT",
    NOT_SUPPORTED: "JITGEMM_NOT_SUPPORTED",
    CUDA_ERROR: "JITGEMM_CUDA_ERROR",
    COMPILE_ERROR: "JITGEMM_COMPILE_ERROR",
    DATABASE_ERROR: "JITGEMM_DATABASE_ERROR",
    INTERNAL_ERROR: "JITGEMM_INTERNAL_ERROR",
}

# The names are jitgemm's stable names (problem.hpp: to_string / parse_*), the values the
# C enums'.
OPS = {"N": 0, "T": 1}
STRUCTURES = {
    "general": 0,
    "symmetric": 1,
    "lower": 2,
    "upper": 3,
    "symmetric_upper": 4,
    "lower_unit": 5,
    "upper_unit": 6,
}
FILLS = {"full": 0, "lower": 1, "upper": 2}
PRECISIONS = {"fp32": 0, "tf32x3": 1, "tf32": 2}
SERVE_RULES = {0: "exact", 1: "nearest", 2: "default"}

_enum = ctypes.c_int  # a C enum with small values is an int on every ABI jitgemm targets


class Problem(ctypes.Structure):
    _fields_ = [
        ("m", ctypes.c_int64),
        ("n", ctypes.c_int64),
        ("k", ctypes.c_int64),
        ("trans_a", _enum),
        ("trans_b", _enum),
        ("lda", ctypes.c_int64),
        ("ldb", ctypes.c_int64),
        ("ldc", ctypes.c_int64),
        ("alpha", ctypes.c_float),
        ("beta", ctypes.c_float),
        ("structure_a", _enum),
        ("structure_b", _enum),
        ("fill", _enum),
        ("precision", _enum),
    ]


class TuneOptions(ctypes.Structure):
    _fields_ = [("jobs", ctypes.c_int), ("timing_runs", ctypes.c_int), ("write_database", ctypes.c_int),
                ("budget_s", ctypes.c_double)]


class ServeCounters(ctypes.Structure):
    _fields_ = [
        ("exact", ctypes.c_uint64),
        ("nearest", ctypes.c_uint64),
        ("fallback", ctypes.c_uint64),
        ("stale", ctypes.c_uint64),
    ]


class Explanation(ctypes.Structure):
    _fields_ = [
        ("rule", _enum),
        ("stale", ctypes.c_int),
        ("kernel", ctypes.c_char_p),
        ("record", ctypes.c_char_p),
        ("text", ctypes.c_char_p),
    ]


# C struct name -> mirror.
STRUCTS = {
    "jitgemm_problem": Problem,
    "jitgemm_tune_options": TuneOptions,
    "jitgemm_serve_counters": ServeCounters,
    "jitgemm_explanation": Explanation,
}

_runtime = ctypes.c_void_p
_plan = ctypes.c_void_p
_status = ctypes.c_int

# name -> (restype, argtypes)
FUNCTIONS = {
    "jitgemm_problem_default": (Problem, [ctypes.c_int64, ctypes.c_int64, ctypes.c_int64]),
    "jitgemm_create": (_status, [ctypes.POINTER(_runtime), ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p]),
    "jitgemm_destroy": (_status, [_runtime]),
    "jitgemm_gemm": (
        _status,
        [_runtime, ctypes.POINTER(Problem), ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p],
    ),
    "jitgemm_gemm_backward": (
        _status,
        [_runtime, ctypes.POINTER(Problem)] + [ctypes.c_void_p] * 5 + [ctypes.c_int, ctypes.c_int, ctypes.c_void_p],
    ),
    "jitgemm_plan_create": (_status, [_runtime, ctypes.POINTER(Problem), ctypes.POINTER(_plan)]),
    "jitgemm_plan_run": (_status, [_plan, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]),
    "jitgemm_plan_destroy": (_status, [_plan]),
    "jitgemm_tune": (_status, [_runtime, ctypes.POINTER(Problem), ctypes.POINTER(ctypes.c_double)]),
    "jitgemm_tune_options_default": (TuneOptions, []),
    "jitgemm_tune_with": (
        _status,
        [_runtime, ctypes.POINTER(Problem), ctypes.POINTER(TuneOptions), ctypes.POINTER(ctypes.c_double)],
    ),
    "jitgemm_get_serve_counters": (_status, [_runtime, ctypes.POINTER(ServeCounters)]),
    "jitgemm_explain": (_status, [_runtime, ctypes.POINTER(Problem), ctypes.POINTER(Explanation)]),
    "jitgemm_abi_layout": (ctypes.c_int64, [ctypes.c_char_p, ctypes.c_char_p]),
    "jitgemm_last_error": (ctypes.c_char_p, []),
    "jitgemm_version": (ctypes.c_char_p, []),
}


def layout_mismatches(abi_layout):
    """Differences between the mirror and ``abi_layout(type, field)`` (the library's
    ``jitgemm_abi_layout``, returning -1 for unknown names), as readable lines."""
    problems = []
    for c_name, mirror in STRUCTS.items():
        size = abi_layout(c_name.encode(), None)
        if size != ctypes.sizeof(mirror):
            problems.append(f"sizeof({c_name}) is {size} in the library, {ctypes.sizeof(mirror)} in jitgemm/_abi.py")
        for field, _ in mirror._fields_:
            offset = abi_layout(c_name.encode(), field.encode())
            mine = getattr(mirror, field).offset
            if offset != mine:
                problems.append(
                    f"offsetof({c_name}, {field}) is {offset} in the library, {mine} in jitgemm/_abi.py")
    return problems
