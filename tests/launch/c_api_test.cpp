// The C ABI: status codes plus a thread-local message; never an exception across it.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "cuda/context.hpp"
#include "cuda/device_buffer.hpp"
#include "jitgemm/jitgemm.h"
#include "jitgemm/problem.hpp"
#include "support/structured_host.hpp"
#include "support/test_support.hpp"

namespace {

TEST(CApi, NullArgumentsAreInvalid) {
  EXPECT_EQ(jitgemm_create(nullptr, 0, nullptr, nullptr), JITGEMM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(jitgemm_last_error()).find("out is a null pointer"), std::string::npos);
  jitgemm_problem p = jitgemm_problem_default(8, 8, 8);
  EXPECT_EQ(jitgemm_gemm(nullptr, &p, nullptr, nullptr, nullptr, nullptr), JITGEMM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(jitgemm_last_error()).find("runtime is a null pointer"), std::string::npos);
  EXPECT_EQ(jitgemm_tune(nullptr, &p, nullptr), JITGEMM_INVALID_ARGUMENT);
  EXPECT_EQ(jitgemm_destroy(nullptr), JITGEMM_SUCCESS);
}

TEST(CApi, PlanNullArgumentsAreInvalid) {
  jitgemm_problem p = jitgemm_problem_default(8, 8, 8);
  jitgemm_plan plan = reinterpret_cast<jitgemm_plan>(0x1);
  EXPECT_EQ(jitgemm_plan_create(nullptr, &p, &plan), JITGEMM_INVALID_ARGUMENT);
  EXPECT_EQ(plan, nullptr);  // *out is cleared before anything can fail
  EXPECT_NE(std::string(jitgemm_last_error()).find("jitgemm_plan_create: runtime is a null pointer"), std::string::npos)
      << jitgemm_last_error();
  EXPECT_EQ(jitgemm_plan_create(nullptr, &p, nullptr), JITGEMM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(jitgemm_last_error()).find("jitgemm_plan_create: out is a null pointer"), std::string::npos);
  EXPECT_EQ(jitgemm_plan_run(nullptr, nullptr, nullptr, nullptr, nullptr), JITGEMM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(jitgemm_last_error()).find("jitgemm_plan_run: plan is a null pointer"), std::string::npos);
  EXPECT_EQ(jitgemm_plan_destroy(nullptr), JITGEMM_SUCCESS);
}

// With a device: a plan computes the product (against a float64 host reference), and its run
// checks the operands as jitgemm_gemm does.
TEST(CApi, PlanRunsTheProduct) {
  JITGEMM_REQUIRE_GPU();
  jitgemm::cuda::PrimaryContext context(0);
  jitgemm_runtime runtime = nullptr;
  const std::string db_path = jitgemm::testing::temp_dir("c-api-plan") + "/tuning.json";
  ASSERT_EQ(jitgemm_create(&runtime, 0, db_path.c_str(), jitgemm::testing::temp_dir("c-api-plan-cache").c_str()),
            JITGEMM_SUCCESS)
      << jitgemm_last_error();
  jitgemm_problem p = jitgemm_problem_default(33, 17, 9);
  p.trans_a = JITGEMM_OP_T;  // A stored K x M
  p.alpha = 2.0f;
  jitgemm_plan plan = nullptr;
  ASSERT_EQ(jitgemm_plan_create(runtime, &p, &plan), JITGEMM_SUCCESS) << jitgemm_last_error();
  std::vector<float> a(9 * 33), b(9 * 17), c(33 * 17, NAN);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 7) - 3.0f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 5) * 0.5f;
  jitgemm::cuda::DeviceBuffer a_dev(4 * a.size()), b_dev(4 * b.size()), c_dev(4 * c.size());
  a_dev.copy_from_host(a.data(), a_dev.size());
  b_dev.copy_from_host(b.data(), b_dev.size());
  c_dev.copy_from_host(c.data(), c_dev.size());
  ASSERT_EQ(jitgemm_plan_run(plan, a_dev.as<const float>(), b_dev.as<const float>(), c_dev.as<float>(), nullptr),
            JITGEMM_SUCCESS)
      << jitgemm_last_error();
  c_dev.copy_to_host(c.data(), c_dev.size());
  for (int i = 0; i < 33; ++i)
    for (int j = 0; j < 17; ++j) {
      double sum = 0;
      for (int l = 0; l < 9; ++l) sum += double{a[l * 33 + i]} * b[l * 17 + j];
      ASSERT_EQ(c[i * 17 + j], static_cast<float>(2.0 * sum)) << i << "," << j;  // small integers: exact
    }
  EXPECT_EQ(jitgemm_plan_run(plan, nullptr, b_dev.as<const float>(), c_dev.as<float>(), nullptr),
            JITGEMM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(jitgemm_last_error()).find("GemmPlan::run: A is a null pointer"), std::string::npos)
      << jitgemm_last_error();
  EXPECT_EQ(jitgemm_plan_destroy(plan), JITGEMM_SUCCESS);
  EXPECT_EQ(jitgemm_destroy(runtime), JITGEMM_SUCCESS);
}

