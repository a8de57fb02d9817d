// Where the code of jitgemm lies on disk: the directory of the shared library (libjitgemm.so)
// or executable that holds this function, found with dladdr. The installed layout puts the
// shipped records and the tuning worker relative to it (<prefix>/lib -> <prefix>/share/jitgemm,
// <prefix>/libexec/jitgemm).
#pragma once

#include <filesystem>

namespace jitgemm {

// The absolute directory of the loaded object holding jitgemm; empty when dladdr cannot say.
std::filesystem::path library_directory();

}  // namespace jitgemm
