// libFuzzer target: jitgemm-tune's command-line parser (tools/tune_command_line.hpp). The input
// is the arguments after the program name, separated by NUL bytes (fuzz_arguments.hpp).
//
// What must hold for any arguments: parse_tune_command_line throws nothing and returns 0 or 2;
// 0 to tune leaves the message empty, 0 for help (options.help) and 2 (a usage error) come with
// a message for the user. (--problems checks that its file exists: only a stat, nothing is read.)
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_arguments.hpp"
#include "tune_command_line.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  jitgemm::TuneCommandLine options;
  std::string message;
  const int status =
      jitgemm::parse_tune_command_line(jitgemm::fuzz::arguments_from("jitgemm-tune", data, size), options, message);
  const bool consistent = status == 0   ? options.help != message.empty()
                          : status == 2 ? !options.help && !message.empty()
                                        : false;
  if (!consistent) {
    std::fprintf(stderr, "fuzz_tune_command_line: status %d, help %d, message \"%s\"\n", status,
                 static_cast<int>(options.help), message.c_str());
    std::abort();
  }
  return 0;
}
