# Sourced by scripts/fuzz.sh and scripts/asan.sh (not run on its own).
#
# ensure_sanitizer_toolchain CXX FLAGS...: makes sure a trivial program builds and links with
# compiler CXX and FLAGS (e.g. clang++ -fsanitize=fuzzer,address,undefined). When it does not,
# installs Debian's clang, its runtimes (libclang-rt-dev: libclang_rt.fuzzer, asan, ubsan) and
# llvm (llvm-symbolizer, for readable stacks) with apt-get, as scripts/setup.sh does for the
# build dependencies, and checks again.

# True when a program (libFuzzer's entry point with -fsanitize=fuzzer, else main) builds.
sanitizer_program_links() {
  local cxx="$1"; shift
  local program='int main() { return 0; }'
  case " $* " in
    *-fsanitize=fuzzer*) program='extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' ;;
  esac
  local out
  out="$(mktemp)"
  if printf '%s\n' "$program" | "$cxx" -x c++ - "$@" -o "$out" >/dev/null 2>&1; then
    rm -f "$out"
    return 0
  fi
  rm -f "$out"
  return 1
}

ensure_sanitizer_toolchain() {
  local cxx="$1"; shift
  command -v "$cxx" >/dev/null 2>&1 && sanitizer_program_links "$cxx" "$@" && return 0
  echo "sanitizers: '$cxx $*' cannot build a program; installing clang libclang-rt-dev llvm"
  local sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq clang libclang-rt-dev llvm
  if ! sanitizer_program_links "$cxx" "$@"; then
    echo "sanitizers: '$cxx $*' still cannot build a program" >&2
    return 1
  fi
}
