// `fuselab ceilings [--json] [--no-save]`: measures the present GPU's dense
// GEMM peaks (bf16, fp16, tf32, fp32) and device-memory copy bandwidth with
// short benchmarks in the capture module, and keeps them in the settings under
// the GPU's name, where `analyze`, the window and the sweep find them.
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "app/capture/CaptureModule.h"
#include "app/cli/Commands.h"
#include "app/capture/GpuProbe.h"
#include "app/capture/MeasuredCeilings.h"
#include "app/Settings.h"
#include "profiling/trace/AtomicFile.h"

namespace fuselab {

namespace {

constexpr int kExitFailed = 1;

struct CeilingsArgs {
  bool json = false;
  bool no_save = false;
};

int runCeilings(const CeilingsArgs& args) {
  if (!nvidiaGpuVisible()) {
    std::cerr << "fuselab ceilings: no NVIDIA GPU on this machine. Ceilings are measured on the GPU itself; "
                 "traces from a GPU measured before use its ceilings, others the published peaks of their GPU.\n";
    return kExitFailed;
  }
  std::ostream& status = args.json ? std::cerr : std::cout;
  CeilingMeasurement m;
  try {
    CaptureBackend& backend = captureBackend();
    if (!backend.gpuAvailable()) {
      std::cerr << "fuselab ceilings: CUDA sees no usable GPU (driver, CUDA_VISIBLE_DEVICES?)\n";
      return kExitFailed;
    }
    status << "measuring GEMM peaks and copy bandwidth (a few seconds)...\n";
    m = backend.measureCeilings();
  } catch (const std::exception& e) {  // CaptureUnavailable, CaptureError
    std::cerr << "fuselab ceilings: " << e.what() << "\n";
    return kExitFailed;
  }
  const Ceilings c = measuredCeilingsFrom(m);
  std::string saved_to;
  if (!args.no_save) {
    const auto file = defaultSettingsFile();
    if (file.empty()) {
      std::cerr << "fuselab ceilings: no settings folder (neither XDG_CONFIG_HOME nor HOME is set): not saved\n";
    } else {
      try {
        Settings settings = loadSettings(file);
        settings.setMeasuredCeilings(c);
        saveSettings(settings, file);
        saved_to = file.string();
      } catch (const FileWriteError& e) {
        std::cerr << "fuselab ceilings: not saved: " << e.what() << "\n";
        return kExitFailed;
      }
    }
  }
  if (args.json) {
    nlohmann::ordered_json j = {{"gpu", c.gpu},
                                {"source", c.source},
                                {"values",
                                 {{"bf16_tflops", c.bf16_tflops},
                                  {"fp16_tflops", c.fp16_tflops},
                                  {"tf32_tflops", c.tf32_tflops},
                                  {"fp32_tflops", c.fp32_tflops},
                                  {"copy_gbps", c.copy_gbps}}},
                                {"details", m.details},
                                {"saved_to", saved_to.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(saved_to)}};
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << "Ceilings of " << c.gpu << " (measured):\n";
  for (const std::string& d : m.details) std::cout << "  " << d << "\n";
  if (!saved_to.empty()) std::cout << "saved in " << saved_to << "\n";
  if (auto published = publishedCeilings(c.gpu))
    std::cout << "published peaks: bf16 " << published->bf16_tflops << " TFLOP/s, memory " << published->copy_gbps
              << " GB/s\n";
  return 0;
}

}  // namespace

void addCeilingsCommand(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "ceilings", "Measure this GPU's dense GEMM peaks and copy bandwidth (the roofline of analyze) and keep them");
  auto args = std::make_shared<CeilingsArgs>();
  cmd->add_flag("--json", args->json, "Print the ceilings as JSON");
  cmd->add_flag("--no-save", args->no_save, "Do not keep them in the settings");
  cmd->callback([args, &exit_code] { exit_code = runCeilings(*args); });
}

}  // namespace fuselab
