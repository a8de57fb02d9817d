// The cuda/ stage: driver loading and its errors (everywhere), RAII ownership rules
// (compile time), and allocation, copies, module loading, launches and event timing on
// a GPU (skipped, with the reason, where none exists).
#include "cuda/driver_api.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <type_traits>
#include <vector>

#include "compile/compiler.hpp"
#include "compile/test_kernels.hpp"
#include "cuda/context.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/device_info.hpp"
#include "cuda/event.hpp"
#include "cuda/module.hpp"
#include "cuda/stream.hpp"
#include "jitgemm/error.hpp"
#include "support/test_support.hpp"

namespace jitgemm::cuda {
namespace {

template <class T>
constexpr bool kMoveOnlyOwner = !std::is_copy_constructible_v<T> && !std::is_copy_assignable_v<T> &&
                                std::is_nothrow_move_constructible_v<T> &&
                                std::is_nothrow_move_assignable_v<T> && std::is_nothrow_destructible_v<T>;
static_assert(kMoveOnlyOwner<PrimaryContext>);
static_assert(kMoveOnlyOwner<Module>);
static_assert(kMoveOnlyOwner<Stream>);
static_assert(kMoveOnlyOwner<Event>);
static_assert(kMoveOnlyOwner<DeviceBuffer>);
static_assert(std::is_copy_constructible_v<Function>, "a Function is a non-owning view");

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Points the loader at another library for one scope.
struct DriverLibraryOverride {
  explicit DriverLibraryOverride(std::string path) { set_driver_library_for_testing(std::move(path)); }
  ~DriverLibraryOverride() { set_driver_library_for_testing(""); }
};

TEST(DriverApi, MissingLibraryGivesACleanErrorAndIsNotRemembered) {
  {
    DriverLibraryOverride bogus("/nonexistent/libcuda.so.1");
    try {
      driver();
      FAIL() << "expected CudaError";
    } catch (const CudaError& e) {
      EXPECT_TRUE(std::string(e.what()).starts_with("no CUDA driver: dlopen(/nonexistent/libcuda.so.1) failed: "))
          << e.what();
    }
    std::string reason;
    EXPECT_FALSE(gpu_available(&reason));
    EXPECT_TRUE(has(reason, "dlopen(/nonexistent/libcuda.so.1)")) << reason;
  }
  // Back on the real library: the bogus failure must not leak into this answer.
  std::string reason;
  const bool available = gpu_available(&reason);
  EXPECT_FALSE(has(reason, "nonexistent")) << reason;
  if (!available) {
    EXPECT_FALSE(reason.empty());
  }
  EXPECT_EQ(available, gpu_available());
}

TEST(DriverApi, LibraryWithoutTheEntryPointsIsNamed) {
  DriverLibraryOverride not_a_driver("libm.so.6");
  const std::string what = message_of([] { driver(); });
  EXPECT_TRUE(has(what, "no CUDA driver: libm.so.6 exports neither cuGetProcAddress_v2 nor cuGetProcAddress"))
      << what;
}

TEST(DriverApi, CheckNamesCallArgumentsAndCode) {
  EXPECT_NO_THROW(check(CUDA_SUCCESS, "cuInit", "0"));
  try {
    check(CUDA_ERROR_INVALID_IMAGE, "cuModuleLoadData", "kernel gemm_x, 412 KiB cubin");
    FAIL() << "expected CudaError";
  } catch (const CudaError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(what.starts_with("cuModuleLoadData(kernel gemm_x, 412 KiB cubin) failed: ")) << what;
    EXPECT_EQ(e.code(), CUDA_ERROR_INVALID_IMAGE);
    // With a driver the code is named, without one it is a number.
    EXPECT_TRUE(has(what, "CUDA_ERROR_INVALID_IMAGE") || has(what, "CUresult 200")) << what;
  }
}

// Stands in for a driver entry point in the macro tests.
CUresult cuFakeAlloc(CUdeviceptr* p, std::size_t bytes) {
  *p = 0;
  return bytes > 1024 ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
}

TEST(DriverApi, CheckMacroStringifiesTheCallAndFormatsOnlyOnFailure) {
  CUdeviceptr p = 0;
  int formatted = 0;
  auto counted = [&](std::size_t n) {
    ++formatted;
    return n;
  };
  JITGEMM_CU(cuFakeAlloc(&p, 64), "{} bytes", counted(64));
  EXPECT_EQ(formatted, 0);
  const std::string what = message_of([&] { JITGEMM_CU(cuFakeAlloc(&p, 4096), "{} bytes", counted(4096)); });
  EXPECT_EQ(formatted, 1);
  EXPECT_TRUE(what.starts_with("cuFakeAlloc(4096 bytes) failed: ")) << what;
  const std::string no_args = message_of([&] { JITGEMM_CU(cuFakeAlloc(&p, 4096)); });
  EXPECT_TRUE(no_args.starts_with("cuFakeAlloc() failed: ")) << no_args;
}

TEST(DriverApi, CallNameSkipsTheTableAccessor) {
  EXPECT_EQ(detail::call_name("driver().cuMemAlloc(&p, bytes)"), "cuMemAlloc");
  EXPECT_EQ(detail::call_name("api->cuLaunchKernel(f, 1, 1)"), "cuLaunchKernel");
  EXPECT_EQ(detail::call_name("cuda::driver().cuInit(0)"), "cuInit");
  EXPECT_EQ(detail::call_name("other(1)"), "other");
}

TEST(DriverApi, FormatBytes) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(412 * 1024), "412 KiB");
  EXPECT_EQ(format_bytes(3 * 1024 * 1024 / 2), "1.5 MiB");
}