TEST(CApi, BackwardNullArgumentsAreInvalid) {
  jitgemm_problem p = jitgemm_problem_default(8, 8, 8);
  EXPECT_EQ(jitgemm_gemm_backward(nullptr, &p, nullptr, nullptr, nullptr, nullptr, nullptr, 0, 0, nullptr),
            JITGEMM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(jitgemm_last_error()).find("jitgemm_gemm_backward: runtime is a null pointer"),
            std::string::npos)
      << jitgemm_last_error();
}

// With a device: the C twin of gemm_backward reports what Runtime::gemm_backward checks, with
// the argument's name, before launching anything; the flags are 0 or 1.
TEST(CApi, BackwardArgumentErrorsNameTheArgument) {
  JITGEMM_REQUIRE_GPU();
  jitgemm_runtime runtime = nullptr;
  const std::string db_path = jitgemm::testing::temp_dir("c-api-backward") + "/tuning.json";
  ASSERT_EQ(jitgemm_create(&runtime, 0, db_path.c_str(), jitgemm::testing::temp_dir("c-api-backward-cache").c_str()),
            JITGEMM_SUCCESS)
      << jitgemm_last_error();
  EXPECT_EQ(jitgemm_gemm_backward(runtime, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 0, 0, nullptr),
            JITGEMM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(jitgemm_last_error()).find("jitgemm_gemm_backward: problem is a null pointer"),
            std::string::npos);
  float* fake = reinterpret_cast<float*>(0x100000);
  float *dc = fake, *a = fake + 4096, *b = fake + 8192, *da = fake + 12288, *db = fake + 16384;
  jitgemm_problem p = jitgemm_problem_default(32, 32, 32);
  auto expect = [&](jitgemm_status status, const char* message, const float* dc_, float* da_, int pa, int pb) {
    EXPECT_EQ(jitgemm_gemm_backward(runtime, &p, dc_, a, b, da_, db, pa, pb, nullptr), status) << message;
    EXPECT_NE(std::string(jitgemm_last_error()).find(message), std::string::npos) << jitgemm_last_error();
  };
  expect(JITGEMM_INVALID_ARGUMENT, "project_a=2 must be 0 or 1", dc, da, 2, 0);
  expect(JITGEMM_INVALID_ARGUMENT, "project_b=-1 must be 0 or 1", dc, da, 0, -1);
  expect(JITGEMM_INVALID_ARGUMENT, "BackwardOptions.project_a needs a structured operand", dc, da, 1, 0);
  expect(JITGEMM_INVALID_ARGUMENT, "Runtime::gemm_backward: dC is a null pointer", nullptr, da, 0, 0);
  expect(JITGEMM_INVALID_ARGUMENT, "Runtime::gemm_backward: dA overlaps dC", dc, dc + 16, 0, 0);
  p.structure_a = JITGEMM_STRUCTURE_LOWER;
  p.m = -3;
  expect(JITGEMM_INVALID_ARGUMENT, "backward_problems: M=-3 must be >= 0", dc, da, 1, 0);
  // Nothing asked, or nothing to compute (K = 0: both gradients empty): success, nothing touched.
  p = jitgemm_problem_default(32, 32, 32);
  EXPECT_EQ(jitgemm_gemm_backward(runtime, &p, nullptr, nullptr, nullptr, nullptr, nullptr, 0, 0, nullptr),
            JITGEMM_SUCCESS)
      << jitgemm_last_error();
  p.k = 0;
  EXPECT_EQ(jitgemm_gemm_backward(runtime, &p, nullptr, nullptr, nullptr, da, db, 0, 0, nullptr), JITGEMM_SUCCESS)
      << jitgemm_last_error();
  // explain answers without serving: the counters do not move.
  jitgemm_serve_counters before{}, after{};
  ASSERT_EQ(jitgemm_get_serve_counters(runtime, &before), JITGEMM_SUCCESS) << jitgemm_last_error();
  p = jitgemm_problem_default(4096, 4096, 4096);
  p.precision = JITGEMM_PRECISION_TF32X3;
  jitgemm_explanation e{};
  ASSERT_EQ(jitgemm_explain(runtime, &p, &e), JITGEMM_SUCCESS) << jitgemm_last_error();
  EXPECT_NE(std::string(e.kernel).find("tf32x3"), std::string::npos) << e.kernel;
  EXPECT_NE(std::string(e.text).find("decision:"), std::string::npos) << e.text;
  EXPECT_EQ(e.rule == JITGEMM_SERVE_DEFAULT, std::string(e.record).empty()) << e.text;
  ASSERT_EQ(jitgemm_get_serve_counters(runtime, &after), JITGEMM_SUCCESS) << jitgemm_last_error();
  EXPECT_EQ(after.exact + after.nearest + after.fallback, before.exact + before.nearest + before.fallback);
  EXPECT_EQ(jitgemm_destroy(runtime), JITGEMM_SUCCESS);
}

