"""Puts the package of this checkout first on sys.path (the tests run from the source tree,
against the library named by $JITGEMM_LIBRARY or found in the build tree)."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
