// `fuselab compare A B` or `fuselab compare A1 A2 ... --vs B1 B2 ...`: the
// A/B diff of two sides, each one or more traces of the same workload (every
// recorded step is one sample): per metric and per matched GPU op the median
// and range of each side and whether the difference is beyond noise
// (profiling/analysis/compare/NoiseTest.h), how the verdict changed, and B aligned on
// the start of A's step K (first trace of each side). --screenshot draws the
// first trace of each side one above the other, aligned, with the table (GUI
// builds). With --json, stdout is the JSON document alone. A folder is a run:
// its ranks merged on the aligned axis. --repeat N captures each side's
// workload N more times live (app/capture/CompareRepeats.h).
// Exit codes: 0 ok, 1 a repeat capture failed, 2 bad arguments or an
// unreadable trace.
#include <iostream>
#include <memory>

#include "app/capture/CompareRepeats.h"
#include "app/cli/Commands.h"
#include "app/report/CompareReport.h"
#include "profiling/analysis/single/Analysis.h"
#include "profiling/analysis/compare/TraceCompare.h"
#include "profiling/analysis/run/TraceOrRun.h"
#include "profiling/trace/ChromeTraceImport.h"

#ifdef FUSELAB_HAVE_GUI
#include "app/gui/TutorialPictures.h"
#endif

