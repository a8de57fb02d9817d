// template_store.hpp — the kernel templates by path ("fp32/simt_gemm.cu"), embedded in the
// library at build time or read from a directory for kernel development.
//
//   const TemplateStore& store = TemplateStore::active();
//   std::string unit = store.expand_includes("fp32/simt_gemm.cu");  // one self-contained unit
//   std::string hash = store.template_hash("fp32/simt_gemm.cu");    // that template alone
//   (records remember their family's joined_hash: codegen/source_render.hpp, family_template_hash)
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <string_view>

namespace jitgemm {

class TemplateStore {
 public:
  // The templates compiled into the library (kernel_templates/ at build time).
  static const TemplateStore& embedded();
  // Every *.cu / *.cuh under `root`, keyed by its path relative to root ('/'-separated).
  // Throws InvalidArgument when root is not a readable directory.
  static TemplateStore from_directory(const std::filesystem::path& root);
  // $JITGEMM_TEMPLATE_DIR if set (read once, on the first call), else embedded().
  static const TemplateStore& active();

  // The text of one template; throws InvalidArgument naming the path when absent.
  std::string text(std::string_view path) const;
  bool contains(std::string_view path) const;
  // Where the templates came from: "embedded" or the directory.
  const std::string& origin() const noexcept { return origin_; }

  // `path` with every `#include "x"` replaced by the text of template x (a path relative to
  // the template root, e.g. "common/cp_async.cuh"), recursively, each file at most once;
  // `#pragma once` lines are dropped and #line directives keep compiler messages pointing at
  // the original files. `#include <...>` is left alone. Throws InvalidArgument naming the
  // including file for a quoted include that is not in the store.
  std::string expand_includes(std::string_view path) const;
  // hash_hex(expand_includes(path)): the value render_kernel puts in
  // RenderedKernel::template_hash for a kernel of this template, and so the template part of
  // a tuning record's environment. Throws as expand_includes does.
  std::string template_hash(std::string_view path) const;
  // hash_hex of the expanded templates `paths` in order, each after the first behind a line
  // "// ---- <path>": a family's template with its support kernels' (family_template_hash, asked
  // on every render). Memoized per list, thread-safe: the files never change. Throws as
  // expand_includes does.
  std::string joined_hash(std::span<const std::string_view> paths) const;

 private:
  TemplateStore(std::map<std::string, std::string, std::less<>> files, std::string origin)
      : files_(std::move(files)), origin_(std::move(origin)) {}
  void expand_into(std::string_view path, std::string& out, std::set<std::string, std::less<>>& seen) const;

  std::map<std::string, std::string, std::less<>> files_;
  std::string origin_;
  struct HashMemo {
    std::mutex mutex;
    std::map<std::string, std::string, std::less<>> hashes;  // by the paths joined with '\n'
  };
  std::shared_ptr<HashMemo> memo_ = std::make_shared<HashMemo>();  // shared by copies: same files
};

}  // namespace jitgemm
