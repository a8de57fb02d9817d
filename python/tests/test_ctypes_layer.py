"""The ctypes layer without PyTorch or a GPU: it imports, mirrors the header's structs, maps
the library's errors to Python exceptions, and checks arguments before any GPU call."""
import ctypes
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

import jitgemm
from jitgemm import _abi, _library, _problem

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def lib():
    return _library.load()


def test_package_imports_and_loads_the_library(lib):
    assert lib.path.name == "libjitgemm.so"
    assert jitgemm.library_version() == jitgemm.__version__


def test_mirror_matches_the_layout_the_library_reports(lib):
    assert _abi.layout_mismatches(lib.abi_layout) == []
    assert lib.abi_layout(b"jitgemm_problem", b"no_such_field") == -1
    assert lib.abi_layout(b"no_such_struct", None) == -1


def _compiler():
    for name in ("cc", "gcc", "c++", "g++"):
        if shutil.which(name):
            return name
    return None


@pytest.mark.skipif(_compiler() is None, reason="no C compiler to build the layout probe")
def test_mirror_matches_the_header_compiled_by_a_c_compiler(tmp_path):
    # A tiny C program prints sizeof / offsetof of every mirrored field from jitgemm.h itself.
    lines = ['#include <stddef.h>', '#include <stdio.h>', '#include "jitgemm/jitgemm.h"', "int main(void) {"]
    for c_name, mirror in _abi.STRUCTS.items():
        lines.append(f'  printf("{c_name} - %zu\\n", sizeof({c_name}));')
        for field, _ in mirror._fields_:
            lines.append(f'  printf("{c_name} {field} %zu\\n", offsetof({c_name}, {field}));')
    lines += ["  return 0;", "}"]
    source = tmp_path / "probe.c"
    source.write_text("\n".join(lines))
    compiler = _compiler()
    language = ["-x", "c"] if compiler in ("c++", "g++") else []
    subprocess.run([compiler, *language, str(source), "-I", str(REPO / "include"), "-o", str(tmp_path / "probe")],
                   check=True)
    out = subprocess.run([str(tmp_path / "probe")], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        c_name, field, value = line.split()
        mirror = _abi.STRUCTS[c_name]
        mine = ctypes.sizeof(mirror) if field == "-" else getattr(mirror, field).offset
        assert mine == int(value), f"{c_name}.{field}: header {value}, mirror {mine}"


def test_a_mismatched_layout_is_named_field_by_field():
    def shifted(type_name, field):
        value = _library.load().abi_layout(type_name, field)
        return value + 4 if field == b"beta" else value
    problems = _abi.layout_mismatches(shifted)
    assert problems == ["offsetof(jitgemm_problem, beta) is 64 in the library, 60 in jitgemm/_abi.py"]


def test_problem_default_comes_back_through_the_struct(lib):
    p = lib.problem_default(3, 4, 5)
    assert (p.m, p.n, p.k, p.alpha, p.beta) == (3, 4, 5, 1.0, 0.0)
    assert (p.structure_a, p.fill, p.precision) == (_abi.STRUCTURES["general"], _abi.FILLS["full"], _abi.PRECISIONS["fp32"])


def test_library_errors_become_python_exceptions_with_its_message(lib):
    p = lib.problem_default(8, 8, 8)
    with pytest.raises(ValueError, match="jitgemm_gemm: runtime is a null pointer") as e:
        lib.check(lib.gemm(None, ctypes.byref(p), None, None, None, None))
    assert isinstance(e.value, jitgemm.JitgemmError) and e.value.status == "JITGEMM_INVALID_ARGUMENT"
    with pytest.raises(ValueError, match="options is a null pointer"):
        lib.check(lib.tune_with(ctypes.c_void_p(1), ctypes.byref(p), None, None))
    options = _abi.TuneOptions(0, 5, 1, 20.0)
    with pytest.raises(ValueError, match="timing_runs=5 must be >= 20"):
        lib.check(lib.tune_with(ctypes.c_void_p(1), ctypes.byref(p), ctypes.byref(options), None))
    options = _abi.TuneOptions(0, 25, 1, -1.0)
    with pytest.raises(ValueError, match="budget_s=-1 must be finite and >= 0"):
        lib.check(lib.tune_with(ctypes.c_void_p(1), ctypes.byref(p), ctypes.byref(options), None))


def test_tune_options_default_comes_back_through_the_struct(lib):
    o = lib.tune_options_default()
    assert (o.jobs, o.timing_runs, o.write_database, o.budget_s) == (0, 25, 1, 20.0)


def test_no_driver_is_a_runtime_error_naming_it():
    if os.path.exists("/dev/nvidia0"):
        pytest.skip("a GPU is present: the no-driver path is not reachable here")
    with pytest.raises(RuntimeError, match="CUDA") as e:
        jitgemm.serve_counters(0)
    assert e.value.status == "JITGEMM_CUDA_ERROR"


def test_status_codes_map_to_the_documented_exceptions():
    from jitgemm.errors import from_status
    assert isinstance(from_status(_abi.INVALID_ARGUMENT, "m"), ValueError)
    assert isinstance(from_status(_abi.NOT_SUPPORTED, "m"), NotImplementedError)
    for status in (_abi.CUDA_ERROR, _abi.COMPILE_ERROR, _abi.DATABASE_ERROR, _abi.INTERNAL_ERROR, 99):
        e = from_status(status, "the message")
        assert isinstance(e, RuntimeError) and str(e) == "the message"


def test_library_not_found_names_every_path_tried(tmp_path):
    env = dict(os.environ, JITGEMM_LIBRARY=str(tmp_path / "nowhere.so"), BUILD_DIR="no-such-build",
               PYTHONPATH=str(REPO / "python"))
    code = "import jitgemm\ntry:\n  jitgemm.library_version()\nexcept jitgemm.LibraryNotFoundError as e:\n  print(e)\n"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert "cannot find libjitgemm.so" in out
    assert f"{tmp_path / 'nowhere.so'} ($JITGEMM_LIBRARY): no such file" in out
    assert "(install layout)" in out and "no-such-build/libjitgemm.so (build tree)" in out


def test_without_torch_the_tensor_api_says_what_it_needs():
    try:
        import torch  # noqa: F401
    except ImportError:
        with pytest.raises(ModuleNotFoundError, match="need PyTorch"):
            jitgemm.matmul(None, None)
    else:
        pytest.skip("PyTorch is installed here: the torch tests cover the tensor API")


# ---- argument checks, before any GPU call (torch-free: shapes and strides only) ----
@pytest.mark.parametrize("name,value,match", [
    ("structure_a", "triangular", "structure_a='triangular' must be one of general, symmetric"),
    ("structure_b", None, "structure_b=None must be one of"),
    ("fill", "diagonal", "fill='diagonal' must be one of full, lower, upper"),
    ("precision", "fp16", "precision='fp16' must be one of fp32, tf32x3, tf32"),
    ("alpha", "two", "alpha='two' must be a real number"),
    ("beta", True, "beta=True must be a real number"),
])
def test_bad_options_are_rejected_naming_the_argument(name, value, match):
    kwargs = dict(structure_a="general", structure_b="general", fill="full", precision="tf32x3", alpha=1.0, beta=0.0)
    kwargs[name] = value
    with pytest.raises(ValueError, match=match):
        _problem.Options.checked(**kwargs)


def test_shapes_are_checked_naming_the_operand():
    assert _problem.check_shapes((5, 7), (7, 3)) == ((), 5, 3, 7)
    assert _problem.check_shapes((2, 1, 5, 7), (4, 7, 3)) == ((2, 4), 5, 3, 7)
    with pytest.raises(ValueError, match=r"a's columns \(7\) must equal b's rows \(6\)"):
        _problem.check_shapes((5, 7), (6, 3))
    with pytest.raises(ValueError, match=r"a has 1 dimension\(s\)"):
        _problem.check_shapes((5,), (5, 3))
    with pytest.raises(ValueError, match="do not broadcast"):
        _problem.check_shapes((2, 5, 7), (3, 7, 3))
    with pytest.raises(ValueError, match=r"out has shape \(5, 4\); the product's is \(5, 3\)"):
        _problem.check_shapes((5, 7), (7, 3), (5, 4), "out")


@pytest.mark.parametrize("rows,cols,strides,expected", [
    (5, 7, (7, 1), _problem.Layout("N", 7)),          # contiguous
    (5, 7, (16, 1), _problem.Layout("N", 16)),        # padded rows (a slice of a wider matrix)
    (5, 7, (1, 5), _problem.Layout("T", 5)),          # A.T of a contiguous 7x5: read in place, op T
    (5, 7, (1, 8), _problem.Layout("T", 8)),          # A.T of a padded 7x5
    (1, 7, (99, 1), _problem.Layout("N", 7)),         # one row: its stride is never used
    (5, 1, (1, 99), _problem.Layout("N", 1)),         # one column: likewise
    (5, 7, (14, 2), _problem.Layout("N", 7, True)),   # a column step: one contiguous copy
    (5, 7, (0, 1), _problem.Layout("N", 7, True)),    # broadcast rows: a copy
    (5, 7, (1, 1), _problem.Layout("N", 7, True)),    # overlapping: a copy
    (0, 7, (7, 1), _problem.Layout("N", 0)),
])
def test_operand_layout(rows, cols, strides, expected):
    assert _problem.operand_layout(rows, cols, *strides) == expected


def test_a_transposed_operand_hands_the_mirrored_structure_to_the_library():
    options = _problem.Options.checked("lower", "symmetric", "lower", "tf32", 2.0, 0.5)
    p = _problem.make_problem(4, 6, 5, _problem.Layout("T", 4), _problem.Layout("N", 6), 6, options)
    assert (p.trans_a, p.trans_b) == (_abi.OPS["T"], _abi.OPS["N"])
    assert p.structure_a == _abi.STRUCTURES["upper"]       # (A.T) lower <=> stored A upper
    assert p.structure_b == _abi.STRUCTURES["symmetric"]
    assert (p.lda, p.ldb, p.ldc, p.alpha, p.beta) == (4, 6, 6, 2.0, 0.5)
    assert (p.fill, p.precision) == (_abi.FILLS["lower"], _abi.PRECISIONS["tf32"])
    q = _problem.make_problem(4, 4, 4, _problem.Layout("T", 4), _problem.Layout("T", 4), 4,
                              _problem.Options.checked("symmetric", "upper_unit", "full", "fp32", 1, 0))
    assert q.structure_a == _abi.STRUCTURES["symmetric_upper"] and q.structure_b == _abi.STRUCTURES["lower_unit"]


def test_cmake_install_puts_the_package_next_to_the_library(tmp_path):
    library = os.environ.get("JITGEMM_LIBRARY")
    if not library or shutil.which("cmake") is None:
        pytest.skip("needs $JITGEMM_LIBRARY in a build tree (ctest sets it) and cmake")
    build = pathlib.Path(library).resolve().parent
    subprocess.run(["cmake", "--install", str(build), "--prefix", str(tmp_path)], check=True, capture_output=True)
    for installed in ("lib/libjitgemm.so", "lib/python/jitgemm/__init__.py", "include/jitgemm/jitgemm.h",
                      "share/jitgemm/jitgemm_tuning.json", "bin/jitgemm-tune"):
        assert (tmp_path / installed).is_file(), installed
    env = {k: v for k, v in os.environ.items() if k not in ("JITGEMM_LIBRARY", "BUILD_DIR")}
    env["PYTHONPATH"] = str(tmp_path / "lib/python")
    code = "from jitgemm import _library; print(_library.load().path)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                         cwd=tmp_path).stdout
    assert out.strip() == str(tmp_path / "lib/libjitgemm.so")