// ---- GPU tests ----

TEST(CudaGpu, QueriesTheDevice) {
  JITGEMM_REQUIRE_GPU();
  const DeviceInfo info = query_device(0);
  EXPECT_FALSE(info.name.empty());
  EXPECT_GE(info.cc_major, 7);
  EXPECT_GT(info.sm_count, 0);
  EXPECT_GT(info.l2_bytes, 0);
  EXPECT_GE(info.max_smem_per_block_optin, 48 * 1024);
  EXPECT_GE(info.driver_version, 11000);
  EXPECT_GT(info.total_memory_bytes, 0u);
  std::printf("device 0: %s, sm_%d%d, %d SMs, L2 %d MiB, smem opt-in %d KiB, driver %d\n", info.name.c_str(),
              info.cc_major, info.cc_minor, info.sm_count, info.l2_bytes >> 20, info.max_smem_per_block_optin >> 10,
              info.driver_version);
  EXPECT_THROW(query_device(device_count()), InvalidArgument);
}

TEST(CudaGpu, PrimaryContextIsCurrentAndMovable) {
  JITGEMM_REQUIRE_GPU();
  PrimaryContext ctx(0);
  CUcontext current = nullptr;
  JITGEMM_CU(driver().cuCtxGetCurrent(&current));
  EXPECT_EQ(current, ctx.get());
  PrimaryContext moved(std::move(ctx));
  EXPECT_EQ(ctx.get(), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(moved.device(), 0);
  EXPECT_THROW(ctx.make_current(), InvalidArgument);
  EXPECT_THROW(PrimaryContext{device_count()}, InvalidArgument);
}

TEST(CudaGpu, DeviceBufferRoundTrips) {
  JITGEMM_REQUIRE_GPU();
  PrimaryContext ctx(0);
  std::vector<float> host(1 << 18);
  std::iota(host.begin(), host.end(), 0.5f);
  DeviceBuffer buffer(host.size() * sizeof(float));
  EXPECT_NE(buffer.as<float>(), nullptr);
  buffer.copy_from_host(std::span<const float>(host));
  EXPECT_EQ(buffer.to_host_vector<float>(host.size()), host);

  Stream stream;
  std::vector<float> back(host.size(), -1.f);
  buffer.fill_bytes_async(0, stream.get());
  buffer.copy_to_host_async(back.data(), back.size() * sizeof(float), stream.get());
  stream.synchronize();
  EXPECT_EQ(back, std::vector<float>(host.size(), 0.f));
  buffer.copy_from_host_async(host.data(), 16, stream.get(), 64);
  stream.synchronize();
  EXPECT_EQ(buffer.to_host_vector<float>(20)[16], host[0]);

  EXPECT_THROW(buffer.copy_to_host(back.data(), 8, buffer.size() - 4), InvalidArgument);
  DeviceBuffer moved(std::move(buffer));
  EXPECT_EQ(buffer.get(), 0u);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(buffer.size(), 0u);
  EXPECT_EQ(moved.size(), host.size() * sizeof(float));
  moved.release();
  EXPECT_EQ(moved.get(), 0u);
}

CompiledKernel compile_or_fail(const char* source, const std::string& name) {
  const CompileOutcome out = Compiler(std::nullopt).compile(source, name, CompileOptions{});
  EXPECT_TRUE(out.ok) << out.log;
  return out.kernel;
}

TEST(CudaGpu, LaunchesAnInlinePtxTensorCoreKernelAndTimesIt) {
  JITGEMM_REQUIRE_GPU();
  PrimaryContext ctx(0);
  const DeviceInfo info = query_device(0);
  if (info.cc_major != 9 || info.cc_minor != 0) GTEST_SKIP() << "the probe is compiled for sm_90a";
  const CompiledKernel kernel = compile_or_fail(test_kernels::kTf32MmaProbe, "tf32_mma_probe");
  Module module(kernel.cubin, "kernel tf32_mma_probe");
  const Function f = module.function(kernel.lowered_name);

  // Small integers are exact in TF32, so the tensor-core result must match exactly.
  std::vector<float> a(16 * 8), b(8 * 8), expected(16 * 8, 0.f);
  for (int i = 0; i < 128; ++i) a[i] = static_cast<float>(i % 7 - 3);
  for (int i = 0; i < 64; ++i) b[i] = static_cast<float>(i % 5 - 2);
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 8; ++n)
      for (int k = 0; k < 8; ++k) expected[m * 8 + n] += a[m * 8 + k] * b[k * 8 + n];
  DeviceBuffer da(a.size() * 4), db(b.size() * 4), dd(expected.size() * 4);
  da.copy_from_host(std::span<const float>(a));
  db.copy_from_host(std::span<const float>(b));
  CUdeviceptr pa = da.get(), pb = db.get(), pd = dd.get();
  void* args[] = {&pa, &pb, &pd};

  Stream stream;
  Event start, stop;
  start.record(stream.get());
  launch(f, {1, 1, 1}, {32, 1, 1}, 0, stream.get(), args);
  stop.record(stream.get());
  const float ms = elapsed_ms(start, stop);
  EXPECT_GE(ms, 0.f);
  EXPECT_LT(ms, 1000.f);
  EXPECT_EQ(dd.to_host_vector<float>(expected.size()), expected);
  EXPECT_GT(function_attribute(f, CU_FUNC_ATTRIBUTE_NUM_REGS), 0);
}

