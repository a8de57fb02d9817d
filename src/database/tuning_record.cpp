// TuningRecord and its parts: names, timestamps, outcome counts and the writers' check (see
// tuning_record.hpp).
#include "database/tuning_record.hpp"

#include <ctime>

#include <fmt/format.h>

#include "database/record_reader.hpp"
#include "database/record_text.hpp"
#include "jitgemm/error.hpp"

namespace jitgemm {
namespace {

// Digits text[pos, pos + n) as a number in [lo, hi], or -1.
int digits(std::string_view text, size_t pos, size_t n, int lo, int hi) {
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (text[i] < '0' || text[i] > '9') return -1;
    v = v * 10 + (text[i] - '0');
  }
  return v >= lo && v <= hi ? v : -1;
}

}  // namespace

int OutcomeCounts::count(CandidateOutcome outcome) const noexcept {
  const auto it = by_outcome.find(outcome);
  return it == by_outcome.end() ? 0 : it->second;
}

int OutcomeCounts::total() const noexcept {
  int64_t sum = unrecorded;
  for (const auto& [outcome, n] : by_outcome) sum += n;
  return sum > INT32_MAX ? INT32_MAX : static_cast<int>(sum);
}

std::string TuningRecord::key() const {
  std::string key = device.name;
  key += "|sm";
  key += std::to_string(device.sm);
  key += '|';
  key += problem.canonical();
  return key;
}

std::string format_utc_timestamp(std::chrono::system_clock::time_point t) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(t);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", utc.tm_year + 1900, utc.tm_mon + 1,
                     utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec);
}

bool is_future_dated(const TuningRecord& r, std::chrono::system_clock::time_point now) {
  return r.tuned_at > format_utc_timestamp(now + kFutureDateTolerance);  // the format orders as text
}

bool is_utc_timestamp(std::string_view text) noexcept {
  if (text.size() != 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':' || text[19] != 'Z')
    return false;
  return digits(text, 0, 4, 1970, 9999) >= 0 && digits(text, 5, 2, 1, 12) >= 0 &&
         digits(text, 8, 2, 1, 31) >= 0 && digits(text, 11, 2, 0, 23) >= 0 &&
         digits(text, 14, 2, 0, 59) >= 0 && digits(text, 17, 2, 0, 60) >= 0;
}

void validate_record(const TuningRecord& r) {
  try {
    read_record_text(record_text(r, RecordLayout::Compact));
  } catch (const FieldError& e) {
    throw InvalidArgument(fmt::format("tuning record {}: {}", r.key(), e.what()));
  }
}

}  // namespace jitgemm
