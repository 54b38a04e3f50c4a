// Tutorial steps about runs (a distributed workload, several ranks): the
// step's live run (`tutorial --step N --run`, DistributedCapture.h) or a
// folder of rank traces (`--trace DIR`), checked with the run expectations
// (profiling/analysis/expectations/ExpectationsRun.h).
#pragma once

#include <string>

#include "app/tutorial/TutorialPresets.h"

namespace fuselab {

struct TutorialRunArgs {
  std::string device = "cuda";  // as typed (--device)
  // false: a live run on cuda with fewer GPUs than ranks runs on the CPU
  // (Gloo) instead, and says so.
  bool device_given = false;
  std::string folder;      // check this run folder instead of running (--trace DIR)
  std::string save;        // keep the live run's folder here (--save-trace DIR)
  std::string screenshot;  // refused for runs: the message says what to use
  bool json = false;
};

// Whether `tutorial` checks this step as a run: a distributed workload, or
// --trace naming a folder.
bool isTutorialRunStep(const TutorialPreset& preset, const std::string& trace_arg);

// Exit codes as `tutorial`'s: 0 all met, 1 some not met, 2 a failed run or unreadable folder.
int checkTutorialRunStep(const TutorialPreset& preset, const TutorialRunArgs& args);

}  // namespace fuselab