TEST(CudaGpu, LaunchRaisesTheDynamicSharedMemoryLimitAndNamesFailures) {
  JITGEMM_REQUIRE_GPU();
  PrimaryContext ctx(0);
  const DeviceInfo info = query_device(0);
  if (info.cc_major != 9) GTEST_SKIP() << "compiled for sm_90a";
  const CompiledKernel kernel = compile_or_fail(test_kernels::kScaleWithSmem, "scale_with_smem");
  Module module(kernel.cubin, "kernel scale_with_smem");
  const Function f = module.function("scale_with_smem");

  const int n = 10000;
  std::vector<float> x(n);
  std::iota(x.begin(), x.end(), 1.f);
  DeviceBuffer dx(n * sizeof(float));
  dx.copy_from_host(std::span<const float>(x));
  CUdeviceptr px = dx.get();
  float alpha = 2.f;
  int count = n;
  void* args[] = {&px, &alpha, &count};
  const unsigned big_smem = 100 * 1024;  // above the 48 KiB default: needs the opt-in
  launch(f, {(n + 255) / 256, 1, 1}, {256, 1, 1}, big_smem, nullptr, args);
  launch(f, {(n + 255) / 256, 1, 1}, {256, 1, 1}, big_smem, nullptr, args);  // limit already raised
  JITGEMM_CU(driver().cuCtxSynchronize());
  const std::vector<float> y = dx.to_host_vector<float>(n);
  for (int i = 0; i < n; ++i) ASSERT_EQ(y[i], 4.f * x[i]) << "i=" << i;

  const unsigned too_much = static_cast<unsigned>(info.max_smem_per_block_optin) + 1024;
  std::string what = message_of([&] { launch(f, {1, 1, 1}, {256, 1, 1}, too_much, nullptr, args); });
  EXPECT_TRUE(what.starts_with("cuFuncSetAttribute(kernel scale_with_smem, MAX_DYNAMIC_SHARED_SIZE_BYTES")) << what;
  what = message_of([&] { launch(f, {1, 1, 1}, {4096, 1, 1}, 0, nullptr, args); });
  EXPECT_TRUE(what.starts_with("cuLaunchKernel(kernel scale_with_smem, grid (1,1,1), block (4096,1,1), smem 0 B) "
                               "failed: CUDA_ERROR_INVALID_VALUE"))
      << what;
}

