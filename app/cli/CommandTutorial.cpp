// `fuselab tutorial --list` and
// `fuselab tutorial --step N [--trace T | --run] [--device cuda|cpu] [--json]
//  [--save-trace OUT.json.gz] [--screenshot P.png] [--presets DIR]`:
// shows a step of the tutorial ladder, and with --trace or --run checks a
// trace against the step's expectations, printing each as met / not met
// with the measured value and the evidence.
// Exit codes: 0 every expectation met (or nothing to check), 1 some not met or
// not checkable, 2 bad arguments, an unreadable trace or a failed capture.
#include <iostream>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "app/AssetPaths.h"
#include "app/cli/Commands.h"
#include "app/tutorial/TutorialPresets.h"
#include "app/tutorial/TutorialResults.h"
#include "app/tutorial/TutorialRunStep.h"
#include "app/capture/WorkloadCapture.h"
#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/expectations/Expectations.h"
#include "profiling/trace/ChromeTraceExport.h"
#include "profiling/trace/ChromeTraceImport.h"
#include "profiling/trace/DurationText.h"

#ifdef FUSELAB_HAVE_GUI
#include "app/gui/TutorialPictures.h"
#endif

namespace fuselab {

namespace {

constexpr int kExitNotMet = 1;
constexpr int kExitError = 2;

struct TutorialArgs {
  bool list = false;
  int step = 0;
  std::string trace;
  bool run = false;
  std::string device = "cuda";
  bool device_given = false;  // --device typed: a run step keeps it even without enough GPUs
  bool json = false;
  std::string save_trace;
  std::string screenshot;
  std::string presets;
};

void printStep(const TutorialPreset& p, size_t count) {
  std::cout << "Step " << p.step << " of " << count << ": " << p.title << "\n"
            << p.part << "\n"
            << "Runs: " << describePresetRun(p) << "\n\n"
            << p.explanation << "\n\n"
            << "Guess first: " << p.guess_first << "\n";
  if (!p.look_for.empty()) {
    std::cout << "\nLook for:\n";
    for (const auto& l : p.look_for) std::cout << "  - " << l << "\n";
  }
  std::cout << "\nExpectations:\n";
  for (const auto& e : p.expectations) std::cout << "  - " << e.text << "\n";
  if (!p.compare_with.empty()) {
    std::cout << "\nCompare with step";
    for (size_t i = 0; i < p.compare_with.size(); ++i) std::cout << (i ? ", " : " ") << p.compare_with[i];
    std::cout << " (fuselab compare A B).\n";
  }
}

nlohmann::ordered_json resultsJson(const Trace& trace, const TutorialPreset& p,
                                   const std::vector<ExpectationResult>& results) {
  nlohmann::ordered_json j;
  j["step"] = p.step;
  j["id"] = p.id;
  j["title"] = p.title;
  j["trace"] = trace.meta.source;
  j["trace_name"] = trace.meta.trace_name;
  addTutorialResultsJson(j, p, results, &trace);
  return j;
}

// Without --trace or --run: the step itself, and how to check it.
int showStep(const TutorialArgs& a, const TutorialPreset& p, size_t count) {
  if (!a.save_trace.empty() || !a.screenshot.empty()) {
    std::cerr << "fuselab tutorial: --save-trace and --screenshot need --trace FILE or --run\n";
    return kExitError;
  }
  printStep(p, count);
  std::cout << "\nCheck it: fuselab tutorial --step " << p.step
            << " --run   (captures the workload; needs a CUDA GPU for the GPU expectations)\n"
            << "      or: fuselab tutorial --step " << p.step << " --trace FILE   (a torch.profiler trace)\n";
  return 0;
}

// --run: captures the step's workload into `trace`; false, with the message
// printed, when it cannot.
bool captureStep(const TutorialArgs& a, const TutorialPreset& p, Trace& trace) {
  Device device;
  try {
    device = parseDevice(a.device);
  } catch (const WorkloadError& e) {
    std::cerr << "fuselab tutorial: --device: " << e.what() << "\n";
    return false;
  }
  if (!a.json) std::cout << "Step " << p.step << ": " << p.title << "\nGuess first: " << p.guess_first << "\n\n"
                         << "Running " << describePresetRun(p) << " on " << deviceName(device) << "...\n";
  try {
    CaptureResult c = captureWorkload(presetParams(p, device), presetCaptureOptions(p));
    for (const auto& m : c.messages) std::cerr << "fuselab tutorial: " << m << "\n";
    trace = std::move(c.trace);
  } catch (const NoGpuError& e) {
    std::cerr << "fuselab tutorial: cannot run step " << p.step << ": " << e.what() << ": use --device cpu\n";
    return false;
  } catch (const std::exception& e) {  // WorkloadError (bad size), WorkloadOutOfMemory, CaptureError
    std::cerr << "fuselab tutorial: cannot run step " << p.step << ": " << e.what() << "\n";
    return false;
  }
  return true;
}

// --trace: reads it into `trace`; false, with the message printed, when it cannot.
bool readStepTrace(const TutorialArgs& a, const TutorialPreset& p, Trace& trace) {
  try {
    trace = importChromeTrace(a.trace);
  } catch (const std::exception& e) {
    std::cerr << "fuselab tutorial: cannot read " << a.trace << ": " << e.what() << "\n";
    return false;
  }
  if (!a.json) std::cout << "Step " << p.step << ": " << p.title << "\nChecking " << a.trace << "\n";
  return true;
}

// --save-trace: false, with the message printed, when the write failed.
bool saveCheckedTrace(const TutorialArgs& a, const Trace& trace) {
  try {
    exportChromeTrace(trace, a.save_trace);
    if (!a.json) std::cout << "wrote " << a.save_trace << "\n";
  } catch (const std::exception& e) {
    std::cerr << "fuselab tutorial: cannot write " << a.save_trace << ": " << e.what() << "\n";
    return false;
  }
  return true;
}

// --screenshot: the timeline with the results; false, with the message
// printed, when it failed or this build has no GUI.
bool writeStepScreenshot(const TutorialArgs& a, const TutorialPreset& p, size_t count,
                         const std::shared_ptr<Trace>& trace, const std::shared_ptr<TraceAnalysis>& analysis,
                         const std::vector<ExpectationResult>& results) {
#ifdef FUSELAB_HAVE_GUI
  try {
    writeTutorialPicture(a.screenshot, p, count, trace, analysis, results);
    if (!a.json) std::cout << "wrote " << a.screenshot << "\n";
  } catch (const std::exception& e) {
    std::cerr << "fuselab tutorial: screenshot failed: " << e.what() << "\n";
    return false;
  }
  return true;
#else
  (void)a, (void)p, (void)count, (void)trace, (void)analysis, (void)results;
  std::cerr << "fuselab tutorial: --screenshot needs the GUI, and this build has none (configured with "
               "FUSELAB_GUI=OFF); the check above ran anyway\n";
  return false;
#endif
}

// With --trace or --run (a step of one process): the trace checked against
// the step's expectations; 0 only when all are met.
int checkStep(const TutorialArgs& a, const TutorialPreset& p, size_t count) {
  auto trace = std::make_shared<Trace>();
  const bool have_trace = a.run ? captureStep(a, p, *trace) : readStepTrace(a, p, *trace);
  if (!have_trace) return kExitError;
  if (!a.save_trace.empty() && !saveCheckedTrace(a, *trace)) return kExitError;
  auto analysis = std::make_shared<TraceAnalysis>(analyzeTrace(*trace));
  const std::vector<ExpectationResult> results = evaluateExpectations(*trace, *analysis, p.expectations);
  if (!a.json) {
    std::cout << analysis->steps.size() << " steps, " << analysis->kernel_count << " kernels in scope, verdict "
              << verdictName(analysis->verdict.kind) << "\n\n";
    printTutorialResults(p, results, trace.get());
  } else {
    std::cout << resultsJson(*trace, p, results).dump(2) << "\n";
  }

  if (!a.screenshot.empty() && !writeStepScreenshot(a, p, count, trace, analysis, results)) return kExitError;
  bool all_met = true;
  for (const auto& r : results) all_met &= r.met();
  return all_met ? 0 : kExitNotMet;
}

int runTutorial(const TutorialArgs& a) {
  std::vector<TutorialPreset> presets;
  try {
    presets = loadTutorialPresets(a.presets.empty() ? tutorialPresetsDir() : std::filesystem::path(a.presets));
  } catch (const std::exception& e) {  // PresetError, AssetsNotFound
    std::cerr << "fuselab tutorial: " << e.what() << "\n";
    return kExitError;
  }
  if (a.list) {
    for (const auto& p : presets) std::cout << p.step << ". " << p.title << "  [" << describePresetRun(p) << "]\n";
    return 0;
  }
  if (a.step < 1 || a.step > int(presets.size())) {
    std::cerr << "fuselab tutorial: --step must be from 1 to " << presets.size() << " (see --list), got " << a.step
              << "\n";
    return kExitError;
  }
  if (a.run && !a.trace.empty()) {
    std::cerr << "fuselab tutorial: give either --trace FILE or --run, not both\n";
    return kExitError;
  }
  const TutorialPreset& p = presets[size_t(a.step - 1)];
  if (!a.run && a.trace.empty()) return showStep(a, p, presets.size());

  if (isTutorialRunStep(p, a.trace))
    return checkTutorialRunStep(p, {a.device, a.device_given, a.trace, a.save_trace, a.screenshot, a.json});
  return checkStep(a, p, presets.size());
}

}  // namespace

void addTutorialCommand(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "tutorial", "The profiling tutorial: list the steps, show one, and check a trace or a live run against its "
                  "expectations (exit code 0 only when all are met)");
  auto a = std::make_shared<TutorialArgs>();
  cmd->add_flag("--list", a->list, "List the steps");
  cmd->add_option("--step", a->step, "Step number (1-based, see --list)");
  cmd->add_option("--trace", a->trace, "Check this Chrome/Kineto trace (.json / .json.gz), or a run folder, against the step")
      ->check(CLI::ExistingPath);
  cmd->add_flag("--run", a->run, "Capture the step's workload and check the capture");
  auto* device = cmd->add_option("--device", a->device,
                                 "Device for --run: cuda or cpu (a run step without a GPU per rank: cpu unless given)")
                     ->capture_default_str();
  cmd->add_flag("--json", a->json, "Print the results as JSON");
  cmd->add_option("--save-trace", a->save_trace, "Also write the checked trace (.json or .json.gz; a run: a new folder)");
  cmd->add_option("--screenshot", a->screenshot, "Write a PNG of the timeline with the results (GUI builds)");
  cmd->add_option("--presets", a->presets, "Folder of preset files (default: the assets/tutorial folder)");
  cmd->callback([a, device, &exit_code] {
    a->device_given = device->count() > 0;
    exit_code = runTutorial(*a);
  });
}

}  // namespace fuselab
