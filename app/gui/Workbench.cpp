#include "app/gui/Workbench.h"

#include <chrono>
#include <cmath>

#include "app/capture/CaptureModule.h"
#include "app/capture/GpuProbe.h"
#include "app/capture/MeasuredCeilings.h"
#include "app/gui/Workspace.h"
#include "profiling/capture_api/WorkloadCatalog.h"

namespace fuselab {

Workbench::Workbench(Workspace& workspace) : ws_(workspace), panel_(workloadCatalog()) {
  // The capture module (LibTorch) loads at the first Run, not with the window:
  // until then the driver's presence picks the device (poll() corrects it).
  status_.gpu_available = nvidiaGpuVisible();
  if (!status_.gpu_available) panel_.setDevice(Device::Cpu);
  ws_.setWorkbenchPanel("Workbench", [this] { draw(); });
}

void Workbench::run() {
  if (ceilings_.valid()) return;  // the GPU is measuring its ceilings: one GPU job at a time
  CaptureRequest request;
  request.params = panel_.run().params;
  request.options.steps = panel_.run().steps;
  request.options.warmup = panel_.run().warmup;
  request.options.counters = panel_.run().counters && request.params.device == Device::Cuda;
  job_ = worker_.submit(std::move(request));
  status_.message.clear();
  status_.message_is_error = false;
}

void Workbench::measureCeilings() {
  if (ceilings_.valid() || worker_.status().busy) return;  // one GPU job at a time
  status_.message = "measuring GEMM peaks and copy bandwidth...";
  status_.message_is_error = false;
  ceilings_ = std::async(std::launch::async, [] { return captureBackend().measureCeilings(); });
}

void Workbench::poll() {
  if (ceilings_.valid() && ceilings_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
    try {
      const Ceilings c = measuredCeilingsFrom(ceilings_.get());
      ws_.setMeasuredCeilings(c);
      status_.message = "ceilings of " + c.gpu + ": bf16 " + std::to_string(std::lround(c.bf16_tflops)) +
                        " TFLOP/s, copy " + std::to_string(std::lround(c.copy_gbps)) + " GB/s (kept in the settings)";
      status_.message_is_error = false;
    } catch (const std::exception& e) {  // no module, no GPU
      status_.message = "cannot measure ceilings: " + std::string(e.what());
      status_.message_is_error = true;
    }
  }
  status_.measuring_ceilings = ceilings_.valid();
  if (auto r = worker_.poll()) {
    if (captureModuleLoaded()) status_.gpu_available = captureBackend().gpuAvailable();
    if (!status_.gpu_available) panel_.setDevice(Device::Cpu);
    if (r->run) {
      ws_.showRun(r->run, "live run: " + std::to_string(r->request.params.ranks) + " ranks of " + r->request.params.workload);
      status_.message = "captured " + std::to_string(r->request.params.ranks) + " ranks, " +
                        std::to_string(r->request.options.steps) + " steps each, in " +
                        std::to_string(static_cast<int>(r->seconds * 1000)) + " ms";
      status_.message_is_error = false;
    } else if (r->ok()) {
      const std::string label = "live: " + r->trace->meta.trace_name;
      ws_.showTrace(r->trace, label, /*unsaved=*/true);
      const std::string steps = r->out_of_memory ? std::to_string(r->steps_done) + " of " +
                                                       std::to_string(r->request.options.steps)
                                                 : std::to_string(r->request.options.steps);
      status_.message = "captured " + steps + " steps in " + std::to_string(static_cast<int>(r->seconds * 1000)) + " ms";
      for (const std::string& m : r->messages) status_.message += "\n" + m;
      status_.message_is_error = r->out_of_memory;
    } else {
      status_.message = r->cancelled ? "capture cancelled" : "capture failed: " + r->error;
      status_.message_is_error = !r->cancelled;
    }
  }
  const CaptureWorker::Status s = worker_.status();
  status_.busy = s.busy;
  status_.fraction = s.fraction;
  status_.phase = s.phase;
  status_.forward_s = s.forward_s;
  status_.estimated_s = s.estimated_s;
  status_.seconds_left = s.seconds_left;
}

void Workbench::waitIdle() {
  worker_.waitIdle();
  poll();
}

void Workbench::draw() {
  poll();
  switch (panel_.draw(ws_.theme(), status_)) {
    case ui::WorkbenchAction::Run: run(); break;
    case ui::WorkbenchAction::Cancel: worker_.cancel(); break;
    case ui::WorkbenchAction::RunSmaller:  // the panel holds the smaller sizes
      worker_.cancel();
      run();
      break;
    case ui::WorkbenchAction::MeasureCeilings: measureCeilings(); break;
    case ui::WorkbenchAction::None: break;
  }
}

}  // namespace fuselab
