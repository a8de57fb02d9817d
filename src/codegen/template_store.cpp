// TemplateStore: embedded or on-disk kernel templates and their #include expansion.
#include "codegen/template_store.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "codegen/embedded_templates.hpp"
#include "common/hash.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

bool is_template_file(const std::filesystem::path& p) {
  const auto ext = p.extension();
  return ext == ".cu" || ext == ".cuh";
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The quoted target of an `#include "x"` line (spaces allowed around '#'), else empty.
std::string_view quoted_include(std::string_view line) {
  line = trim(line);
  if (!line.starts_with('#')) return {};
  line = trim(line.substr(1));
  if (!line.starts_with("include")) return {};
  line = trim(line.substr(7));
  if (line.size() < 2 || line.front() != '"') return {};
  const size_t close = line.find('"', 1);
  if (close == std::string_view::npos) return {};
  return line.substr(1, close - 1);
}

bool is_pragma_once(std::string_view line) {
  line = trim(line);
  if (!line.starts_with('#')) return false;
  line = trim(line.substr(1));
  if (!line.starts_with("pragma")) return false;
  return trim(line.substr(6)) == "once";
}

}  // namespace

const TemplateStore& TemplateStore::embedded() {
  static const TemplateStore store = [] {
    std::map<std::string, std::string, std::less<>> files;
    for (size_t i = 0; i < detail::kEmbeddedTemplateCount; ++i)
      files.emplace(detail::kEmbeddedTemplates[i].path, detail::kEmbeddedTemplates[i].text);
    return TemplateStore(std::move(files), "embedded");
  }();
  return store;
}

TemplateStore TemplateStore::from_directory(const std::filesystem::path& root) {
  std::error_code ec;
  if (!std::filesystem::is_directory(root, ec))
    throw InvalidArgument(
        fmt::format("TemplateStore: template directory '{}' does not exist or is not a directory", root.string()));
  std::map<std::string, std::string, std::less<>> files;
  for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file() || !is_template_file(it->path())) continue;
    std::ifstream in(it->path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in && !in.eof())
      throw InvalidArgument(fmt::format("TemplateStore: cannot read template '{}'", it->path().string()));
    files.emplace(it->path().lexically_relative(root).generic_string(), text.str());
  }
  if (ec)
    throw InvalidArgument(
        fmt::format("TemplateStore: cannot list template directory '{}': {}", root.string(), ec.message()));
  return TemplateStore(std::move(files), root.string());
}

const TemplateStore& TemplateStore::active() {
  static const TemplateStore* store = []() -> const TemplateStore* {
    const char* dir = std::getenv("JITGEMM_TEMPLATE_DIR");
    if (dir == nullptr || *dir == '\0') return &embedded();
    static const TemplateStore from_env = from_directory(dir);
    return &from_env;
  }();
  return *store;
}

bool TemplateStore::contains(std::string_view path) const { return files_.find(path) != files_.end(); }

std::string TemplateStore::text(std::string_view path) const {
  const auto it = files_.find(path);
  if (it == files_.end())
    throw InvalidArgument(fmt::format("TemplateStore: no template '{}' in {} ({} files)", path,
                                      origin_ == "embedded" ? std::string("the embedded templates") : origin_,
                                      files_.size()));
  return it->second;
}

std::string TemplateStore::expand_includes(std::string_view path) const {
  std::string out = fmt::format("#line 1 \"{}\"\n", path);
  std::set<std::string, std::less<>> seen;
  expand_into(path, out, seen);
  return out;
}

std::string TemplateStore::template_hash(std::string_view path) const { return hash_hex(expand_includes(path)); }

std::string TemplateStore::joined_hash(std::span<const std::string_view> paths) const {
  std::string key;
  for (std::string_view path : paths) (key += path) += '\n';
  {
    std::lock_guard lock(memo_->mutex);
    if (const auto it = memo_->hashes.find(key); it != memo_->hashes.end()) return it->second;
  }
  std::string text;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (i > 0) ((text += "\n// ---- ") += paths[i]) += '\n';
    text += expand_includes(paths[i]);
  }
  std::string hash = hash_hex(text);
  std::lock_guard lock(memo_->mutex);
  return memo_->hashes.try_emplace(std::move(key), std::move(hash)).first->second;
}

void TemplateStore::expand_into(std::string_view path, std::string& out,
                                std::set<std::string, std::less<>>& seen) const {
  seen.emplace(path);
  const std::string body = text(path);
  std::string_view rest = body;
  int line_no = 0;
  while (!rest.empty()) {
    const size_t eol = rest.find('\n');
    const std::string_view line = rest.substr(0, eol);
    rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
    ++line_no;
    const std::string_view target = quoted_include(line);
    if (!target.empty()) {
      if (!contains(target))
        throw InvalidArgument(fmt::format("TemplateStore: {}:{} includes \"{}\", which is not a template in {}", path,
                                          line_no, target, origin_));
      if (!seen.contains(target)) {
        out += fmt::format("#line 1 \"{}\"\n", target);
        expand_into(target, out, seen);
        out += fmt::format("#line {} \"{}\"\n", line_no + 1, path);
      } else {
        out += "\n";  // already inlined: keep the line count
      }
      continue;
    }
    if (is_pragma_once(line)) {
      out += "\n";
      continue;
    }
    out.append(line);
    out += '\n';
  }
}

}  // namespace jitgemm
