// The database used when none is named (database/default_database.hpp): the Runtime,
// jitgemm-tune and jitgemm-db agree on it; an empty $JITGEMM_TUNING_DB counts as unset.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/library_directory.hpp"
#include "database/default_database.hpp"

namespace jitgemm {
namespace {

// Sets (or, with nullptr, unsets) $JITGEMM_TUNING_DB for one test and puts it back after.
class TuningDbEnv {
 public:
  explicit TuningDbEnv(const char* value) {
    if (const char* old = std::getenv("JITGEMM_TUNING_DB")) saved_ = old, had_ = true;
    if (value) ::setenv("JITGEMM_TUNING_DB", value, 1); else ::unsetenv("JITGEMM_TUNING_DB");
  }
  ~TuningDbEnv() {
    if (had_) ::setenv("JITGEMM_TUNING_DB", saved_.c_str(), 1); else ::unsetenv("JITGEMM_TUNING_DB");
  }

 private:
  std::string saved_;
  bool had_ = false;
};

TEST(DefaultDatabase, TheShippedRecordsOfThisSourceTree) {
  TuningDbEnv env(nullptr);
  const std::filesystem::path shipped = JITGEMM_SOURCE_DIR "/tuning_db/jitgemm_tuning.json";
  ASSERT_TRUE(std::filesystem::exists(shipped));
  EXPECT_TRUE(std::filesystem::equivalent(shipped_database_path(), shipped)) << shipped_database_path();
  EXPECT_EQ(default_database_path(), shipped_database_path());
}

TEST(DefaultDatabase, TheEnvironmentNamesAnotherOneUnlessEmpty) {
  {
    TuningDbEnv env("/tmp/mine.json");
    EXPECT_EQ(default_database_path(), "/tmp/mine.json");
  }
  TuningDbEnv empty("");
  EXPECT_EQ(default_database_path(), shipped_database_path());
}

// Where the installed copy is looked for: beside the directory of the code that holds jitgemm,
// here libjitgemm.so in the build tree.
TEST(DefaultDatabase, TheCodeLiesInTheBuildTree) {
  const std::filesystem::path dir = library_directory();
  ASSERT_FALSE(dir.empty());
  EXPECT_TRUE(std::filesystem::equivalent(dir, JITGEMM_BINARY_DIR)) << dir;
}

}  // namespace
}  // namespace jitgemm
