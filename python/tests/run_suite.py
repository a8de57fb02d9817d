"""ctest's entry to the Python tests: ``run_suite.py ctypes`` (no PyTorch needed) or
``run_suite.py torch`` (exits 77, which ctest reports as Skipped, where PyTorch does not
import; its GPU cases skip, each with its reason, where no CUDA device exists)."""
import importlib.util
import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
SUITES = {"ctypes": "test_ctypes_*.py", "torch": "test_torch_*.py"}


def main(suite):
    if suite == "torch" and importlib.util.find_spec("torch") is None:
        print("SKIPPED: PyTorch is not importable here; the torch tests run on the GPU machine (bench/device-run.sh)")
        return 77
    files = sorted(str(p) for p in HERE.glob(SUITES[suite]))
    return pytest.main(["-v", "-rs", "-p", "no:cacheprovider", *files])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
