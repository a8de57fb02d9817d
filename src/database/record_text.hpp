// The JSON text of a schema-4 record, as a database file holds it (record_reader.hpp reads it
// back). Pretty: one member per line, each small object (device, config, timing, a top
// candidate, ...) on one line, indented for its place in the file's "records" array; Compact:
// all on one line. Members in reading order: what the record is about, its measurements, the
// environment and date, the checksum, then the candidates.
//
//     {
//       "problem": "gemm.fp32.NN.general.general.full.4096x4096x4096.tight.tight.tight.v444",
//       "device": {"name": "NVIDIA H200", "sm": 90, "sm_count": 132},
//       "config": {"family": "simt", "precision": "fp32", "block_m": 128, ..., "params": {...}},
//       "timing": {"median_ms": 3.375, ...}, "tflops": 40.7, "accuracy": {...},
//       "environment": {...}, "tuned_at": "2025-01-15T10:20:30Z", "checksum": "0f3a...",
//       "candidate_count": 896,
//       "outcomes": {"ok": 860, "spills": 36},
//       "top": [
//         {"config": "simt_fp32_128x256x16_w2x4_t16x8_s4_k4_g8", "median_ms": 3.375, "rel_error": 1.1e-07, "registers": 221, "spill_bytes": 0},
//         ...
//       ]
//     }
#pragma once

#include <string>
#include <string_view>

#include "database/tuning_record.hpp"

namespace jitgemm {

enum class RecordLayout { Pretty, Compact };

// The record's text; "checksum" is written when `checksum` is not empty. Pretty text starts at
// `indent` spaces (the record's own line is the caller's to indent) and has no final newline.
std::string record_text(const TuningRecord& r, RecordLayout layout, std::string_view checksum = {}, int indent = 4);
// Appends the same to `out`.
void append_record_text(std::string& out, const TuningRecord& r, RecordLayout layout, std::string_view checksum = {},
                        int indent = 4);

// A config as the object form: {"family": "simt", "precision": "fp32", "block_m": 128, ...,
// "params": {the family's fields: numbers, enums by name, flags as bools}}.
void append_config_object(std::string& out, const KernelConfig& c);
// A full-table candidate, on one line: {"config": "<name>", "outcome": "ok", "median_ms": ...,
// "rel_error": ... (null when not finite), "registers": ..., "spill_bytes": ..., "detail": "..."}.
void append_candidate_text(std::string& out, const CandidateResult& c);

}  // namespace jitgemm
