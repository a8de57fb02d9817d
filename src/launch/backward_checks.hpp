// Checks on the device pointers of a gemm_backward call, before anything touches the GPU:
// each requested gradient product's operands as check_operands does (null, alignment, its
// output aliasing its inputs), named dC, A, B, dA, dB; and across the two products, dA and dB
// apart and neither over an input the other product reads.
#pragma once

#include <string_view>

#include "jitgemm/backward.hpp"

namespace jitgemm {

// The pointers of one gemm_backward call; a null gradient is not computed.
struct BackwardOperands {
  const void* dc = nullptr;
  const void* a = nullptr;
  const void* b = nullptr;
  void* da = nullptr;
  void* db = nullptr;
};

// The pointers a gradient product reads and writes, in the product's operand order, with
// their names for messages. `forward_operand` is B for dA's product, A for dB's.
struct GradientOperands {
  const void* first = nullptr;
  const void* second = nullptr;
  void* out = nullptr;
  std::string_view first_name, second_name, out_name;
};
GradientOperands da_operands(const GradientProblem& da, const BackwardOperands& ptrs) noexcept;
GradientOperands db_operands(const GradientProblem& db, const BackwardOperands& ptrs) noexcept;

// Throws InvalidArgument naming the operand; `where` prefixes the message. Only what the call
// touches is checked: a null dA (dB) skips its product and its operands, and an empty product
// (gemm_work) reads nothing, so dC may then be null too.
void check_backward_operands(const BackwardProblems& grads, const BackwardOperands& ptrs,
                             std::string_view where = "Runtime::gemm_backward");

}  // namespace jitgemm