namespace fuselab {

namespace {

constexpr int kExitFailed = 1;
constexpr int kExitError = 2;
constexpr int kMaxRepeats = 100;

struct CompareArgs {
  std::vector<std::string> files;  // A B, or A's traces when --vs is given
  std::vector<std::string> vs;
  int step = 1;
  int repeat = 0;
  bool json = false;
  std::string screenshot;
};

struct LoadedSide {
  std::vector<std::shared_ptr<const Trace>> traces;
  std::vector<std::shared_ptr<TraceAnalysis>> analyses;
  std::vector<CompareInput> inputs() const {
    std::vector<CompareInput> in;
    for (size_t i = 0; i < traces.size(); ++i) in.push_back({traces[i].get(), analyses[i].get()});
    return in;
  }
};

bool load(const std::vector<std::string>& paths, LoadedSide& side) {
  for (const std::string& path : paths) {
    try {
      side.traces.push_back(openTraceOrRun({std::filesystem::path(path)}).trace);  // a folder: its ranks merged
    } catch (const std::exception& e) {
      std::cerr << "fuselab compare: cannot read " << path << ": " << e.what() << "\n";
      return false;
    }
    side.analyses.push_back(std::make_shared<TraceAnalysis>(analyzeTrace(*side.traces.back())));
  }
  return true;
}

std::string sideLabel(const std::vector<std::string>& files, int repeats) {
  std::string label = files.size() == 1 ? files[0] : files[0] + " and " + std::to_string(files.size() - 1) + " more";
  if (repeats > 0) label += " + " + std::to_string(repeats) + " live";
  return label;
}

// --repeat: captures the side's workload `count` times and adds the traces.
// Plans both sides before capturing either, so a side that cannot be repeated
// is reported before any time is spent.
int addRepeats(const std::vector<std::pair<const RepeatPlan*, LoadedSide*>>& sides, int count, bool json) {
  std::ostream& status = json ? std::cerr : std::cout;
  const char* names[] = {"A", "B"};
  for (size_t s = 0; s < sides.size(); ++s) {
    const RepeatPlan& plan = *sides[s].first;
    LoadedSide& side = *sides[s].second;
    try {
      captureRepeats(plan, count, [&](int k, std::shared_ptr<Trace> trace) {
        side.analyses.push_back(std::make_shared<TraceAnalysis>(analyzeTrace(*trace)));
        side.traces.push_back(std::move(trace));
        status << "side " << names[s] << ": captured repeat " << k << " of " << count << "\n";
      });
    } catch (const NoGpuError& e) {
      std::cerr << "fuselab compare: --repeat, side " << names[s] << ": " << e.what()
                << ": capture the sides with --device cpu, or compare without --repeat\n";
      return kExitFailed;
    } catch (const std::exception& e) {  // no capture module, out of memory, a failed capture
      std::cerr << "fuselab compare: --repeat, side " << names[s] << ": " << e.what() << "\n";
      return kExitFailed;
    }
  }
  return 0;
}

int runCompare(const CompareArgs& args) {
  if (args.step < 1) {
    std::cerr << "fuselab compare: --step must be 1 or more (1 = the first profiled step), got " << args.step << "\n";
    return kExitError;
  }
  std::vector<std::string> a_files = args.files, b_files = args.vs;
  if (b_files.empty()) {
    if (a_files.size() != 2) {
      std::cerr << "fuselab compare: give two traces (A B), or A's traces then --vs and B's traces; got "
                << a_files.size() << " trace(s) and no --vs\n";
      return kExitError;
    }
    b_files = {a_files[1]};
    a_files.resize(1);
  }
  if (args.repeat < 0 || args.repeat > kMaxRepeats) {
    std::cerr << "fuselab compare: --repeat must be from 0 to " << kMaxRepeats << ", got " << args.repeat << "\n";
    return kExitError;
  }
  LoadedSide a, b;
  if (!load(a_files, a) || !load(b_files, b)) return kExitError;
  if (args.repeat > 0) {
    RepeatPlan plan_a, plan_b;
    try {
      plan_a = repeatPlanFor(*a.traces[0], a.analyses[0]->steps.size(), a_files[0]);
      plan_b = repeatPlanFor(*b.traces[0], b.analyses[0]->steps.size(), b_files[0]);
    } catch (const RepeatUnavailable& e) {
      std::cerr << "fuselab compare: --repeat: " << e.what() << "\n";
      return kExitError;
    }
    if (int rc = addRepeats({{&plan_a, &a}, {&plan_b, &b}}, args.repeat, args.json); rc != 0) return rc;
  }
  CompareOptions options;
  options.align_step = size_t(args.step - 1);
  const TraceComparison c = compareSides(a.inputs(), b.inputs(), options);
  if (args.json)
    std::cout << comparisonJson(c, a_files, b_files).dump(2) << "\n";
  else
    std::cout << comparisonText(c, sideLabel(a_files, args.repeat), sideLabel(b_files, args.repeat));

  if (!args.screenshot.empty()) {
#ifdef FUSELAB_HAVE_GUI
    try {
      writeComparePicture(args.screenshot, {a.traces[0], a.analyses[0], a_files[0]},
                          {b.traces[0], b.analyses[0], b_files[0]}, options.align_step);
      (args.json ? std::cerr : std::cout) << "wrote " << args.screenshot << "\n";
    } catch (const std::exception& e) {
      std::cerr << "fuselab compare: screenshot failed: " << e.what() << "\n";
      return kExitError;
    }
#else
    std::cerr << "fuselab compare: --screenshot needs the GUI, and this build has none (configured with "
                 "FUSELAB_GUI=OFF)\n";
    return kExitError;
#endif
  }
  return 0;
}

}  // namespace

void addCompareCommand(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("compare", "A/B: median and spread of each side, what changed beyond noise, kernels "
                                            "matched by launching op; several traces per side with --vs");
  auto a = std::make_shared<CompareArgs>();
  cmd->add_option("traces", a->files, "A B, or A's traces (.json / .json.gz, or folders of rank traces) when --vs gives B's")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("--vs", a->vs, "B's traces: compare every trace before --vs (side A) with these (side B)")
      ->check(CLI::ExistingPath);
  cmd->add_option("--step", a->step, "Align B on the start of this step of A (1 = the first profiled step)")
      ->capture_default_str();
  cmd->add_option("--repeat", a->repeat,
                  "Capture each side's workload N more times live (read from its first trace, a fuselab "
                  "capture) and add them to the side")
      ->type_name("N");
  cmd->add_flag("--json", a->json, "Print the comparison as JSON (stdout carries the JSON alone)");
  cmd->add_option("--screenshot", a->screenshot,
                  "Write a PNG of both timelines (first trace of each side) and the table (GUI builds)");
  cmd->callback([a, &exit_code] { exit_code = runCompare(*a); });
}

}  // namespace fuselab