TEST(CApi, ServingAndTuningCallsCheckTheirArguments) {
  jitgemm_problem p = jitgemm_problem_default(8, 8, 8);
  jitgemm_serve_counters counters{};
  EXPECT_EQ(jitgemm_get_serve_counters(nullptr, &counters), JITGEMM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(jitgemm_last_error()).find("jitgemm_get_serve_counters: runtime is a null pointer"),
            std::string::npos);
  jitgemm_explanation e{};
  EXPECT_EQ(jitgemm_explain(nullptr, &p, &e), JITGEMM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(jitgemm_last_error()).find("jitgemm_explain: runtime is a null pointer"), std::string::npos);
  // The options are checked before the runtime is used (a dummy handle is never dereferenced).
  auto* dummy = reinterpret_cast<jitgemm_runtime>(0x1);
  EXPECT_EQ(jitgemm_tune_with(dummy, &p, nullptr, nullptr), JITGEMM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(jitgemm_last_error()).find("options is a null pointer"), std::string::npos);
  jitgemm_tune_options o = jitgemm_tune_options_default();
  EXPECT_EQ(o.jobs, 0);
  EXPECT_EQ(o.timing_runs, 25);
  EXPECT_EQ(o.write_database, 1);
  EXPECT_EQ(o.budget_s, 20.0);
  o.timing_runs = 19;
  EXPECT_EQ(jitgemm_tune_with(dummy, &p, &o, nullptr), JITGEMM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(jitgemm_last_error()).find("options.timing_runs=19 must be >= 20"), std::string::npos);
  o = jitgemm_tune_options_default();
  o.jobs = -2;
  EXPECT_EQ(jitgemm_tune_with(dummy, &p, &o, nullptr), JITGEMM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(jitgemm_last_error()).find("options.jobs=-2 must be >= 0"), std::string::npos);
  o = jitgemm_tune_options_default();
  o.write_database = 2;
  EXPECT_EQ(jitgemm_tune_with(dummy, &p, &o, nullptr), JITGEMM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(jitgemm_last_error()).find("options.write_database=2 must be 0 or 1"), std::string::npos);
  for (double bad : {-1.0, std::nan(""), HUGE_VAL}) {
    o = jitgemm_tune_options_default();
    o.budget_s = bad;
    EXPECT_EQ(jitgemm_tune_with(dummy, &p, &o, nullptr), JITGEMM_INVALID_ARGUMENT) << bad;
    EXPECT_NE(std::string(jitgemm_last_error()).find("options.budget_s=" + fmt::format("{}", bad) +
                                                         " must be finite and >= 0"),
              std::string::npos)
        << jitgemm_last_error();
  }
}

