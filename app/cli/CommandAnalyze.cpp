// `fuselab analyze TRACE [--json] [--gap-threshold-us N]`: the analysis of a
// trace file as a text summary or as JSON.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "app/Settings.h"
#include "app/cli/AnalyzeRun.h"
#include "app/cli/Commands.h"
#include "app/report/AnalysisReport.h"
#include "app/report/CriticalPathReport.h"
#include "profiling/analysis/critical_path/AnalysisWithPath.h"
#include "profiling/trace/ChromeTraceImport.h"

namespace fuselab {

namespace {

struct AnalyzeArgs {
  std::vector<std::string> traces;
  bool json = false;
  std::optional<std::string> gap_threshold_us;  // unset: the saved setting (the window's), 30 us when none
  std::string align;  // "" = the default for runs
};

// Microseconds as typed by the user -> nanoseconds within the allowed range.
std::optional<int64_t> parseThresholdUs(const std::string& text) {
  if (text.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  double us = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(us)) return std::nullopt;
  double ns = us * 1000.0;
  if (ns < double(AnalysisOptions::kMinGapThresholdNs) || ns > double(AnalysisOptions::kMaxGapThresholdNs))
    return std::nullopt;
  return static_cast<int64_t>(std::llround(ns));
}

int runAnalyze(const AnalyzeArgs& args) {
  // The window's settings (gap threshold, measured ceilings), so that the
  // CLI and the window say the same of one file.
  std::string warning;
  const Settings settings = loadSettings(defaultSettingsFile(), &warning);
  if (!warning.empty()) std::cerr << "fuselab analyze: " << warning << "\n";
  const auto threshold_ns =
      args.gap_threshold_us ? parseThresholdUs(*args.gap_threshold_us) : std::optional<int64_t>(settings.gap_threshold_ns);
  if (!threshold_ns) {
    std::cerr << "fuselab analyze: --gap-threshold-us must be a number of microseconds from "
              << AnalysisOptions::kMinGapThresholdNs / 1000 << " to " << AnalysisOptions::kMaxGapThresholdNs / 1000
              << ", got '" << args.gap_threshold_us.value_or("") << "'\n";
    return 1;
  }
  if (isRunArgument(args.traces)) {
    RunAnalysisOptions run_options;
    run_options.trace.gap_threshold_ns = *threshold_ns;
    run_options.trace.measured_ceilings = settings.measured_ceilings;
    if (!args.align.empty()) {
      run_options.align = alignMethodFromName(args.align);
      if (!run_options.align) {
        std::cerr << "fuselab analyze: --align must be none, epoch or collectives, got '" << args.align << "'\n";
        return 1;
      }
    }
    return analyzeRunCommand(args.traces, args.json, run_options);
  }
  if (!args.align.empty()) {
    std::cerr << "fuselab analyze: --align applies to runs (a folder or several trace files)\n";
    return 1;
  }
  const std::string& trace_path = args.traces.front();
  const std::filesystem::path path(trace_path);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    std::cerr << "fuselab analyze: " << trace_path
              << (std::filesystem::exists(path, ec) ? ": not a regular file\n" : ": no such file\n");
    return 1;
  }
  Trace trace;
  try {
    trace = importChromeTrace(path);
  } catch (const std::exception& e) {  // TraceImportError says what and where
    std::cerr << "fuselab analyze: cannot read " << trace_path << ": " << e.what() << "\n";
    return 1;
  }
  AnalysisOptions options;
  options.gap_threshold_ns = *threshold_ns;
  options.measured_ceilings = settings.measured_ceilings;
  const AnalysisWithPath result = analyzeTraceWithPath(trace, options);
  if (args.json) {
    nlohmann::ordered_json j = analysisJson(trace, result.analysis);
    j["critical_path"] = criticalPathJson(PathTraces(trace), result.critical_path, trace.beginNs());
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << analysisText(trace, result.analysis) << "\n";
    writeCriticalPathText(std::cout, PathTraces(trace), result.critical_path);
  }
  return 0;
}

}  // namespace

void addAnalyzeCommand(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "analyze", "Summarize a trace: steps, GPU utilization, idle time and its causes, verdict, diagnostics");
  auto args = std::make_shared<AnalyzeArgs>();
  cmd->add_option("trace", args->traces,
                  "Chrome/Kineto trace file (.json / .json.gz); a folder or several files are the ranks of one run")
      ->required();
  cmd->add_option("--align", args->align,
                  "Runs: align rank clocks by none, epoch or collectives (default: collectives when they match)");
  cmd->add_flag("--json", args->json, "Print the analysis as JSON instead of text");
  cmd->add_option("--gap-threshold-us", args->gap_threshold_us,
                  "Idle gaps shorter than this (in us) that the CPU did not cause count as kernel wait "
                  "(default: the window's saved setting, else 30)");
  cmd->callback([args, &exit_code] { exit_code = runAnalyze(*args); });
}

}  // namespace fuselab
