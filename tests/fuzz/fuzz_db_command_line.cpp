// libFuzzer target: jitgemm-db's command-line parser (tools/db_command_line.hpp). The input is
// the arguments after the program name, separated by NUL bytes (fuzz_arguments.hpp).
//
// What must hold for any arguments: parse_db_command_line throws nothing and returns 0 or 2;
// 0 with a subcommand leaves the message empty, 0 without one (help) and 2 (a usage error)
// come with a message for the user.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "db_command_line.hpp"
#include "fuzz_arguments.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using Command = jitgemm::DbCommandLine::Command;
  jitgemm::DbCommandLine command_line;
  std::string message;
  const int status =
      jitgemm::parse_db_command_line(jitgemm::fuzz::arguments_from("jitgemm-db", data, size), command_line, message);
  const bool consistent = status == 0   ? (command_line.command == Command::None) != message.empty()
                          : status == 2 ? command_line.command == Command::None && !message.empty()
                                        : false;
  if (!consistent) {
    std::fprintf(stderr, "fuzz_db_command_line: status %d, command %d, message \"%s\"\n", status,
                 static_cast<int>(command_line.command), message.c_str());
    std::abort();
  }
  return 0;
}
