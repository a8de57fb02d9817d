#include "compile/resource_report.hpp"

#include <fmt/format.h>

#include <charconv>
#include <optional>

namespace jitgemm {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string_view unquote(std::string_view s) {
  s = trim(s);
  if (s.size() >= 2 && s.front() == '\'' && s.back() == '\'') s = s.substr(1, s.size() - 2);
  return s;
}

// The integer that ends right before `at` in `line` (spaces between allowed).
std::optional<int> number_ending_at(std::string_view line, std::size_t at) {
  std::size_t end = at;
  while (end > 0 && line[end - 1] == ' ') --end;
  std::size_t begin = end;
  while (begin > 0 && line[begin - 1] >= '0' && line[begin - 1] <= '9') --begin;
  if (begin == end) return std::nullopt;
  int value = 0;
  auto [ptr, ec] = std::from_chars(line.data() + begin, line.data() + end, value);
  if (ec != std::errc()) return std::nullopt;
  return value;
}

// The number written in front of `phrase`, e.g. number_before("12 bytes smem", " bytes smem") == 12.
std::optional<int> number_before(std::string_view line, std::string_view phrase) {
  const std::size_t at = line.find(phrase);
  if (at == std::string_view::npos) return std::nullopt;
  return number_ending_at(line, at);
}

void read_stack_line(std::string_view line, ResourceUsage& usage) {
  usage.stack_bytes = number_before(line, " bytes stack frame").value_or(usage.stack_bytes);
  usage.spill_store_bytes = number_before(line, " bytes spill stores").value_or(usage.spill_store_bytes);
  usage.spill_load_bytes = number_before(line, " bytes spill loads").value_or(usage.spill_load_bytes);
}

void read_used_line(std::string_view line, ResourceUsage& usage) {
  usage.registers = number_before(line, " registers").value_or(usage.registers);
  usage.barriers = number_before(line, " barriers").value_or(usage.barriers);
  usage.shared_bytes = number_before(line, " bytes smem").value_or(usage.shared_bytes);
  int const_bytes = 0;
  for (std::size_t at = line.find(" bytes cmem["); at != std::string_view::npos;
       at = line.find(" bytes cmem[", at + 1))
    const_bytes += number_ending_at(line, at).value_or(0);
  usage.const_bytes = const_bytes;
  usage.parsed = true;
}

}  // namespace

std::string ResourceUsage::to_string() const {
  if (!parsed) return "resources not reported";
  std::string out = fmt::format("{} registers, {} B smem, {} B stack", registers, shared_bytes, stack_bytes);
  if (spills())
    out += fmt::format(", {} B spill stores, {} B spill loads", spill_store_bytes, spill_load_bytes);
  else
    out += ", no spills";
  return out;
}

ResourceUsage parse_ptxas_log(std::string_view log, std::string_view kernel_name) {
  constexpr std::string_view kEntry = "Compiling entry function '";
  constexpr std::string_view kProperties = "Function properties for ";
  ResourceUsage usage;
  std::string_view entry;       // kernel whose "Used ..." line comes next
  std::string_view properties;  // function whose stack/spill line comes next
  while (!log.empty()) {
    const std::size_t eol = log.find('\n');
    const std::string_view line = log.substr(0, eol);
    log = eol == std::string_view::npos ? std::string_view() : log.substr(eol + 1);

    if (const std::size_t at = line.find(kEntry); at != std::string_view::npos) {
      const std::string_view rest = line.substr(at + kEntry.size());
      entry = rest.substr(0, rest.find('\''));
    } else if (const std::size_t at = line.find(kProperties); at != std::string_view::npos) {
      properties = unquote(line.substr(at + kProperties.size()));
    } else if (line.find(" bytes stack frame") != std::string_view::npos) {
      if (properties == kernel_name) read_stack_line(line, usage);
      properties = {};
    } else if (line.find("Used ") != std::string_view::npos && line.find(" registers") != std::string_view::npos) {
      if (entry == kernel_name) read_used_line(line, usage);
    }
  }
  return usage;
}

}  // namespace jitgemm
