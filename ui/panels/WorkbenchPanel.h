// The workbench: pick a workload, set its sizes, dtype, device, eager or
// CUDA graph, steps and warm-up, then Run one capture or go Live (capture
// again whenever a parameter changes). Draws and edits plain parameters
// only; the owner (app/gui/Workbench) runs the captures.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "profiling/capture_api/WorkloadParams.h"
#include "ui/Theme.h"

namespace fuselab::ui {

struct WorkbenchRun {
  WorkloadParams params;
  int steps = 3;
  int warmup = 3;
  bool counters = false;  // a counter pass after the steps (CaptureOptions::counters)
};

// What the owner reports back each frame.
struct WorkbenchStatus {
  bool busy = false;
  double fraction = 0;     // 0..1 of the running capture
  std::string phase;       // "warmup 2/3", "step 1/3", ...
  std::string message;     // outcome of the last capture (or why it failed)
  bool message_is_error = false;
  bool gpu_available = true;
  bool measuring_ceilings = false;  // `fuselab ceilings` running on the GPU
  double forward_s = 0;             // one forward of the running capture (0: not timed yet)
  double estimated_s = 0;           // the whole capture, from that forward
  std::optional<double> seconds_left;
};

// RunSmaller: the running capture is a long wait; cancel it and capture the
// smaller sizes the panel now holds.
enum class WorkbenchAction { None, Run, Cancel, MeasureCeilings, RunSmaller };

// Slider ranges (the capture checks the same limits and names them in its errors).
struct WorkbenchRanges {
  static constexpr int64_t kMaxBatch = 4096, kMaxSeq = 8192, kMaxDim = 16384, kMaxHidden = 65536,
                           kMaxOut = 16384;
  static constexpr int kMaxSteps = 50, kMaxWarmup = 50;
};

class WorkbenchPanel {
 public:
  // `workloads` in the order of the toggle; each one's defaults seed its sliders.
  explicit WorkbenchPanel(std::vector<WorkloadInfo> workloads);

  // Draws into the current window. Run: the user pressed Run, switched Live
  // on, or changed a parameter while Live is on.
  WorkbenchAction draw(const Theme& theme, const WorkbenchStatus& status);

  const WorkbenchRun& run() const { return run_; }
  bool live() const { return live_; }
  // Selects a workload by name (false if unknown): what the user last chose
  // for it on this device, else its defaults for the device.
  bool selectWorkload(const std::string& name);
  // Moves to `device`: what the user last chose there for this workload, else
  // the device's defaults (the CPU's capture in about a second), unless the
  // user changed the sizes here, which are then kept.
  void setDevice(Device device);

 private:
  bool drawSizes(const Theme& theme);
  // The progress bar with the time left, and before a long wait its estimate
  // with a smaller size to capture instead (true: the user took it).
  bool drawProgress(const WorkbenchStatus& status);
  // The sizes or dtype differ from the workload's defaults on its device.
  bool sizesChanged() const;

  std::vector<WorkloadInfo> workloads_;
  size_t current_ = 0;
  WorkbenchRun run_;
  bool live_ = false;
  // What the user left behind per workload (its index) and device.
  std::map<std::pair<size_t, Device>, WorkloadParams> chosen_;
};

}  // namespace fuselab::ui
