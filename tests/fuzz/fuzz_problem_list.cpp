// libFuzzer target: the problem-list reader (`jitgemm-tune --problems FILE`). The input is
// the file's text. load_problem_list only takes a path, so the bytes go to an in-memory
// file (memfd) read back through /proc/self/fd/N: no disk traffic per input.
//
// Then each problem goes where jitgemm-tune sends it: validate (check_tunable's first step),
// its database key, and with --backward its gradient products. What must hold:
//   - only jitgemm::Error leaves the reader and those checks (the tool catches nothing else);
//   - a valid problem's key reads back from its canonical text as the same key, and
//     problem_for_key(key) is a problem with that key.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "jitgemm/backward.hpp"
#include "jitgemm/error.hpp"
#include "problem/gemm_work.hpp"
#include "problem/problem_key.hpp"
#include "problem/problem_list.hpp"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_problem_list: %s\n%s\n", what, detail.c_str());
  std::abort();
}

// One memfd for the whole run, rewritten for each input.
class MemoryFile {
 public:
  MemoryFile() : fd_(memfd_create("problem_list.json", 0)) {
    if (fd_ < 0) fail("memfd_create failed", "");
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  const std::string& write(const uint8_t* data, size_t size) {
    if (ftruncate(fd_, 0) != 0) fail("ftruncate failed", path_);
    size_t done = 0;
    while (done < size) {
      const ssize_t n = pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
      if (n <= 0) fail("pwrite failed", path_);
      done += static_cast<size_t>(n);
    }
    return path_;
  }

 private:
  int fd_;
  std::string path_;
};

// What jitgemm-tune does with a listed problem; throws jitgemm::Error for an invalid one.
void use_problem(const jitgemm::GemmProblem& p) {
  p.validate("fuzz");
  (void)p.to_string();
  if (jitgemm::gemm_work(p) != jitgemm::GemmWork::Product) return;  // check_tunable refuses it
  const jitgemm::ProblemKey key = jitgemm::make_problem_key(p);
  const std::string canonical = key.canonical();
  if (!(jitgemm::ProblemKey::parse(canonical) == key)) fail("a key does not read back from its text", canonical);
  if (!(jitgemm::make_problem_key(jitgemm::problem_for_key(key)) == key))
    fail("problem_for_key(key) has another key", canonical);
  // --backward, with and without --project (a general operand's projection is an error).
  (void)jitgemm::backward_problems(p);
  (void)jitgemm::backward_problems(p, {p.structure_a != jitgemm::Structure::General,
                                       p.structure_b != jitgemm::Structure::General});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static MemoryFile file;
  std::vector<jitgemm::NamedProblem> list;
  try {
    list = jitgemm::load_problem_list(file.write(data, size));
  } catch (const jitgemm::Error&) {
    return 0;  // rejected with a message
  }
  for (const jitgemm::NamedProblem& named : list) {
    try {
      use_problem(named.problem);
    } catch (const jitgemm::Error&) {
      // an invalid problem, named in the message: the tool reports it
    }
  }
  return 0;
}
