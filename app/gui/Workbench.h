// Runs the workbench panel's captures: Run submits one capture to a worker
// thread, Live submits again whenever a parameter changes (a waiting request
// is replaced, so the newest parameters win), Cancel stops between steps.
// Finished captures are shown in the Workspace; failures (out of memory, no
// GPU, CUPTI held by another profiler) become a message in the panel.
#pragma once

#include <cstdint>
#include <future>

#include "app/capture/CaptureWorker.h"
#include "ui/panels/WorkbenchPanel.h"

namespace fuselab {

class Workspace;

class Workbench {
 public:
  explicit Workbench(Workspace& workspace);  // installs itself as the workspace's workbench panel
  Workbench(const Workbench&) = delete;
  Workbench& operator=(const Workbench&) = delete;

  ui::WorkbenchPanel& panel() { return panel_; }
  // Submits a capture of the panel's current parameters (what Run does).
  void run();
  // Blocks until the worker is idle, then shows what it finished (tests).
  void waitIdle();
  const ui::WorkbenchStatus& status() const { return status_; }

 private:
  void draw();
  void poll();

  Workspace& ws_;
  ui::WorkbenchPanel panel_;
  ui::WorkbenchStatus status_;
  void measureCeilings();

  CaptureWorker worker_;
  uint64_t job_ = 0;
  std::future<CeilingMeasurement> ceilings_;  // a measurement in flight
};

}  // namespace fuselab
