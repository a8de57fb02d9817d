// The table over the kernel families: which family serves and is tuned for a problem.
#include "codegen/candidate_space.hpp"

#include "codegen/mma_sync_family.hpp"
#include "codegen/simt_family.hpp"
#include "codegen/split_k_policy.hpp"
#include "codegen/wgmma_family.hpp"

namespace jitgemm {
namespace {

// The precisions whose mma.sync kernels may serve `key` where the wgmma kernels do not pay.
// tf32 also takes the tf32x3 kernels, and the fp32 SIMT ones: on such shapes (short K, few rows
// or columns) cuBLAS's TF32 mode computes in FP32 (measured on an H200: errors of 1e-8 .. 5e-7
// where a TF32 product has 1e-5 .. 5e-4), so the tf32 contract, 4 x cuBLAS TF32's error, asks
// for FP32 accuracy there; the tuner keeps the fastest kernel that meets it.
std::vector<Precision> mma_precisions(const ProblemKey& key) {
  if (key.precision == Precision::FP32 || tensor_cores_pay(key)) return {};
  if (key.precision == Precision::TF32) return {Precision::TF32x3, Precision::TF32};
  return {key.precision};
}

ProblemKey with_precision(ProblemKey key, Precision precision) {
  key.precision = precision;
  return key;
}

// Tensor-core outputs of at most 2^16 elements where the tensor cores do not pay: cuBLAS's TF32
// error there falls to ~3e-8, below what even the tf32x3 kernel's dropped small products allow
// (H200: 1.3e-7 .. 1.8e-7 against a bound of 1.0e-7 .. 1.2e-7 at M = 1), and a tf32x3 output of a
// few elements, each one product or a few (K = 1, or a triangular operand's corner) that
// cancels against beta C, misses float32's error by the dropped small·small term (H200: 5.5e-7
// and 9.4e-7 against 2.4e-7 at 1x1x65 and 1x1000x1): the untuned kernel is fp32 for both.
bool small_needs_fp32(const ProblemKey& key) {
  return key.precision != Precision::FP32 && !tensor_cores_pay(key) && key.m * key.n <= (int64_t{1} << 16);
}

}  // namespace

const KernelFamilyRules& main_family(Precision precision) noexcept {
  return precision == Precision::FP32 ? simt_rules() : wgmma_rules();
}

std::vector<KernelConfig> candidate_space(const ProblemKey& key, const StaticLimits& limits) {
  return main_family(key.precision).candidates(key, limits);
}

std::vector<KernelConfig> representative_sample(const ProblemKey& key) {
  return main_family(key.precision).sample(key);
}

KernelConfig default_config(const ProblemKey& key) { return main_family(key.precision).default_config(key); }

bool tensor_cores_pay(const ProblemKey& key) {
  return key.m >= 128 && key.n >= 128 && key.k >= 128 && wgmma_takes_k(key);
}

std::vector<KernelConfig> tuning_candidates(const ProblemKey& key, const StaticLimits& limits) {
  std::vector<KernelConfig> out = candidate_space(key, limits);
  for (Precision p : mma_precisions(key))
    for (const KernelConfig& c : mma_candidate_space(with_precision(key, p), limits)) out.push_back(c);
  if (key.precision != Precision::FP32 && !tensor_cores_pay(key))
    for (const KernelConfig& c : candidate_space(with_precision(key, Precision::FP32), limits)) out.push_back(c);
  return out;
}

std::vector<KernelConfig> tuning_sample(const ProblemKey& key) {
  std::vector<KernelConfig> out = representative_sample(key);
  for (Precision p : mma_precisions(key))
    for (const KernelConfig& c : mma_representative_sample(with_precision(key, p)))
      out.push_back(with_default_split_k(c, key));  // the sample's tiles with the split that keeps the contract
  if (key.precision != Precision::FP32 && !tensor_cores_pay(key))
    out.push_back(default_config(with_precision(key, Precision::FP32)));
  return out;
}

KernelConfig untuned_config(const ProblemKey& key) {
  if (small_needs_fp32(key)) return default_config(with_precision(key, Precision::FP32));
  const std::vector<Precision> mma = mma_precisions(key);
  if (mma.empty()) return default_config(key);
  return mma_default_config(with_precision(key, mma.front()));  // tf32: the tf32x3 kernel (see mma_precisions)
}

}  // namespace jitgemm
