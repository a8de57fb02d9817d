"""Finding and loading libjitgemm.so (ctypes, the C ABI only: no torch C++ ABI coupling).

Search order: ``$JITGEMM_LIBRARY`` (a file), then the install layout (``cmake --install``
puts this package in <prefix>/lib/python/jitgemm and the library in <prefix>/lib), then
the build tree of a source checkout (<repo>/build, or ``$BUILD_DIR`` relative to it).
"""
import ctypes
import os
import pathlib
import threading

from . import _abi
from .errors import LibraryNotFoundError, from_status

_PACKAGE_DIR = pathlib.Path(__file__).resolve().parent
_NAME = "libjitgemm.so"


def candidate_paths():
    """Where the library is looked for, in order, with why (for the not-found message)."""
    found = []
    env = os.environ.get("JITGEMM_LIBRARY")
    if env:
        found.append((pathlib.Path(env), "$JITGEMM_LIBRARY"))
    found.append((_PACKAGE_DIR.parent.parent / _NAME, "install layout"))
    repo = _PACKAGE_DIR.parent.parent
    build = os.environ.get("BUILD_DIR", "build")
    found.append((repo / build / _NAME, "build tree"))
    return found


class Library:
    """The loaded library: its functions with their prototypes."""

    def __init__(self, path):
        self.path = path
        self._dll = ctypes.CDLL(str(path))
        missing = [name for name in _abi.FUNCTIONS if not hasattr(self._dll, name)]
        if missing:
            raise LibraryNotFoundError(
                f"{path} lacks {', '.join(missing)}: it is older than this jitgemm package; rebuild it")
        for name, (restype, argtypes) in _abi.FUNCTIONS.items():
            fn = getattr(self._dll, name)
            fn.restype, fn.argtypes = restype, argtypes
            setattr(self, name[len("jitgemm_"):], fn)
        mismatches = _abi.layout_mismatches(self.abi_layout)
        if mismatches:
            raise LibraryNotFoundError(f"{path} was built from another jitgemm.h:\n  " + "\n  ".join(mismatches))

    def check(self, status):
        """Raises the exception for a failed status, with the library's message."""
        if status != _abi.SUCCESS:
            raise from_status(status, self.last_error().decode(errors="replace"))


_lock = threading.Lock()
_library = None


def load():
    """The library, loaded on first use. Raises LibraryNotFoundError naming every path tried."""
    global _library
    if _library is not None:
        return _library
    with _lock:
        if _library is None:
            tried = []
            for path, why in candidate_paths():
                if path.is_file():
                    try:
                        _library = Library(path)
                        break
                    except OSError as e:
                        if isinstance(e, LibraryNotFoundError):
                            raise
                        tried.append(f"{path} ({why}): {e}")
                else:
                    tried.append(f"{path} ({why}): no such file")
            else:
                raise LibraryNotFoundError(
                    "jitgemm: cannot find libjitgemm.so; set JITGEMM_LIBRARY to its path, or build it "
                    "(bash scripts/build.sh). Tried:\n  " + "\n  ".join(tried))
    return _library
