#include "problem/problem_list.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

GemmProblem problem_from_json(const nlohmann::json& j, const std::string& where) {
  try {
    GemmProblem p;
    p.m = j.at("m").get<int64_t>();
    p.n = j.at("n").get<int64_t>();
    p.k = j.at("k").get<int64_t>();
    p.trans_a = parse_op(j.value("trans_a", "N"), where + ".trans_a");
    p.trans_b = parse_op(j.value("trans_b", "N"), where + ".trans_b");
    p.lda = j.value("lda", int64_t{0});
    p.ldb = j.value("ldb", int64_t{0});
    p.ldc = j.value("ldc", int64_t{0});
    p.alpha = j.value("alpha", 1.0f);
    p.beta = j.value("beta", 0.0f);
    p.precision = parse_precision(j.value("precision", "fp32"), where + ".precision");
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw InvalidArgument(fmt::format("{}: {}", where, e.what()));
  }
}

}  // namespace

std::vector<NamedProblem> load_problem_list(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InvalidArgument(fmt::format("problem list '{}': cannot open", path));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw InvalidArgument(fmt::format("problem list '{}': parse error at byte {}: {}", path, e.byte, e.what()));
  }
  if (!j.is_array()) throw InvalidArgument(fmt::format("problem list '{}': must hold a JSON array", path));
  std::vector<NamedProblem> list;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string where = fmt::format("{}[{}]", path, i);
    if (!j[i].is_object()) throw InvalidArgument(fmt::format("{}: expected an object", where));
    list.push_back({j[i].value("id", fmt::format("problem{}", i)), problem_from_json(j[i], where)});
  }
  return list;
}

}  // namespace jitgemm
