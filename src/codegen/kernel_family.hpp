// kernel_family.hpp — what every kernel family answers, in one small interface, and the table
// of the three families (simt_family.cpp, mma_sync_family.cpp, wgmma_family.cpp). A new family
// is a new file and a row of the table, not a branch in every stage.
//
//   const KernelFamilyRules& rules = family_rules(config.family());
//   std::string why = rules.invalid_reason(config, StaticLimits{});
//   std::vector<KernelConfig> space = family_rules(KernelFamily::Wgmma).candidates(key, {});
//
// exec/ holds the other half of a family (how its kernel is launched: workspace, pre-passes,
// kernel arguments), since codegen/ does not run anything.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/kernel_config.hpp"
#include "problem/problem_key.hpp"

namespace jitgemm {

// SMs of the largest Hopper parts (H100 SXM, H200): the families' candidate rules and
// untuned defaults size waves with it (e.g. "fills every SM once"). Launches use the SM count
// of the device they run on.
inline constexpr int kLargestHopperSms = 132;

// What an sm_90 device (H100, H200) allows a kernel; the pruning rules read these.
struct StaticLimits {
  size_t max_smem_bytes = 227 * 1024;  // dynamic shared memory per CTA (opt-in maximum)
  int max_threads = 1024;              // per CTA
  int max_registers_per_thread = 255;
  int registers_per_sm = 65536;
};

// How a config is launched on an M x N x K problem (the kernel's own M and N: a swapped
// wgmma kernel gets N x M). Grid and block are 1-D along x, except that split-K slices run
// along y.
struct LaunchGeometry {
  unsigned grid_x = 1, grid_y = 1, grid_z = 1;
  unsigned block_x = 1;
  size_t smem_bytes = 0;
};

// One family parameter as the database stores it: a JSON number in [min, max], a bool, or a
// name (index into `names`, which is the enum's value); the positional order is name, kind,
// min, max, names, get, set, multiple_of, absent. get/set read and write it on a
// config of the family.
struct ConfigField {
  enum class Kind { Integer, Boolean, Name };
  static constexpr int kRequired = -1;
  std::string_view name;
  Kind kind = Kind::Integer;
  int min = 0, max = 0;                      // Integer: the range
  std::span<const std::string_view> names;   // Name
  int (*get)(const KernelConfig&) = nullptr;
  void (*set)(KernelConfig&, int) = nullptr;
  int multiple_of = 1;                       // Integer: a multiple of this
  // A field added after the records that lack it were written: what they meant, the value read
  // where the field is absent. At that value the field is neither written nor hashed into a
  // record's checksum, so older files (and their checksums) stay valid byte for byte.
  // kRequired: every record has the field.
  int absent = kRequired;

  // Whether the field at value `v` is left out of a record (it reads back as `absent`).
  constexpr bool left_out(int v) const noexcept { return absent != kRequired && v == absent; }
};

// The field's value on `c` as text: the number, "true" / "false", or the enum's name.
std::string field_text(const ConfigField& f, const KernelConfig& c);

class KernelFamilyRules {
 public:
  virtual ~KernelFamilyRules() = default;

  virtual KernelFamily family() const noexcept = 0;
  // The template file, e.g. "tf32/wgmma_gemm.cu".
  virtual std::string_view template_path() const noexcept = 0;
  // The support kernels' templates its launches may run beside the main kernel (operand copies
  // and pre-passes, the split-K reduction, the edge strips): part of what a record's template
  // hash covers (family_template_hash).
  virtual std::span<const std::string_view> support_template_paths() const noexcept = 0;
  virtual bool computes(Precision precision) const noexcept = 0;

  // ---- name and parse: the part of KernelConfig::name() after "<family>_<precision>_<bm>x<bn>x<bk>"
  virtual std::string name_suffix(const KernelConfig& c) const = 0;
  // Reads that part from the front of `rest` into `c` (already of this family); false when it
  // does not match.
  virtual bool parse_name_suffix(std::string_view& rest, KernelConfig& c) const = 0;
  // The documented form and an example, for parse errors.
  virtual std::string_view name_form() const noexcept = 0;