// What bindings read to mirror the structs: the compiler's offsets, -1 for unknown names.
TEST(CApi, AbiLayoutReportsTheCompiledStructs) {
  EXPECT_EQ(jitgemm_abi_layout("jitgemm_problem", nullptr), static_cast<int64_t>(sizeof(jitgemm_problem)));
  EXPECT_EQ(jitgemm_abi_layout("jitgemm_problem", "alpha"),
            static_cast<int64_t>(offsetof(jitgemm_problem, alpha)));
  EXPECT_EQ(jitgemm_abi_layout("jitgemm_problem", "precision"),
            static_cast<int64_t>(offsetof(jitgemm_problem, precision)));
  EXPECT_EQ(jitgemm_abi_layout("jitgemm_explanation", "text"),
            static_cast<int64_t>(offsetof(jitgemm_explanation, text)));
  EXPECT_EQ(jitgemm_abi_layout("jitgemm_serve_counters", nullptr), 32);
  EXPECT_EQ(jitgemm_abi_layout("jitgemm_tune_options", "write_database"), 8);
  EXPECT_EQ(jitgemm_abi_layout("jitgemm_tune_options", "budget_s"),
            static_cast<int64_t>(offsetof(jitgemm_tune_options, budget_s)));
  EXPECT_EQ(jitgemm_abi_layout("jitgemm_tune_options", nullptr), static_cast<int64_t>(sizeof(jitgemm_tune_options)));
  EXPECT_EQ(jitgemm_abi_layout("jitgemm_problem", "gamma"), -1);
  EXPECT_EQ(jitgemm_abi_layout("jitgemm_matrix", nullptr), -1);
  EXPECT_EQ(jitgemm_abi_layout(nullptr, "m"), -1);
}

TEST(CApi, DefaultProblemIsPlainFp32) {
  const jitgemm_problem p = jitgemm_problem_default(3, 4, 5);
  EXPECT_EQ(p.m, 3);
  EXPECT_EQ(p.alpha, 1.0f);
  EXPECT_EQ(p.beta, 0.0f);
  EXPECT_EQ(p.trans_a, JITGEMM_OP_N);
  EXPECT_EQ(p.precision, JITGEMM_PRECISION_FP32);
  EXPECT_STRNE(jitgemm_version(), "");
}

TEST(CApi, CreateFailsCleanlyWithoutAGpuAndValidatesWithOne) {
  std::string reason;
  jitgemm_runtime runtime = nullptr;
  const jitgemm_status status = jitgemm_create(&runtime, 0, "/nonexistent-dir/db.json", nullptr);
  if (!jitgemm::testing::gpu_available(&reason)) {
    EXPECT_EQ(status, JITGEMM_CUDA_ERROR);
    EXPECT_EQ(runtime, nullptr);
    EXPECT_STRNE(jitgemm_last_error(), "");
    return;
  }
  ASSERT_EQ(status, JITGEMM_SUCCESS) << jitgemm_last_error();
  jitgemm_problem p = jitgemm_problem_default(-1, 8, 8);
  float* fake = reinterpret_cast<float*>(0x1000);
  EXPECT_EQ(jitgemm_gemm(runtime, &p, fake, fake + 1024, fake + 4096, nullptr), JITGEMM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(jitgemm_last_error()).find("M=-1 must be >= 0"), std::string::npos);
  p = jitgemm_problem_default(0, 8, 8);  // an empty C: nothing is touched (BLAS)
  EXPECT_EQ(jitgemm_gemm(runtime, &p, nullptr, nullptr, nullptr, nullptr), JITGEMM_SUCCESS) << jitgemm_last_error();
  // Structure values past the last one are invalid, on either operand; 4 is symmetric_upper.
  p = jitgemm_problem_default(8, 8, 8);
  p.structure_a = static_cast<jitgemm_structure>(7);
  EXPECT_EQ(jitgemm_gemm(runtime, &p, fake, fake + 1024, fake + 4096, nullptr), JITGEMM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(jitgemm_last_error()).find("structure_a: unknown structure value"), std::string::npos)
      << jitgemm_last_error();
  p = jitgemm_problem_default(8, 8, 8);
  p.structure_b = static_cast<jitgemm_structure>(7);
  EXPECT_EQ(jitgemm_gemm(runtime, &p, fake, fake + 1024, fake + 4096, nullptr), JITGEMM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(jitgemm_last_error()).find("structure_b: unknown structure value"), std::string::npos)
      << jitgemm_last_error();
  p = jitgemm_problem_default(8, 6, 8);
  p.structure_b = JITGEMM_STRUCTURE_SYMMETRIC_UPPER;
  EXPECT_EQ(jitgemm_gemm(runtime, &p, fake, fake + 1024, fake + 4096, nullptr), JITGEMM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(jitgemm_last_error()).find("structure_b=symmetric_upper needs a square operand"),
            std::string::npos)
      << jitgemm_last_error();
  EXPECT_EQ(jitgemm_destroy(runtime), JITGEMM_SUCCESS);
}

