#include "app/tutorial/TutorialRunStep.h"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "app/capture/CaptureModule.h"
#include "app/capture/DistributedCapture.h"
#include "app/tutorial/TutorialResults.h"
#include "profiling/analysis/expectations/ExpectationsRun.h"
#include "profiling/analysis/run/RunAnalysis.h"
#include "profiling/trace/RunLoader.h"
#include "profiling/trace/TracePaths.h"

namespace fuselab {
namespace {

constexpr int kExitNotMet = 1;
constexpr int kExitError = 2;

nlohmann::ordered_json resultsJson(const TutorialPreset& p, const std::string& folder,
                                   const std::vector<ExpectationResult>& results) {
  nlohmann::ordered_json j;
  j["step"] = p.step;
  j["id"] = p.id;
  j["title"] = p.title;
  j["run"] = folder;
  addTutorialResultsJson(j, p, results);
  return j;
}

// Cuda, unless the device was not given and this machine has fewer GPUs than
// the step has ranks (none, or one for two ranks): then the CPU, with Gloo.
Device runDevice(const TutorialPreset& p, Device asked, bool given, std::ostream& status) {
  if (given || asked != Device::Cuda) return asked;
  const int gpus = captureBackend().gpuCount();
  const int ranks = std::max(1, p.params.ranks);
  if (gpus >= ranks) return asked;
  status << "This machine has " << gpus << " CUDA GPU(s) for " << ranks
         << " ranks (one each): the ranks run on the CPU with Gloo (--device cuda insists on GPUs).\n";
  return Device::Cpu;
}

}  // namespace

bool isTutorialRunStep(const TutorialPreset& p, const std::string& trace_arg) {
  return isDistributedWorkload(p.params.workload) || pathNamesRun(trace_arg);
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
    try {
      device = runDevice(p, device, a.device_given, status);
    } catch (const std::exception& e) {
      std::cerr << "fuselab tutorial: cannot run step " << p.step << ": " << e.what() << "\n";
      return kExitError;
    }
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
    printTutorialResults(p, results);
  }
  for (const auto& r : results)
    if (!r.met()) return kExitNotMet;
  return 0;
}

}  // namespace fuselab
