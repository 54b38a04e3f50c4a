#include "app/TutorialRunStep.h"

#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "app/DistributedCapture.h"
#include "profiling/analysis/ExpectationsRun.h"
#include "profiling/analysis/RunAnalysis.h"
#include "profiling/trace/RunLoader.h"

namespace fuselab {
namespace {

constexpr int kExitNotMet = 1;
constexpr int kExitError = 2;

void printResults(const TutorialPreset& p, const std::vector<ExpectationResult>& results) {
  size_t met = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    const ExpectationResult& r = results[i];
    met += r.met();
    const char* tag = r.status == ExpectationStatus::Met      ? "[met]         "
                      : r.status == ExpectationStatus::NotMet ? "[NOT MET]     "
                                                              : "[cannot check]";
    std::cout << tag << " " << p.expectations[i].text << "\n               measured: " << r.measured << "\n"
              << "               " << r.explanation << "\n";
    if (!r.met() && !p.expectations[i].hint.empty()) std::cout << "               hint: " << p.expectations[i].hint << "\n";
    std::cout << "\n";
  }
  std::cout << "Step " << p.step << ": " << met << " of " << results.size() << " expectations met\n";
}

nlohmann::ordered_json resultsJson(const TutorialPreset& p, const std::string& folder,
                                   const std::vector<ExpectationResult>& results) {
  nlohmann::ordered_json j;
  j["step"] = p.step;
  j["id"] = p.id;
  j["title"] = p.title;
  j["run"] = folder;
  size_t met = 0;
  auto& list = j["expectations"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < results.size(); ++i) {
    const ExpectationResult& r = results[i];
    met += r.met();
    nlohmann::ordered_json e;
    e["kind"] = std::string(expectationKindName(p.expectations[i].kind));
    e["text"] = p.expectations[i].text;
    e["status"] = std::string(expectationStatusName(r.status));
    e["measured"] = r.measured;
    e["value"] = r.value ? nlohmann::ordered_json(*r.value) : nlohmann::ordered_json();
    e["explanation"] = r.explanation;
    e["hint"] = p.expectations[i].hint;
    list.push_back(std::move(e));
  }
  j["met"] = met;
  j["total"] = results.size();
  return j;
}

}  // namespace

bool isTutorialRunStep(const TutorialPreset& p, const std::string& trace_arg) {
  std::error_code ec;
  return isDistributedWorkload(p.params.workload) || std::filesystem::is_directory(trace_arg, ec);
}

int checkTutorialRunStep(const TutorialPreset& p, const TutorialRunArgs& a) {
  std::ostream& status = a.json ? std::cerr : std::cout;
  if (!a.screenshot.empty()) {
    std::cerr << "fuselab tutorial: --screenshot of a run: keep it (--save-trace DIR) and use fuselab screenshot "
                 "--trace DIR\n";
    return kExitError;
  }
  Device device = Device::Cuda;
  try {
    device = parseDevice(a.device);
  } catch (const WorkloadError& e) {
    std::cerr << "fuselab tutorial: --device: " << e.what() << "\n";
    return kExitError;
  }
  RunFolder live;
  std::string folder = a.folder;
  if (folder.empty()) {
    status << "Step " << p.step << ": " << p.title << "\nGuess first: " << p.guess_first << "\n\nRunning "
           << describePresetRun(p) << " on " << deviceName(device) << "...\n";
    try {
      RunCaptureOptions run;
      run.out = a.save;
      live = captureRun(presetParams(p, device), presetCaptureOptions(p), run);
    } catch (const NoGpuError& e) {
      std::cerr << "fuselab tutorial: cannot run step " << p.step << ": " << e.what() << ": use --device cpu\n";
      return kExitError;
    } catch (const std::exception& e) {
      std::cerr << "fuselab tutorial: cannot run step " << p.step << ": " << e.what() << "\n";
      return kExitError;
    }
    folder = live.path().string();
    if (live.kept()) status << "wrote the run to " << folder << "\n";
  } else {
    status << "Step " << p.step << ": " << p.title << "\nChecking the run in " << folder << "\n";
  }
  Run run;
  try {
    run = loadRun(expandRunPaths({std::filesystem::path(folder)}));
  } catch (const std::exception& e) {
    std::cerr << "fuselab tutorial: cannot read the run " << folder << ": " << e.what() << "\n";
    return kExitError;
  }
  const RunAnalysis analysis = analyzeRun(run);
  const std::vector<ExpectationResult> results = evaluateRunExpectations(run, analysis, p.expectations);
  if (a.json) {
    std::cout << resultsJson(p, folder, results).dump(2) << "\n";
  } else {
    std::cout << run.ranks.size() << " ranks, " << analysis.collectives.size() << " collectives matched\n\n";
    printResults(p, results);
  }
  for (const auto& r : results)
    if (!r.met()) return kExitNotMet;
  return 0;
}

}  // namespace fuselab
