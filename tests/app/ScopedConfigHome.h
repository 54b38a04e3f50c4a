// Points XDG_CONFIG_HOME at a scratch folder for one test, so the settings
// fuselab reads and writes are the test's own.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "tests/support/TestPaths.h"

namespace fuselab::test {

class ScopedConfigHome {
 public:
  explicit ScopedConfigHome(const std::string& name) : dir_(scratchDir(name)) {
    if (const char* old = std::getenv("XDG_CONFIG_HOME")) old_ = old;
    ::setenv("XDG_CONFIG_HOME", dir_.c_str(), 1);
  }
  ~ScopedConfigHome() { old_ ? ::setenv("XDG_CONFIG_HOME", old_->c_str(), 1) : ::unsetenv("XDG_CONFIG_HOME"); }
  std::filesystem::path settingsFile() const { return dir_ / "fuselab" / "settings.json"; }

 private:
  std::filesystem::path dir_;
  std::optional<std::string> old_;
};

}  // namespace fuselab::test
