// Checks on the device pointers of a gemm call (before anything touches the GPU): null,
// float alignment, and the output aliasing an input.
#pragma once

#include <cstdint>
#include <string_view>

#include "jitgemm/problem.hpp"

namespace jitgemm {

// The names of a product's operands in messages: "A", "B", "C" for a gemm call; a gradient
// product of gemm_backward reads dC and A or B and writes dA or dB.
struct OperandNames {
  std::string_view a = "A";
  std::string_view b = "B";
  std::string_view c = "C";
};

// Throws InvalidArgument naming the operand. `where` prefixes the message. Only what the call
// touches is checked (gemm_work): nothing for an empty C, only C when A and B are not read.
void check_operands(const GemmProblem& p, const void* a, const void* b, const void* c,
                    std::string_view where = "Runtime::gemm", const OperandNames& names = {});

// A stored row-major matrix as a byte range: rows x cols with leading dimension ld.
struct StoredMatrix {
  std::string_view name;
  const void* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t ld = 0;
};

// Throws InvalidArgument "<where>: <output> overlaps <other> (...)" when both are non-empty and
// their byte ranges meet.
void check_disjoint(std::string_view where, const StoredMatrix& output, const StoredMatrix& other);

}  // namespace jitgemm
