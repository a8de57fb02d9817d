// GemmProblem: leading-dimension defaults, validation and names.
#include "jitgemm/problem.hpp"

#include <fmt/format.h>

#include <array>
#include <climits>
#include <tuple>

#include "jitgemm/error.hpp"
#include "problem/operand_structure.hpp"
#include "problem/stored_shape.hpp"

namespace jitgemm {
namespace {

template <class Enum, size_t N>
Enum parse_enum(std::string_view text, std::string_view what,
                const std::array<std::pair<std::string_view, Enum>, N>& names) {
  for (const auto& [name, value] : names)
    if (name == text) return value;
  std::string accepted;
  for (const auto& [name, value] : names) accepted += fmt::format("{}'{}'", accepted.empty() ? "" : ", ", name);
  throw InvalidArgument(fmt::format("{}: '{}' is not one of {}", what, text, accepted));
}

constexpr std::array<std::pair<std::string_view, Op>, 2> kOpNames{{{"N", Op::N}, {"T", Op::T}}};
constexpr std::array<std::pair<std::string_view, Structure>, 7> kStructureNames{
    {{"general", Structure::General}, {"symmetric", Structure::Symmetric},
     {"lower", Structure::Lower}, {"upper", Structure::Upper}, {"symmetric_upper", Structure::SymmetricUpper},
     {"lower_unit", Structure::LowerUnit}, {"upper_unit", Structure::UpperUnit}}};
constexpr std::array<std::pair<std::string_view, Fill>, 3> kFillNames{
    {{"full", Fill::Full}, {"lower", Fill::Lower}, {"upper", Fill::Upper}}};
constexpr std::array<std::pair<std::string_view, Precision>, 3> kPrecisionNames{
    {{"fp32", Precision::FP32}, {"tf32x3", Precision::TF32x3}, {"tf32", Precision::TF32}}};

template <class Enum, size_t N>
std::string_view name_of(Enum value, const std::array<std::pair<std::string_view, Enum>, N>& names) {
  for (const auto& [name, v] : names)
    if (v == value) return name;
  return "?";
}

}  // namespace

std::string_view to_string(Op op) noexcept { return name_of(op, kOpNames); }
std::string_view to_string(Structure s) noexcept { return name_of(s, kStructureNames); }
std::string_view to_string(Fill f) noexcept { return name_of(f, kFillNames); }
std::string_view to_string(Precision p) noexcept { return name_of(p, kPrecisionNames); }

Op parse_op(std::string_view text, std::string_view what) { return parse_enum(text, what, kOpNames); }
Structure parse_structure(std::string_view text, std::string_view what) {
  return parse_enum(text, what, kStructureNames);
}
Fill parse_fill(std::string_view text, std::string_view what) { return parse_enum(text, what, kFillNames); }
Precision parse_precision(std::string_view text, std::string_view what) {
  return parse_enum(text, what, kPrecisionNames);
}

int64_t GemmProblem::effective_lda() const noexcept { return lda != 0 ? lda : stored_shape_a(*this).cols; }
int64_t GemmProblem::effective_ldb() const noexcept { return ldb != 0 ? ldb : stored_shape_b(*this).cols; }
int64_t GemmProblem::effective_ldc() const noexcept { return ldc != 0 ? ldc : n; }

std::string symmetric_shape_error(Structure a, Structure b, int64_t m, int64_t n, int64_t k) {
  for (auto [name, s, dims, rows, cols] : {std::tuple{"structure_a", a, "op(A) is M x K", m, k},
                                           std::tuple{"structure_b", b, "op(B) is K x N", k, n}})
    if (is_symmetric(s) && rows != cols)
      return fmt::format("{}={} needs a square operand, but {} = {} x {}", name, to_string(s), dims, rows, cols);
  return {};
}

void GemmProblem::validate(std::string_view where) const {
  auto fail = [&](const std::string& what) { throw InvalidArgument(fmt::format("{}: {}", where, what)); };
  constexpr int64_t kMaxDim = INT_MAX;
  for (auto [name, value] : {std::pair{"M", m}, std::pair{"N", n}, std::pair{"K", k}}) {
    if (value < 0) fail(fmt::format("{}={} must be >= 0", name, value));
    if (value > kMaxDim) fail(fmt::format("{}={} exceeds the supported maximum {}", name, value, kMaxDim));
  }
  // ld must cover the stored row: `layout` says which storage the rule comes from (a literal:
  // the success path formats nothing).
  auto check_ld = [&](const char* ld_name, int64_t ld, int64_t row_length, int64_t rows, const char* operand,
                      const char* row_name, const char* layout) {
    if (ld < 0) fail(fmt::format("{}={} must be >= 0 (0 means tight)", ld_name, ld));
    if (ld != 0 && ld < row_length)
      fail(fmt::format("{}={} is smaller than {}={} for row-major {}{}", ld_name, ld, row_name, row_length, operand,
                       layout));
    const int64_t eff = ld != 0 ? ld : row_length;
    if (rows > 0 && eff > (int64_t{1} << 40) / rows)
      fail(fmt::format("{}={} with {} rows addresses more than 2^40 elements of {}", ld_name, eff, rows, operand));
  };
  check_ld("lda", lda, stored_shape_a(*this).cols, stored_shape_a(*this).rows, "A", trans_a == Op::N ? "K" : "M",
           trans_a == Op::N ? " (trans_a=N)" : " (trans_a=T)");
  check_ld("ldb", ldb, stored_shape_b(*this).cols, stored_shape_b(*this).rows, "B", trans_b == Op::N ? "N" : "K",
           trans_b == Op::N ? " (trans_b=N)" : " (trans_b=T)");
  check_ld("ldc", ldc, n, m, "C", "N", "");
  // The kernels step between rows of A and B with 32-bit byte offsets.
  for (auto [name, ld] : {std::pair{"lda", effective_lda()}, std::pair{"ldb", effective_ldb()}})
    if (ld >= (int64_t{1} << 30))
      throw NotSupported(fmt::format("{}: {}={} is not supported (leading dimensions must be below 2^30)", where,
                                     name, ld));
  // alpha and beta may be any float, NaN and Inf included: they propagate as IEEE says.
  if (const std::string e = symmetric_shape_error(structure_a, structure_b, m, n, k); !e.empty()) fail(e);
}

std::string GemmProblem::to_string() const {
  return fmt::format("{}x{}x{} {}{} {} lda={} ldb={} ldc={} alpha={} beta={}{}{}{}", m, n, k, jitgemm::to_string(trans_a),
                     jitgemm::to_string(trans_b), jitgemm::to_string(precision), effective_lda(), effective_ldb(),
                     effective_ldc(), alpha, beta,
                     structure_a == Structure::General ? "" : fmt::format(" A:{}", jitgemm::to_string(structure_a)),
                     structure_b == Structure::General ? "" : fmt::format(" B:{}", jitgemm::to_string(structure_b)),
                     fill == Fill::Full ? "" : fmt::format(" fill:{}", jitgemm::to_string(fill)));
}

}  // namespace jitgemm
