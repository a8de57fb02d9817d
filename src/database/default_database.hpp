// Which tuning database is used when none is named: one answer for the Runtime
// (RuntimeOptions::database_path empty), jitgemm-tune and jitgemm-db (no --db).
//
//   std::string path = default_database_path();  // $JITGEMM_TUNING_DB, else the shipped records
#pragma once

#include <string>

namespace jitgemm {

// The shipped records: the source tree's file this build was made from while it exists, else
// the installed copy, <prefix>/share/jitgemm/jitgemm_tuning.json beside the <prefix>/lib (the
// library) or <prefix>/bin (a tool) that holds this code. The source tree's path when neither
// exists (loading it then says "no such file" with that path).
std::string shipped_database_path();

// $JITGEMM_TUNING_DB when set and not empty, else shipped_database_path().
std::string default_database_path();

}  // namespace jitgemm
