// The tutorial's steps as data: assets/tutorial/stepNN_<id>.json, one file per
// step of the "Profiling in PyTorch" ladder. Each names a workload and its
// parameters, says what to look at, asks a question before the capture, and
// lists expectations the capture is checked against (profiling/Expectations.h).
//
// File format (all keys but look_for, compare_with and hint are required):
//   {"fuselab_tutorial_step": 9, "id": "mlp_eager", "title": "...", "part": "...",
//    "run": {"workload": "mlp", "variant": "geglu", "batch": 64, "seq": 128, "dim": 768,
//            "hidden": 3072, "out": 64, "dtype": "bf16", "graph": false,
//            "warmup": 3, "steps": 3},
//    "explanation": "...", "guess_first": "...", "look_for": ["..."],
//    "compare_with": [{"step": 10}],
//    "expectations": [{"kind": "kernels_per_step", "min": 5, "max": 6, "text": "..."}]}
// In "run", workload/warmup/steps are required; sizes left out take the
// workload's defaults (workloadCatalog()).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "profiling/analysis/expectations/Expectations.h"
#include "profiling/capture_api/CaptureTypes.h"
#include "profiling/capture_api/Workload.h"

namespace fuselab {

// A preset that cannot be used; the message names the file and the field:
// "step09_mlp_eager.json: run.batch: expected an integer from 1 to 1048576, got -3".
class PresetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TutorialPreset {
  int step = 0;  // 1-based position in the ladder
  std::string id;
  std::string title;
  std::string part;
  std::string explanation;
  std::string guess_first;
  std::vector<std::string> look_for;
  WorkloadParams params;  // device: cuda (presetParams() sets another)
  int warmup = 3;
  int steps = 3;
  // Steps worth comparing with this one (A/B). The other step's workload and
  // variant run with this step's sizes: see compareParams().
  std::vector<int> compare_with;
  std::vector<Expectation> expectations;
  std::filesystem::path source;  // the file it was read from
};

// Parses one preset. `source_name` prefixes error messages. Checks that the
// workload exists, the variant is one of its variants and the sizes are in
// range (WorkloadCatalog.h); it does not build the workload.
TutorialPreset parseTutorialPreset(const nlohmann::json& doc, const std::string& source_name);
TutorialPreset loadTutorialPreset(const std::filesystem::path& file);

// Every *.json in `dir`, sorted by step. Throws PresetError for a bad file,
// for two files with the same step, for steps that are not 1..N, or for a
// compare_with naming a step that does not exist.
std::vector<TutorialPreset> loadTutorialPresets(const std::filesystem::path& dir);

// The preset's workload parameters on `device`.
WorkloadParams presetParams(const TutorialPreset& preset, Device device);
CaptureOptions presetCaptureOptions(const TutorialPreset& preset);

// `other`'s workload, variant and graph flag with `self`'s sizes and dtype:
// what to run as B when comparing step `self` with step `other`.
WorkloadParams compareParams(const TutorialPreset& self, const TutorialPreset& other, Device device);

// One line for people: "mlp (geglu), batch 64, seq 128, dim 768, hidden 3072, bf16, warmup 3, 3 steps".
std::string describePresetRun(const TutorialPreset& preset);

}  // namespace fuselab