TEST(CudaGpu, TemplateKernelsAreFoundByTheirLoweredName) {
  JITGEMM_REQUIRE_GPU();
  PrimaryContext ctx(0);
  if (query_device(0).cc_major != 9) GTEST_SKIP() << "compiled for sm_90a";
  const CompiledKernel kernel = compile_or_fail(test_kernels::kScaleWithSmem, "probe::add_constant<7>");
  Module module(kernel.cubin, "kernel probe::add_constant<7>");
  const Function f = module.function(kernel.lowered_name);
  DeviceBuffer dx(64 * sizeof(float));
  dx.fill_bytes_async(0, nullptr);
  CUdeviceptr px = dx.get();
  int n = 64;
  void* args[] = {&px, &n};
  launch(f, {1, 1, 1}, {64, 1, 1}, 0, nullptr, args);
  EXPECT_EQ(dx.to_host_vector<float>(64), std::vector<float>(64, 7.f));
}

TEST(CudaGpu, BadImagesAndMissingFunctionsAreNamed) {
  JITGEMM_REQUIRE_GPU();
  PrimaryContext ctx(0);
  const std::vector<char> garbage(4096, 'x');
  const std::string what = message_of([&] { Module(garbage, "kernel garbage"); });
  EXPECT_TRUE(what.starts_with("cuModuleLoadData(kernel garbage, 4 KiB cubin) failed: CUDA_ERROR_")) << what;

  if (query_device(0).cc_major != 9) GTEST_SKIP() << "compiled for sm_90a";
  Module module(compile_or_fail(test_kernels::kScaleWithSmem, "scale_with_smem").cubin, "kernel scale");
  const std::string missing = message_of([&] { module.function("nope"); });
  EXPECT_TRUE(missing.starts_with("cuModuleGetFunction(module kernel scale, function \"nope\") failed: "
                                  "CUDA_ERROR_NOT_FOUND"))
      << missing;
  Module moved(std::move(module));
  EXPECT_FALSE(module);  // NOLINT(bugprone-use-after-move)
  EXPECT_TRUE(moved);
  EXPECT_THROW(module.function("scale_with_smem"), InvalidArgument);
}

TEST(CudaGpu, StreamsAndEventsAreMoveOnlyOwners) {
  JITGEMM_REQUIRE_GPU();
  PrimaryContext ctx(0);
  Stream a;
  Stream b(std::move(a));
  EXPECT_EQ(a.get(), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_NE(b.get(), nullptr);
  Event e1, e2(CU_EVENT_DISABLE_TIMING);
  e1 = std::move(e2);
  EXPECT_EQ(e2.get(), nullptr);  // NOLINT(bugprone-use-after-move)
  e1.record(b.get());
  e1.synchronize();
  b.release();
  EXPECT_EQ(b.get(), nullptr);
}

}  // namespace
}  // namespace jitgemm::cuda
