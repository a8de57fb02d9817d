#include "problem/problem_list.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <optional>

#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

using nlohmann::json;

// An integer member (absent: `fallback`); a fraction, a string or an out-of-range number is
// an error naming the member, never truncated.
int64_t integer(const json& j, const char* key, const std::string& where, std::optional<int64_t> fallback = {}) {
  const auto it = j.find(key);
  if (it == j.end()) {
    if (fallback) return *fallback;
    throw InvalidArgument(fmt::format("{}.{}: missing", where, key));
  }
  if (!it->is_number_integer())
    throw InvalidArgument(fmt::format("{}.{}: expected an integer, got {}", where, key, it->dump()));
  return it->get<int64_t>();
}

float number(const json& j, const char* key, const std::string& where, float fallback) {
  const auto it = j.find(key);
  if (it == j.end()) return fallback;
  if (!it->is_number()) throw InvalidArgument(fmt::format("{}.{}: expected a number, got {}", where, key, it->dump()));
  return it->get<float>();
}

std::string text(const json& j, const char* key, const std::string& where, const std::string& fallback) {
  const auto it = j.find(key);
  if (it == j.end()) return fallback;
  if (!it->is_string()) throw InvalidArgument(fmt::format("{}.{}: expected a string, got {}", where, key, it->dump()));
  return it->get<std::string>();
}

GemmProblem problem_from_json(const json& j, const std::string& where) {
  GemmProblem p;
  p.m = integer(j, "m", where);
  p.n = integer(j, "n", where);
  p.k = integer(j, "k", where);
  p.trans_a = parse_op(text(j, "trans_a", where, "N"), where + ".trans_a");
  p.trans_b = parse_op(text(j, "trans_b", where, "N"), where + ".trans_b");
  p.lda = integer(j, "lda", where, 0);
  p.ldb = integer(j, "ldb", where, 0);
  p.ldc = integer(j, "ldc", where, 0);
  p.alpha = number(j, "alpha", where, 1.0f);
  p.beta = number(j, "beta", where, 0.0f);
  p.precision = parse_precision(text(j, "precision", where, "fp32"), where + ".precision");
  p.structure_a = parse_structure(text(j, "structure_a", where, "general"), where + ".structure_a");
  p.structure_b = parse_structure(text(j, "structure_b", where, "general"), where + ".structure_b");
  p.fill = parse_fill(text(j, "fill", where, "full"), where + ".fill");
  return p;
}

}  // namespace

std::vector<NamedProblem> load_problem_list(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InvalidArgument(fmt::format("problem list '{}': cannot open", path));
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    throw InvalidArgument(fmt::format("problem list '{}': parse error at byte {}: {}", path, e.byte, e.what()));
  } catch (const json::exception& e) {  // e.g. a number beyond double's range
    throw InvalidArgument(fmt::format("problem list '{}': {}", path, e.what()));
  }
  if (!j.is_array()) throw InvalidArgument(fmt::format("problem list '{}': must hold a JSON array", path));
  std::vector<NamedProblem> list;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string where = fmt::format("{}[{}]", path, i);
    if (!j[i].is_object()) throw InvalidArgument(fmt::format("{}: expected an object", where));
    list.push_back({text(j[i], "id", where, fmt::format("problem{}", i)), problem_from_json(j[i], where)});
  }
  return list;
}

}  // namespace jitgemm
