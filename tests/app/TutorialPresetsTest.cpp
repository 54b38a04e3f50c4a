// The tutorial presets in assets/tutorial: every file parses, names a workload
// and variant this build has and only known expectation kinds; the loader's
// errors name the file and the field.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "app/AssetPaths.h"
#include "app/tutorial/TutorialPresets.h"
#include "profiling/analysis/expectations/Expectations.h"
#include "profiling/capture_api/WorkloadCatalog.h"
#include "tests/support/BuildPaths.h"
#include "tests/support/TestPaths.h"

namespace fuselab {
namespace {

std::filesystem::path presetDir() { return std::filesystem::path(fuselab::build_paths::sourceDir()) / "assets" / "tutorial"; }

std::vector<std::filesystem::path> presetFiles() {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(presetDir()))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

nlohmann::json readJson(const std::filesystem::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

void writeText(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

TEST(TutorialPresets, EveryFileIsAStepInOrder) {
  const auto presets = loadTutorialPresets(presetDir());
  ASSERT_GE(presets.size(), 12u);
  for (size_t i = 0; i < presets.size(); ++i) {
    EXPECT_EQ(presets[i].step, int(i) + 1);
    EXPECT_FALSE(presets[i].guess_first.empty());
    EXPECT_FALSE(presets[i].expectations.empty());
  }
  EXPECT_EQ(presetFiles().size(), presets.size());
}

TEST(TutorialPresets, EveryFileNamesAnExistingWorkloadVariantAndKnownKinds) {
  std::set<std::string> kinds;
  for (ExpectationKind k : allExpectationKinds()) kinds.insert(std::string(expectationKindName(k)));
  const auto& workloads = workloadCatalog();
  for (const auto& file : presetFiles()) {
    SCOPED_TRACE(file.filename().string());
    const nlohmann::json doc = readJson(file);  // independent of the loader
    const std::string workload = doc.at("run").at("workload");
    auto it = std::find_if(workloads.begin(), workloads.end(), [&](const WorkloadInfo& w) { return w.name == workload; });
    ASSERT_NE(it, workloads.end()) << "unknown workload " << workload;
    if (doc["run"].contains("variant")) {
      const std::string variant = doc["run"]["variant"];
      EXPECT_NE(std::find(it->variants.begin(), it->variants.end(), variant), it->variants.end())
          << workload << " has no variant " << variant;
    }
    for (const auto& e : doc.at("expectations")) EXPECT_TRUE(kinds.count(e.at("kind").get<std::string>())) << e.dump();

    // The loader reads the same values.
    const TutorialPreset p = loadTutorialPreset(file);
    EXPECT_EQ(p.step, doc.at("fuselab_tutorial_step").get<int>());
    EXPECT_EQ(p.params.workload, workload);
    EXPECT_EQ(p.warmup, doc["run"]["warmup"].get<int>());
    EXPECT_EQ(p.steps, doc["run"]["steps"].get<int>());
    if (doc["run"].contains("batch")) EXPECT_EQ(p.params.batch, doc["run"]["batch"].get<int64_t>());
    if (doc["run"].contains("dim")) EXPECT_EQ(p.params.dim, doc["run"]["dim"].get<int64_t>());
    EXPECT_EQ(p.expectations.size(), doc["expectations"].size());
  }
}

TEST(TutorialPresets, ColdStartRunsWithoutWarmupAndOthersWarmUp) {
  const auto presets = loadTutorialPresets(presetDir());
  for (const auto& p : presets) {
    if (p.id == "cold_start")
      EXPECT_EQ(p.warmup, 0);
    else
      EXPECT_GT(p.warmup, 0) << p.id;
  }
}

TEST(TutorialPresets, CompareParamsRunTheOtherWorkloadAtThisStepsSizes) {
  const auto presets = loadTutorialPresets(presetDir());
  const TutorialPreset& fused = presets[10];  // step 11
  const TutorialPreset& eager = presets[8];   // step 9
  const WorkloadParams p = compareParams(fused, eager, Device::Cpu);
  EXPECT_EQ(p.workload, eager.params.workload);
  EXPECT_EQ(p.variant, eager.params.variant);
  EXPECT_EQ(p.batch, fused.params.batch);
  EXPECT_EQ(p.seq, fused.params.seq);
  EXPECT_EQ(p.device, Device::Cpu);
  EXPECT_NE(describePresetRun(eager).find("batch 64, seq 128"), std::string::npos) << describePresetRun(eager);
}

class PresetErrors : public ::testing::Test {
 protected:
  // One folder per test: ctest runs the tests of this fixture in parallel.
  void SetUp() override {
    dir_ = test::scratchDir(std::string("PresetErrors.") +
                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }

  // A valid preset (step 1) with `patch` applied, written as `name`.
  std::filesystem::path write(const std::string& name, const std::function<void(nlohmann::json&)>& patch) {
    nlohmann::json doc = readJson(presetFiles().front());
    patch(doc);
    writeText(dir_ / name, doc.dump(2));
    return dir_ / name;
  }

  std::string error(const std::filesystem::path& file) {
    try {
      loadTutorialPreset(file);
    } catch (const PresetError& e) {
      return e.what();
    }
    return "";
  }

  std::filesystem::path dir_;
};

TEST_F(PresetErrors, NameTheFileAndTheField) {
  auto f = write("a.json", [](nlohmann::json& d) { d["run"]["workload"] = "transformer"; });
  EXPECT_NE(error(f).find("a.json: run.workload: unknown workload 'transformer'"), std::string::npos) << error(f);
  f = write("b.json", [](nlohmann::json& d) { d["run"]["variant"] = "fast"; });
  EXPECT_NE(error(f).find("b.json: run.variant: 'fast' is not a variant of matmul_add"), std::string::npos) << error(f);
  f = write("c.json", [](nlohmann::json& d) { d["expectations"][1]["min"] = "one"; });
  EXPECT_NE(error(f).find("c.json: expectations[1].min: expected a number"), std::string::npos) << error(f);
  f = write("d.json", [](nlohmann::json& d) { d["run"]["dim"] = -3; });
  EXPECT_NE(error(f).find("d.json: run.dim: expected an integer from 1 to"), std::string::npos) << error(f);
  f = write("e.json", [](nlohmann::json& d) { d["guess"] = "?"; });
  EXPECT_NE(error(f).find("e.json: guess: unknown key"), std::string::npos) << error(f);
  f = write("f.json", [](nlohmann::json& d) { d.erase("guess_first"); });
  EXPECT_NE(error(f).find("f.json: guess_first: missing"), std::string::npos) << error(f);
  f = write("g.json", [](nlohmann::json& d) { d["expectations"][0]["kind"] = "fast_enough"; });
  EXPECT_NE(error(f).find("g.json: expectations[0].kind: unknown kind 'fast_enough'"), std::string::npos) << error(f);
  writeText(dir_ / "h.json", "{\"fuselab_tutorial_step\": 1,");
  EXPECT_NE(error(dir_ / "h.json").find("h.json: not valid JSON"), std::string::npos) << error(dir_ / "h.json");
}

TEST_F(PresetErrors, TheFolderNeedsStepsOneToNOnce) {
  write("one.json", [](nlohmann::json&) {});
  write("two.json", [](nlohmann::json&) {});
  try {
    loadTutorialPresets(dir_);
    FAIL() << "duplicate step accepted";
  } catch (const PresetError& e) {
    EXPECT_NE(std::string(e.what()).find("step 1 is also defined by one.json"), std::string::npos) << e.what();
  }
  std::filesystem::remove(dir_ / "two.json");
  write("three.json", [](nlohmann::json& d) { d["fuselab_tutorial_step"] = 3; });
  try {
    loadTutorialPresets(dir_);
    FAIL() << "a gap in the steps was accepted";
  } catch (const PresetError& e) {
    EXPECT_NE(std::string(e.what()).find("step 2 is missing"), std::string::npos) << e.what();
  }
}

TEST(AssetPaths, EnvironmentOverrideComesFirstAndTheSourceTreeIsTheFallback) {
  const std::filesystem::path dir = test::scratchDir("AssetPathsEnv");
  std::filesystem::create_directories(dir / "tutorial");
  ::setenv("FUSELAB_ASSETS_DIR", dir.c_str(), 1);
  EXPECT_EQ(findAssetsDir(), dir);
  ::setenv("FUSELAB_ASSETS_DIR", (dir / "nowhere").c_str(), 1);
  EXPECT_EQ(std::filesystem::canonical(findAssetsDir()),
            std::filesystem::canonical(std::filesystem::path(fuselab::build_paths::sourceDir()) / "assets"));
  ::unsetenv("FUSELAB_ASSETS_DIR");
  EXPECT_EQ(assetsSearchPath().back(), std::filesystem::path(fuselab::build_paths::sourceDir()) / "assets");
}

}  // namespace
}  // namespace fuselab
