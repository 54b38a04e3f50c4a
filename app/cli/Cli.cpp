#include "app/cli/Cli.h"

#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "app/capture/CaptureModule.h"
#include "app/capture/NcclPluginPath.h"
#include "app/cli/Commands.h"
#include "app/cli/OpenPaths.h"

namespace fuselab {

namespace {

int printNcclPluginPath() {
  if (const auto plugin = findNcclPlugin()) {
    std::cout << plugin->string() << "\n";
    return 0;
  }
  std::cerr << "fuselab: error: the NCCL profiler plugin (" << kNcclPluginFile << ") is not installed; looked for:";
  for (const auto& file : ncclPluginCandidates()) std::cerr << "\n  " << file.string();
  std::cerr << "\n";
  return 1;
}

}  // namespace

int runCli(int argc, char** argv) {
  CLI::App app{"fuselab: see what PyTorch code dispatches on the CPU and runs on the GPU.\n"
               "Without a subcommand it opens the desktop window, on the traces named (fuselab PATH...)."};
  // Without loading the capture module (LibTorch): --version stays instant.
  app.set_version_flag("--version", [] { return "fuselab " FUSELAB_VERSION "\n" + captureModuleSummary(); });
  bool nccl_plugin_path = false;
  app.add_flag("--nccl-plugin-path", nccl_plugin_path,
               "Print the path of fuselab's NCCL profiler plugin, for any PyTorch job: "
               "NCCL_PROFILER_PLUGIN=$(fuselab --nccl-plugin-path) torchrun ... (docs/runs.md)");
  app.require_subcommand(0, 1);
  app.footer("Reference: docs/ in fuselab's source tree (commands.md, runs.md, roofline.md, capture.md, "
             "large-traces.md, window.md); SUBCOMMAND --help lists a command's options.");

  // `fuselab PATH...` is `fuselab open PATH...`, as every viewer opens the
  // file named on its command line.
  std::vector<std::string> paths;
  app.add_option("paths", paths, "Trace files or folders to open in the window (same as 'open')");

  int exit_code = 0;
  addOpenCommand(app, exit_code);
  addExportCommand(app, exit_code);
  addAnalyzeCommand(app, exit_code);
  addCaptureCommand(app, exit_code);
  addScreenshotCommand(app, exit_code);
  addTutorialCommand(app, exit_code);
  addCompareCommand(app, exit_code);
  addSweepCommand(app, exit_code);
  addCeilingsCommand(app, exit_code);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "fuselab: error: " << e.what() << "\n";
    return 1;
  }
  if (nccl_plugin_path) return printNcclPluginPath();
  if (app.get_subcommands().empty()) return openPathsInWindow(paths);
  return exit_code;
}

}  // namespace fuselab
