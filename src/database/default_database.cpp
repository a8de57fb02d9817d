#include "database/default_database.hpp"

#include <cstdlib>
#include <filesystem>

#include "common/library_directory.hpp"

#ifndef JITGEMM_SHIPPED_DB
#define JITGEMM_SHIPPED_DB "tuning_db/jitgemm_tuning.json"
#endif

namespace jitgemm {

std::string shipped_database_path() {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(JITGEMM_SHIPPED_DB, ec)) return JITGEMM_SHIPPED_DB;
  if (const fs::path code_dir = library_directory(); !code_dir.empty()) {
    const fs::path installed = code_dir.parent_path() / "share/jitgemm/jitgemm_tuning.json";
    if (fs::exists(installed, ec)) return installed.string();
  }
  return JITGEMM_SHIPPED_DB;
}

std::string default_database_path() {
  const char* env = std::getenv("JITGEMM_TUNING_DB");
  return env != nullptr && *env != '\0' ? std::string(env) : shipped_database_path();
}

}  // namespace jitgemm
