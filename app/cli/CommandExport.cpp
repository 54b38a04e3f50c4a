// `fuselab export IN OUT [--gzip]`: reads a Chrome/Kineto trace and writes it
// back in fuselab's Kineto dialect (.json <-> .json.gz). OUT is written
// atomically and only once IN has been read completely.
#include <sys/stat.h>

#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "app/cli/Commands.h"
#include "profiling/trace/AtomicFile.h"
#include "profiling/trace/ChromeTraceExport.h"
#include "profiling/trace/ChromeTraceImport.h"

namespace fuselab {

namespace {

struct ExportArgs {
  std::string input;
  std::string output;
  bool gzip = false;
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

int runExport(const ExportArgs& args) {
  Trace trace;
  try {
    trace = importChromeTrace(args.input);
  } catch (const TraceImportError& e) {
    std::cerr << "fuselab export: " << e.what() << "\n";
    return 1;
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
  auto* cmd = app.add_subcommand("export", "Convert a trace (.json <-> .json.gz) into fuselab's Kineto dialect");
  cmd->add_option("in", args->input, "Chrome/Kineto trace to read (.json or .json.gz)")->required();
  cmd->add_option("out", args->output, "File to write (gzip when it ends in .gz)")->required();
  cmd->add_flag("--gzip", args->gzip, "Compress the output even if its name does not end in .gz");
  cmd->callback([args, &exit_code] { exit_code = runExport(*args); });
}

}  // namespace fuselab
