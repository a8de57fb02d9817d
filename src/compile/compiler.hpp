// Source -> cubin: NVRTC behind the binary cache. A compile error is data (ok=false and
// the log), not an exception; only a broken environment throws. Debug switches are read
// here, once: JITGEMM_DUMP_DIR=<dir> writes each kernel's source, PTX and log there.
//
//   Compiler compiler(BinaryCache::default_dir());
//   CompileOutcome out = compiler.compile(source, "gemm_kernel", CompileOptions{});
//   if (!out.ok) report(out.log); else cuda::Module m(out.kernel.cubin, "kernel gemm_kernel");
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compile/binary_cache.hpp"
#include "compile/compile_options.hpp"
#include "compile/compiled_kernel.hpp"
#include "compile/nvrtc_program.hpp"

namespace jitgemm {

struct CompileOutcome {
  bool ok = false;
  CompiledKernel kernel;  // filled when ok
  std::string log;        // the compiler log, also when !ok (the errors are in it)
};

class Compiler {
 public:
  // `cache_dir`: where compiled kernels are cached (see BinaryCache::default_dir());
  // nullopt: no disk cache.
  explicit Compiler(std::optional<std::filesystem::path> cache_dir);

  // Compiles `source` and returns the cubin of `kernel_name` (a name expression: an
  // extern "C" name or e.g. "ns::gemm<128, 64>"; it is instantiated and lowered). Serves
  // and fills the cache. Safe to call from many threads at once. Throws CompileError on
  // NVRTC misuse (e.g. an invalid option) and InvalidArgument on bad options.
  CompileOutcome compile(const std::string& source, const std::string& kernel_name, const CompileOptions& options,
                         const std::vector<SourceHeader>& headers = {}) const;

  // The cache key: hash of source, headers, options, arch, NVRTC version and kernel name.
  static std::string cache_key(const std::string& source, const std::string& kernel_name,
                               const CompileOptions& options, const std::vector<SourceHeader>& headers = {});

  const std::optional<BinaryCache>& cache() const noexcept { return cache_; }
  const std::optional<std::filesystem::path>& dump_dir() const noexcept { return dump_dir_; }

 private:
  CompileOutcome compile_uncached(const std::string& source, const std::string& kernel_name,
                                  const std::vector<std::string>& options,
                                  const std::vector<SourceHeader>& headers, const std::string& key) const;
  void dump(const std::string& key, const std::string& kernel_name, const std::string& source,
            const std::string& log, const std::string& ptx) const;

  std::optional<BinaryCache> cache_;
  std::optional<std::filesystem::path> dump_dir_;
  std::shared_ptr<std::atomic<bool>> store_warned_ = std::make_shared<std::atomic<bool>>(false);
};

// The NVRTC version as CUDA writes it (major*1000 + minor*10: 13000), and as "13.0".
int nvrtc_version();
std::string nvrtc_version_string();

}  // namespace jitgemm
