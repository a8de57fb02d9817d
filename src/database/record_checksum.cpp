// Record checksums (see record_checksum.hpp).
#include "database/record_checksum.hpp"

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "codegen/kernel_family.hpp"
#include "common/hash.hpp"
#include "database/candidate_history.hpp"
#include "database/config_fields.hpp"

namespace jitgemm {
namespace {

using nlohmann::json;

// One tag byte per value type, so that "1" and 1, [] and {} hash differently.
void add_tag(Hasher& h, char tag) { h.add_bytes(std::string_view(&tag, 1)); }

// A signed integer, whichever way the JSON library holds it: a parser reads 25 as unsigned,
// to_json writes an int as signed.
void add_integer(Hasher& h, const json& j) {
  if (j.is_number_integer() && !j.is_number_unsigned()) {
    add_tag(h, 'i');
    h.add(j.get<std::int64_t>());
    return;
  }
  const std::uint64_t v = j.get<std::uint64_t>();
  if (v <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    add_tag(h, 'i');
    h.add(static_cast<std::int64_t>(v));
  } else {
    add_tag(h, 'u');
    h.add(static_cast<std::int64_t>(v - (std::uint64_t{1} << 63)));
  }
}

void add_value(Hasher& h, const json& j, const std::string& skipped_key = "") {
  switch (j.type()) {
    case json::value_t::object: {
      const bool skips = !skipped_key.empty() && j.contains(skipped_key);
      add_tag(h, '{');
      h.add(static_cast<std::int64_t>(j.size() - (skips ? 1 : 0)));
      for (auto it = j.begin(); it != j.end(); ++it) {  // std::map order: sorted by key
        if (skips && it.key() == skipped_key) continue;
        h.add(it.key());
        add_value(h, it.value());
      }
      break;
    }
    case json::value_t::array:
      add_tag(h, '[');
      h.add(static_cast<std::int64_t>(j.size()));
      for (const json& element : j) add_value(h, element);
      break;
    case json::value_t::string:
      add_tag(h, 's');
      h.add(j.get_ref<const std::string&>());
      break;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: add_integer(h, j); break;
    case json::value_t::number_float:
      add_tag(h, 'f');
      h.add(j.get<double>());
      break;
    case json::value_t::boolean: add_tag(h, j.get<bool>() ? 't' : 'b'); break;
    case json::value_t::null:
    case json::value_t::discarded:
    case json::value_t::binary: add_tag(h, 'n'); break;
  }
}

// The schema-4 checksums' hash: two 64-bit lanes fed a word at a time (a string is its length
// and its bytes in 8-byte words), each word multiplied in and rotated, both lanes mixed at the
// end (the splitmix64 finaliser). Not cryptographic, like Hasher: it catches accidents. A word
// at a time, a record of ~2 KB hashes in well under a microsecond (Hasher's byte loop took
// 11% of a load).
class ValueHash {
 public:
  explicit ValueHash(std::string_view domain) { text(domain); }

  void word(uint64_t w) noexcept {
    a_ = std::rotl((a_ ^ w) * 0xff51afd7ed558ccdull, 29);
    b_ = std::rotl((b_ + w) * 0xc4ceb9fe1a85ec53ull, 33) ^ a_;
  }
  void integer(int64_t v) noexcept { word(static_cast<uint64_t>(v)); }
  void number(double v) noexcept { word(std::bit_cast<uint64_t>(v)); }  // its bits: 0.0 and -0.0 differ
  void text(std::string_view s) noexcept {
    word(s.size());
    size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
      uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      word(w);
    }
    if (i < s.size()) {
      uint64_t w = 0;
      std::memcpy(&w, s.data() + i, s.size() - i);
      word(w);
    }
  }

  std::string hex() const {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out(32, '0');
    const uint64_t lanes[2] = {avalanche(b_), avalanche(a_)};
    for (int lane = 0; lane < 2; ++lane)
      for (int d = 0; d < 16; ++d) out[static_cast<size_t>(lane * 16 + d)] = kDigits[(lanes[lane] >> (60 - 4 * d)) & 0xf];
    return out;
  }

