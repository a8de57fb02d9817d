#!/usr/bin/env bash
# jitgemm from a user's side: installs a build tree into a fresh prefix, moves the prefix (the
# install must not depend on where it was made), then uses it as users do: a CMake project with
# find_package(jitgemm) (C++ and C), a C program built with pkg-config alone, the installed
# tools, the Python package's ctypes layer, and (configured only) a project that builds jitgemm
# as its subdirectory. On a machine without a GPU the programs stop at the runtime with the
# library's "no GPU" message; with one, the C++ program checks a product.
# Usage: check_install.sh BUILD_DIR [CUDA_ROOT]   (ctest: install.consumer)
set -euo pipefail
build=$(cd "$1" && pwd)
cuda_root=${2:-${CUDA_HOME:-/usr/local/cuda}}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step() { echo "== $*"; }
die() { echo "check_install: $*" >&2; exit 1; }

step "install, then move the prefix"
cmake --install "$build" --prefix "$work/staged" >"$work/install.log" || { cat "$work/install.log"; die "cmake --install failed"; }
mv "$work/staged" "$work/prefix"
prefix=$work/prefix
libdir=$(dirname "$(find "$prefix" -name jitgemm.pc -path '*/pkgconfig/*')")/..
libdir=$(cd "$libdir" && pwd)
for f in include/jitgemm/runtime.hpp include/jitgemm/jitgemm.h include/jitgemm/version.h bin/jitgemm-tune bin/jitgemm-db \
         share/jitgemm/jitgemm_tuning.json libexec/jitgemm/jitgemm-tune-worker; do
  [[ -e $prefix/$f ]] || die "$f is not installed"
done
for f in libjitgemm.so cmake/jitgemm/jitgemmConfig.cmake cmake/jitgemm/jitgemmConfigVersion.cmake \
         cmake/jitgemm/jitgemmTargets.cmake python/jitgemm/__init__.py; do
  [[ -e $libdir/$f ]] || die "${libdir#$prefix/}/$f is not installed"
done
soname=$(objdump -p "$libdir/libjitgemm.so" | awk '/SONAME/ {print $2}')
echo "libjitgemm SONAME $soname"
[[ $soname =~ ^libjitgemm\.so\.[0-9]+\.[0-9]+$ ]] || die "libjitgemm.so has SONAME '$soname', not libjitgemm.so.<major>.<minor>"
# The public headers stand alone: each compiles by itself (C++17; the C header as C99).
for h in runtime.hpp problem.hpp backward.hpp error.hpp; do
  echo "#include <jitgemm/$h>" | g++ -std=c++17 -fsyntax-only -Wall -Wextra -Werror -I"$prefix/include" -x c++ - ||
    die "<jitgemm/$h> does not compile on its own"
done
printf '#include <jitgemm/jitgemm.h>\n#include <jitgemm/version.h>\n' | gcc -std=c99 -fsyntax-only -Wall -Wextra -Werror -pedantic -I"$prefix/include" -x c - ||
  die "<jitgemm/jitgemm.h> or <jitgemm/version.h> does not compile as C99"

step "a CMake project: find_package(jitgemm)"
cmake -S "$here/consumer" -B "$work/consumer" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
  -DCUDAToolkit_ROOT="$cuda_root" >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; die "configure failed"; }
grep -E "^-- jitgemm " "$work/configure.log"
grep -qE "^-- jitgemm .* from $prefix/" "$work/configure.log" || die "find_package(jitgemm) did not find the moved prefix"
cmake --build "$work/consumer" -j 2 >"$work/build.log" 2>&1 || { cat "$work/build.log"; die "the consumer does not build"; }
[[ $(cat "$work/consumer/jitgemm-db-location.txt") == "$prefix/bin/jitgemm-db" ]] || die "jitgemm::jitgemm-db is not the installed tool"
for exe in consumer_cpp consumer_c; do
  resolved=$(ldd "$work/consumer/$exe" | awk '/libjitgemm/ {print $3}')
  [[ $resolved == "$libdir/"* ]] || die "$exe loads libjitgemm from '$resolved', not the prefix"
  "$work/consumer/$exe" || die "$exe failed"
done

step "a C program: pkg-config jitgemm"
export PKG_CONFIG_PATH=$libdir/pkgconfig
version=$(pkg-config --modversion jitgemm)
echo "pkg-config: jitgemm $version, $(pkg-config --cflags --libs jitgemm)"
# shellcheck disable=SC2046
gcc -std=c99 -Wall -Wextra -Werror -DEXPECTED_VERSION="\"$version\"" "$here/consumer/consumer.c" -o "$work/consumer_pc" \
  $(pkg-config --cflags --libs jitgemm) -Wl,-rpath,"$(pkg-config --variable=libdir jitgemm)" || die "pkg-config build failed"
"$work/consumer_pc" || die "the pkg-config build failed to run"

step "the installed tools and records"
"$prefix/bin/jitgemm-db" verify "$prefix/share/jitgemm/jitgemm_tuning.json" || die "jitgemm-db verify of the installed records failed"
"$prefix/bin/jitgemm-tune" --help >/dev/null || die "jitgemm-tune --help failed"
# With no --db and no $JITGEMM_TUNING_DB the tools read the records the library serves, from any
# directory and when found through PATH (before, they looked for tuning_db/ in the current one).
named=$("$prefix/bin/jitgemm-db" --db "$prefix/share/jitgemm/jitgemm_tuning.json" list) || die "jitgemm-db list failed"
unnamed=$(cd "$work" && env -u JITGEMM_TUNING_DB PATH="$prefix/bin:$PATH" jitgemm-db list) ||
  die "jitgemm-db list without --db failed outside the source tree"
# (The same records; the last line names the file: the source tree's while it exists, as the
# library also prefers it, else the installed copy.)
[[ $(sed '$d' <<<"$unnamed") == "$(sed '$d' <<<"$named")" ]] ||
  die "jitgemm-db without --db lists other records than the shipped ones"
echo "jitgemm-db list without --db, from $work through PATH: $(tail -1 <<<"$unnamed")"

step "a CMake project with jitgemm inside it: add_subdirectory (configured, not built)"
src=$(cd "$here/../.." && pwd)
cmake -S "$here/subproject" -B "$work/subproject" -DJITGEMM_SOURCE="$src" -DCUDAToolkit_ROOT="$cuda_root" \
  >"$work/subproject.log" 2>&1 || { cat "$work/subproject.log"; die "jitgemm does not configure as a subproject"; }
grep -E "^-- jitgemm .* as a subproject" "$work/subproject.log"

step "the Python package (ctypes layer)"
env -u JITGEMM_LIBRARY PYTHONPATH="$libdir/python" python3 -c "
import jitgemm, jitgemm._library as lib
loaded = lib.load().path
assert str(loaded).startswith('$libdir/'), f'loaded {loaded}, not the installed library'
assert jitgemm.library_version() == jitgemm.__version__ == '$version', (jitgemm.library_version(), jitgemm.__version__)
try:
    import tomllib  # Python 3.11+: the package's pyproject.toml names the same version
    with open('$src/python/pyproject.toml', 'rb') as f:
        declared = tomllib.load(f)['project']['version']
    assert declared == '$version', f'python/pyproject.toml says {declared}, the library $version'
except ModuleNotFoundError:
    pass
print('python: jitgemm', jitgemm.__version__, 'from', loaded)
" || die "the installed Python package does not load the installed library"
echo "install check passed"
