// Checks on the device pointers of a gemm call (before anything touches the GPU): null,
// float alignment, and the output aliasing an input.
#pragma once

#include "jitgemm/problem.hpp"

namespace jitgemm {

// Throws InvalidArgument naming the operand. `where` prefixes the message. Only what the call
// touches is checked (gemm_work): nothing for an empty C, only C when A and B are not read.
void check_operands(const GemmProblem& p, const void* a, const void* b, const void* c,
                    std::string_view where = "Runtime::gemm");

}  // namespace jitgemm
