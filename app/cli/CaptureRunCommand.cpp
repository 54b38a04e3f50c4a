#include "app/cli/CaptureRunCommand.h"

#include <chrono>
#include <iostream>

#include "app/cli/AnalyzeRun.h"
#include "app/capture/CaptureModule.h"
#include "app/capture/DistributedCapture.h"

namespace fuselab {

int runCaptureRunCommand(const WorkloadParams& params, const CaptureOptions& options, const CaptureRunArgs& args) {
  constexpr int kExitFailed = 1, kExitBadValue = 2;
  RunCaptureOptions run;
  run.out = args.out;
  run.timeout = std::chrono::seconds(args.timeout_s);
  std::ostream& status = args.json ? std::cerr : std::cout;
  run.rank0_says = [&status](const std::string& line) { status << "rank 0: " << line << "\n"; };
  const std::string ranks = std::to_string(params.ranks) + (params.ranks == 1 ? " rank" : " ranks");
  status << "starting " << ranks << " of " << params.workload << " on " << deviceName(params.device)
         << " (" << (params.device == Device::Cuda ? "NCCL" : "Gloo") << ")\n";
  RunFolder folder;
  try {
    folder = captureRun(params, options, run);
  } catch (const NoGpuError& e) {
    std::cerr << "fuselab capture: " << e.what() << ": use --device cpu\n";
    return kExitBadValue;
  } catch (const WorkloadError& e) {
    std::cerr << "fuselab capture: " << e.what() << "\n";
    return kExitBadValue;
  } catch (const std::exception& e) {  // CaptureError (a failed rank), CaptureUnavailable, filesystem
    std::cerr << "fuselab capture: " << e.what() << (std::string(e.what()).ends_with("\n") ? "" : "\n");
    return kExitFailed;
  }
  status << "captured " << ranks << ", " << options.steps << " steps each, into "
         << folder.path().string() << (folder.kept() ? "\n" : " (temporary: --out DIR keeps the run)\n");
  return analyzeRunCommand({folder.path().string()}, args.json, RunAnalysisOptions{}) == 0 ? 0 : kExitFailed;
}

}  // namespace fuselab
