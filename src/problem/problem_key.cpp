// ProblemKey: the canonical database key of a problem and its parser.
#include "problem/problem_key.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <vector>

#include "common/hash.hpp"
#include "jitgemm/error.hpp"
#include "problem/stored_shape.hpp"

namespace jitgemm {
namespace {

LdClass classify_ld(int64_t ld, int64_t row_length) {
  if (ld % 4 != 0) return LdClass::Unaligned;
  return ld == row_length ? LdClass::Tight : LdClass::Padded;
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == sep) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

int64_t parse_int(std::string_view text, std::string_view key, std::string_view what) {
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < 1)
    throw InvalidArgument(fmt::format("problem key '{}': {} '{}' is not a positive integer", key, what, text));
  return value;
}

}  // namespace

std::string_view to_string(LdClass c) noexcept {
  switch (c) {
    case LdClass::Tight: return "tight";
    case LdClass::Padded: return "padded";
    case LdClass::Unaligned: return "unaligned";
  }
  return "?";
}

LdClass parse_ld_class(std::string_view text, std::string_view what) {
  if (text == "tight") return LdClass::Tight;
  if (text == "padded") return LdClass::Padded;
  if (text == "unaligned") return LdClass::Unaligned;
  throw InvalidArgument(fmt::format("{}: '{}' is not one of 'tight', 'padded', 'unaligned'", what, text));
}

int vector_width(int64_t ld, const void* base) noexcept {
  const auto address = reinterpret_cast<uintptr_t>(base);
  return (ld % 4 == 0 && address % 16 == 0) ? 4 : 1;
}

std::string ProblemKey::canonical() const {
  return fmt::format("gemm.{}.{}{}.{}.{}.{}.{}x{}x{}.{}.{}.{}.v{}{}{}", to_string(precision), to_string(trans_a),
                     to_string(trans_b), to_string(structure_a), to_string(structure_b), to_string(fill), m, n, k,
                     to_string(ld_a), to_string(ld_b), to_string(ld_c), vec_a, vec_b, vec_c);
}

ProblemKey ProblemKey::parse(std::string_view text) {
  const auto parts = split(text, '.');
  if (parts.size() != 11 || parts[0] != "gemm")
    throw InvalidArgument(fmt::format(
        "problem key '{}': expected 11 '.'-separated parts "
        "gemm.<precision>.<ops>.<structure_a>.<structure_b>.<fill>.<M>x<N>x<K>.<ld_a>.<ld_b>.<ld_c>.v<a><b><c>",
        text));
  ProblemKey key;
  key.precision = parse_precision(parts[1], "problem key precision");
  if (parts[2].size() != 2) throw InvalidArgument(fmt::format("problem key '{}': ops '{}' must be two of N/T", text, parts[2]));
  key.trans_a = parse_op(parts[2].substr(0, 1), "problem key trans_a");
  key.trans_b = parse_op(parts[2].substr(1, 1), "problem key trans_b");
  key.structure_a = parse_structure(parts[3], "problem key structure_a");
  key.structure_b = parse_structure(parts[4], "problem key structure_b");
  key.fill = parse_fill(parts[5], "problem key fill");
  const auto dims = split(parts[6], 'x');
  if (dims.size() != 3) throw InvalidArgument(fmt::format("problem key '{}': sizes '{}' must be MxNxK", text, parts[6]));
  key.m = parse_int(dims[0], text, "M");
  key.n = parse_int(dims[1], text, "N");
  key.k = parse_int(dims[2], text, "K");
  key.ld_a = parse_ld_class(parts[7], "problem key ld_a");
  key.ld_b = parse_ld_class(parts[8], "problem key ld_b");
  key.ld_c = parse_ld_class(parts[9], "problem key ld_c");
  const auto vec = parts[10];
  auto vec_digit = [&](char c) {
    if (c != '1' && c != '4')
      throw InvalidArgument(fmt::format("problem key '{}': vector widths '{}' must be 'v' and three of 1/4", text, vec));
    return c - '0';
  };
  if (vec.size() != 4 || vec[0] != 'v')
    throw InvalidArgument(fmt::format("problem key '{}': vector widths '{}' must be 'v' and three of 1/4", text, vec));
  key.vec_a = vec_digit(vec[1]);
  key.vec_b = vec_digit(vec[2]);
  key.vec_c = vec_digit(vec[3]);
  return key;
}

bool ProblemKey::same_kind(const ProblemKey& o) const noexcept {
  return precision == o.precision && trans_a == o.trans_a && trans_b == o.trans_b && structure_a == o.structure_a &&
         structure_b == o.structure_b && fill == o.fill;
}

size_t ProblemKeyHash::operator()(const ProblemKey& key) const noexcept {
  return FieldHash()
      .add(key.precision).add(key.trans_a).add(key.trans_b).add(key.structure_a).add(key.structure_b).add(key.fill)
      .add(key.m).add(key.n).add(key.k).add(key.ld_a).add(key.ld_b).add(key.ld_c)
      .add(key.vec_a).add(key.vec_b).add(key.vec_c)
      .value();
}

ProblemKey make_problem_key(const GemmProblem& p, const void* a, const void* b, const void* c) {
  ProblemKey key;
  key.precision = p.precision;
  key.trans_a = p.trans_a;
  key.trans_b = p.trans_b;
  key.structure_a = p.structure_a;
  key.structure_b = p.structure_b;
  key.fill = p.fill;
  key.m = p.m;
  key.n = p.n;
  key.k = p.k;
  key.ld_a = classify_ld(p.effective_lda(), stored_shape_a(p).cols);
  key.ld_b = classify_ld(p.effective_ldb(), stored_shape_b(p).cols);
  key.ld_c = classify_ld(p.effective_ldc(), p.n);
  key.vec_a = vector_width(p.effective_lda(), a);
  key.vec_b = vector_width(p.effective_ldb(), b);
  key.vec_c = vector_width(p.effective_ldc(), c);
  return key;
}

GemmProblem problem_for_key(const ProblemKey& key) {
  auto ld_for = [](LdClass c, int64_t row) -> int64_t {
    switch (c) {
      case LdClass::Tight: return row;
      case LdClass::Padded: return (row / 4 + 1) * 4;
      case LdClass::Unaligned: return (row + 1) % 4 != 0 ? row + 1 : row + 2;
    }
    return row;
  };
  GemmProblem p;
  p.m = key.m, p.n = key.n, p.k = key.k;
  p.trans_a = key.trans_a, p.trans_b = key.trans_b;
  p.structure_a = key.structure_a, p.structure_b = key.structure_b;
  p.fill = key.fill, p.precision = key.precision;
  p.lda = ld_for(key.ld_a, stored_shape(key.trans_a, key.m, key.k).cols);
  p.ldb = ld_for(key.ld_b, stored_shape(key.trans_b, key.k, key.n).cols);
  p.ldc = ld_for(key.ld_c, key.n);
  return p;
}

ProblemKey make_problem_key(const GemmProblem& p) {
  const void* aligned = reinterpret_cast<const void*>(uintptr_t{256});
  return make_problem_key(p, aligned, aligned, aligned);
}

}  // namespace jitgemm
