#!/usr/bin/env bash
# Installs what jitgemm builds with, where it is missing (Debian/Ubuntu packages), and
# checks that the CUDA toolkit is there. Safe to run again; offline machines that already
# have everything install nothing.
set -euo pipefail

need=()
have_header() { [ -e "/usr/include/$1" ] || [ -e "/usr/local/include/$1" ]; }
have_header nlohmann/json.hpp   || need+=(nlohmann-json3-dev)
have_header CLI/CLI.hpp         || need+=(libcli11-dev)
have_header fmt/format.h        || need+=(libfmt-dev)
have_header gtest/gtest.h       || need+=(libgtest-dev)
have_header benchmark/benchmark.h || need+=(libbenchmark-dev)
command -v cmake >/dev/null     || need+=(cmake)
command -v g++ >/dev/null       || need+=(g++)
command -v python3 >/dev/null   || need+=(python3)
command -v pkg-config >/dev/null || need+=(pkgconf)   # tests/install: a C program built with pkg-config
# The Python tests need pytest in some python3 (Debian's python3-pytest serves /usr/bin/python3).
{ python3 -c 'import pytest' || /usr/bin/python3 -c 'import pytest'; } 2>/dev/null || need+=(python3-pytest)

if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need[@]}"
fi

cuda_root="${CUDA_HOME:-/usr/local/cuda}"
if [ ! -e "$cuda_root/include/nvrtc.h" ]; then
  echo "setup: no CUDA toolkit at $cuda_root (set CUDA_HOME); jitgemm needs NVRTC and cuBLAS from it" >&2
  exit 1
fi