 private:
  uint64_t a_ = 0x6a09e667f3bcc908ull;
  uint64_t b_ = 0xbb67ae8584caa73bull;
};

void add_problem(ValueHash& h, const ProblemKey& p) {
  h.text(to_string(p.precision));
  h.text(to_string(p.trans_a));
  h.text(to_string(p.trans_b));
  h.text(to_string(p.structure_a));
  h.text(to_string(p.structure_b));
  h.text(to_string(p.fill));
  h.integer(p.m);
  h.integer(p.n);
  h.integer(p.k);
  h.text(to_string(p.ld_a));
  h.text(to_string(p.ld_b));
  h.text(to_string(p.ld_c));
  h.integer(p.vec_a);
  h.integer(p.vec_b);
  h.integer(p.vec_c);
}

void add_config(ValueHash& h, const KernelConfig& c) {
  h.text(to_string(c.family()));
  h.text(to_string(c.precision));
  for (const TileField& f : tile_fields()) h.integer(c.*f.member);
  for (const ConfigField& f : rules_of(c).fields()) {
    const int v = f.get(c);
    if (f.left_out(v)) continue;  // as the file leaves it out: older records' checksums hold
    if (f.kind == ConfigField::Kind::Name && v >= 0 && static_cast<size_t>(v) < f.names.size())
      h.text(f.names[static_cast<size_t>(v)]);
    else
      h.integer(v);
  }
}

void add_candidate(ValueHash& h, const CandidateResult& c) {
  add_config(h, c.config);
  h.text(to_string(c.outcome));
  h.number(c.median_ms);
  h.number(c.rel_error);
  h.integer(c.registers);
  h.integer(c.spill_bytes);
  h.text(c.detail);
}

}  // namespace

std::string record_checksum(const TuningRecord& r) {
  ValueHash h("jitgemm-record-v4");
  add_problem(h, r.problem);
  h.text(r.device.name);
  h.integer(r.device.sm);
  h.integer(r.device.sm_count);
  h.integer(r.environment.driver_version);
  h.integer(r.environment.nvrtc_version);
  h.text(r.environment.template_hash);
  h.text(r.environment.jitgemm_version);
  add_config(h, r.config);
  h.number(r.timing.median_ms);
  h.number(r.timing.p10_ms);
  h.number(r.timing.p90_ms);
  h.integer(r.timing.runs);
  h.integer(r.timing.l2_flushed ? 1 : 0);
  h.number(r.timing.cublas_median_ms);
  h.number(r.tflops);
  h.number(r.accuracy.rel_error);
  h.number(r.accuracy.tolerance);
  h.number(r.accuracy.cublas_rel_error);
  h.integer(r.candidate_count);
  h.integer(static_cast<int64_t>(r.outcomes.by_outcome.size()));
  for (const auto& [outcome, n] : r.outcomes.by_outcome) {
    h.text(to_string(outcome));
    h.integer(n);
  }
  h.integer(r.outcomes.unrecorded);
  h.integer(static_cast<int64_t>(r.top.size()));
  for (const RankedCandidate& c : r.top) {
    add_config(h, c.config);
    h.number(c.median_ms);
    h.number(c.rel_error);
    h.integer(c.registers);
    h.integer(c.spill_bytes);
  }
  h.text(r.tuned_at);
  if (r.tune_s != 0) h.number(r.tune_s);  // a record without it keeps the checksum it had
  return h.hex();
}

std::string history_checksum(const CandidateHistory& entry) {
  ValueHash h("jitgemm-history-v1");
  h.text(entry.key);
  h.text(entry.tuned_at);
  h.integer(static_cast<int64_t>(entry.candidates.size()));
  for (const CandidateResult& c : entry.candidates) add_candidate(h, c);
  return h.hex();
}

std::string record_checksum(const json& record_json) {
  Hasher h;
  h.add("jitgemm-record-v1");
  add_value(h, record_json, "checksum");
  return h.hex();
}

bool is_checksum_text(std::string_view text) noexcept {
  if (text.size() != 32) return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace jitgemm
