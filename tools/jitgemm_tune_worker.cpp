// jitgemm-tune-worker: the process in which the tuner verifies and times candidates
// (src/tune/tuning_worker.hpp). Started by the tuner with its protocol socket on fd 3; not
// meant to be run by hand.
#include <sys/stat.h>

#include <cstdio>

#include "tune/tuning_worker.hpp"

int main() {
  struct stat st{};
  if (::fstat(3, &st) != 0 || !S_ISSOCK(st.st_mode)) {
    std::fprintf(stderr, "jitgemm-tune-worker: fd 3 is not the tuner's socket; the tuner starts this program\n");
    return 2;
  }
  return jitgemm::run_tuning_worker(3);
}
