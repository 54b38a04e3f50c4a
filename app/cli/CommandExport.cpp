// `fuselab export IN OUT [--gzip]`: reads a Chrome/Kineto trace and writes it
// back in fuselab's Kineto dialect (.json <-> .json.gz); with OUT.folded,
// its folded stacks (FoldedStacks.h) of CPU or GPU time over the captured
// steps or --range. OUT is written atomically and only once IN has been read
// completely.
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "app/cli/Commands.h"
#include "app/cli/TimeRangeArg.h"
#include "profiling/analysis/stacks/FoldedStacks.h"
#include "profiling/trace/AtomicFile.h"
#include "profiling/trace/ChromeTraceExport.h"
#include "profiling/trace/ChromeTraceImport.h"

namespace fuselab {

namespace {

struct ExportArgs {
  std::string input;
  std::string output;
  bool gzip = false;
  std::string metric = "cpu";
  std::string range;
};

std::string sizeText(uintmax_t bytes) {
  std::ostringstream s;
  if (bytes >= (1u << 20)) {
    s << std::fixed << std::setprecision(1) << double(bytes) / double(1u << 20) << " MB";
  } else if (bytes >= 1024) {
    s << std::fixed << std::setprecision(1) << double(bytes) / 1024.0 << " KB";
  } else {
    s << bytes << " bytes";
  }
  return s.str();
}

bool isFolded(const std::string& path) { return std::filesystem::path(path).extension() == ".folded"; }

int writeFolded(const Trace& trace, const ExportArgs& args) {
  FlameGraphRange range = analysisFlameRange(trace);
  if (!args.range.empty()) {
    std::string why;
    const auto r = parseTimeRange(args.range, &why);
    if (!r) {
      std::cerr << "fuselab export: --range: " << why << "\n";
      return 2;
    }
    range = FlameGraphRange{trace.beginNs() + int64_t(r->begin_ns), trace.beginNs() + int64_t(r->end_ns), {}};
  }
  const FlameMetric metric = args.metric == "gpu" ? FlameMetric::Gpu : FlameMetric::Cpu;
  const FlameGraph graph = buildFlameGraph(trace, range);
  const std::string text = foldedStacks(trace, graph, metric);
  try {
    writeFileAtomically(args.output, text);
  } catch (const FileWriteError& e) {
    std::cerr << "fuselab export: " << e.what() << "\n";
    return 1;
  }
  const size_t lines = size_t(std::count(text.begin(), text.end(), '\n'));
  std::cout << "wrote " << args.output << ": " << lines << " stacks of " << args.metric << " time, "
            << std::llround(double(graph.total(metric)) / 1000.0) << " us in all\n";
  if (lines == 0)
    std::cout << "  note: no " << args.metric << " time in that range"
              << (metric == FlameMetric::Gpu ? " (the trace has no GPU ops there)" : "") << "\n";
  if (const uint64_t n = graph.python_frames_nested_by_time)
    std::cout << "  note: " << n
              << (n == 1 ? " Python frame nested by time (its Python parent id names no caller open around it)\n"
                         : " Python frames nested by time (their Python parent id names no caller open around them)\n");
  return 0;
}

int runExport(const ExportArgs& args) {
  Trace trace;
  try {
    trace = importChromeTrace(args.input);
  } catch (const TraceImportError& e) {
    std::cerr << "fuselab export: " << e.what() << "\n";
    return 1;
  }
  if (isFolded(args.output)) return writeFolded(trace, args);
  if (!args.range.empty() || args.metric != "cpu") {
    std::cerr << "fuselab export: --metric and --range are for folded stacks (OUT ending in .folded)\n";
    return 2;
  }
  bool gzip = args.gzip || std::filesystem::path(args.output).extension() == ".gz";
  try {
    exportChromeTrace(trace, args.output, ExportOptions{.gzip = gzip});
  } catch (const std::exception& e) {  // TraceExportError, FileWriteError
    std::cerr << "fuselab export: " << e.what() << "\n";
    return 1;
  }
  struct stat st {};
  bool have_size = ::stat(args.output.c_str(), &st) == 0;
  uintmax_t bytes = have_size ? uintmax_t(st.st_size) : 0;
  std::cout << "wrote " << args.output << ": " << trace.eventCount() << " events on " << trace.nonEmptyTrackCount()
            << " tracks, " << trace.launches().size() << " launch links, " << trace.flows.size() << " other flows, "
            << trace.raw_events.size() << " other events" << (have_size ? ", " + sizeText(bytes) : "") << (gzip ? " (gzip)" : "")
            << "\n";
  for (const std::string& w : trace.meta.warnings) std::cout << "  note: " << w << "\n";
  return 0;
}

}  // namespace

void addExportCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ExportArgs>();
  auto* cmd = app.add_subcommand(
      "export", "Convert a trace (.json <-> .json.gz) into fuselab's Kineto dialect, or write its folded stacks (.folded)");
  cmd->add_option("in", args->input, "Chrome/Kineto trace to read (.json or .json.gz)")->required();
  cmd->add_option("out", args->output,
                  "File to write: gzip when it ends in .gz, folded stacks (flamegraph.pl, speedscope) in .folded")
      ->required();
  cmd->add_flag("--gzip", args->gzip, "Compress the output even if its name does not end in .gz");
  cmd->add_option("--metric", args->metric, "Folded stacks: self time on the CPU, or GPU time under its launch's stack")
      ->check(CLI::IsMember({"cpu", "gpu"}));
  cmd->add_option("--range", args->range,
                  "Folded stacks: START:END since the trace start (default: the captured steps), e.g. 1ms:3ms");
  cmd->callback([args, &exit_code] { exit_code = runExport(*args); });
}

}  // namespace fuselab
