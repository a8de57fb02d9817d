// The fuzz input as a command line, for the command-line targets: the bytes split at each NUL
// into arguments (empty ones included, as a real argv may hold them), after a fixed program
// name. An empty input is the bare program name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace jitgemm::fuzz {

inline std::vector<std::string> arguments_from(std::string_view program, const uint8_t* data, size_t size) {
  std::vector<std::string> args{std::string(program)};
  if (size == 0) return args;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  size_t start = 0;
  while (true) {
    const size_t end = bytes.find('\0', start);
    args.emplace_back(bytes.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return args;
    start = end + 1;
  }
}

}  // namespace jitgemm::fuzz
