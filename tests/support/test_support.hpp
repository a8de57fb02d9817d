// Helpers shared by every test binary.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "codegen/template_store.hpp"

namespace jitgemm::testing {

// True when a CUDA driver loads and a device exists; otherwise fills `reason`.
bool gpu_available(std::string* reason);

// Use first in every GPU test: skips (visibly, with the reason) where no GPU exists.
#define JITGEMM_REQUIRE_GPU()                                          \
  do {                                                                 \
    std::string jitgemm_skip_reason;                                   \
    if (!::jitgemm::testing::gpu_available(&jitgemm_skip_reason))      \
      GTEST_SKIP() << "no GPU: " << jitgemm_skip_reason;               \
  } while (0)

// A fresh empty directory under the build tree, removed at exit.
std::string temp_dir(const std::string& tag);

// The embedded templates written under a fresh directory (temp_dir(tag)), `edit` applied to the
// text of `file` (e.g. "tf32/wgmma_gemm.cu"), and read back as a store.
TemplateStore templates_with_edit(const std::string& tag, std::string_view file,
                                  const std::function<std::string(std::string)>& edit);

}  // namespace jitgemm::testing
