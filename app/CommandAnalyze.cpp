// `fuselab analyze TRACE [--json] [--gap-threshold-us N]`: the analysis of a
// trace file as a text summary or as JSON.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "app/AnalysisReport.h"
#include "app/Commands.h"
#include "profiling/analysis/Analysis.h"
#include "profiling/trace/ChromeTraceImport.h"

namespace fuselab {

namespace {

struct AnalyzeArgs {
  std::string trace;
  bool json = false;
  std::string gap_threshold_us = "30";
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
  const auto threshold_ns = parseThresholdUs(args.gap_threshold_us);
  if (!threshold_ns) {
    std::cerr << "fuselab analyze: --gap-threshold-us must be a number of microseconds from "
              << AnalysisOptions::kMinGapThresholdNs / 1000 << " to " << AnalysisOptions::kMaxGapThresholdNs / 1000
              << ", got '" << args.gap_threshold_us << "'\n";
    return 1;
  }
  const std::filesystem::path path(args.trace);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    std::cerr << "fuselab analyze: " << args.trace
              << (std::filesystem::exists(path, ec) ? ": not a regular file\n" : ": no such file\n");
    return 1;
  }
  Trace trace;
  try {
    trace = importChromeTrace(path);
  } catch (const std::exception& e) {  // TraceImportError says what and where
    std::cerr << "fuselab analyze: cannot read " << args.trace << ": " << e.what() << "\n";
    return 1;
  }
  AnalysisOptions options;
  options.gap_threshold_ns = *threshold_ns;
  const TraceAnalysis analysis = analyzeTrace(trace, options);
  if (args.json)
    std::cout << analysisJson(trace, analysis).dump(2) << "\n";
  else
    std::cout << analysisText(trace, analysis);
  return 0;
}

}  // namespace

void addAnalyzeCommand(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "analyze", "Summarize a trace: steps, GPU utilization, idle time and its causes, verdict, diagnostics");
  auto args = std::make_shared<AnalyzeArgs>();
  cmd->add_option("trace", args->trace, "Chrome/Kineto trace file (.json / .json.gz)")->required();
  cmd->add_flag("--json", args->json, "Print the analysis as JSON instead of text");
  cmd->add_option("--gap-threshold-us", args->gap_threshold_us,
                  "Idle gaps shorter than this (in us) that the CPU did not cause count as kernel wait")
      ->capture_default_str();
  cmd->callback([args, &exit_code] { exit_code = runAnalyze(*args); });
}

}  // namespace fuselab
