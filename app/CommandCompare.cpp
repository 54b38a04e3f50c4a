// `fuselab compare A B [--step K] [--json] [--screenshot P.png]`: the A/B diff
// table of two traces (per-step kernels, launches, GPU busy, CPU dispatch,
// wall time, utilization, idle time by cause, kernels by name), with B aligned
// on the start of A's step K. --screenshot draws both timelines one above the
// other, aligned, with the table (GUI builds). A folder is a run: its ranks
// merged on the aligned axis.
// Exit codes: 0 ok, 2 bad arguments or an unreadable trace.
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "app/AnalyzeRun.h"
#include "app/Commands.h"
#include "profiling/analysis/Analysis.h"
#include "profiling/analysis/TraceCompare.h"
#include "profiling/trace/ChromeTraceImport.h"

#ifdef FUSELAB_HAVE_GUI
#include "app/gui/TeachingPictures.h"
#endif

namespace fuselab {

namespace {

constexpr int kExitError = 2;

struct CompareArgs {
  std::string a, b;
  int step = 1;
  bool json = false;
  std::string screenshot;
};

nlohmann::ordered_json comparisonJson(const TraceComparison& c, const std::string& a, const std::string& b) {
  auto opt = [](std::optional<double> v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(); };
  nlohmann::ordered_json j;
  j["a"] = a;
  j["b"] = b;
  j["alignment"] = c.alignment;
  j["aligned_on_step"] = c.aligned_on_step;
  j["b_offset_ns"] = c.b_offset_ns;
  auto& rows = j["rows"] = nlohmann::ordered_json::array();
  for (const CompareRow& r : c.rows) {
    nlohmann::ordered_json x;
    x["metric"] = r.metric;
    x["unit"] = r.unit == CompareUnit::Count ? "count" : r.unit == CompareUnit::Nanoseconds ? "ns" : "fraction";
    x["a"] = opt(r.a);
    x["b"] = opt(r.b);
    x["delta"] = opt(r.delta());
    x["ratio"] = opt(r.ratio());
    rows.push_back(std::move(x));
  }
  auto& kernels = j["kernels"] = nlohmann::ordered_json::array();
  for (const CompareKernelRow& k : c.kernels) {
    nlohmann::ordered_json x;
    x["name"] = k.name;
    x["category"] = std::string(categoryName(k.category));
    x["a_per_step"] = k.a_per_step;
    x["b_per_step"] = k.b_per_step;
    x["a_total_ns"] = k.a_total_ns;
    x["b_total_ns"] = k.b_total_ns;
    kernels.push_back(std::move(x));
  }
  return j;
}

int runCompare(const CompareArgs& args) {
  if (args.step < 1) {
    std::cerr << "fuselab compare: --step must be 1 or more (1 = the first profiled step), got " << args.step << "\n";
    return kExitError;
  }
  std::shared_ptr<Trace> traces[2];
  const std::string* paths[2] = {&args.a, &args.b};
  for (int i = 0; i < 2; ++i) {
    try {
      traces[i] = std::make_shared<Trace>(readTraceOrRun(*paths[i]));  // a folder: its ranks merged
    } catch (const std::exception& e) {
      std::cerr << "fuselab compare: cannot read " << *paths[i] << ": " << e.what() << "\n";
      return kExitError;
    }
  }
  auto aa = std::make_shared<TraceAnalysis>(analyzeTrace(*traces[0]));
  auto ba = std::make_shared<TraceAnalysis>(analyzeTrace(*traces[1]));
  CompareOptions options;
  options.align_step = size_t(args.step - 1);
  const TraceComparison c = compareTraces(*traces[0], *aa, *traces[1], *ba, options);
  if (args.json)
    std::cout << comparisonJson(c, args.a, args.b).dump(2) << "\n";
  else
    std::cout << comparisonText(c, args.a, args.b);

  if (!args.screenshot.empty()) {
#ifdef FUSELAB_HAVE_GUI
    try {
      writeComparePicture(args.screenshot, {traces[0], aa, args.a}, {traces[1], ba, args.b}, options.align_step);
      if (!args.json) std::cout << "wrote " << args.screenshot << "\n";
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
  auto* cmd = app.add_subcommand("compare", "A/B: the diff table of two traces (e.g. eager vs fused MLP), aligned on "
                                            "a step");
  auto a = std::make_shared<CompareArgs>();
  cmd->add_option("a", a->a, "Trace A (.json / .json.gz), or a folder of rank traces")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("b", a->b, "Trace B (.json / .json.gz), or a folder of rank traces")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("--step", a->step, "Align B on the start of this step of A (1 = the first profiled step)")
      ->capture_default_str();
  cmd->add_flag("--json", a->json, "Print the comparison as JSON");
  cmd->add_option("--screenshot", a->screenshot, "Write a PNG of both timelines and the table (GUI builds)");
  cmd->callback([a, &exit_code] { exit_code = runCompare(*a); });
}

}  // namespace fuselab