  // ---- static validity and resources
  // Empty when the template accepts the config and it fits `limits`; otherwise the rule it
  // breaks, e.g. "shared memory 240 KiB exceeds 227 KiB".
  virtual std::string invalid_reason(const KernelConfig& c, const StaticLimits& limits) const = 0;
  virtual int threads(const KernelConfig& c) const = 0;
  virtual size_t shared_memory_bytes(const KernelConfig& c) const = 0;
  // Registers per thread, estimated for pruning (the family's comment says how).
  virtual int estimated_registers(const KernelConfig& c) const = 0;

  // ---- source: kernel name, the prologue of constants the template reads, the target
  virtual std::string kernel_name(const KernelConfig& c, const KernelSpecialization& s) const = 0;
  virtual std::string prologue(const KernelConfig& c, const KernelSpecialization& s,
                               std::string_view kernel_name) const = 0;
  virtual std::string_view target_arch() const noexcept { return "sm_90a"; }

  // ---- candidates (problem of a precision this family computes)
  virtual std::vector<KernelConfig> candidates(const ProblemKey& key, const StaticLimits& limits) const = 0;
  // Configs that together exercise every code path of the template (CI compiles these).
  virtual std::vector<KernelConfig> sample(const ProblemKey& key) const = 0;
  virtual KernelConfig default_config(const ProblemKey& key) const = 0;
  // Whether `c` can read problems of `key` (e.g. TMA needs 16-byte aligned operands in place).
  virtual bool runs_in_place(const KernelConfig& c, const ProblemKey& key) const = 0;
  // A config tuned for another shape, made right for `key` (e.g. its K split re-derived);
  // nullopt when none of its kind can run `key`.
  virtual std::optional<KernelConfig> adapt(const KernelConfig& tuned, const ProblemKey& key) const = 0;
  // `c` with the choices that make a config's siblings set to one value: configs with the same
  // form are tried right after a prior they are siblings of (the tuner's ranking). Every
  // family: the K split (one kernel serves every split); SIMT also: the slice barrier placement.
  virtual KernelConfig sibling_form(KernelConfig c) const {
    c.split_k = 1;
    return c;
  }

  // ---- the database's view of the family's parameters (in KernelConfig::params)
  virtual std::span<const ConfigField> fields() const noexcept = 0;

  // ---- launch: grid, block and shared memory on the kernel's m x n x k (see LaunchGeometry).
  // `sm_count`: the device's SMs (persistent kernels), or for CTA pairs the SMs their
  // co-resident clusters cover.
  virtual LaunchGeometry geometry(const KernelConfig& c, int64_t m, int64_t n, int64_t k, int sm_count) const = 0;
};

// What a problem key fixes at compile time: its transposes, vector widths, the fill, whether
// its structure leaves tiles that need less than all of K (a work list), its triangular
// operands, the stored triangles of its symmetric ones and the SIMT family's transposed copies.
KernelSpecialization specialization_of(const ProblemKey& key) noexcept;

// The prologue line every template reads for structure: FILL (0 full, 1 keep the lower
// triangle of the kernel's output, 2 the upper) and WORK_LIST (0 or 1). `transposed_c`: the
// kernel computes C^T (its fill is the transposed triangle).
std::string structure_constants(const KernelSpecialization& s, bool transposed_c = false);

// The table: one entry per KernelFamily.
const KernelFamilyRules& family_rules(KernelFamily family) noexcept;
inline const KernelFamilyRules& rules_of(const KernelConfig& c) noexcept { return family_rules(c.family()); }

// The families' answers for a config (rules_of(c).<...>), for callers that do not care which.
bool statically_valid(const KernelConfig& c, const StaticLimits& limits, std::string* why);
size_t shared_memory_bytes(const KernelConfig& c);
int estimated_registers(const KernelConfig& c);
// rules_of(c).geometry after checking M, N, K in 1..2^31-1 and the tile count (InvalidArgument).
LaunchGeometry launch_geometry(const KernelConfig& c, int64_t m, int64_t n, int64_t k, int sm_count);

}  // namespace jitgemm