// The C enums have the values of the C++ ones (problem.hpp), in the same order.
static_assert(JITGEMM_STRUCTURE_GENERAL == static_cast<int>(jitgemm::Structure::General));
static_assert(JITGEMM_STRUCTURE_SYMMETRIC == static_cast<int>(jitgemm::Structure::Symmetric));
static_assert(JITGEMM_STRUCTURE_LOWER == static_cast<int>(jitgemm::Structure::Lower));
static_assert(JITGEMM_STRUCTURE_UPPER == static_cast<int>(jitgemm::Structure::Upper));
static_assert(JITGEMM_STRUCTURE_SYMMETRIC_UPPER == 4 &&
              JITGEMM_STRUCTURE_SYMMETRIC_UPPER == static_cast<int>(jitgemm::Structure::SymmetricUpper));
static_assert(JITGEMM_STRUCTURE_LOWER_UNIT == 5 &&
              JITGEMM_STRUCTURE_LOWER_UNIT == static_cast<int>(jitgemm::Structure::LowerUnit));
static_assert(JITGEMM_STRUCTURE_UPPER_UNIT == 6 &&
              JITGEMM_STRUCTURE_UPPER_UNIT == static_cast<int>(jitgemm::Structure::UpperUnit));
static_assert(JITGEMM_FILL_FULL == static_cast<int>(jitgemm::Fill::Full));
static_assert(JITGEMM_FILL_LOWER == static_cast<int>(jitgemm::Fill::Lower));
static_assert(JITGEMM_FILL_UPPER == static_cast<int>(jitgemm::Fill::Upper));

