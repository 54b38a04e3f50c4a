// The expectations of a tutorial step, read straight from
// assets/tutorial/stepNN_*.json with nlohmann (tests below the app layer,
// which cannot use app/tutorial's loader).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "profiling/analysis/expectations/ExpectationsJson.h"
#include "tests/support/BuildPaths.h"

namespace fuselab::test {

inline std::vector<Expectation> presetExpectations(int step) {
  const std::filesystem::path dir = std::filesystem::path(fuselab::build_paths::sourceDir()) / "assets" / "tutorial";
  char prefix[16];
  std::snprintf(prefix, sizeof prefix, "step%02d_", step);
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind(prefix, 0) != 0) continue;
    std::ifstream in(entry.path());
    const nlohmann::json doc = nlohmann::json::parse(in);
    std::vector<Expectation> out;
    for (size_t i = 0; i < doc.at("expectations").size(); ++i)
      out.push_back(parseExpectation(doc["expectations"][i], entry.path().filename().string()));
    return out;
  }
  throw std::runtime_error(std::string("no preset file ") + prefix + "*.json");
}

}  // namespace fuselab::test