// Every structure value reaches the product as its C++ structure: the unread triangle (and
// a unit diagonal) hold NaN, the result matches float64 of the dense operands, with the fill.
TEST(CApi, EveryStructureValueMapsToItsStructure) {
  JITGEMM_REQUIRE_GPU();
  jitgemm_runtime runtime = nullptr;
  const std::string db_path = jitgemm::testing::temp_dir("c-api-structure") + "/tuning.json";
  ASSERT_EQ(jitgemm_create(&runtime, 0, db_path.c_str(), jitgemm::testing::temp_dir("c-api-structure-cache").c_str()),
            JITGEMM_SUCCESS)
      << jitgemm_last_error();
  jitgemm::cuda::PrimaryContext context(0);
  context.make_current();
  int checked = 0;
  for (int value = 0; value <= 6; ++value)
    for (jitgemm_op trans : {JITGEMM_OP_N, JITGEMM_OP_T}) {
      jitgemm_problem p = jitgemm_problem_default(11, 6, 9);
      p.structure_a = static_cast<jitgemm_structure>(value);
      p.structure_b = static_cast<jitgemm_structure>((value + 3) % 7);
      p.trans_a = trans;
      p.trans_b = trans == JITGEMM_OP_N ? JITGEMM_OP_T : JITGEMM_OP_N;
      p.fill = static_cast<jitgemm_fill>(value % 3);
      p.alpha = 0.75f;
      p.beta = 0.5f;
      jitgemm::GemmProblem q;  // the same problem in C++ terms, for the reference
      q.structure_a = static_cast<jitgemm::Structure>(value);
      q.structure_b = static_cast<jitgemm::Structure>((value + 3) % 7);
      if (jitgemm::is_symmetric(q.structure_a)) p.k = p.m;
      if (jitgemm::is_symmetric(q.structure_b)) p.n = p.k;
      p.ldc = p.n + 2;  // padded: columns n, n + 1 must stay
      q.m = p.m, q.n = p.n, q.k = p.k, q.ldc = p.ldc, q.alpha = p.alpha, q.beta = p.beta;
      q.trans_a = trans == JITGEMM_OP_N ? jitgemm::Op::N : jitgemm::Op::T;
      q.trans_b = trans == JITGEMM_OP_N ? jitgemm::Op::T : jitgemm::Op::N;
      q.fill = static_cast<jitgemm::Fill>(value % 3);
      SCOPED_TRACE(q.to_string());
      auto operand = [](const jitgemm::StoredShape& shape, int64_t ld, jitgemm::Structure s, int salt) {
        std::vector<float> x(static_cast<size_t>(shape.rows * ld), NAN);
        for (int64_t i = 0; i < shape.rows; ++i)
          for (int64_t j = 0; j < shape.cols; ++j)
            if (jitgemm::testing::reads(s, i, j))
              x[static_cast<size_t>(i * ld + j)] = static_cast<float>((i * 37 + j * 11 + salt) % 19 - 9) / 8.0f;
        return x;
      };
      const std::vector<float> a = operand(jitgemm::stored_shape_a(q), q.effective_lda(), q.structure_a, 1);
      const std::vector<float> b = operand(jitgemm::stored_shape_b(q), q.effective_ldb(), q.structure_b, 5);
      std::vector<float> c0(static_cast<size_t>(q.m * q.ldc));
      for (size_t i = 0; i < c0.size(); ++i) c0[i] = static_cast<float>(i % 13) - 6.0f;
      for (int64_t i = 0; i < q.m; ++i)  // C is not read outside the kept part
        for (int64_t j = 0; j < q.n; ++j)
          if (!jitgemm::testing::kept(q.fill, i, j)) c0[static_cast<size_t>(i * q.ldc + j)] = NAN;
      const std::vector<double> expected = jitgemm::testing::host_reference(q, a, b, c0);
      jitgemm::cuda::DeviceBuffer a_dev(sizeof(float) * a.size()), b_dev(sizeof(float) * b.size()),
          c_dev(sizeof(float) * c0.size());
      a_dev.copy_from_host(a.data(), a_dev.size());
      b_dev.copy_from_host(b.data(), b_dev.size());
      c_dev.copy_from_host(c0.data(), c_dev.size());
      ASSERT_EQ(jitgemm_gemm(runtime, &p, a_dev.as<float>(), b_dev.as<float>(), c_dev.as<float>(), nullptr),
                JITGEMM_SUCCESS)
          << jitgemm_last_error();
      const std::vector<float> c = c_dev.to_host_vector<float>(c0.size());
      for (int64_t i = 0; i < q.m; ++i)
        for (int64_t j = 0; j < q.ldc; ++j) {
          const size_t at = static_cast<size_t>(i * q.ldc + j);
          if (j >= q.n) {  // padding: untouched
            EXPECT_EQ(c[at], c0[at]) << "padding C[" << i << "][" << j << "]";
            continue;
          }
          if (!jitgemm::testing::kept(q.fill, i, j))
            EXPECT_EQ(c[at], 0.0f) << "C[" << i << "][" << j << "] outside the fill";
          else
            EXPECT_NEAR(c[at], expected[at], 1e-4 * (1.0 + std::abs(expected[at]))) << "C[" << i << "][" << j << "]";
          ++checked;
        }
    }
  EXPECT_GT(checked, 500);
  EXPECT_EQ(jitgemm_destroy(runtime), JITGEMM_SUCCESS);
}

}  // namespace
